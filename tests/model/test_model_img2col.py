"""TIMG2COL and the feature-map descriptor on the golden model: random feature maps against
the independent reference (vectors/reference/img2col.py), the descriptor's life (set by the
harness, kept by content writes, dropped by reallocation), the block's rejection
(SPEC-CHOICE 79), and hypothesis properties: any descriptor and any call end in an
observation or a fault, and a refused call leaves the machine as it was."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from model_support import check_direct_step
from pto_avs.device_model.feature_map import RANGES, REQUIRED, FeatureMapError, describe
from pto_avs.device_model.machine import Machine
from pto_avs.vectors.reference import img2col as ref

SRC, DST = 1, 2


def machine_with(fm, t="U16", count=None, words=None, cols=16, capacity=None, defined=None):
    """A machine with the source (its elements in storage order, every one defined unless
    ``defined`` says) carrying ``fm``; returns (machine, source description for the reference)."""
    m = Machine()
    count = count if count is not None else elements(fm)
    bits = {"U8": 8, "U16": 16, "U32": 32, "FP32": 32, "S16": 16}[t]
    if capacity is None:
        capacity = 128
        while capacity * 8 // bits < count:
            capacity *= 2
    m.configure_tile(SRC, t, capacity, cols=cols, valid=(1, cols), location="Matrix")
    view = m.snapshot().tiles[SRC]
    flat = np.zeros(view.rows * view.cols, dtype=np.uint64)
    values = words if words is not None else [(i * 37 + 5) % (1 << bits) for i in range(count)]
    flat[:len(values)] = values
    mask = np.ones(flat.size, dtype=bool) if defined is None else defined
    m.write_tile(SRC, flat.reshape(view.rows, view.cols), mask.reshape(view.rows, view.cols))
    if fm is not None:
        m.configure_feature_map(SRC, **fm)
    source = {"dtype": t, "layout": "RowMajor", "location": "Matrix", "capacity": capacity, "rows": view.rows,
              "cols": view.cols, "valid": (1, cols), "defined": set(np.flatnonzero(mask).tolist())}
    return m, source, dict(enumerate(flat.tolist()))


def elements(fm):
    fm = ref.full(fm)
    return (fm["batches"] * fm["depth"] * fm["channel_groups"] * fm["height"] * fm["width"]
            * fm["channels_per_group"])


feature_maps = st.fixed_dictionaries(
    {"batches": st.integers(1, 2), "channel_groups": st.integers(1, 2), "height": st.integers(1, 4),
     "width": st.integers(1, 4), "channels_per_group": st.integers(1, 3), "filter_height": st.integers(1, 3),
     "filter_width": st.integers(1, 3)},
    optional={"stride_height": st.integers(1, 3), "stride_width": st.integers(1, 3),
              "dilation_height": st.integers(1, 3), "dilation_width": st.integers(1, 3),
              "pad_left": st.integers(0, 2), "pad_right": st.integers(0, 2), "pad_top": st.integers(0, 2),
              "pad_bottom": st.integers(0, 2), "padding": st.integers(0, (1 << 64) - 1),
              "layout": st.sampled_from(["NC1HWC0", "NDC1HWC0"]), "depth": st.integers(1, 2)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fm=feature_maps, data=st.data())
def test_the_model_matches_the_reference(fm, data):
    if fm.get("layout") != "NDC1HWC0":
        fm = {**fm, "depth": 1}
    fm["logical_channels"] = data.draw(st.integers(1, fm["channel_groups"] * fm["channels_per_group"]))
    count = elements(fm)
    m, source, words = machine_with(fm, count=count)
    whole = ref.matrix(fm)
    if not whole or not whole[0]:
        assert m.run([{"call": "TIMG2COL", "dst": SRC, "src": SRC}]).fault == "Fault_TileLegality"
        return
    rows = data.draw(st.integers(1, min(len(whole), 8)))
    cols = data.draw(st.integers(1, min(len(whole[0]), 16)))
    pos = (data.draw(st.integers(0, len(whole) - rows)), data.draw(st.integers(0, len(whole[0]) - cols)))
    m.configure_tile(DST, "U16", 512, cols=16, valid=(rows, cols), location="Matrix")
    destination = {"dtype": "U16", "layout": "RowMajor", "location": "Matrix", "valid": (rows, cols)}
    expected = ref.img2col(fm, source, destination, *pos, words)
    result = m.run([{"call": "TIMG2COL", "dst": DST, "src": SRC, "row_offset": pos[0], "column_offset": pos[1]}])
    assert result.fault is None, result.detail
    view = m.snapshot().tiles[DST]
    assert view.words[:rows, :cols].tolist() == expected
    assert view.defined[:rows, :cols].all() and not view.defined.sum() > rows * cols  # padding Null


def test_spec_points_map_and_pad():
    fm = {"batches": 1, "channel_groups": 1, "height": 2, "width": 2, "channels_per_group": 1,
          "filter_height": 2, "filter_width": 2, "padding": 99}
    m, _, _ = machine_with(fm, t="FP32", words=[11, 12, 13, 14], cols=4, capacity=128, count=4)
    m.configure_tile(DST, "FP32", 128, cols=4, valid=(1, 4), location="Matrix")
    assert m.run([{"call": "TIMG2COL", "dst": DST, "src": SRC}]).fault is None
    assert m.snapshot().tiles[DST].words[0].tolist() == [11, 12, 13, 14]
    pad = {"batches": 1, "channel_groups": 1, "height": 1, "width": 1, "channels_per_group": 2, "filter_height": 1,
           "filter_width": 1, "logical_channels": 1, "padding": 0xFFFF004D}
    defined = np.zeros(32 * 2, dtype=bool)
    defined[0] = True  # element 1 is never written: it is not referenced
    m, _, _ = machine_with(pad, t="S16", words=[21], cols=2, capacity=128, count=1, defined=defined)
    m.configure_tile(DST, "S16", 128, cols=2, valid=(1, 2), location="Matrix")
    assert m.run([{"call": "TIMG2COL", "dst": DST, "src": SRC}]).fault is None
    assert m.snapshot().tiles[DST].words[0].tolist() == [21, 0x004D]  # the padding value's element bits


def test_the_descriptor_lives_on_the_tile_until_it_is_reallocated():
    fm = {"batches": 1, "channel_groups": 1, "height": 1, "width": 2, "channels_per_group": 1,
          "filter_height": 1, "filter_width": 1}
    m, _, _ = machine_with(fm, count=2)
    m.configure_tile(DST, "U16", 128, cols=16, valid=(2, 1), location="Matrix")
    call = [{"call": "TIMG2COL", "dst": DST, "src": SRC}]
    assert m.run(call).fault is None
    m.write_tile(SRC, [[7] * 16 for _ in range(4)])  # a content write keeps the descriptor
    assert m.run(call).fault is None and m.snapshot().tiles[DST].words[:2, 0].tolist() == [7, 7]
    m.configure_tile(SRC, "U16", 128, cols=16, valid=(1, 16), location="Matrix")  # reallocation drops it
    m.write_tile(SRC, [[7] * 16 for _ in range(4)])
    assert m.run(call).fault == "Fault_TileLegality"
    with pytest.raises(ValueError, match="not configured"):
        m.configure_feature_map(5, **fm)


def test_a_block_is_rejected_as_the_executable_spec_rejects_it():
    """SPEC-CHOICE 79: the block's destination is allocated in Any; B.IOR takes no field."""
    fm = {"batches": 1, "channel_groups": 1, "height": 1, "width": 2, "channels_per_group": 1,
          "filter_height": 1, "filter_width": 1}
    m, _, _ = machine_with(fm, count=2)
    before = m.snapshot()
    block = "BSTART.SFU TIMG2COL, U16; B.DIM LB0=1; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"
    assert m.run(block).fault == "Fault_TileLegality" and m.snapshot().same_as(before)
    assert m.run(block.replace("; BSTOP", "; B.IOR R5; BSTOP")).fault == "Fault_BundleControl"
    assert m.run(block.replace("mask=1111", "mask=0000")).fault is None and m.snapshot().same_as(before)


@pytest.mark.parametrize("name", sorted(RANGES))
def test_a_field_out_of_range_is_refused_by_name(name):
    fm = {key: 1 for key in REQUIRED}
    low, high = RANGES[name]
    for bad in (low - 1, high + 1, True, "1"):
        with pytest.raises(FeatureMapError) as info:
            describe({**fm, name: bad})
        assert info.value.field == name
    with pytest.raises(FeatureMapError, match="missing"):
        describe({k: v for k, v in fm.items() if k != "height"})
    with pytest.raises(FeatureMapError, match="not a field"):
        describe({**fm, "stride": 1})


any_field = st.one_of(st.integers(-2, 70000), st.booleans(), st.none(), st.text(max_size=3))
raw_maps = st.dictionaries(st.sampled_from(sorted(RANGES) + ["layout", "padding", "transposed", "valid", "x"]),
                           any_field, max_size=8).map(lambda d: {**{k: 1 for k in REQUIRED}, **d})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fm=raw_maps, pos=st.tuples(st.integers(0, 70), st.integers(0, 70)),
       dst=st.sampled_from([SRC, DST, 3]), t=st.sampled_from(["U8", "U16", "FP32"]),
       valid=st.tuples(st.integers(0, 4), st.integers(0, 16)), location=st.sampled_from(["Matrix", "Any"]))
def test_any_descriptor_and_call_end_in_an_observation_or_a_fault(fm, pos, dst, t, valid, location):
    """The model never raises for a descriptor it took or any call; a refused call changes nothing."""
    m = Machine()
    m.configure_tile(SRC, "U16", 256, cols=16, valid=(2, 16), location="Matrix")
    m.write_tile(SRC, [[(r * 16 + c) for c in range(16)] for r in range(8)])
    try:
        m.configure_feature_map(SRC, **fm)
    except ValueError:
        pass  # a description the model cannot hold is refused at set-up, like the loader refuses it
    m.configure_tile(DST, t, 256, cols=16, valid=valid, location=location)
    check_direct_step(m, {"call": "TIMG2COL", "dst": dst, "src": SRC, "row_offset": pos[0],
                          "column_offset": pos[1]})
