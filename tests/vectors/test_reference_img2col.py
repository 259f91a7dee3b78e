"""The independent TIMG2COL reference (vectors/reference/img2col.py) against the spec's own
TIMG2COL test points (tests/asl/tile/layout-and-rearrangement/layout/TIMG2COL/ at e599a3d3)
and against facts of the executable ASL that the reference's nested loops do not use: the
closed-form output extents (TileImageToColumnOutputHeight/Width), the storage index of a
feature-map element (TileImageToColumnSourceIndex), the per-coordinate decomposition of a
matrix coordinate (TileImageToColumnReferencedSourcesDefined), the operand rules of
TileOperandsLegal_TIMG2COL and the type sets (TileCarrierOnlyDataTypeSupported,
TileImg2ColDataTypeSupported)."""
from __future__ import annotations

import itertools

import pytest

from pto_avs.vectors.reference import img2col as ref

# TileDataType of asl/arch/data-types/tile-data-types.asl with its element bits; the five
# four-bit types of TileDataTypeIsFourBit.
TYPE_BITS = {"FP64": 64, "FP32": 32, "TF32": 32, "HF32": 32, "FP16": 16, "BF16": 16, "HiF8": 8, "E4M3": 8,
             "E5M2": 8, "E3M2": 8, "E2M3": 8, "E2M1X2": 4, "E1M2X2": 4, "E8M0": 8, "HiF4X2": 4, "S64": 64, "S32": 32,
             "S16": 16, "S8": 8, "S4X2": 4, "U64": 64, "U32": 32, "U16": 16, "U8": 8, "U4X2": 4}


def tile(dtype, valid, *, cols=None, capacity=128, layout="RowMajor", location="Matrix", defined=None):
    cols = cols or valid[1]
    rows = capacity * 8 // (TYPE_BITS[dtype] * cols)
    return {"dtype": dtype, "layout": layout, "location": location, "capacity": capacity, "rows": rows,
            "cols": cols, "valid": valid,
            "defined": set(range(valid[0] * cols)) if defined is None else set(defined)}


# tile-exec-timg2col-map-001: T40 FP32 1x4 Matrix [11, 12, 13, 14], NC1HWC0 N=C1=C0=1, H=W=2,
# a 2x2 filter, strides and dilations 1, no padding, one logical channel, padding value 99.
MAP = {"batches": 1, "channel_groups": 1, "height": 2, "width": 2, "channels_per_group": 1, "filter_height": 2,
       "filter_width": 2, "logical_channels": 1, "padding": 99}
# tile-exec-timg2col-pad-001: T42 S16 1x2 Matrix, element (0,0) = 21 written (element 1 never is),
# H=W=1, C0=2, a 1x1 filter, one logical channel, padding value 77.
PAD = {"batches": 1, "channel_groups": 1, "height": 1, "width": 1, "channels_per_group": 2, "filter_height": 1,
       "filter_width": 1, "logical_channels": 1, "padding": 77}


def test_map_point_is_the_patch_in_c1_filter_row_filter_column_c0_order():
    source, destination = tile("FP32", (1, 4)), tile("FP32", (1, 4))
    assert ref.check(MAP, source, destination, 0, 0) == [[0, 1, 2, 3]]  # TileOperandsLegal_TIMG2COL(41, 40, 0, 0)
    assert ref.img2col(MAP, source, destination, 0, 0, {0: 11, 1: 12, 2: 13, 3: 14}) == [[11, 12, 13, 14]]


def test_pad_point_fills_the_unassigned_channel_with_the_padding_value():
    source = tile("S16", (1, 2), defined={0})  # only element 0 is written: channel 1 is never read
    destination = tile("S16", (1, 2))
    assert ref.img2col(PAD, source, destination, 0, 0, {0: 21}) == [[21, 77]]


def test_padding_value_is_cut_to_the_element_bits():
    """TileRawElementValue of the descriptor's padding Word: the low bits of the element type."""
    fm = dict(PAD, padding=0xFFFF_FFFF_FFFF_1234)
    out = ref.img2col(fm, tile("S16", (1, 2), defined={0}), tile("S16", (1, 2)), 0, 0, {0: 21})
    assert out == [[21, 0x1234]]


def asl_extent(size, before, after, taps, stride, dilation):
    """TileImageToColumnOutputHeight/Width: 0 when the receptive field exceeds the padded axis,
    else (padded - receptive) DIVRM stride + 1."""
    receptive, padded = dilation * (taps - 1) + 1, size + before + after
    return 0 if padded < receptive else (padded - receptive) // stride + 1


@pytest.mark.parametrize("size, before, after", [(1, 0, 0), (3, 0, 0), (5, 1, 2), (2, 3, 0), (7, 0, 4)])
def test_output_extent_is_the_asl_closed_form(size, before, after):
    for taps, stride, dilation in itertools.product(range(1, 5), range(1, 5), range(1, 4)):
        assert ref.output_extent(size, before, after, taps, stride, dilation) == \
            asl_extent(size, before, after, taps, stride, dilation), (taps, stride, dilation)


def test_storage_order_is_the_asl_source_index():
    fm = ref.full({"layout": "NDC1HWC0", "batches": 2, "depth": 3, "channel_groups": 2, "height": 3, "width": 2,
                   "channels_per_group": 4, "filter_height": 1, "filter_width": 1})
    for (n, d, c1, h, w, c0), index in ref.places(fm).items():
        assert index == (((((n * fm["depth"] + d) * fm["channel_groups"] + c1) * fm["height"] + h) * fm["width"] + w)
                         * fm["channels_per_group"] + c0)


def asl_element(fm, row, column):
    """The source index (or None: the padding value) of matrix coordinate (row, column), decomposed
    as TileImageToColumnReferencedSourcesDefined does."""
    out_h = asl_extent(fm["height"], fm["pad_top"], fm["pad_bottom"], fm["filter_height"], fm["stride_height"],
                       fm["dilation_height"])
    out_w = asl_extent(fm["width"], fm["pad_left"], fm["pad_right"], fm["filter_width"], fm["stride_width"],
                       fm["dilation_width"])
    rows_per_batch, rows_per_depth = fm["depth"] * out_h * out_w, out_h * out_w
    per_group = fm["filter_height"] * fm["filter_width"] * fm["channels_per_group"]
    per_filter_row = fm["filter_width"] * fm["channels_per_group"]
    batch, rest = divmod(row, rows_per_batch)
    depth, rest = divmod(rest, rows_per_depth)
    out_row, out_column = divmod(rest, out_w)
    group, rest = divmod(column, per_group)
    filter_row, rest = divmod(rest, per_filter_row)
    filter_column, channel = divmod(rest, fm["channels_per_group"])
    h = out_row * fm["stride_height"] + filter_row * fm["dilation_height"] - fm["pad_top"]
    w = out_column * fm["stride_width"] + filter_column * fm["dilation_width"] - fm["pad_left"]
    if group * fm["channels_per_group"] + channel >= fm["logical_channels"] or not (
            0 <= h < fm["height"] and 0 <= w < fm["width"]):
        return None
    return (((((batch * fm["depth"] + depth) * fm["channel_groups"] + group) * fm["height"] + h) * fm["width"] + w)
            * fm["channels_per_group"] + channel)


FEATURE_MAPS = [
    MAP, PAD,
    {"batches": 2, "channel_groups": 2, "height": 4, "width": 5, "channels_per_group": 2, "filter_height": 2,
     "filter_width": 3, "stride_height": 2, "stride_width": 1, "dilation_height": 1, "dilation_width": 2,
     "pad_left": 1, "pad_right": 2, "pad_top": 1, "pad_bottom": 0, "logical_channels": 3},
    {"layout": "NDC1HWC0", "batches": 1, "depth": 2, "channel_groups": 1, "height": 3, "width": 3,
     "channels_per_group": 3, "filter_height": 3, "filter_width": 1, "stride_height": 3, "stride_width": 2,
     "pad_top": 2, "pad_bottom": 2, "logical_channels": 2},
    {"batches": 1, "channel_groups": 3, "height": 2, "width": 2, "channels_per_group": 1, "filter_height": 2,
     "filter_width": 2, "dilation_height": 3, "dilation_width": 3, "pad_left": 2, "pad_right": 2, "pad_top": 2,
     "pad_bottom": 2},
]


@pytest.mark.parametrize("fm", FEATURE_MAPS, ids=range(len(FEATURE_MAPS)))
def test_matrix_is_the_asl_decomposition_of_every_coordinate(fm):
    full = ref.full(fm)
    whole = ref.matrix(fm)
    out_h = asl_extent(full["height"], full["pad_top"], full["pad_bottom"], full["filter_height"],
                       full["stride_height"], full["dilation_height"])
    out_w = asl_extent(full["width"], full["pad_left"], full["pad_right"], full["filter_width"], full["stride_width"],
                       full["dilation_width"])
    assert len(whole) == full["batches"] * full["depth"] * out_h * out_w
    columns = full["channel_groups"] * full["filter_height"] * full["filter_width"] * full["channels_per_group"]
    assert {len(row) for row in whole} == {columns}
    assert [[asl_element(full, r, c) for c in range(columns)] for r in range(len(whole))] == whole


def test_a_window_is_the_matrix_at_pos_m_and_pos_k_and_must_lie_inside_it():
    fm = FEATURE_MAPS[2]
    whole = ref.matrix(fm)
    source = tile("U16", (1, 160), cols=160, capacity=512)
    window = ref.check(fm, source, tile("U16", (3, 5), cols=8), 4, 7)
    assert window == [row[7:12] for row in whole[4:7]]
    last_m, last_k = len(whole) - 3, len(whole[0]) - 5
    ref.check(fm, source, tile("U16", (3, 5), cols=8), last_m, last_k)
    for pos_m, pos_k in ((last_m + 1, 0), (0, last_k + 1)):
        with pytest.raises(ref.Illegal, match="window"):
            ref.check(fm, source, tile("U16", (3, 5), cols=8), pos_m, pos_k)


@pytest.mark.parametrize("change, words", [
    ({"transposed": True}, "invalid or transposed"),
    ({"valid": False}, "invalid or transposed"),
    ({"depth": 2}, "depth 1"),  # NC1HWC0 needs depth 1
    ({"logical_channels": 2}, "logical channels"),  # C1 * C0 = 1
    ({"filter_height": 3}, "filter does not fit"),  # receptive field 3 > H = 2
    ({"height": 2, "width": 40}, "does not fit the source"),  # 80 elements > 32 FP32 in 128 bytes
])
def test_the_descriptor_rules_of_the_operand_check(change, words):
    with pytest.raises(ref.Illegal, match=words):
        ref.check(dict(MAP, **change), tile("FP32", (1, 4)), tile("FP32", (1, 1)), 0, 0)


@pytest.mark.parametrize("source, destination, words", [
    (tile("FP32", (1, 4)), tile("U32", (1, 4)), "carrier-only"),  # the destination type differs
    (tile("FP64", (1, 4)), tile("FP64", (1, 4)), "carrier-only"),
    (tile("FP32", (1, 4), layout="ColumnMajor"), tile("FP32", (1, 4)), "RowMajor"),
    (tile("FP32", (1, 4)), tile("FP32", (1, 4), location="Vector"), "Matrix"),
    (tile("FP32", (1, 4), location="Any"), tile("FP32", (1, 4)), "Matrix"),
    (tile("FP32", (1, 4), defined={0, 1, 3}), tile("FP32", (1, 4)), "undefined"),  # element 2 is referenced
    (None, tile("FP32", (1, 4)), "no feature-map descriptor"),
])
def test_the_tile_rules_of_the_operand_check(source, destination, words):
    with pytest.raises(ref.Illegal, match=words):
        if source is None:
            ref.check(None, tile("FP32", (1, 4)), destination, 0, 0)
        ref.check(MAP, source, destination, 0, 0)


def test_type_sets_are_the_asl_predicates():
    carrier_only = {t for t, bits in TYPE_BITS.items() if bits not in (4, 64)}  # not four-bit, at most 4 bytes
    assert set(ref.CARRIER_ONLY) == carrier_only
    assert set(ref.CONTRACT_TYPES) == {"FP32", "FP16", "BF16", "S32", "S16", "S8", "U32", "U16", "U8"}
    assert set(ref.CONTRACT_TYPES) < set(ref.CARRIER_ONLY)  # SPEC-CHOICE 78: the operand rule admits more
