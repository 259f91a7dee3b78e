"""The process device end to end: the example C device through the JSON-lines protocol,
and misbehaving devices (crash, hang, garbage, malformed answers, another protocol version).

Expected values come from the spec's test points (digest section 6), its rules worked by hand
(comments say how), the independent exact reference ``vectors/reference/numeric.py`` and
ml_dtypes; never from the device under test.
"""
from __future__ import annotations

import json
import sys
import textwrap
import time

import ml_dtypes
import numpy as np
import pytest

from pto_avs.contract.case import ASPECTS, Case, Observation, TileObservation
from pto_avs.plugins import c_device
from pto_avs.plugins.base import open_device as open_named_device
from pto_avs.plugins.process import ProcessDevice, parse_hello, ProtocolError, VersionError
from pto_avs.vectors.reference import numeric as ref

pytestmark = pytest.mark.slow  # builds the C device and starts device processes

NV, OF, UF, NX = 0x01, 0x04, 0x08, 0x10
ELEMENTS = 1024  # every test tile: 32 x 32 physical elements, so rows agree for any pair of types
COLS = 32
BITS = {"FP32": 32, "FP16": 16, "BF16": 16, "S64": 64, "S32": 32, "S16": 16, "S8": 8, "S4X2": 4,
        "U64": 64, "U32": 32, "U16": 16, "U8": 8, "U4X2": 4, "E4M3": 8}


# ---------------------------------------------------------------------------
# building cases


def size_code(dtype: str) -> int:
    """B.IOT SizeCode of a 32x32 tile of ``dtype`` (1 = 128 B ... 10 = 64 KiB)."""
    return (ELEMENTS * BITS[dtype] // 8 // 128).bit_length()


def state_tile(index: int, dtype: str, data, *, location="Any", defined="valid", mask="1111") -> dict:
    rows = len(data)
    return {"index": index, "dtype": dtype, "capacity": ELEMENTS * BITS[dtype] // 8, "cols": COLS,
            "valid": [rows, len(data[0])], "layout": "RowMajor", "location": location, "mask": mask,
            "defined": defined, "data": [list(r) for r in data]}


def make_case(name: str, program, tiles=(), *, profiles=("pto-v0", "hw-ieee"), status=0,
              tile_capacity=262144) -> Case:
    state = {"tile_capacity": tile_capacity, "status": status, "gprs": {}, "tiles": list(tiles)}
    program = (program,) if isinstance(program, str) else tuple(program)
    return Case("PTO-AVS-X-DEVICES-TEST", name, "TCVT", "execution", tuple(profiles), (), (), state, program, {})


def tcvt(name: str, src: str, dst: str, data, *, sat=0, rmode="RNE", pad="Null", canon=0, hand="T",
         location="Any", profiles=("pto-v0", "hw-ieee"), extra_tiles=(), status=0) -> Case:
    """TCVT of tile 1 (``src``, valid region = ``data``) into a new ``dst`` tile of the hand."""
    rows, cols = len(data), len(data[0])
    program = (f"BSTART.VEC TCVT, {src}; B.DATR {dst}, {rmode}, {pad}, Sat={sat}, Canon={canon}; "
               f"B.DIM LB0={cols}; B.DIM LB1={rows}; B.DIM LB2={COLS}; "
               f"B.IOT T1, mask=1111, <last>, ->{hand}<{size_code(dst)}>; BSTOP")
    tiles = [state_tile(1, src, data, location=location), *extra_tiles]
    return make_case(name, program, tiles, profiles=profiles, status=status)


def valid_words(obs: Observation, index: int) -> list:
    tile = obs.tiles[index]
    return [row[:tile.valid[1]] for row in tile.words[:tile.valid[0]]]


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    try:
        path, diagnostics = c_device.build(tmp_path_factory.mktemp("c_device"))
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    assert diagnostics == "", f"the C device must build without warnings under -Wall -Wextra:\n{diagnostics}"
    return path


@pytest.fixture(scope="module")
def hw(binary):
    device = ProcessDevice([str(binary)])
    yield device
    device.close()


@pytest.fixture(scope="module")
def v0(binary):
    device = ProcessDevice([str(binary), "--profile", "pto-v0"])
    yield device
    device.close()


def run_one(device, case: Case) -> Observation:
    assert device.supports(case) is None, device.supports(case)
    obs = device.execute(case)
    assert obs.error is None, obs.error
    return obs


# ---------------------------------------------------------------------------
# the C device: hello, words, integer and floating conversions


def test_hello_gives_the_capabilities(hw, v0):
    caps = hw.capabilities
    assert caps.profile == "hw-ieee" and v0.capabilities.profile == "pto-v0"
    assert caps.operations == {"TCVT"}
    assert caps.dtypes == {"FP32", "FP16", "BF16", "S64", "S32", "S16", "S8", "S4X2",
                           "U64", "U32", "U16", "U8", "U4X2"}
    # It holds tiles by logical coordinate (no storage placement) and never sees assembly text.
    assert caps.aspects == {"fault", "flags", "descriptor", "payload", "carrier", "padding_defined",
                            "padding_value", "sources"}
    assert not caps.direct_calls
    assert hw.batch_size == 64
    assert hw.name == "avs-c-device 1.0 (hw-ieee)"


def test_entry_point_opens_the_c_device_with_arguments(binary):
    device = open_named_device(f"process:{binary} --profile pto-v0 --max-batch 5")
    try:
        assert device.capabilities.profile == "pto-v0"
        assert device.batch_size == 5
    finally:
        device.close()


def test_spec_bundle_words_reach_the_device(hw):
    # PTO-AVS-TILE-TCVT-BUNDLE-001 words (digest 5.2-5.5): BSTART 0xD9B19181, B.DATR {ND2DN, U16, Null}
    # 0x19A010A3, LB0=2 0x00200043, B.IOT 1, 1111, L, ->T<2> 0x00195E13, BSTOP. The adapter assembles the
    # text; the device decodes the words: U8 [7, 9] (tile 1, 16x8) -> U16 ColumnMajor tile 0, source kept.
    program = ("BSTART.VEC TCVT, U8; B.DATR U16, ND2DN, Null; B.DIM LB0=2; B.DIM LB2=8; "
               "B.IOT T1, mask=1111, <last>, ->T0<2>; BSTOP")
    from pto_avs.plugins.process import program_items
    src = {"index": 1, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 2], "layout": "RowMajor",
           "location": "Any", "mask": "1111", "defined": "valid", "data": [[7, 9]]}
    case = make_case("bundle", program, [src])
    assert [i["word"] for i in program_items(case)] == [0xD9B19181, 0x19A010A3, 0x00200043, 0x00802043,
                                                         0x00195E13, 0x00000001]
    obs = run_one(hw, case)
    assert obs.fault is None and obs.flags == 0
    dst = obs.tiles[0]
    assert (dst.dtype, dst.layout, dst.location, dst.rows, dst.cols, dst.valid, dst.capacity, dst.mask) == \
        ("U16", "ColumnMajor", "Any", 16, 8, (1, 2), 256, "1111")
    assert dst.words[0][:2] == [7, 9]
    assert dst.defined[0][2] is False  # Null padding leaves the rest undefined
    assert obs.tiles[1].words[0][:2] == [7, 9] and obs.tiles[1].dtype == "U8"


@pytest.mark.parametrize("device_name", ["hw", "v0"])
def test_integer_conversions_from_the_spec_test(request, device_name):
    # PTO-AVS-TILE-TCVT-INTEGER-001: U16 300 -> U8 Sat0 44, Sat1 255; S4X2 0xF -> S8 all ones (-1);
    # S64 -1 -> U4X2 Sat1 0. Integer conversions are bit-exact in both profiles (digest 2.5a).
    device = request.getfixturevalue(device_name)
    cases = [tcvt("u16-u8-sat0", "U16", "U8", [[300]], sat=0), tcvt("u16-u8-sat1", "U16", "U8", [[300]], sat=1),
             tcvt("s4-s8", "S4X2", "S8", [[0xF]]), tcvt("s64-u4-sat1", "S64", "U4X2", [[(1 << 64) - 1]], sat=1)]
    observations = device.execute_batch(cases)
    assert [o.error for o in observations] == [None] * 4
    assert [valid_words(o, 0) for o in observations] == [[[44]], [[255]], [[(1 << 64) - 1]], [[0]]]
    assert [o.flags for o in observations] == [0, 0, 0, 0]


def test_integer_wrap_and_clamp_by_hand(hw):
    # Hand: S16 -129 (0xFF7F) -> S8 wraps to 0x7F = 127 (Sat0) or clamps to -128 = 0x...80 sign-extended
    # (Sat1); U8 200 -> S8 wraps to -56 = 0x...C8, clamps to 127; S8 -1 -> U16 wraps to 0xFFFF, clamps to 0;
    # U32 0xFFFFFFFF -> U64 is exact; S32 -5 -> S64 sign-extends.
    ext = lambda v, bits: v | (((1 << 64) - 1) ^ ((1 << bits) - 1))  # noqa: E731
    cases = [tcvt("a0", "S16", "S8", [[0xFF7F]]), tcvt("a1", "S16", "S8", [[0xFF7F]], sat=1),
             tcvt("b0", "U8", "S8", [[200]]), tcvt("b1", "U8", "S8", [[200]], sat=1),
             tcvt("c0", "S8", "U16", [[0xFF]]), tcvt("c1", "S8", "U16", [[0xFF]], sat=1),
             tcvt("d0", "U32", "U64", [[0xFFFFFFFF]]), tcvt("e0", "S32", "S64", [[0xFFFFFFFB]])]
    got = [valid_words(o, 0)[0][0] for o in hw.execute_batch(cases)]
    assert got == [0x7F, ext(0x80, 8), ext(0xC8, 8), 0x7F, 0xFFFF, 0, 0xFFFFFFFF, ext(0xFFFFFFFB, 32)]


def test_fp32_to_fp16_and_bf16_by_hand(hw):
    # FP32 1.0 -> FP16 0x3C00 exact. FP32 65520.0 (0x477FF000) is the tie between 65504 (0x7BFF, odd) and
    # 2^16: RNE rounds to 2^16, beyond FP16's range -> +Inf 0x7C00, OF|NX (decision 1). FP32 0x3F800001 is
    # 1 + 2^-23: BF16 keeps 7 fraction bits, so RNE gives 0x3F80 with NX. 2^-24 (0x33800000) is the least
    # FP16 subnormal, exact. 2^-25 (0x33000000) ties between 0 and 2^-24: RNE picks 0, tiny and inexact ->
    # UF|NX. -2^-26 rounds to -0 (0x8000), UF|NX (decision 12).
    cases = [tcvt("one", "FP32", "FP16", [[0x3F800000]]), tcvt("ovf", "FP32", "FP16", [[0x477FF000]]),
             tcvt("bf", "FP32", "BF16", [[0x3F800001]]), tcvt("sub", "FP32", "FP16", [[0x33800000]]),
             tcvt("tie0", "FP32", "FP16", [[0x33000000]]), tcvt("negz", "FP32", "FP16", [[0xB2800000]])]
    observations = hw.execute_batch(cases)
    assert [valid_words(o, 0)[0][0] for o in observations] == [0x3C00, 0x7C00, 0x3F80, 0x0001, 0x0000, 0x8000]
    assert [o.flags for o in observations] == [0, OF | NX, NX, 0, UF | NX, UF | NX]


def test_fp_specials_by_hand(hw):
    # 65520.0 under RTZ rounds down to 65504 (0x7BFF), in range: NX only. 65536.0 (0x47800000) is beyond
    # FP16's range; decision 1: RTZ overflow gives the largest finite value 0x7BFF, OF|NX. Decision 4: +Inf with Sat=1 ->
    # 0x7BFF, OF|NX (the hardware JSON saturation vector). Decision 5: a signalling NaN (0x7F800001) gives the
    # canonical NaN 0x7E00 with NV, a quiet one (0x7FC00000) without flags. Sticky flags: status 0x02 (DZ)
    # before the program stays set and ORs with the new flags.
    cases = [tcvt("rtz", "FP32", "FP16", [[0x477FF000]], rmode="RTZ"),
             tcvt("rtz-ovf", "FP32", "FP16", [[0x47800000]], rmode="RTZ"),
             tcvt("inf-sat", "FP32", "FP16", [[0x7F800000]], sat=1),
             tcvt("snan", "FP32", "FP16", [[0x7F800001]]), tcvt("qnan", "FP32", "BF16", [[0x7FC00000]]),
             tcvt("sticky", "FP32", "FP16", [[0x3F800001]], status=0x02)]
    observations = hw.execute_batch(cases)
    assert [valid_words(o, 0)[0][0] for o in observations] == [0x7BFF, 0x7BFF, 0x7BFF, 0x7E00, 0x7FC0, 0x3C00]
    assert [o.flags for o in observations] == [NX, OF | NX, OF | NX, NV, 0, 0x02 | NX]


def test_pto_v0_keeps_the_raw_carrier(v0):
    # Digest 3.4/2.5a: under pto-v0, TCVT FP32 -> FP16 stores the FP32 bits unchanged, no flags; FP32 -> S32
    # keeps the raw bits normalized to S32 (0xBF800000 sign-extended).
    cases = [tcvt("raw", "FP32", "FP16", [[0x3F800000, 0x477FF000]]),
             tcvt("trunc", "FP32", "S32", [[0xBF800000]])]
    observations = v0.execute_batch(cases)
    assert valid_words(observations[0], 0) == [[0x3F800000, 0x477FF000]]
    assert valid_words(observations[1], 0) == [[0xFFFFFFFFBF800000]]
    assert [o.flags for o in observations] == [0, 0]


PAIRS = [(s, d) for s in ("FP32", "FP16", "BF16") for d in ("FP32", "FP16", "BF16")]


def _interesting(dtype: str, count: int, rng) -> list[int]:
    """Edge encodings of a binary format (both signs) plus random ones: ``count`` in all."""
    width = BITS[dtype]
    frac = {"FP32": 23, "FP16": 10, "BF16": 7}[dtype]
    inf = ((1 << (width - 1)) - 1) ^ ((1 << frac) - 1)
    edges = [0, 1, 2, (1 << frac) - 1, 1 << frac, (1 << frac) + 1,  # zero, subnormals, least normals
             inf - 1, inf, inf | 1, inf | (1 << (frac - 1))]  # max finite, +Inf, a signalling and a quiet NaN
    edges += [e | (1 << (width - 1)) for e in edges]
    return edges + [int(v) for v in rng.integers(0, 1 << width, size=count - len(edges))]


@pytest.mark.parametrize("src,dst", PAIRS)
def test_binary_conversions_match_the_independent_reference(hw, src, dst):
    """Every rounding mode and both Sat values, against vectors/reference/numeric.py (exact Fractions)."""
    rng = np.random.default_rng(sum(map(ord, src + dst)))
    flat = _interesting(src, ELEMENTS // 2, rng)
    data = [flat[i:i + COLS] for i in range(0, len(flat), COLS)]
    modes = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
    cases, expected = [], []
    for mode in modes:
        for sat in (0, 1):
            cases.append(tcvt(f"{mode}-{sat}", src, dst, data, rmode=mode, sat=sat))
            # The flags of a tile are the OR of the element flags.
            results = [ref.convert(src, dst, v, mode, bool(sat)) for v in flat]
            expected.append(([r for r, _ in results], np.bitwise_or.reduce([f for _, f in results])))
    for case, obs, (words, flags) in zip(cases, hw.execute_batch(cases), expected):
        assert obs.error is None, obs.error
        got = [v for row in valid_words(obs, 0) for v in row]
        bad = [(hex(s), hex(g), hex(w)) for s, g, w in zip(flat, got, words) if g != w]
        assert not bad, f"{case.name}: (source, device, reference) {bad[:5]}"
        assert obs.flags == flags, case.name


def _ml_dtypes_cases(src: str, dst: str, codes: np.ndarray, src_type, dst_type) -> list[tuple[Case, list]]:
    """Cases converting ``codes`` (16 x 32 per case) with RNE, and ml_dtypes' results."""
    rows = ELEMENTS // 2 // COLS
    codes = np.concatenate([codes, np.zeros(-len(codes) % (rows * COLS), dtype=codes.dtype)])
    with np.errstate(over="ignore"):  # FP32 values beyond FP16's range become infinities, as they should
        want = codes.view(src_type).astype(dst_type)
    want = want.view(np.uint16 if want.itemsize == 2 else np.uint32).astype(np.uint64)
    return [(tcvt(f"{src}-{dst}-{k}", src, dst, codes[k:k + rows * COLS].astype(int).reshape(rows, COLS).tolist()),
             want[k:k + rows * COLS].astype(int).reshape(rows, COLS).tolist())
            for k in range(0, len(codes), rows * COLS)]


def test_rne_matches_ml_dtypes(hw):
    # Widening FP16/BF16 -> FP32 is exact: every non-NaN 16-bit encoding, exhaustively. Narrowing FP32 ->
    # FP16/BF16 under RNE (overflow to infinity, gradual underflow): 8192 random non-NaN FP32 encodings.
    # NaNs are left out: numpy keeps payloads, the hardware profile gives the canonical NaN.
    all16 = np.arange(1 << 16, dtype=np.uint16)
    rng = np.random.default_rng(2024)
    fp32 = rng.integers(0, 1 << 32, size=8192, dtype=np.uint64).astype(np.uint32)
    fp32 = fp32[~np.isnan(fp32.view(np.float32))]
    work = []
    for name, np_type in (("FP16", np.float16), ("BF16", ml_dtypes.bfloat16)):
        codes16 = all16[~np.isnan(all16.view(np_type).astype(np.float32))]
        work += _ml_dtypes_cases(name, "FP32", codes16, np_type, np.float32)
        work += _ml_dtypes_cases("FP32", name, fp32, np.float32, np_type)
    observations = hw.execute_batch([case for case, _ in work])
    for (case, want), obs in zip(work, observations):
        assert obs.error is None, obs.error
        assert valid_words(obs, 0) == want, case.name


# ---------------------------------------------------------------------------
# the C device: descriptors, rename, padding, faults, unsupported


def test_rename_takes_the_first_free_index_of_the_hand(hw):
    # Digest 5.6: the destination is the first unallocated index of the hand. T0 and T2 are allocated besides
    # the source T1 -> the result lands in T3; hand U (16..31) -> 16.
    busy = [state_tile(0, "U8", [[1]]), state_tile(2, "U8", [[2]])]
    t_case = tcvt("t", "U8", "U16", [[5]], extra_tiles=busy)
    u_case = tcvt("u", "U8", "U16", [[5]], hand="U")
    t_obs, u_obs = hw.execute_batch([t_case, u_case])
    assert sorted(t_obs.tiles) == [0, 1, 2, 3] and t_obs.tiles[3].dtype == "U16"
    assert sorted(u_obs.tiles) == [1, 16] and u_obs.tiles[16].words[0][0] == 5


@pytest.mark.parametrize("pad,dtype,value,defined", [
    # Digest 3.5 padding values: Zero stores 0 defined; Null stores 0 undefined; Max of U16 is 0xFFFF; Min of
    # S8 is 0x80, not sign-extended; Max of S4X2 is the all-ones Word, of which the packed lane keeps 0xF.
    ("Zero", "U16", 0, True), ("Null", "U16", 0, False), ("Max", "U16", 0xFFFF, True),
    ("Min", "S8", 0x80, True), ("Max", "S4X2", 0xF, True)])
def test_padding(hw, pad, dtype, value, defined):
    obs = run_one(hw, tcvt(f"pad-{pad}", "U8", dtype, [[3, 4]], pad=pad))
    dst = obs.tiles[0]
    assert dst.words[0][:2] == [3, 4] and dst.defined[0][:2] == [True, True]
    outside = {(dst.words[r][c], dst.defined[r][c]) for r in range(dst.rows) for c in range(dst.cols)
               if r >= 1 or c >= 2}
    assert outside == {(value, defined)}


def test_faults_leave_the_state_as_it_was(hw):
    # Digest 4/4.1/5.7: BSTOP with no block -> Fault_BundleControl; source type U16 under BSTART U8 ->
    # Fault_TileLegality before allocation; 24 columns (not a power of two) -> Fault_TileAllocation;
    # a tile capacity of 4096 B is exceeded by source (4 PEs x 1024 B) + destination (4 x 2048 B) ->
    # Fault_TileAllocation; BSTART DataType code 15 is reserved -> Fault_IllegalInstruction. No flags change,
    # nothing is allocated beyond the source.
    src = [state_tile(1, "U16", [[1]])]
    cases = [
        make_case("bstop", "BSTOP", src, status=0x10),
        make_case("type", "BSTART.VEC TCVT, U8; B.DATR U16; B.DIM LB0=1; B.DIM LB2=32; "
                          "B.IOT T1, mask=1111, <last>, ->T<4>; BSTOP", src, status=0x10),
        make_case("cols", "BSTART.VEC TCVT, U16; B.DATR U16; B.DIM LB0=1; B.DIM LB2=24; "
                          "B.IOT T1, mask=1111, <last>, ->T<4>; BSTOP", src, status=0x10),
        tcvt("capacity", "U8", "U16", [[1]]),
        make_case("reserved", [0x79B19181, 0x00000001], src, status=0x10),
    ]
    capacity_case = cases[3]
    capacity_case.state["tile_capacity"] = 4096 + 2048 * 4 - 1
    observations = hw.execute_batch(cases)
    assert [o.fault for o in observations] == ["Fault_BundleControl", "Fault_TileLegality",
                                               "Fault_TileAllocation", "Fault_TileAllocation",
                                               "Fault_IllegalInstruction"]
    assert [o.flags for o in observations] == [0x10, 0x10, 0x10, 0, 0x10]
    assert [sorted(o.tiles) for o in observations] == [[1]] * 5


def test_unsupported_answers_become_not_supported(hw):
    # The device answers `unsupported` for what it does not implement: FP32 -> S32 under hw-ieee, a B.IOR.
    cvt = tcvt("f2i", "FP32", "S32", [[0x3F800000]])
    ior = make_case("ior", "BSTART.VEC TCVT, U8; B.IOR R1; B.DIM LB0=1; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP",
                    [state_tile(1, "U8", [[1]])])
    assert hw.supports(cvt) is None and hw.supports(ior) is None  # not known before it runs
    observations = hw.execute_batch([cvt, ior])
    assert observations[0].error == "not supported: avs-c-device 1.0 (hw-ieee): TCVT FP32 -> S32 under hw-ieee"
    assert observations[1].error.startswith("not supported: avs-c-device 1.0 (hw-ieee): instruction B.IOR")
    assert hw.supports(cvt) == "avs-c-device 1.0 (hw-ieee): TCVT FP32 -> S32 under hw-ieee"


def test_supports_uses_the_hello_and_the_assembler(hw):
    e4m3 = tcvt("e4m3", "E4M3", "FP32", [[0]])
    assert hw.supports(e4m3) == "avs-c-device 1.0 (hw-ieee) does not support E4M3"
    v0_only = tcvt("v0", "U8", "U16", [[0]], profiles=("pto-v0",))
    assert hw.supports(v0_only) == "case does not hold under profile hw-ieee"
    bad_text = make_case("asm", "BSTART.VEC TCVT, U8; B.DIM LB7=1")
    assert hw.supports(bad_text).startswith("cannot assemble the program: ")
    direct = make_case("call", [{"call": "TCVT", "dst": 0, "src": 0, "dtype": "U8"}])
    assert hw.supports(direct) == "avs-c-device 1.0 (hw-ieee) cannot run direct calls"


# ---------------------------------------------------------------------------
# misbehaving devices: a proxy in front of the C device that breaks on chosen cases


PROXY = textwrap.dedent('''
    import json, os, signal, subprocess, sys, time
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    hello = json.loads(child.stdout.readline())
    hello["version"] = os.environ.get("FAKE_VERSION", hello["version"])
    hello["protocol"] = os.environ.get("FAKE_PROTOCOL", hello["protocol"])
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "shutdown":
            break
        ids = " ".join(c["id"] for c in request["cases"])
        if "crash" in ids:
            print("proxy: crashing on purpose", file=sys.stderr, flush=True)
            child.stdin.write(line); child.stdin.flush()  # the device is mid-batch when it dies
            os.kill(os.getpid(), signal.SIGKILL)
        if "hang" in ids:
            time.sleep(3600)
        if "garbage" in ids:
            print("Simulator v9 ready (not JSON)", flush=True)
            continue
        if "reject" in ids:
            print(json.dumps({"type": "error", "batch": request["batch"], "message": "cannot parse"}), flush=True)
            continue
        child.stdin.write(line); child.stdin.flush()
        answer = json.loads(child.stdout.readline())
        out = []
        for entry in answer["results"]:
            name = entry["id"].split("::")[1]
            obs = entry.get("observation")
            if name == "bad-flags": obs["flags"] = "NX"
            if name == "big-flags": obs["flags"] = 99
            if name == "bad-fault": obs["fault"] = "Fault_Bogus"
            if name == "bad-tiles": obs["tiles"] = [1, 2]
            if name == "bad-words": obs["tiles"]["0"]["words"][0][0] = -1
            if name == "tile-string": obs["tiles"]["0"] = "T0: 32x32 U8"
            if name == "words-string": obs["tiles"]["0"]["words"] = "0x2c"
            if name == "dtype-number": obs["tiles"]["0"]["dtype"] = 8
            if name == "valid-number": obs["tiles"]["0"]["valid"] = 1
            if name == "rows-bool": obs["tiles"]["0"]["rows"] = True
            if name == "flags-bool": obs["flags"] = False
            if name == "flags-float": obs["flags"] = 16.0
            if name == "encoding-string": obs["encoding"] = "d1b2c3"
            if name == "detail-number": obs["detail"] = 7
            if name == "tile-key": obs["tiles"] = {"T0": obs["tiles"]["0"]}
            if name == "list-id": entry["id"] = [entry["id"]]
            if name == "short-words": obs["tiles"]["0"]["words"].pop()
            if name == "not-object": entry["observation"] = "fine"
            if name == "both": entry["unsupported"] = "and also unsupported"
            if name == "neither": del entry["observation"]
            if name == "dev-error": entry.pop("observation"); entry["error"] = "simulator assertion at cycle 12"
            if name == "no-id": del entry["id"]
            if name == "drop": continue
            out.append(entry)
            if name == "dup": out.append(entry)
        if "stranger" in ids:
            out.append({"id": "someone::else", "error": "?"})
        print(json.dumps({"type": "results", "batch": answer["batch"], "results": out}), flush=True)
''')


@pytest.fixture
def proxy(binary, tmp_path):
    script = tmp_path / "proxy.py"
    script.write_text(PROXY)
    return [sys.executable, str(script), str(binary)]


def good(name: str, value: int) -> Case:
    return tcvt(name, "U16", "U8", [[value]], sat=1)


def expected_good(value: int) -> int:
    return min(value, 255)  # U16 -> U8 with Sat=1 clamps (digest 2.5a)


def assert_good(obs: Observation, value: int) -> None:
    assert obs.error is None, obs.error
    assert obs.fault is None and valid_words(obs, 0) == [[expected_good(value)]]


def test_device_killed_mid_batch(proxy):
    device = ProcessDevice(proxy, timeout=20)
    try:
        cases = [good("ok-1", 300), good("crash", 7), good("ok-2", 12)]
        observations = device.execute_batch(cases)
        assert_good(observations[0], 300)
        assert_good(observations[2], 12)
        error = observations[1].error
        assert "killed by signal 9" in error and "proxy: crashing on purpose" in error
        # The run goes on with a fresh process: the whole batch failed, then each case ran alone.
        assert device.restarts == 2
        assert_good(device.execute(good("ok-3", 1000)), 1000)
    finally:
        device.close()


def test_device_hanging_past_the_timeout(proxy):
    device = ProcessDevice(proxy, timeout=1.0)
    try:
        start = time.monotonic()
        observations = device.execute_batch([good("ok-1", 1), good("hang", 2), good("ok-2", 3)])
        elapsed = time.monotonic() - start
        assert observations[1].error.startswith("no results of batch ")
        assert "within 1 s (device hung; killed)" in observations[1].error
        assert_good(observations[0], 1)
        assert_good(observations[2], 3)
        assert elapsed < 10  # two timeouts (the batch, then the case alone), not a hung run
    finally:
        device.close()


def test_device_answering_garbage(proxy):
    device = ProcessDevice(proxy, timeout=20)
    try:
        observations = device.execute_batch([good("ok-1", 1), good("garbage", 2), good("ok-2", 3)])
        assert_good(observations[0], 1)
        assert_good(observations[2], 3)
        assert "is not JSON: 'Simulator v9 ready (not JSON)'" in observations[1].error
    finally:
        device.close()


MALFORMED = {
    "bad-flags": "malformed observation from the device: member 'flags' must be an integer or null, not string",
    "big-flags": "malformed observation from the device: member 'flags': 99 is not a 5-bit NumericStatus value",
    "bad-fault": "malformed observation from the device: unknown fault class 'Fault_Bogus'",
    "bad-tiles": "malformed observation from the device: member 'tiles' must be an object or null, not array",
    "bad-words": "malformed observation from the device: member 'tiles.0.words' holds values that are not "
                 "unsigned 64-bit integers",
    "short-words": "malformed observation from the device: member 'tiles.0.words' is not 32 rows of 32",
    "not-object": "malformed observation from the device: observation must be an object, not string",
    # parts of the wrong JSON type: a device error naming the member, never judged
    "tile-string": "malformed observation from the device: member 'tiles.0' must be an object, not string",
    "words-string": "malformed observation from the device: member 'tiles.0.words' must be an array or null, "
                    "not string",
    "dtype-number": "malformed observation from the device: member 'tiles.0.dtype' must be a string or null, "
                    "not integer",
    "valid-number": "malformed observation from the device: member 'tiles.0.valid' must be an array or null, "
                    "not integer",
    "rows-bool": "malformed observation from the device: member 'tiles.0.rows' must be an integer or null, "
                 "not boolean",
    "flags-bool": "malformed observation from the device: member 'flags' must be an integer or null, not boolean",
    "flags-float": "malformed observation from the device: member 'flags' must be an integer or null, not number",
    "encoding-string": "malformed observation from the device: member 'encoding' must be an array or null, "
                       "not string",
    "detail-number": "malformed observation from the device: member 'detail' must be a string or null, "
                     "not integer",
    "tile-key": "malformed observation from the device: member 'tiles' key 'T0' is not a TileIndex",
    "list-id": "device returned no result for this case",
    "both": "device result must hold exactly one of observation, unsupported, error; it holds "
            "observation, unsupported",
    "neither": "device result must hold exactly one of observation, unsupported, error; it holds none",
    "dev-error": "the device reported: simulator assertion at cycle 12",
    "no-id": "device returned no result for this case",
    "drop": "device returned no result for this case",
    "dup": "device returned more than one result for this case",
}


def test_malformed_results_are_device_errors_for_exactly_those_cases(proxy):
    device = ProcessDevice(proxy, timeout=20)
    try:
        names = ["ok-1", *MALFORMED, "stranger", "ok-2"]
        observations = device.execute_batch([good(name, 400 + i) for i, name in enumerate(names)])
        for i, (name, obs) in enumerate(zip(names, observations)):
            if name in MALFORMED:
                assert obs.error == MALFORMED[name], name
            else:  # the well-formed answers of the same batch are kept (an extra stray id is ignored)
                assert_good(obs, 400 + i)
        assert device.restarts == 0  # the device kept the protocol: no restart needed
    finally:
        device.close()


@pytest.mark.parametrize("observation, member", [
    ({"fault": None, "flags": 0, "tiles": {"0": "T0: 1x1 U8 = 0x2c"}}, "member 'tiles.0' must be an object"),
    ({"fault": None, "flags": 0, "tiles": {"0": {"dtype": "U8", "rows": 1, "cols": 1, "valid": [1, 1],
                                                 "words": "0x2c", "defined": [[True]]}}},
     "member 'tiles.0.words' must be an array"),
    ({"fault": None, "flags": "NX", "tiles": {}}, "member 'flags' must be an integer"),
])
def test_wrong_json_types_are_device_errors_wherever_they_come_from(observation, member):
    """Whoever hands over the observation (a recording replayed, a Python device building it), a
    part of the wrong JSON type is a device error naming the member, never judged as a fail."""
    from dataclasses import replace

    from pto_avs.contract.compare import compare
    from pto_avs.plugins.replay import ReplayDevice, capabilities_to_json
    from pto_avs.plugins.base import Capabilities

    case = replace(good("typed", 44), expect={"fault": None, "allocated": [0, 1],
                                               "tiles": [{"index": 0, "dtype": "U8", "data": [[44]]}]})
    caps = Capabilities(profile="hw-ieee", operations=frozenset({"TCVT"}))
    replay = ReplayDevice("recording.json", "dev", {"capabilities": capabilities_to_json(caps),
                                                    "cases": {case.id: {"observation": observation}}})
    verdict = compare(case, replay.execute(case), caps.aspects)
    assert verdict.outcome == "device error" and member in verdict.error, verdict.report()
    # An Observation a Python device builds itself: a descriptor member of the wrong type
    # (the DataType as its code, 8) is a device error, not a descriptor mismatch.
    built = Observation(fault=None, flags=0, tiles={0: TileObservation(
        dtype=8, rows=1, cols=1, valid=(1, 1), words=[[44]], defined=[[True]])})
    verdict = compare(replace(case, expect={"tiles": [{"index": 0, "dtype": "U8"}]}), built, caps.aspects)
    assert verdict.outcome == "device error", verdict.report()
    assert verdict.error == "malformed observation: member 'tiles.0.dtype' must be a string or null, not integer"


def test_device_error_message_for_a_whole_request(proxy):
    device = ProcessDevice(proxy, timeout=20)
    try:
        observations = device.execute_batch([good("reject", 1), good("reject-2", 2)])
        assert [o.error for o in observations] == ["device could not process batch 1: 'cannot parse'"] * 2
        assert device.restarts == 0
        assert_good(device.execute(good("ok", 3)), 3)
    finally:
        device.close()


def test_a_device_that_keeps_failing_is_given_up(proxy):
    device = ProcessDevice(proxy, timeout=0.5)
    try:
        observations = device.execute_batch([good(f"hang-{i}", i) for i in range(4)])
        errors = [o.error for o in observations]
        # The batch (1), then hang-0 (2) and hang-1 (3) alone time out; then the device is given up.
        assert errors[0].startswith("no results of batch 2 (1 case) within 0.5 s")
        assert errors[1].startswith("no results of batch 3 (1 case) within 0.5 s")
        assert errors[2] == errors[3]
        assert errors[2].startswith("device given up after 3 consecutive failed requests; last: no results of batch 3")
        restarts = device.restarts
        assert device.execute(good("ok", 1)).error == errors[2]
        assert device.restarts == restarts  # no new process once given up
    finally:
        device.close()


def test_the_give_up_limit_is_a_setting(proxy, monkeypatch):
    """PTO_AVS_PROCESS_MAX_FAILURES=5: four hangs in a row each cost a restart, and
    the device still answers the case after them."""
    monkeypatch.setenv("PTO_AVS_PROCESS_MAX_FAILURES", "5")
    device = ProcessDevice(proxy, timeout=0.5)
    try:
        observations = device.execute_batch([good(f"hang-{i}", i) for i in range(3)] + [good("ok", 7)])
        errors = [o.error for o in observations[:3]]
        assert all(e.startswith("no results of batch") for e in errors), errors
        assert_good(observations[3], 7)
        assert device.restarts >= 4
    finally:
        device.close()


def test_unknown_major_version_is_refused(proxy, monkeypatch):
    monkeypatch.setenv("FAKE_VERSION", "2.0")
    with pytest.raises(ValueError, match=r"device speaks pto-avs-device version 2\.0; this adapter speaks "
                                         r"version 1\.x \(1\.2\) and refuses it"):
        ProcessDevice(proxy)


def test_a_newer_minor_version_is_accepted(proxy, monkeypatch):
    monkeypatch.setenv("FAKE_VERSION", "1.7")
    device = ProcessDevice(proxy)
    try:
        assert device.capabilities.extras["protocol_version"] == "1.7"
        assert_good(device.execute(good("ok", 5)), 5)
    finally:
        device.close()


def test_another_protocol_is_refused(proxy, monkeypatch):
    monkeypatch.setenv("FAKE_PROTOCOL", "something-else")
    with pytest.raises(ValueError, match="hello names protocol 'something-else', not 'pto-avs-device'"):
        ProcessDevice(proxy)


def test_a_device_that_dies_at_start(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stderr.write('license server unreachable\\n')\nsys.exit(3)\n")
    with pytest.raises(ValueError, match=r"closed its output before the hello: it exited with status 3; "
                                         r"device stderr: license server unreachable"):
        ProcessDevice([sys.executable, str(script)])


def test_a_device_silent_at_start(tmp_path):
    script = tmp_path / "silent.py"
    script.write_text("import time\ntime.sleep(3600)\n")
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"no hello within 0\.5 s"):
        ProcessDevice([sys.executable, str(script)], start_timeout=0.5)
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("script, reason", [
    ("import sys, time\nsys.stderr.write('waiting for the license server\\n'); sys.stderr.flush()\n"
     "time.sleep(3600)\n",
     r"no hello within 0\.5 s \(device hung; killed\); device stderr: waiting for the license server$"),
    ("import os, signal, sys\nsys.stderr.write('simulator init failed\\n'); sys.stderr.flush()\n"
     "os.kill(os.getpid(), signal.SIGSEGV)\n",
     r"device closed its output before the hello: it was killed by signal 11 \(SIGSEGV\); "
     r"device stderr: simulator init failed$"),
    ("import sys, time\nsys.stderr.write('model loaded\\n'); sys.stderr.flush()\n"
     "print('Simulator v9 ready', flush=True)\ntime.sleep(3600)\n",
     r"output line 1 is not JSON: 'Simulator v9 ready' .*; device stderr: model loaded$"),
])
def test_a_device_that_fails_before_its_hello_says_why(tmp_path, script, reason):
    """Crash, hang or garbage before the hello: the error quotes the reason and the device's stderr,
    all of it (read after the device is stopped), within bounded time."""
    path = tmp_path / "device.py"
    path.write_text(script)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"^process device '.*device\.py' cannot be opened: " + reason):
        ProcessDevice([sys.executable, str(path)], start_timeout=0.5)
    assert time.monotonic() - start < 10


def test_a_missing_program():
    with pytest.raises(ValueError, match="cannot start 'no-such-device-program'"):
        open_named_device("process:no-such-device-program")


def test_settings_from_the_environment(binary, monkeypatch):
    monkeypatch.setenv("PTO_AVS_PROCESS_MAX_BATCH", "3")
    monkeypatch.setenv("PTO_AVS_PROCESS_TIMEOUT", "2.5")
    device = ProcessDevice([str(binary)])
    try:
        assert (device.batch_size, device.timeout) == (3, 2.5)
    finally:
        device.close()
    monkeypatch.setenv("PTO_AVS_PROCESS_TIMEOUT", "soon")
    with pytest.raises(ValueError, match=r"PTO_AVS_PROCESS_TIMEOUT='soon' must be a positive number"):
        ProcessDevice([str(binary)])


def test_hello_checks_name_what_is_wrong():
    base = {"type": "hello", "protocol": "pto-avs-device", "version": "1.0", "device": "d",
            "capabilities": {"profile": "hw-ieee", "operations": ["TCVT"]}}
    name, caps, batch = parse_hello(base)
    # A 1.0 device observes every aspect but those of the memory it cannot be given (protocol 1.1).
    assert (name, caps.dtypes, caps.aspects, batch) == ("d", None, frozenset(ASPECTS) - {"memory", "events"}, 64)
    problems = {
        "profile": ({"profile": "ieee"}, "capabilities.profile must be one of pto-v0, hw-ieee, not 'ieee'"),
        "ops": ({"operations": ["TADD", "TFOO"]}, "capabilities.operations names unknown TFOO"),
        "dtypes": ({"dtypes": ["FP8"]}, "capabilities.dtypes names unknown FP8"),
        "aspects": ({"aspects": "all"}, "capabilities.aspects must be a list of names"),
        "batch": ({"max_batch": 0}, "capabilities.max_batch must be a positive integer"),
    }
    for key, (change, message) in problems.items():
        hello = json.loads(json.dumps(base))
        hello["capabilities"].update(change)
        with pytest.raises(ProtocolError, match=message):
            parse_hello(hello)
    with pytest.raises(VersionError):
        parse_hello({**base, "version": "0.9"})
    with pytest.raises(ProtocolError, match="hello version 'one' is not 'MAJOR.MINOR'"):
        parse_hello({**base, "version": "one"})
