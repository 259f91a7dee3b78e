"""Write the vectors of TIMG2COL (the image-to-column window of a feature map).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TIMG2COL
    .venv/bin/python -m pto_avs.vectors.reference.generate_img2col [--out DIR] [--check]  (the same)

- one file per spec test ID: MAP-001 and PAD-001 replay the spec test as its direct call
  with the values it asserts (``source: spec-test``) and the same state through a block,
  which the executable spec rejects (SPEC-CHOICE 79); STATIC-001 the BSTART decode;
- ``PTO-AVS-X-TIMG2COL-REF-001.yaml`` (``source: reference-generator``): every carrier-only
  type (the contract's nine and, SPEC-CHOICE 78, the others the operand rule takes), strides,
  dilations, four-sided padding, NDC1HWC0 depth, batches, logical channels below C1*C0,
  window offsets, reads past the source's valid region, whole carrier Words (pto-v0), and
  every operand rule as a Fault_TileLegality case, plus the block's faults and no-op.

Every expected value is a spec test's assertion or comes from the independent reference
``vectors/reference/img2col.py`` (nested loops over the feature map; no device_model code);
a spec-test value and the reference must agree or this script stops. Nothing here runs the
golden model.
"""
from __future__ import annotations

import sys

from . import engine
from . import img2col as ref
from .engine import UNITS, Flow, FlowMap, Hex, case, spec_ref
from .numeric import FORMATS
from .rearrange import valid_encodings

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_img2col"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("TIMG2COL",)
REFERENCE = "vectors/reference/img2col.py img2col (the ASL's TIMG2COL)"
LEGALITY = ("asl/tile/model/legality/image-to-column.asl TileOperandsLegal_TIMG2COL, "
            "asl/tile/model/state/feature-map-descriptors.asl TileFeatureMapDescriptorStructurallyValid")
SRC, DST = 1, 2  # the tiles of a direct call


# ---------------------------------------------------------------------------------------
# Tiles

def element(t: str, i: int) -> int:
    """A distinct valid element value of ``t`` for storage index ``i``."""
    f = FORMATS[t]
    return ((i * 37 + 5) << (f.frac_lsb if f.kind == "binary" else 0)) & valid_encodings(t)


def elements_of(fm: dict) -> int:
    fm = ref.full(fm)
    return (fm["batches"] * fm["depth"] * fm["channel_groups"] * fm["height"] * fm["width"]
            * fm["channels_per_group"])


def source_tile(t: str, fm, words: list, *, cols=None, capacity=None, layout=None, location="Matrix",
                index=SRC, source_valid=None, beyond="defined") -> tuple[dict, dict]:
    """(state tile, reference description) of a source holding ``words`` in storage order
    (rows of ``cols``), the feature map ``fm`` on it. Its valid region is every row of them,
    or ``source_valid``; the words past a smaller valid region are defined payload (``beyond``
    "defined": the whole tile defined) or never written (``beyond`` "undefined")."""
    cols = cols or engine.pow2_at_least(min(len(words), 16))
    needed = -(-len(words) // cols)
    padded = words + [0] * (needed * cols - len(words))
    valid = tuple(source_valid or (needed, cols))
    cols, capacity, rows = engine.smallest_tile(t, (needed, cols), cols, capacity)
    data = [padded[r * cols:r * cols + valid[1]] for r in range(valid[0])]
    inside = {r * cols + c for r in range(valid[0]) for c in range(valid[1])}
    state = engine.tile(index, t, capacity, cols, valid, data, layout)
    state["location"] = location
    defined = inside
    if beyond == "defined" and valid != (needed, cols):
        state["defined"] = "all"
        extra = {f"{i // cols},{i % cols}": Hex(w) for i, w in enumerate(padded) if i not in inside and w}
        if extra:
            state["elements"] = extra
        defined = set(range(rows * cols))
    if fm is not None:
        state["feature_map"] = FlowMap(fm)
    described = {"dtype": t, "layout": layout or "RowMajor", "location": location, "capacity": capacity,
                 "rows": rows, "cols": cols, "valid": valid, "defined": defined}
    return state, described


def destination_tile(t: str, valid, *, layout=None, location="Matrix", index=DST, cols=None,
                     capacity=None) -> tuple[dict, dict]:
    cols, capacity, rows = engine.smallest_tile(t, valid, cols, capacity)
    state = engine.tile(index, t, capacity, cols, valid, [[0] * valid[1] for _ in range(valid[0])], layout)
    state["location"] = location
    return state, {"dtype": t, "layout": layout or "RowMajor", "location": location, "capacity": capacity,
                   "rows": rows, "cols": cols, "valid": tuple(valid)}


def call(pos=(0, 0)) -> Flow:
    arguments = {"row_offset": pos[0], "column_offset": pos[1]} if any(pos) else {}
    return engine.direct_call("TIMG2COL", DST, [SRC], **arguments)


# ---------------------------------------------------------------------------------------
# Cases

def direct_case(name, description, t, fm, valid, *, pos=(0, 0), words=None, profiles=BOTH, carrier=False,
                source_kind="reference-generator", reference=REFERENCE, asserted=None, **source_options) -> dict:
    """A completed direct TIMG2COL(2, 1, posM, posK): the source's words (default: distinct
    values in storage order), the destination's valid region from the reference."""
    words = words if words is not None else [element(t, i) for i in range(elements_of(fm))]
    src_state, src = source_tile(t, fm, words, **source_options)
    dst_state, dst = destination_tile(t, valid)
    stored = dict(enumerate(words + [0] * (src["rows"] * src["cols"] - len(words))))
    result = ref.img2col(fm, src, dst, *pos, stored)
    if asserted is not None and [[w & engine.element_mask(t) for w in row] for row in result] != asserted:
        raise ValueError(f"TIMG2COL {name}: the spec asserts {asserted}, the reference gives {result}")
    expected = engine.result_tile(DST, t, dst["capacity"], dst["cols"], valid, result, "Null", carrier=carrier,
                                  location="Matrix")
    expect = engine.success_expect(0, [SRC, DST], [SRC], [expected])
    return case(name, description, list(profiles), source_kind, reference, {"tiles": [src_state, dst_state]},
                call(pos), expect)


def fault_case(name, description, t, fm, valid, *, pos=(0, 0), destination=None, program=None, words=None,
               fault="Fault_TileLegality", reference=LEGALITY, **source_options) -> dict:
    """A rejected TIMG2COL (nothing changes). A direct call's rejection is checked against the
    reference's operand rules, so the case's reason is the one the reference finds."""
    words = words if words is not None else [element(t, i) for i in range(elements_of(fm) if fm else 4)]
    src_state, src = source_tile(t, fm, words, **source_options)
    dst_state, dst = destination if destination is not None else destination_tile(t, valid)
    if program is None:
        try:
            ref.check(fm, src, dst, *pos)
        except ref.Illegal:
            pass
        else:
            raise ValueError(f"TIMG2COL {name}: the reference accepts the call")
    return engine.fault_case(name, description, [src_state, dst_state], program or call(pos), fault,
                             reference=reference)


def block(mask="1111", gpr=False, t="U8", dims=None) -> str:
    return engine.bundle_text(f"BSTART.SFU TIMG2COL, {t}", dims=dims or {"LB0": 4},
                              bindings=[engine.iot_line([SRC], 1, mask=mask)], gpr=5 if gpr else None)


MAP_FM = {"batches": 1, "channel_groups": 1, "height": 2, "width": 2, "channels_per_group": 1, "filter_height": 2,
          "filter_width": 2, "logical_channels": 1, "padding": 99}
PAD_FM = {"batches": 1, "channel_groups": 1, "height": 1, "width": 1, "channels_per_group": 2, "filter_height": 1,
          "filter_width": 1, "logical_channels": 1, "padding": 77}


def block_rejected(name, t, fm, words, reference, **source_options) -> dict:
    src_state, _ = source_tile(t, fm, words, index=SRC, **source_options)
    return engine.fault_case(name, f"""SPEC-CHOICE 79: the same feature map through a block
        (BSTART.SFU TIMG2COL, {t}; LB0 the window's columns): the block allocates its destination in
        Any and TileOperandsLegal_TIMG2COL wants Matrix, so the executable spec rejects it
        (Fault_TileLegality), though the contract describes the block.""", [src_state],
                             block(t=t, dims={"LB0": 4 if fm is MAP_FM else 2}), reference=reference)


def t_map(test_id) -> list:
    what = "the destination row is 11, 12, 13, 14: the 2x2 patch in C1/filter-row/filter-column/C0 order"
    reference = spec_ref(test_id, what)
    return [direct_case("direct-call", f"""The spec test point as a direct call TIMG2COL(41, 40, 0, 0) with T1 as
        40 and T2 as 41 (FP32 1x4 in Matrix, NC1HWC0 N=C1=C0=1, H=W=2, a 2x2 filter, padding 99): {what}.""",
                        "FP32", MAP_FM, (1, 4), words=[11, 12, 13, 14], cols=4, capacity=128,
                        source_kind="spec-test", reference=reference, asserted=[[11, 12, 13, 14]]),
            block_rejected("bundle-rejected", "FP32", MAP_FM, [11, 12, 13, 14], reference, cols=4, capacity=128)]


def t_pad(test_id) -> list:
    what = "(0,0) = 21 copied; (0,1), packed channel 1 past logical_channels 1, = 77, the descriptor padding"
    reference = spec_ref(test_id, what)
    return [direct_case("direct-call", f"""The spec test point as a direct call into T2 (S16 1x2 in Matrix; C0=2,
        logical channels 1; only element 0 of the source written): {what}. The undefined source element 1 is not
        referenced, so the call is legal.""", "S16", PAD_FM, (1, 2), words=[21], cols=2, capacity=128,
                        source_valid=(1, 1), beyond="undefined", source_kind="spec-test", reference=reference,
                        asserted=[[21, 77]]),
            block_rejected("bundle-rejected", "S16", PAD_FM, [21], reference, cols=2, capacity=128, source_valid=(1, 1),
                           beyond="undefined")]


def t_static(test_id) -> list:
    spec = engine.OPERATION_TABLE["TIMG2COL"]
    word = engine.bstart_word("TIMG2COL", "U8")
    reference = spec_ref(test_id, f"DecodeTileOperation(TEPL, {spec['selector']}) selects TIMG2COL (index 71), "
                                  f"handler TIMG2COL, engine {spec['engine']}")
    src_state, _ = source_tile("U8", MAP_FM, [1, 2, 3, 4], cols=4, capacity=128)
    text = block()
    forms = [("bstart-sfu-timg2col-u8", f"BSTART.SFU TIMG2COL, U8 = {word:#010x} (Mode {spec['mode']}, Function "
              f"{spec['function']})", text),
             ("bstart-tepl-mode-function", f"BSTART.TEPL {spec['mode']}, {spec['function']}, U8, the same word",
              text.replace("BSTART.SFU TIMG2COL, U8", f"BSTART.TEPL {spec['mode']}, {spec['function']}, U8")),
             ("raw-bstart-word", f"the raw word {word:#010x} packed by hand from command form 33",
              engine.raw_bstart_program(text, word))]
    out = [engine.fault_case(name, f"""{what} opens a TIMG2COL block: over a U8 feature-map source in Matrix it
        reaches TIMG2COL's operand rule, whose Matrix destination a block never allocates (SPEC-CHOICE 79:
        Fault_TileLegality; an operation of another selector would complete).""", [src_state], program,
                             source="spec-test", reference=reference) for name, what, program in forms]
    zero = engine.success_expect(0, [SRC], [SRC], [])
    del zero["tiles"]
    out.append(case("mask-zero-no-op", """PE_MASK 0000: the block is a strict no-op before the descriptor, the
        allocation or any fault: it completes and allocates nothing.""", BOTH, "hand",
                    "asl/tile/layout-and-rearrangement/layout/TIMG2COL.asl contract: PE_MASK=0000 is a strict no-op",
                    {"tiles": [src_state]}, block(mask="0000"), zero))
    return out


EXECUTION = {"MAP": t_map, "PAD": t_pad, "STATIC": t_static}


def spec_cases(op: str, test_id: str) -> list:
    return EXECUTION[engine.spec_point(op, test_id)](test_id)


# ---------------------------------------------------------------------------------------
# PTO-AVS-X-TIMG2COL-REF-001

# A 3x3 image of C0=2 channels under a 2x2 filter: the base of the geometry cases.
BASE = {"batches": 1, "channel_groups": 1, "height": 3, "width": 3, "channels_per_group": 2, "filter_height": 2,
        "filter_width": 2, "padding": 0x5A}


def window(fm) -> tuple:
    """The whole image-to-column matrix's shape (the reference's)."""
    whole = ref.matrix(fm)
    return len(whole), len(whole[0])


def types() -> list:
    out = []
    for t in ref.CARRIER_ONLY:
        fm = {**BASE, "pad_top": 1, "pad_left": 1, "padding": 0xFFFFFFFFFFFF5A5A}
        extra = "" if t in ref.CONTRACT_TYPES else (" SPEC-CHOICE 78: not one of the contract's nine types, but "
                                                    "carrier-only, which TileOperandsLegal_TIMG2COL takes.")
        out.append(direct_case(f"{t.lower()}-padded", f"""{t}: a 3x3 image of two channels, padding one row on top
            and one column on the left, a 2x2 filter: the whole {window(fm)[0]}x{window(fm)[1]} matrix, the padding
            value's element bits (0x...5a5a) at every tap outside the image.{extra}""", t, fm, window(fm)))
    return out


GEOMETRY = [
    ("stride-2x1", "stride 2 down, 1 across", {"stride_height": 2}),
    ("stride-1x2", "stride 1 down, 2 across over a 3x5 image", {"width": 5, "stride_width": 2}),
    ("dilation-2x2", "dilation 2 both ways: taps two apart over a 3x3 image", {"dilation_height": 2,
                                                                            "dilation_width": 2}),
    ("dilation-2-stride-2", "dilation 2 and stride 2 down a 5x3 image", {"height": 5, "dilation_height": 2,
                                                                         "stride_height": 2}),
    ("pad-four-sides", "padding 1 left, 2 right, 1 top, 1 bottom", {"pad_left": 1, "pad_right": 2, "pad_top": 1,
                                                                    "pad_bottom": 1}),
    ("pad-stride-dilation", "padding 2 on every side, stride 2, dilation 2",
     {"pad_left": 2, "pad_right": 2, "pad_top": 2, "pad_bottom": 2, "stride_height": 2, "stride_width": 2,
      "dilation_height": 2, "dilation_width": 2}),
    ("filter-3x1", "a 3x1 filter over the 3x3 image", {"filter_height": 3, "filter_width": 1}),
    ("channel-groups-2", "two channel groups: columns run group, filter row, filter column, channel",
     {"channel_groups": 2}),
    ("logical-channels-3", "C1=2, C0=2, three logical channels: the fourth packed channel is padding",
     {"channel_groups": 2, "logical_channels": 3}),
    ("batches-2", "two batches: the second batch's rows follow the first's", {"batches": 2}),
    ("ndc1hwc0-depth-2", "NDC1HWC0 of depth 2: each depth slice its own rows",
     {"layout": "NDC1HWC0", "depth": 2}),
    ("ndc1hwc0-batches-depth", "NDC1HWC0, two batches of depth 2, padding 1 on top",
     {"layout": "NDC1HWC0", "batches": 2, "depth": 2, "pad_top": 1, "height": 2}),
]


def geometry() -> list:
    out = []
    for name, what, change in GEOMETRY:
        fm = {**BASE, **change}
        rows, cols = window(fm)
        out.append(direct_case(name, f"U16, {what}: the whole {rows}x{cols} matrix.", "U16", fm, (rows, cols)))
    fm = {**BASE, "pad_top": 1, "pad_bottom": 1, "pad_left": 1, "pad_right": 1}
    rows, cols = window(fm)
    out += [
        direct_case("window-offset", f"""U16, padded one all round ({rows}x{cols}): the 3x5 window at posM 2,
            posK 3 (row_offset, column_offset).""", "U16", fm, (3, 5), pos=(2, 3)),
        direct_case("window-last-corner", f"""U16, the 1x1 window at the matrix's last row and column
            ({rows - 1}, {cols - 1}).""", "U16", fm, (1, 1), pos=(rows - 1, cols - 1)),
        direct_case("source-past-valid-region", """U8, the 18 elements of the feature map in a 2 x 16 source whose
            valid region is the first row: the rest is defined payload outside it, which TIMG2COL reads.""",
                    "U8", BASE, window(BASE), words=[element("U8", i) for i in range(18)], cols=16, source_valid=(1, 16)),
        direct_case("carrier-words", """pto-v0: U8 elements stored as whole Words with bits above the element
            width; TileReadLogicalElement returns the Word, which the destination keeps; the padding value is its
            element bits only (TileRawElementValue).""", "U8", {**BASE, "pad_top": 1, "padding": 0xABCD00EF},
                    window({**BASE, "pad_top": 1}), words=[0xF00D000000000000 | element("U8", i) for i in range(18)],
                    profiles=["pto-v0"], carrier=True),
    ]
    return out


def legality() -> list:
    t = "U8"
    fm = BASE
    valid = window(fm)
    too_big = {**BASE, "height": 5}  # 30 elements in a source of 18
    out = [
        fault_case("no-feature-map", "The source has no feature-map descriptor (reset leaves it invalid).", t, None,
                   (1, 1)),
        fault_case("descriptor-invalid", "The descriptor is configured and then invalidated (valid: false).", t,
                   {**fm, "valid": False}, valid),
        fault_case("transposed", "A transposed descriptor: TIMG2COL has no transposed mode.", t,
                   {**fm, "transposed": True}, valid),
        fault_case("nc1hwc0-depth-2", "NC1HWC0 with depth 2: that layout has depth 1.", t, {**fm, "depth": 2},
                   valid, words=[element(t, i) for i in range(36)]),
        fault_case("logical-channels-past-c1-c0", "Three logical channels where C1*C0 = 2.", t,
                   {**fm, "logical_channels": 3}, valid),
        fault_case("feature-map-past-the-tile", """The image asks 3000 elements (100 batches of 5x3 images of two
            channels) of a 128-byte U8 source.""", t, {**too_big, "batches": 100}, (1, 1),
                   words=[element(t, i) for i in range(30)]),
        fault_case("u4x2-not-carrier-only", "U4X2: a 4-bit type is not carrier-only.", "U4X2", fm, (1, 1),
                   words=[i % 16 for i in range(18)]),
        fault_case("fp64-not-carrier-only", "FP64: an 8-byte type is not carrier-only.", "FP64", fm, (1, 1)),
        fault_case("types-differ", "A U8 source into a U16 destination.", t, fm, (1, 1),
                   destination=destination_tile("U16", (1, 1))),
        fault_case("source-columnmajor", "A ColumnMajor source (16 x 32).", t, fm, (1, 1), cols=32, capacity=512,
                   layout="ColumnMajor"),
        fault_case("destination-columnmajor", "A ColumnMajor destination (16 x 32).", t, fm, (1, 1),
                   destination=destination_tile(t, (1, 1), layout="ColumnMajor", cols=32, capacity=512)),
        fault_case("source-not-matrix", "A source in Any, not Matrix.", t, fm, (1, 1), location="Any"),
        fault_case("destination-vector", "A destination in Vector, not Matrix.", t, fm, (1, 1),
                   destination=destination_tile(t, (1, 1), location="Vector")),
        fault_case("filter-past-the-image", "A 4x4 filter over the unpadded 3x3 image: no output position.", t,
                   {**fm, "filter_height": 4, "filter_width": 4}, (1, 1)),
        fault_case("window-past-the-rows", f"The {valid[0]}-row window at posM 1 leaves the matrix.", t, fm, valid,
                   pos=(1, 0)),
        fault_case("window-past-the-columns", f"""The {valid[1]}-column window at posK 1 leaves the matrix (the
            spec's range point: posK one past an exact window).""", t, fm, valid, pos=(0, 1)),
        fault_case("referenced-undefined", """The source's valid region is its first four elements and the
            rest was never written: the window takes element 4, undefined.""", t, fm, valid, cols=16,
                   source_valid=(1, 4), beyond="undefined"),
        fault_case("bundle-bior-position", """SPEC-CHOICE 79: B.IOR R5 (the contract's PosM register): the
            executable operand list has no B.IOR field (BundleOperationGPRInputCount 0), so a nonzero B.IOR
            field is a surplus binding, Fault_BundleControl.""", t, fm, (1, 1), program=block(gpr=True),
                   fault="Fault_BundleControl",
                   reference="asl/block/model/dispatch/tile-schema.asl (BundleOperationGPRInputCount)"),
    ]
    return out


def x_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": "PTO-AVS-X-TIMG2COL-REF-001", "operation": op, "kind": "execution",
            "summary": "TIMG2COL over every carrier-only type, strides, dilations, padding, depth, batches, "
                       "logical channels, windows, carriers and every operand rule",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Expected values from the independent image-to-column reference "
                           "vectors/reference/img2col.py (nested loops over the feature map; no code shared with "
                           f"device_model), written by `{COMMAND}`. Nothing here was produced by running the golden "
                           "model."),
            "cases": types() + geometry() + legality()}


PROVENANCE = engine.spec_provenance("vectors/reference/img2col.py", COMMAND)


def files(operations) -> dict:
    return engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_img2col.py")


FAMILY = engine.Family("generate_img2col", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-TIMG2COL-*.yaml" for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for this operation
    sys.exit(engine.legacy_main([FAMILY]))
