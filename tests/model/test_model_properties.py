"""Property tests of the four operations through the Machine API (hypothesis).

For random legal and illegal bundles of each operation, in both profiles:
no Python exception; a fault leaves registers, descriptors, payloads,
definedness, flags and capacity exactly as before; a successful bundle adds
only its destinations and never changes a source; flags only accumulate. For
direct calls with a destination aliasing the source, the result equals the
same call into a separate destination (the source is read before it is
written). These are model invariants stated by the spec (digest §4 "atomic
publish", "source persists", "aliasing ... snapshot").
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding.names import LAYOUT_TRANSFORMS
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import postprocess as pp
from model_support import check_direct_step, check_run

pytestmark = pytest.mark.slow  # hypothesis property tests: thousands of random bundles and direct calls

PROFILES = st.sampled_from(["pto-v0", "hw-ieee"])
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
MASKS = ["1111", "1000", "0100", "0010", "0001", "1100", "1110"]
often = st.sampled_from([True] * 9 + [False])  # usually take the legal choice


@st.composite
def ordinary_tile(draw, dtype=None, layouts=("RowMajor", "ColumnMajor", "ZN", "NZ"), locations=("Any",)):
    t = dtypes.dtype(dtype or draw(st.sampled_from(dtypes.NAMES)))
    cols = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    capacity = draw(st.sampled_from([128, 256, 512, 1024, 2048]))
    rows = capacity * 8 // (cols * t.bits) if (capacity * 8) % (cols * t.bits) == 0 else 0
    assume(rows > 0)
    layout = draw(st.sampled_from(layouts))
    if layout in ("ZN", "NZ"):
        assume(rows % 16 == 0 and cols % (256 // t.bits) == 0)
    valid_rows = draw(st.integers(1, min(rows, 4)))
    valid_cols = draw(st.integers(1, cols))
    words = draw(st.lists(st.integers(0, 2**64 - 1), min_size=valid_rows * valid_cols,
                          max_size=valid_rows * valid_cols))
    defined = draw(st.sampled_from([True, True, True, False]))
    return dict(dtype=t.name, capacity=capacity, cols=cols, valid=(valid_rows, valid_cols), layout=layout,
                location=draw(st.sampled_from(locations)), mask=draw(st.sampled_from(MASKS)),
                words=np.array(words, dtype=np.uint64).reshape(valid_rows, valid_cols), all_defined=defined)


def install(m, index, tile):
    m.configure_tile(index, dtype=tile["dtype"], capacity=tile["capacity"], cols=tile.get("cols"),
                     valid=tile["valid"], layout=tile["layout"], location=tile["location"], mask=tile["mask"])
    defined = np.ones(tile["words"].shape, dtype=bool)
    if not tile["all_defined"]:
        defined[-1, -1] = False
    m.write_tile(index, tile["words"], defined)


def size_code(capacity):
    return capacity.bit_length() - 7


@st.composite
def dims(draw, tile):
    """LB0/LB1/LB2 mostly matching the source, sometimes not or absent."""
    valid_rows, valid_cols = tile["valid"]
    lines = []
    if draw(st.integers(0, 9)):
        lines.append(f"B.DIM LB0={draw(st.sampled_from([valid_cols, valid_cols, 0, valid_cols + 1]))}")
    if valid_rows != 1 or draw(st.booleans()):
        lines.append(f"B.DIM LB1={draw(st.sampled_from([valid_rows, valid_rows, 0, valid_rows + 1]))}")
    if draw(st.integers(0, 3)):
        lines.append(f"B.DIM LB2={draw(st.sampled_from([tile['cols'], tile['cols'], tile['cols'] * 2]))}")
    return lines


@st.composite
def binding(draw, tile, capacity_for):
    mask = draw(st.sampled_from([tile["mask"]] * 4 + ["0000", "1111"]))
    size = draw(st.sampled_from([size_code(capacity_for), size_code(capacity_for), 1, 2, 5]))
    hand = draw(st.sampled_from("TTUMN"))
    last = draw(st.sampled_from([", <last>"] * 5 + [""]))
    return f"B.IOT T1, mask={mask}{last}, ->{hand}<{size}>"


@SETTINGS
@given(PROFILES, ordinary_tile(locations=("Any", "Any", "Matrix")), st.data())
def test_tcvt_bundles(profile, tile, data):
    m = Machine(profile)
    install(m, 1, tile)
    src = dtypes.dtype(tile["dtype"])
    dst_name = data.draw(st.sampled_from(list(dtypes.NAMES) + ["DTYPE_NONE"]))
    dst = src if dst_name == "DTYPE_NONE" else dtypes.dtype(dst_name)
    layout = data.draw(st.sampled_from(sorted(LAYOUT_TRANSFORMS.values())))
    datr_fields = [dst_name, layout, data.draw(st.sampled_from(["Zero", "Max", "Min", "Null"])),
                   data.draw(st.sampled_from(["NONE", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB"]))]
    if data.draw(st.booleans()):
        datr_fields.append("Sat=1")
    if tile["location"] == "Matrix" or not data.draw(st.integers(0, 5)):
        datr_fields.append("Canon=1")
    if not data.draw(often):
        datr_fields.append("CMode=NE")
    datr = [] if not data.draw(st.integers(0, 3)) else [f"B.DATR {', '.join(datr_fields)}"]
    rows = tile["capacity"] * 8 // (tile["cols"] * src.bits)
    capacity_for = max(128, rows * tile["cols"] * (dst.bits if datr else src.bits) // 8)
    extra = [] if data.draw(often) else [data.draw(st.sampled_from(["B.IOR zero", "B.IOR R1"]))]
    program = ([f"BSTART.VEC TCVT, {src.name}"] + datr + data.draw(dims(tile)) + extra
               + [data.draw(binding(tile, capacity_for)), "BSTOP"])
    before = m.snapshot()
    check_run(m, before, m.run(program), new_tiles_allowed=3)


@SETTINGS
@given(PROFILES, ordinary_tile(dtype="FP32", layouts=("RowMajor", "RowMajor", "ColumnMajor")), st.data())
def test_tquant_bundles(profile, tile, data):
    m = Machine(profile)
    install(m, 1, tile)
    m.set_gpr(1, data.draw(st.sampled_from([0x3F800000, 0x40000000, 0, 0xBF800000, 0x00000001, 0x7F800000])))
    m.set_gpr(2, data.draw(st.sampled_from([0, 5, 0xFFFFFFFFFFFFFFFB, 0x80, 0x1FF])))
    dst = data.draw(st.sampled_from(["S8", "U8", "U16", "DTYPE_NONE"]))
    datr_fields = [dst, data.draw(st.sampled_from(["NONE", "RNE", "RTZ", "RNA", "RHB"]))]
    if data.draw(st.booleans()):
        datr_fields.append("Sat=1")
    if not data.draw(st.integers(0, 7)):
        datr_fields.append(data.draw(st.sampled_from(["Max", "ND2DN", "Canon=1"])))
    datr = [] if not data.draw(st.integers(0, 7)) else [f"B.DATR {', '.join(datr_fields)}"]
    ior = [] if data.draw(st.booleans()) else [data.draw(st.sampled_from(["B.IOR R1, R2", "B.IOR R1",
                                                                          "B.IOR zero", "B.IOR R1, R2, R1"]))]
    rows = tile["capacity"] * 8 // (tile["cols"] * 32)
    program = (["BSTART.SFU TQUANT, FP32"] + datr + data.draw(dims(tile)) + ior
               + [data.draw(binding(tile, max(128, rows * tile["cols"]))), "BSTOP"])
    before = m.snapshot()
    check_run(m, before, m.run(program), new_tiles_allowed=3)


@SETTINGS
@given(PROFILES, ordinary_tile(layouts=("RowMajor", "RowMajor", "ColumnMajor")), st.data())
def test_tmuls_bundles(profile, tile, data):
    m = Machine(profile)
    install(m, 1, tile)
    m.set_gpr(1, data.draw(st.integers(0, 2**64 - 1)))
    src = dtypes.dtype(tile["dtype"])
    bstart = data.draw(st.sampled_from([src.name] * 4 + list(dtypes.NAMES)))
    datr = [] if data.draw(st.integers(0, 5)) else [data.draw(st.sampled_from(
        ["B.DATR Max", "B.DATR FP64, Zero", "B.DATR U8", "B.DATR DTYPE_NONE, Min"]))]
    ior = [] if not data.draw(st.integers(0, 3)) else [data.draw(st.sampled_from(
        ["B.IOR R1", "B.IOR R1", "B.IOR zero", "B.IOR R1, R1", "B.IOR R1, ->R2"]))]
    rows = tile["capacity"] * 8 // (tile["cols"] * src.bits)
    program = ([f"BSTART.VEC TMULS, {bstart}"] + datr + data.draw(dims(tile))
               + [data.draw(binding(tile, max(128, rows * tile["cols"] * src.bits // 8)))] + ior + ["BSTOP"])
    before = m.snapshot()
    check_run(m, before, m.run(program), new_tiles_allowed=3)


MX = ["FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2"]
SCALED = {"E4M3", "E5M2", "E2M1X2", "E1M2X2"}


@SETTINGS
@given(PROFILES, st.sampled_from(MX), st.sampled_from(MX), st.integers(1, 40), st.integers(1, 9), st.data())
def test_tgemv_bundles(profile, atype, btype, k, n, data):
    m = Machine(profile)
    layout = data.draw(st.sampled_from(["CUBE_M16", "CUBE_M32"]))
    words = st.integers(0, 2**64 - 1)

    def cube(index, dtype, rows, cols, cube_layout):
        for capacity in (128, 256, 512, 1024, 2048, 4096):
            try:
                m.configure_tile(index, dtype=dtype, capacity=capacity, valid=(rows, cols), layout=cube_layout)
                break
            except ValueError:
                continue
        else:
            assume(False)
        m.write_tile(index, np.array(data.draw(st.lists(words, min_size=rows * cols, max_size=rows * cols)),
                                     dtype=np.uint64).reshape(rows, cols))

    cube(1, atype, 1, k, layout)
    cube(2, btype, k, n, "CUBE_N8")
    cube(3, "FP32", 1, n, data.draw(st.sampled_from([layout, layout, "CUBE_M16"])))
    blocks = -(-k // 32)
    for index, shape in ((4, (1, blocks)), (5, (blocks, n))):
        cols = 1 << max(0, (shape[1] - 1).bit_length())
        m.configure_tile(index, dtype="E8M0", capacity=1024, cols=cols, valid=shape)
        m.write_tile(index, np.array(data.draw(st.lists(st.integers(0, 255), min_size=shape[0] * shape[1],
                                                        max_size=shape[0] * shape[1])),
                                     dtype=np.uint64).reshape(shape))
    sources = ["T3", "T1"] + (["T4"] if atype in SCALED else []) + ["T2"] + (["T5"] if btype in SCALED else [])
    if not data.draw(often):
        sources = sources[:-1]  # a missing operand
    mode = data.draw(st.sampled_from([0, 0, 1, 16, 26, 27, 25, 2]))
    relu = data.draw(st.sampled_from([0, 0, 1, 2]))
    fpatr = f"B.FPATR PreQuantMode={mode}, ReluMode={relu}" if data.draw(often) else None
    m.set_gpr(1, data.draw(st.sampled_from([0x3F800000, 0x40000000, 0, 1])))
    m.set_gpr(2, data.draw(st.sampled_from([0x1FC00, 0, 0x80000])))
    scalars = [r for r, used in (("R1", pp.uses_scalar_parameter(mode)), ("R2", relu == 2)) if used]
    binds = [f"B.IOT {', '.join(sources[i:i + 2])}, mask=1111" for i in range(0, len(sources) - 1, 2)]
    tail = sources[-1] + ", " if len(sources) % 2 else ""
    size = data.draw(st.sampled_from([1, 1, 2, 3, 5]))
    hand = data.draw(st.sampled_from("TUMN"))
    program = ([f"BSTART.TGEMVMX.ACC {atype}"] + ([f"B.DATR {btype}"] if btype != atype or
                                                  not data.draw(st.integers(0, 5)) else [])
               + ([fpatr] if fpatr else []) + [f"B.DIM LB1={n}", f"B.DIM LB2={k}"]
               + ([f"B.IOR {', '.join(scalars)}"] if scalars else [])
               + binds + [f"B.IOT {tail}mask=1111, <last>, ->{hand}<{size}>", "BSTOP"])
    before = m.snapshot()
    check_run(m, before, m.run(program), new_tiles_allowed=1)


@SETTINGS
@given(PROFILES, ordinary_tile(layouts=("RowMajor",)), st.data())
def test_direct_aliasing_reads_the_old_source(profile, tile, data):
    # TCVT and TMULS with dst == src equal the same call into a separate identical tile.
    tile = dict(tile, all_defined=True)
    call = data.draw(st.sampled_from([
        {"call": "TCVT", "pad": data.draw(st.sampled_from(["Zero", "Max", "Null"])),
         "rounding": data.draw(st.sampled_from(["RNE", "RTZ", "RHB"])), "sat": data.draw(st.integers(0, 1))},
        {"call": "TMULS", "scalar": data.draw(st.integers(0, 2**64 - 1)),
         "pad": data.draw(st.sampled_from(["Min", "Null"]))},
    ]))
    aliased, separate = Machine(profile), Machine(profile)
    install(aliased, 1, tile)
    install(separate, 1, tile)
    install(separate, 2, dict(tile, words=np.zeros_like(tile["words"])))
    first = aliased.run([dict(call, dst=1, src=1)])
    second = separate.run([dict(call, dst=2, src=1)])
    assert first.fault == second.fault
    if first.fault is None:
        a, b = aliased.snapshot(), separate.snapshot()
        assert np.array_equal(a.tiles[1].words, b.tiles[2].words)
        assert np.array_equal(a.tiles[1].defined, b.tiles[2].defined)
        assert a.flags == b.flags


@SETTINGS
@given(PROFILES, st.lists(st.fixed_dictionaries(
    {"call": st.sampled_from(["TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"])},
    optional={"dst": st.integers(0, 6), "src": st.integers(0, 6), "acc": st.integers(0, 6),
              "a": st.integers(0, 6), "b": st.integers(0, 6), "a_scale": st.integers(0, 6),
              "b_scale": st.integers(0, 6), "pad": st.sampled_from(["Zero", "Max", "Min", "Null"]),
              "layout": st.sampled_from([0, 1, 3, 21, 30]), "canonicalize": st.integers(0, 1),
              "scalar": st.integers(0, 2**64 - 1), "multiplier": st.integers(0, 2**32 - 1),
              "zero_point": st.integers(0, 300)}), min_size=1, max_size=4))
def test_direct_calls_never_raise(profile, calls):
    # Direct calls over allocated and unallocated tiles of mixed types: a fault or an
    # observation, never an exception; a fault changes nothing.
    m = Machine(profile)
    m.configure_tile(1, dtype="U8", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(1, [[7, 9]])
    m.configure_tile(2, dtype="FP32", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(2, [[0x3F800000, 0x40000000]])
    m.configure_tile(3, dtype="FP16", capacity=128, valid=(1, 1), layout="CUBE_M16")
    m.write_tile(3, [[0x3C00]])
    m.configure_tile(4, dtype="FP16", capacity=128, valid=(1, 1), layout="CUBE_N8")
    m.write_tile(4, [[0x3C00]])
    m.configure_tile(5, dtype="FP32", capacity=128, valid=(1, 1), layout="CUBE_M16")
    m.write_tile(5, [[0]])
    keys = {"TCVT": {"dst", "src", "pad", "layout", "canonicalize"},
            "TQUANT": {"dst", "src", "multiplier", "zero_point"},
            "TMULS": {"dst", "src", "scalar", "pad"},
            "TGEMV_MX_ACC": {"dst", "acc", "a", "b", "a_scale", "b_scale"}}
    program = []
    for call in calls:
        kept = {k: v for k, v in call.items() if k == "call" or k in keys[call["call"]]}
        for required in {"TGEMV_MX_ACC": ("dst", "acc", "a", "b")}.get(call["call"], ("dst", "src")):
            kept.setdefault(required, 1)
        program.append(kept)
    for item in program:
        check_direct_step(m, item)
