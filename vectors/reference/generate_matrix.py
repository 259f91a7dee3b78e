"""The CUBE matrix vectors (TMATMUL, TGEMV and their BIAS, ACC and MX forms), from the
independent exact reference vectors/reference/matrix.py.

Per operation (TGEMV_MX_ACC keeps its hand-written spec-ID files and its own families):

- its spec-ID files: the spec test's own case (pto-v0, the raw Words the test asserts),
  its hw-ieee twin on the IEEE encodings of the same values, and the bundle form of it
  for the static-invariant points (the BSTART form, the mandatory B.FPATR, the source
  order and the renamed D);
- ``PTO-AVS-X-<OP>-REF-001``: in both profiles, every input type of the operation (each
  ordinary type with itself and with another type of its class, or every MX type on
  each side), M, N and K over the CUBE_M16/CUBE_M32 bounds and past the 32-element scale
  block, accumulation overflow to infinity, integer wrap, the bias of each accumulator
  type, post-processing modes, a nonzero status that must survive with its twin, a
  two-block program whose flags accumulate, and the operand faults (wrong type class,
  wrong layout, wrong bias or scale shape, GEMV with M > 1).
- ``PTO-AVS-X-<TMATMUL form>-SHARED-001`` (the six TMATMUL forms): Shared operands through
  B.IOS, the right group (B, [B-scale]) or both groups read from shared tile registers,
  TransA/TransB (the register stores the transposed primary; the logical operand from
  matrix.py's shared_primary), power-of-two M/N/K, and the schema faults by hand from the ASL
  (register readiness and read schema, group counts, a Local B beside a Shared one, no
  CUBE_M layout for M = 64, legality before allocation).

Expected D Words and NumericStatus come from matrix.py (exact rationals, one rounding
per step), post-processing from postprocess.py; nothing here imports device_model.
"""
from __future__ import annotations

import random
import zlib
from fractions import Fraction

from . import engine
from . import matrix as mx
from . import numeric as ref
from . import postprocess as pp
from .engine import SIZE_CODES, Flow, FlowMap, Hex
from .generate_numeric import finite_codes, random_code

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference generate"
OPERATIONS = tuple(mx.FUNCTIONS)  # TGEMV_MX_ACC: only its status file (strength_file)
PROVENANCE = (
    "Expected values are the spec test's own assertions at PTO-ISA/pto-spec e599a3d3 (source: spec-test) "
    "and values of the independent exact reference vectors/reference/matrix.py (source: reference-generator; "
    "exact rational dot products from numeric.py's decoder, then per K step in increasing K one FP32 RNE "
    "rounding in hw-ieee, raw 64-bit MultiplyWord sums in pto-v0, integer accumulation modulo 2^32, the bias "
    "after the dot product; B.FPATR post-processing from postprocess.py), transcribed from "
    "asl/tile/model/execution/cube.asl, asl/block/model/dispatch/cube-tmatmul.asl, "
    "asl/tile/model/legality/matrix-*.asl, asl/arch/profile/reference-profile.asl and the hardware "
    f"profile's matrix section. Written by `{COMMAND}`. Nothing here was produced by running the golden model.")
FP16 = {2: 0x4000, 3: 0x4200}
FP32 = {5: 0x40A00000, 6: 0x40C00000, 11: 0x41300000}


def rng_for(name: str) -> random.Random:
    return random.Random(zlib.crc32(name.encode()))


def lane_word(t: str, bits: int) -> int:
    """The Word written for element bits of ``t``: sign-extended signed integers, the lane of a
    4-bit type, else the bits."""
    return bits & 0xF if ref.fmt(t).width == 4 else ref.result_word(t, bits)


def finite(t: str, rng: random.Random) -> int:
    """A random finite input encoding (floating values in a window where sums round)."""
    f = ref.fmt(t)
    if f.is_int:
        lo, hi = f.int_range
        return ref.element_bits(t, rng.randint(lo, hi))
    if f.width > 16:
        return random_code(t, rng, (-6, 6))
    return rng.choice(_small_finite(t))


def _small_finite(t: str) -> list:
    """The finite encodings of a narrow type whose magnitude is 0 or in [1/64, 64]."""
    if t not in _SMALL:
        _SMALL[t] = [c for c in finite_codes(t) if ref.decode(t, c).magnitude == 0
                     or Fraction(1, 64) <= ref.decode(t, c).magnitude <= 64]
    return _SMALL[t]


_SMALL: dict = {}


# --------------------------------------------------------------------------------------
# Tiles and programs


def cube_tile(index: int, t: str, layout: str, rows: list[list[int]]) -> dict:
    _, _, capacity = mx.cube_shape(layout, t, len(rows), len(rows[0]))
    return {"index": index, "dtype": t, "capacity": capacity, "valid": Flow([len(rows), len(rows[0])]),
            "layout": layout, "location": "Matrix", "data": [Flow(Hex(w) for w in row) for row in rows]}


def row_tile(index: int, t: str, rows: list[list[int]]) -> dict:
    """An ordinary RowMajor source tile (bias, scales): the smallest power-of-two columns."""
    cols = engine.pow2_at_least(len(rows[0]))
    cols = max(cols, 8 if ref.fmt(t).width <= 8 else cols)
    capacity = max(128, engine.pow2_at_least(-(-len(rows) * cols * max(ref.fmt(t).width, 8) // 8)))
    while engine.rows_of(capacity, cols, t) < len(rows):
        capacity *= 2
    return {"index": index, "dtype": t, "capacity": capacity, "cols": cols,
            "valid": Flow([len(rows), len(rows[0])]), "layout": "RowMajor",
            "data": [Flow(Hex(w) for w in row) for row in rows]}


def d_expect(index: int, t: str, layout: str, words: list[list[int]], capacity: int) -> dict:
    rows, cols, _ = mx.cube_shape(layout, t, len(words), len(words[0]))
    mask = (1 << ref.fmt(t).width) - 1
    return {"index": index, "dtype": t, "layout": layout, "location": "Matrix", "rows": rows, "cols": cols,
            "valid": Flow([len(words), len(words[0])]), "capacity": capacity,
            "data": [Flow(Hex(w & mask) for w in row) for row in words], "padding": FlowMap(defined=False),
            "words": [Flow(Hex(w) for w in row) for row in words]}


class Operands:
    """The operands of one case: types, values, layout and (for a block) the source order."""

    def __init__(self, op, a_type, b_type, a, b, c=None, sa=None, sb=None, bias=None, layout="CUBE_M16"):
        self.op, self.a_type, self.b_type, self.layout = op, a_type, b_type, layout
        self.a, self.b, self.c, self.sa, self.sb, self.bias = a, b, c, sa, sb, bias
        self.acc_type = mx.accumulator(op, a_type, b_type)

    @property
    def m(self):
        return len(self.a)

    @property
    def n(self):
        return len(self.b[0])

    @property
    def k(self):
        return len(self.b)

    def tiles(self):
        """Source tiles in the bundle's source order, indices 1.. (D lands in T0)."""
        out = []

        def add(tile_of, *args):
            out.append(tile_of(len(out) + 1, *args))

        if self.c is not None:
            add(cube_tile, self.acc_type, self.layout, self.c)
        add(cube_tile, self.a_type, self.layout, self.a)
        if self.sa is not None:
            add(row_tile, "E8M0", self.sa)
        add(cube_tile, self.b_type, "CUBE_N8", self.b)
        if self.sb is not None:
            add(row_tile, "E8M0", self.sb)
        if self.bias is not None:
            add(row_tile, self.acc_type, [self.bias])
        return out

    def result(self, profile, mode=0, config=None):
        """(D type, D Words, flags) in ``profile`` with PreQuantMode ``mode`` (config: postprocess.Config)."""
        words, flags = mx.product(profile, self.op, self.a_type, self.b_type, self.a, self.b, self.c,
                                  self.sa, self.sb, self.bias)
        if config is None:
            return self.acc_type, words, flags
        out = []
        for row in words:
            converted = [pp.postprocess(w, config, j, self.acc_type) for j, w in enumerate(row)]
            out.append([w for w, _ in converted])
            for _, f in converted:
                flags |= f
        return (pp.OUTPUT_TYPE[config.mode] if config.mode else self.acc_type), out, flags

    def d_capacity(self, out_type):
        return mx.cube_shape(self.layout, out_type, self.m, self.n)[2]

    def bundle(self, fpatr="B.FPATR", extra_sources=(), gpr=None, out_type=None, size=None):
        tiles = self.tiles()
        sources = [t["index"] for t in tiles] + list(extra_sources)
        lines = [f"{mx.BSTART[self.op]} {self.a_type}", fpatr]
        if self.b_type != self.a_type:
            lines.append(f"B.DATR {self.b_type}")
        lines += [f"B.DIM LB0={self.m}", f"B.DIM LB1={self.n}", f"B.DIM LB2={self.k}"]
        for i in range(0, len(sources), 2):
            lines.append(engine.iot_line(sources[i:i + 2], last=False))
        size = size or SIZE_CODES[self.d_capacity(out_type or self.acc_type)]
        lines.append(engine.iot_line([], size=size))
        if gpr is not None:
            lines.append(f"B.IOR R{gpr}")
        lines.append("BSTOP")
        return "\n".join(lines), sources

    def direct(self, dst, tiles, **extra):
        names = iter(t["index"] for t in tiles)
        call = {"call": self.op, "dst": dst}
        if self.c is not None:
            call["acc"] = next(names)
        call["a"] = next(names)
        if self.sa is not None:
            call["a_scale"] = next(names)
        call["b"] = next(names)
        if self.sb is not None:
            call["b_scale"] = next(names)
        if self.bias is not None:
            call["bias"] = next(names)
        if self.b_type != self.a_type:
            call["btype"] = self.b_type
        call.update(extra)
        return Flow([FlowMap(call)])


def describe(o: Operands, profile: str) -> str:
    scale = f", scales per {mx.SCALE_BLOCK} K" if o.sa is not None or o.sb is not None else ""
    parts = [f"{o.op} {o.a_type} x {o.b_type} -> {o.acc_type}, M={o.m} N={o.n} K={o.k}, A/C/D {o.layout}{scale}"]
    if profile == "pto-v0":
        parts.append("pto-v0: raw Words, D = [C +] sum_k MultiplyWord(a*sa, b*sb) [+ bias] modulo 2^64")
    elif o.acc_type == "FP32":
        parts.append("hw-ieee: one FP32 RNE fused multiply-add per K step in increasing K, the bias one FP32 "
                     "RNE addition after the dot product, status the OR of every step's IEEE flags "
                     "(SPEC-CHOICE 17, 52, 53)")
    else:
        parts.append(f"hw-ieee: exact integer products and sums modulo 2^32, the {o.acc_type} Word normalized, "
                     "no flag (SPEC-CHOICE 51)")
    return "; ".join(parts) + "."


def block_case(name, o: Operands, profile, *, note="", status=0, config=None, fpatr="B.FPATR", gprs=None,
               gpr=None, extra_tiles=(), source="reference-generator", reference=COMMAND):
    out_type, words, flags = o.result(profile, config=config)
    tiles = o.tiles() + list(extra_tiles)
    program, sources = o.bundle(fpatr, [t["index"] for t in extra_tiles], gpr, out_type)
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    if gprs:
        state["gprs"] = engine.gpr_map(gprs)
    expect = engine.success_expect(flags | status, [0] + sources, sources,
                                   [d_expect(0, out_type, o.layout, words, o.d_capacity(out_type))])
    text = describe(o, profile) + (" " + note if note else "")
    return engine.case(name, text, [profile], source, reference, state, program, expect)


def direct_case(name, o: Operands, profile, *, note="", status=0, source="reference-generator",
                reference=COMMAND, words_override=None):
    out_type, words, flags = o.result(profile)
    tiles = o.tiles()
    dst = len(tiles) + 1
    rows, cols, capacity = mx.cube_shape(o.layout, out_type, o.m, o.n)
    d_tile = {"index": dst, "dtype": out_type, "capacity": capacity, "valid": Flow([o.m, o.n]),
              "layout": o.layout, "location": "Matrix", "defined": "none"}
    state = {"tiles": tiles + [d_tile]}
    if status:
        state["status"] = Hex(status)
    sources = [t["index"] for t in tiles]
    expect = engine.success_expect(flags | status, sources + [dst], sources,
                                   [d_expect(dst, out_type, o.layout, words_override or words, capacity)])
    text = describe(o, profile) + (" " + note if note else "")
    return engine.case(name, text, [profile], source, reference, state, o.direct(dst, tiles), expect)


# --------------------------------------------------------------------------------------
# Spec-ID cases


def _spec_operands(op: str, ieee: bool, k: int = 1, n: int = 1) -> Operands:
    """The spec tests' operands: FP16 A = 2, B = 3, C or bias = 5 (raw integers, or their IEEE
    encodings when ``ieee``)."""
    two, three = (FP16[2], FP16[3]) if ieee else (2, 3)
    five = FP32[5] if ieee else 5
    a = [[two] * k]
    b = [[three] * n for _ in range(k)]
    return Operands(op, "FP16", "FP16", a, b, c=[[five] * n] if mx.has_acc(op) else None,
                    bias=[five] * n if mx.has_bias(op) else None)


def spec_cases(op: str, test_id: str) -> list:
    point = test_id[len(f"PTO-AVS-TILE-{op.replace('_', '-')}-"):-4]
    ref_text = engine.spec_ref(test_id)
    value = 11 if mx.has_acc(op) or mx.has_bias(op) else 6
    if point in ("EXEC", "UNSCALED"):
        spec = _spec_operands(op, False)
        cases = [direct_case("spec-fp16-1x1-raw", spec, "pto-v0", source="spec-test", reference=ref_text,
                             note=f"The spec test: A = 2, B = 3 as raw FP16 Words{', C/bias = 5' if value == 11 else ''}"
                             f"; the reference profile's raw arithmetic commits {value}.")]
        assert cases[0]["expect"]["tiles"][0]["words"][0][0] == value  # the spec test's assertion
        cases.append(direct_case("fp16-ieee-values-hw", _spec_operands(op, True), "hw-ieee",
                                 note="The same values as IEEE encodings: 2.0 * 3.0"
                                 + (" + 5.0 = 11.0" if value == 11 else " = 6.0") + "."))
        cases.append(direct_case("fp16-ieee-values-raw-in-pto-v0", _spec_operands(op, True), "pto-v0",
                                 note="The IEEE encodings in pto-v0: the raw Word arithmetic, not 6.0 or 11.0."))
        return cases
    if point == "STATIC":
        cases = []
        for profile, ieee in (("pto-v0", False), ("hw-ieee", True)):
            o = _spec_operands(op, ieee)
            cases.append(block_case(f"bstart-fp16-bundle-{profile}", o, profile, source="spec-test" if not ieee
                                    else "reference-generator", reference=ref_text if not ieee else COMMAND,
                                    note=f"The bundle form of the contract: {mx.BSTART[op]} FP16, the mandatory "
                                    "all-zero B.FPATR, the Local sources in order ([C], A, [scales], B, [bias]), "
                                    "D renamed to T0 (FP32 CUBE_M16, location Matrix)."))
        cases.append(engine.fault_case(
            "no-fpatr-bundle-control", "A Matrix block without B.FPATR: Fault_BundleControl (exactly one is "
            "mandatory).", _spec_operands(op, False).tiles(),
            _spec_operands(op, False).bundle()[0].replace("B.FPATR\n", ""), "Fault_BundleControl",
            reference="asl/block/model/dispatch/cube-tmatmul.asl:139-147"))
        return cases
    if point == "INDEX":
        o = _spec_operands(op, False)
        if mx.is_mx(op):
            o.c = [[0x40A00000]]
        tiles = o.tiles()
        call = o.direct(tiles[0]["index"], tiles)
        return [engine.fault_case("direct-d-equals-c-rejected", "Direct call with D = C (one TileIndex): "
                                  "TileOperandsLegal requires D != C; rejected before C or the status changes "
                                  "(the initial status 0x11 must survive).", tiles, call,
                                  source="spec-test", reference=ref_text, status=0x11)]
    if point == "ROW":
        cases = []
        for profile, ieee in (("pto-v0", False), ("hw-ieee", True)):
            o = _spec_operands(op, ieee, k=3, n=5)
            cases.append(direct_case(f"row-1x3-by-3x5-{profile}", o, profile, source="hand",
                                     reference=ref_text, note="A 1x3 vector times a 3x5 matrix gives one 1x5 row."))
        return cases
    if point == "SCALE":
        return mx_scale_cases(op, ref_text)
    if point == "TYPES":
        return mx_types_cases(op, ref_text)
    raise KeyError(test_id)


def _zeros(rows, cols):
    return [[0] * cols for _ in range(rows)]


def mx_scale_cases(op: str, ref_text: str) -> list:
    cases = []
    for profile in engine.BOTH:
        o = Operands(op, "FP16", "FP16", _zeros(1, 2), _zeros(2, 2))
        cases.append(direct_case(f"fp16-sides-no-scales-{profile}", o, profile, source="spec-test",
                                 reference=ref_text, note="FP16 sides take no scale operand."))
        o = Operands(op, "E4M3", "E4M3", _zeros(1, 2), _zeros(2, 2), sa=[[0x7F]], sb=[[0x7F, 0x7F]])
        cases.append(direct_case(f"e4m3-sides-scales-{profile}", o, profile, source="spec-test",
                                 reference=ref_text, note="E4M3 sides need E8M0 scales of 1 x 1 and 1 x 2."))
    o = Operands(op, "E4M3", "E4M3", _zeros(1, 2), _zeros(2, 2), sa=[[0x7F, 0x7F]], sb=[[0x7F, 0x7F]])
    tiles = o.tiles()
    dst = len(tiles) + 1
    d = {"index": dst, "dtype": "FP32", "capacity": 128, "valid": Flow([1, 2]), "layout": "CUBE_M16",
         "location": "Matrix", "defined": "none"}
    cases.append(engine.fault_case("e4m3-a-scale-wrong-shape", "The A-scale is 1 x 2 where ceil(K/32) = 1: "
                                   "Fault_TileLegality.", tiles + [d], o.direct(dst, tiles), reference=ref_text))
    o = Operands(op, "E4M3", "FP16", _zeros(1, 2), _zeros(2, 2), sa=[[0x7F]])
    tiles = o.tiles()
    tiles[1]["dtype"] = "U8"
    cases.append(engine.fault_case("e4m3-a-scale-not-e8m0", "The A-scale tile is U8, not E8M0: "
                                   "Fault_TileLegality.", tiles + [dict(d, index=len(tiles) + 1)],
                                   o.direct(len(tiles) + 1, tiles), reference=ref_text))
    return cases


def mx_types_cases(op: str, ref_text: str) -> list:
    cases = []
    for a_type, b_type in (("FP16", "BF16"), ("E4M3", "BF16"), ("FP16", "E1M2X2"), ("E4M3", "E1M2X2"),
                           ("E5M2", "E2M1X2"), ("BF16", "E5M2")):
        rng = rng_for(f"{op}-{a_type}-{b_type}")
        a = [[finite(a_type, rng) for _ in range(3)]]
        b = [[finite(b_type, rng) for _ in range(2)] for _ in range(3)]
        o = Operands(op, a_type, b_type, [[lane_word(a_type, x) for x in r] for r in a],
                     [[lane_word(b_type, x) for x in r] for r in b],
                     sa=[[0x80]] if a_type not in ref.MX_UNSCALED else None,
                     sb=[[0x7E, 0x81]] if b_type not in ref.MX_UNSCALED else None)
        for profile in engine.BOTH:
            cases.append(block_case(f"{a_type}-x-{b_type}-{profile}".lower(), o, profile, reference=ref_text,
                                    note=f"{len(o.tiles())} mathematical sources: a scale exactly for each "
                                    "side that is not FP16/BF16."))
    o = Operands(op, "E2M1X2", "E2M1X2", [[1]], [[1]], sa=[[0x7F]], sb=[[0x7F]])
    program = o.bundle()[0].replace(f"{mx.BSTART[op]} E2M1X2\nB.FPATR", f"{mx.BSTART[op]} E2M1X2\nB.FPATR\nB.DATR HiF4X2")
    cases.append(engine.fault_case("hif4x2-b-type-rejected", "BType HiF4X2 is not an MX operand type: "
                                   "Fault_TileLegality.", o.tiles(), program, reference=ref_text))
    return cases


# --------------------------------------------------------------------------------------
# Reference files


def _random_operands(op, a_type, b_type, m, n, k, rng, layout="CUBE_M16", acc_scale=True):
    a = [[lane_word(a_type, finite(a_type, rng)) for _ in range(k)] for _ in range(m)]
    b = [[lane_word(b_type, finite(b_type, rng)) for _ in range(n)] for _ in range(k)]
    acc = mx.accumulator(op, a_type, b_type)
    blocks = -(-k // mx.SCALE_BLOCK)
    sa = [[rng.randint(124, 130) for _ in range(blocks)] for _ in range(m)] if mx.scaled(op, a_type) else None
    sb = [[rng.randint(124, 130) for _ in range(n)] for _ in range(blocks)] if mx.scaled(op, b_type) else None

    def acc_word():
        if acc == "FP32":
            v = Fraction(rng.randint(-4096, 4096), 256)
            return ref.encode_value("FP32", v < 0, abs(v), "RNE", False)[0]
        return lane_word(acc, finite("S16" if acc == "S32" else "U16", rng))

    c = [[acc_word() for _ in range(n)] for _ in range(m)] if mx.has_acc(op) else None
    bias = [acc_word() for _ in range(n)] if mx.has_bias(op) else None
    return Operands(op, a_type, b_type, a, b, c, sa, sb, bias, layout)


def _pairs(op):
    if mx.is_mx(op):
        types = list(ref.MX_TYPES)
        return [(t, types[(i + 2) % len(types)]) for i, t in enumerate(types)] + \
               [(types[(i + 3) % len(types)], t) for i, t in enumerate(types)]
    out = []
    for cls in (mx.FLOATING, mx.SIGNED, mx.UNSIGNED):
        for i, t in enumerate(cls):
            out += [(t, t), (t, cls[(i + 1) % len(cls)])]
    return out


def _shapes(op, i):
    """(m, n, k, layout) of the i-th type pair: K at, below and past the scale block, M over
    the CUBE_M16 and CUBE_M32 bounds (1 for GEMV)."""
    ks = (1, 5, 31, 32, 33, 64, 65)
    k = ks[i % len(ks)]
    if mx.is_gemv(op):
        return 1, 1 + i % 5, k, ("CUBE_M16", "CUBE_M32")[i % 2]
    ms = ((2, "CUBE_M16"), (16, "CUBE_M16"), (17, "CUBE_M32"), (32, "CUBE_M32"), (3, "CUBE_M32"))
    m, layout = ms[i % len(ms)]
    return m, 1 + i % 3, min(k, 33), layout


def _special_cases(op) -> list:
    """Overflow to infinity, integer wrap, special inputs and post-processing."""
    cases = []
    if mx.is_mx(op):
        big = Operands(op, "E5M2", "E5M2", [[0x7B] * 3], [[0x7B, 0xFB]] * 3, sa=[[0xFE]], sb=[[0xFE, 0xFE]])
        ordinary_float = None
    else:
        big = Operands(op, "FP32", "FP32", [[0x7F7FFFFF, 0x7F7FFFFF]], [[0x7F000000, 0xFF000000]] * 2)
        ordinary_float = Operands(op, "FP16", "FP16", [[0x7C00, 0x3C00, 0x7E00]],
                                  [[0x3C00, 0x0000, 0xFC00]] * 3)
    if mx.has_acc(big.op):
        big.c = [[0] * big.n]
    if mx.has_bias(big.op):
        big.bias = [0x7F7FFFFF] * big.n
    for profile in engine.BOTH:
        cases.append(block_case(f"fp32-overflow-to-infinity-{profile}", big, profile,
                                note="The products exceed FP32: the fused step rounds to +-Inf (OF|NX), later "
                                "steps keep it."))
    if ordinary_float is not None:
        if mx.has_acc(op):
            ordinary_float.c = [[0x80000000] * 3]
        if mx.has_bias(op):
            ordinary_float.bias = [0x3F800000] * 3
        for profile in engine.BOTH:
            cases.append(block_case(f"fp16-infinity-nan-terms-{profile}", ordinary_float, profile,
                                    note="+Inf times 0 is invalid (NV, NaN); a quiet NaN input gives NaN without "
                                    "NV; +Inf times -Inf is -Inf."))
        for a_type, b_type, acc in (("S16", "S16", "S32"), ("S8", "S4X2", "S32"), ("U16", "U16", "U32"),
                                    ("U8", "U4X2", "U32")):
            hi = ref.fmt(a_type).int_range[1] if a_type.startswith("S") else (1 << ref.fmt(a_type).width) - 1
            lo = ref.fmt(a_type).int_range[0]
            b_hi = ref.fmt(b_type).int_range[1] if b_type.startswith("S") else (1 << ref.fmt(b_type).width) - 1
            k = 5
            a = [[lane_word(a_type, ref.element_bits(a_type, hi)), lane_word(a_type, ref.element_bits(a_type, lo))]
                 * 3][0][:k]
            b = [[lane_word(b_type, ref.element_bits(b_type, b_hi))] * 2 for _ in range(k)]
            o = Operands(op, a_type, b_type, [a], b)
            if mx.has_acc(op):
                o.c = [[lane_word(acc, ref.element_bits(acc, 0x7FFF0000 if acc == "S32" else 0xFFFF0000))] * 2]
            if mx.has_bias(op):
                o.bias = [lane_word(acc, ref.element_bits(acc, 0x7FFFFFFF if acc == "S32" else 0xFFFFFFFF))] * 2
            for profile in engine.BOTH:
                cases.append(block_case(f"{a_type}-x-{b_type}-integer-wrap-{profile}".lower(), o, profile,
                                        note="Extreme integer inputs: the exact sum leaves the 32-bit range."))
    # post-processing of the FP32 accumulator (modes of the reference postprocess.py)
    base_type = "FP16"
    for mode, relu, param in ((1, 0, None), (16, 1, None), (27, 0, 0x3FC00000), (0, 1, None), (26, 2, 0x3F000000)):
        rng = rng_for(f"{op}-pp-{mode}-{relu}")
        o = _random_operands(op, base_type, base_type, 1 if mx.is_gemv(op) else 2, 4, 3, rng)
        quant = pp.quant_word(param) if param is not None and mode in pp.SCALAR_MODES else 0
        alpha = pp.relu_word(0x3EC00000) if relu == 2 else 0
        config = pp.Config(mode, relu, "NONE", False, (quant,) * o.n, (alpha,) * o.n)
        scalars = ([quant] if mode in pp.SCALAR_MODES else []) + ([alpha] if relu == 2 else [])
        gprs = {5 + i: v for i, v in enumerate(scalars)}
        fpatr = f"B.FPATR PreQuantMode={mode}, ReluMode={relu}"
        for profile in engine.BOTH:
            cases.append(block_case(
                f"postprocess-mode{mode}-relu{relu}-{profile}", o, profile, config=config, fpatr=fpatr,
                gprs=gprs or None, gpr="5" + (", R6" if len(scalars) == 2 else "") if scalars else None,
                note=f"B.FPATR PreQuantMode {mode}, ReluMode {relu} on the FP32 accumulator (postprocess.py)."))
    return cases


def _status_and_blocks(op) -> list:
    """A nonzero initial status that must survive (with its twin without it) and two blocks whose
    flags accumulate."""
    rng = rng_for(f"{op}-status")
    a_type = "FP16"
    o = _random_operands(op, a_type, a_type, 1, 2, 33 if mx.is_mx(op) else 7, rng)
    cases = []
    for profile in engine.BOTH:
        _, _, flags = o.result(profile)
        status = 0x06 if not flags & 0x04 else 0x02
        cases.append(block_case(f"status-survives-{profile}", o, profile, status=status,
                                note=f"The initial NumericStatus {status:#04x} must survive, ORed with the "
                                "block's own flags (its twin runs without it)."))
        cases.append(block_case(f"status-twin-{profile}", o, profile, note="The twin of status-survives."))
    # two blocks: the first raises OF|NX (an overflow), the second only NX (an inexact sum)
    first = Operands(op, "FP32", "FP32", [[0x7F7FFFFF]], [[0x7F000000]]) if not mx.is_mx(op) else \
        Operands(op, "E5M2", "E5M2", [[0x7B]], [[0x7B]], sa=[[0xFE]], sb=[[0xFE]])
    second = Operands(op, "FP16", "FP16", [[0x3C01, 0x3C01]], [[0x3C01], [0x3C01]])
    for o2 in (first, second):
        if mx.has_acc(op):
            o2.c = [[0x3F800000]]
        if mx.has_bias(op):
            o2.bias = [0x3F800000]
    for profile in engine.BOTH:
        _, w1, f1 = first.result(profile)
        _, w2, f2 = second.result(profile)
        t1, t2 = first.tiles(), second.tiles()
        shift = len(t1)
        for t in t2:
            t["index"] += shift
        p1, s1 = first.bundle()
        program2_lines, s2 = second.bundle()
        for i in sorted(s2, reverse=True):
            program2_lines = program2_lines.replace(f"T{i},", f"T{i + shift},").replace(f"T{i}, mask", f"T{i + shift}, mask")
        s2 = [i + shift for i in s2]
        program = p1.replace("BSTOP", "") + program2_lines
        program = "\n".join(line for line in program.splitlines() if line)
        d2 = engine.first_free([0] + s1 + s2)
        expect = engine.success_expect(f1 | f2, [0] + s1 + s2 + [d2], s1 + s2,
                                       [d_expect(0, first.acc_type, "CUBE_M16", w1, first.d_capacity("FP32")),
                                        d_expect(d2, second.acc_type, "CUBE_M16", w2, second.d_capacity("FP32"))])
        cases.append(engine.case(f"two-blocks-flags-accumulate-{profile}",
                                 f"Two {op} blocks: the first overflows, the second is only inexact; the status "
                                 f"is the OR of both ({f1:#04x} | {f2:#04x}). " + describe(first, profile),
                                 [profile], "reference-generator", COMMAND, {"tiles": t1 + t2}, program, expect))
        alone = "\n".join(line for line in program2_lines.splitlines() if line)
        expect = engine.success_expect(f2, [0] + s1 + s2, s1 + s2,
                                       [d_expect(0, second.acc_type, "CUBE_M16", w2, second.d_capacity("FP32"))])
        cases.append(engine.case(f"second-block-alone-{profile}", "The second block of "
                                 "two-blocks-flags-accumulate alone, on the same state: its own flags only. "
                                 + describe(second, profile), [profile], "reference-generator", COMMAND,
                                 {"tiles": t1 + t2}, alone, expect))
    return cases


def _size_case(op) -> dict:
    """A and B at the 64 KiB TSize bound (A 1 x 2048 FP16 CUBE_M16, B 2048 x 16 FP16 CUBE_N8),
    zero except the K indices 0 and 256, so B's logical elements 0 and 4096 hold different
    values that both reach D(0, 0) (hw-ieee; pto-v0 would only add raw products of zero)."""
    k, n = 2048, 16
    a = [[0] * k]
    b = [[0] * n for _ in range(k)]
    a[0][0] = a[0][256] = 0x3C00  # 1.0
    b[0][0], b[256][0] = 0x3C00, 0x4400  # 1.0 and 4.0
    o = Operands(op, "FP16", "FP16", a, b, c=[[0x3F800000] * n] if mx.has_acc(op) else None,
                 bias=[0x40000000] * n if mx.has_bias(op) else None)
    tiles = o.tiles()
    for tile, layout, sparse in ((tiles[mx.has_acc(op)], "CUBE_M16", {"0,0": 0x3C00, "0,256": 0x3C00}),
                                 (tiles[mx.has_acc(op) + 1], "CUBE_N8", {"0,0": 0x3C00, "256,0": 0x4400})):
        assert tile["layout"] == layout and tile["capacity"] == 65536
        del tile["data"]
        tile["fill"] = Hex(0)
        tile["elements"] = {key: Hex(value) for key, value in sparse.items()}
    for tile in tiles:  # one PE each: two 64 KiB tiles on all four PEs would pass the 256 KiB core capacity
        tile["mask"] = "0001"
    out_type, words, flags = o.result("hw-ieee")
    program, sources = o.bundle()
    program = program.replace("mask=1111", "mask=0001")
    expect = engine.success_expect(flags, [0] + sources, sources,
                                   [d_expect(0, out_type, o.layout, words, o.d_capacity(out_type))])
    return engine.case("size-bound-64kib-operands-hw-ieee", describe(o, "hw-ieee") + " A and B are 64 KiB "
                       "tiles (TSize 10); B's logical elements 0 and 4096 differ (1.0 and 4.0), so an index "
                       "wrapping at 4096 is seen in D(0, 0); PE mask 0001 throughout.", ["hw-ieee"], "reference-generator", COMMAND,
                       {"tiles": tiles}, program, expect)


def _fault_cases(op) -> list:
    rng = rng_for(f"{op}-faults")
    cases = []
    if not mx.is_mx(op):
        o = _random_operands(op, "FP16", "FP16", 1, 2, 2, rng)
        program = o.bundle()[0].replace("FP16\nB.FPATR", "FP16\nB.FPATR\nB.DATR S8")
        cases.append(engine.fault_case("mixed-class-types-rejected", "AType FP16 with BType S8: the two inputs "
                                       "are of different classes (TileOrdinaryMatrixInputTypesSameClass).",
                                       o.tiles(), program, reference="asl/block/model/dispatch/cube-tmatmul.asl:160-174"))
    o = _random_operands(op, "FP16", "FP16", 1, 2, 2, rng)
    tiles = o.tiles()
    a_index = 1 + mx.has_acc(op)
    tiles[a_index - 1] = cube_tile(a_index, "FP16", "CUBE_N8", [tiles[a_index - 1]["data"][0]])
    cases.append(engine.fault_case("a-in-cube-n8-rejected", "A in CUBE_N8: A must be CUBE_M16 or CUBE_M32.",
                                   tiles, o.bundle()[0], reference="asl/tile/model/legality/matrix-operands.asl"))
    if mx.has_bias(op):
        o = _random_operands(op, "FP16", "FP16", 1, 2, 2, rng)
        tiles = o.tiles()
        tiles[-1]["dtype"] = "FP16"
        cases.append(engine.fault_case("bias-of-input-type-rejected", "The bias is FP16: it must be the "
                                       "accumulator type FP32.", tiles, o.bundle()[0],
                                       reference="asl/tile/model/legality/matrix-operands.asl"))
    if mx.is_gemv(op):
        o = _random_operands(op, "FP16", "FP16", 2, 2, 2, rng)
        cases.append(engine.fault_case("gemv-m-2-rejected", "LB0 = 2: a TGEMV form fixes M to 1.",
                                       o.tiles(), o.bundle()[0],
                                       reference="asl/block/model/dispatch/cube-tmatmul.asl:185-189"))
    return cases


def x_file(op: str) -> dict:
    cases = []
    for i, (a_type, b_type) in enumerate(_pairs(op)):
        m, n, k, layout = _shapes(op, i)
        name = f"{a_type}-x-{b_type}-m{m}-n{n}-k{k}-{layout[5:]}".lower()
        o = _random_operands(op, a_type, b_type, m, n, k, rng_for(f"{op}-{name}"), layout)
        cases += [block_case(f"{name}-{profile}", o, profile) for profile in engine.BOTH]
        if i % 4 == 0:
            cases.append(direct_case(f"{name}-direct-hw-ieee", o, "hw-ieee", note="The direct call."))
    cases += _special_cases(op) + _status_and_blocks(op) + [_size_case(op)] + _fault_cases(op)
    return {
        "format": "pto-avs-vector/1",
        "id": f"PTO-AVS-X-{op.replace('_', '-')}-REF-001",
        "operation": op,
        "kind": "execution",
        "summary": f"{op} in both profiles over every input type class, M/N/K at the layout and scale-block "
                   "bounds, overflow, integer wrap, bias, post-processing, status and block accumulation",
        "exercises": Flow(["ADR-0034", "ADR-0065", "ADR-0071"] + (["ADR-0073"] if mx.has_acc(op) else [])
                          + ["ADR-0079"] + sorted({r for t in engine.UNITS[op]["tests"]
                                                   for r in engine.TESTS[t]["requirements"]})),
        "provenance": PROVENANCE,
        "cases": cases,
    }


def strength_file(op: str) -> dict:
    """Only the status and two-block cases of ``op`` (TGEMV_MX_ACC, whose other files come from
    other generators)."""
    return {
        "format": "pto-avs-vector/1",
        "id": f"PTO-AVS-X-{op.replace('_', '-')}-STATUS-001",
        "operation": op,
        "kind": "execution",
        "summary": f"{op}: a nonzero status that must survive, two blocks whose flags accumulate, 64 KiB operands",
        "exercises": Flow(["ADR-0073", "ADR-0079"] + sorted({r for t in engine.UNITS[op]["tests"]
                                                            for r in engine.TESTS[t]["requirements"]})),
        "provenance": PROVENANCE,
        "cases": _status_and_blocks(op) + [_size_case(op)],
    }


def files(operations) -> dict:
    out = {}
    if "TGEMV_MX_ACC" in operations:
        doc = strength_file("TGEMV_MX_ACC")
        out[f"{doc['id']}.yaml"] = engine.render_spec_id(doc, "generate_matrix.py")
    for op in (op for op in operations if op != "TGEMV_MX_ACC"):
        for test_id in engine.UNITS[op]["tests"]:
            doc = engine.spec_file(op, test_id, PROVENANCE, spec_cases(op, test_id))
            out[f"{test_id}.yaml"] = engine.render_spec_id(doc, "generate_matrix.py")
        doc = x_file(op)
        out[f"{doc['id']}.yaml"] = engine.render_spec_id(doc, "generate_matrix.py")
        if op in SHARED_OPERATIONS:
            doc = shared_file(op)
            out[f"{doc['id']}.yaml"] = engine.render_spec_id(doc, "generate_matrix.py")
    if "TMATMUL" in operations:
        doc = pp_s32_file()
        out[f"{doc['id']}.yaml"] = engine.render_spec_id(doc, "generate_matrix.py")
    return out




# --------------------------------------------------------------------------------------
# Shared operands (B.IOS): PTO-AVS-X-<TMATMUL form>-SHARED-001

SHARED_OPERATIONS = ("TMATMUL", "TMATMUL_BIAS", "TMATMUL_ACC", "TMATMUL_MX", "TMATMUL_MX_BIAS", "TMATMUL_MX_ACC")
SHARED_REFERENCE = ("asl/block/model/dispatch/cube-tmatmul.asl ExecuteBundleTMATMULOperation, "
                    "asl/block/model/dispatch/shared-cube-matrix.asl (BundleMatrixSharedSchemasLegal, "
                    "MaterializeBundleSharedMatrixPrimary/Source, BundleMatrixCooperativeMLayout), "
                    "asl/tile/model/legality/matrix-functions.asl TileMatrixSharedSourceCountLegal, matrix-shape.asl "
                    "BundleTMATMULDimensionsLegal, asl/tile/model/state/shared-registers.asl "
                    "SharedTileCooperativeMatrixReady, SharedTileReadSchemaLegal")
SHARED_IDS = (5, 6, 7, 8)


class SharedOperands(Operands):
    """Operands of which the ``groups`` (mx.shared_groups order) are read from shared tile registers
    S5.. : each group's register holds its stored RowMajor rows (a transposed primary stored
    cols x rows), the logical operand derived by mx.shared_primary; the rest are Local tiles."""

    def __init__(self, op, a_type, b_type, m, n, k, rng, *, both=False, trans_a=False, trans_b=False,
                 extra_rows=0, layout="CUBE_M16"):
        base = _random_operands(op, a_type, b_type, m, n, k, rng, layout)
        super().__init__(op, a_type, b_type, base.a, base.b, base.c, base.sa, base.sb, base.bias, layout)
        self.groups = mx.shared_groups(op, a_type, b_type, both)
        self.trans_a, self.trans_b = trans_a, trans_b
        self.stored = {}
        for role, sid in zip(self.groups, SHARED_IDS):
            if role in ("A", "B"):
                t, rows, cols, transpose = (a_type, m, k, trans_a) if role == "A" else (b_type, k, n, trans_b)
                shape = (cols, rows) if transpose else (rows, cols)
                stored = [[lane_word(t, finite(t, rng)) for _ in range(shape[1])]
                          for _ in range(shape[0] + extra_rows)]
                logical = mx.shared_primary(stored, rows, cols, transpose)
                if role == "A":
                    self.a = logical
                else:
                    self.b = logical
            else:
                t, stored = "E8M0", self.sa if role == "A-scale" else self.sb
            self.stored[role] = (sid, t, stored)
        if both:
            self.layout = mx.shared_layout(m, layout if self.c is not None else None) or "RowMajor"

    def tiles(self):
        local = Operands(self.op, self.a_type, self.b_type, self.a, self.b, self.c,
                         None if "A-scale" in self.groups else self.sa, None if "B-scale" in self.groups else self.sb,
                         self.bias, self.layout)
        out = []
        if local.c is not None:
            out.append(cube_tile(len(out) + 1, self.acc_type, self.layout, local.c))
        if "A" not in self.groups:
            out.append(cube_tile(len(out) + 1, self.a_type, self.layout, local.a))
            if local.sa is not None:
                out.append(row_tile(len(out) + 1, "E8M0", local.sa))
        if "B" not in self.groups:
            out.append(cube_tile(len(out) + 1, self.b_type, "CUBE_N8", local.b))
        if local.bias is not None:
            out.append(row_tile(len(out) + 1, self.acc_type, [local.bias]))
        return out

    def registers(self, mask=None):
        out = []
        for role in self.groups:
            sid, t, stored = self.stored[role]
            cols, capacity, _ = engine.smallest_tile(t, (len(stored), len(stored[0])), cols=len(stored[0]))
            register = engine.tile(sid, t, capacity, cols, [len(stored), len(stored[0])], stored)
            if mask:
                register["mask"] = mask
            out.append(register)
        return out

    def fpatr(self, base="B.FPATR"):
        fields = [f for f, on in (("TransA=1", self.trans_a), ("TransB=1", self.trans_b)) if on]
        return base + (" " if base == "B.FPATR" else ", ") + ", ".join(fields) if fields else base

    def bundle(self, fpatr=None, extra_sources=(), gpr=None, out_type=None, size=None, ios=None):
        program, sources = super().bundle(self.fpatr() if fpatr is None else fpatr, extra_sources, gpr, out_type, size)
        lines = program.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("B.IOT"))
        ios = [f"B.IOS S{self.stored[role][0]}, mask=1111" for role in self.groups] if ios is None else ios
        return "\n".join(lines[:at] + ios + lines[at:]), sources


def _shared_describe(o: SharedOperands) -> str:
    parts = []
    for role in o.groups:
        sid, t, stored = o.stored[role]
        transposed = (role == "A" and o.trans_a) or (role == "B" and o.trans_b)
        parts.append(f"{role} from S{sid} ({t} RowMajor, stored {len(stored)}x{len(stored[0])}"
                     + (", transposed" if transposed else "") + ")")
    return "Shared operands through B.IOS: " + ", ".join(parts) + f"; D in {o.layout}."


def shared_value_case(name, o: SharedOperands, profile, note=""):
    case = block_case(name, o, profile, note=_shared_describe(o) + (" " + note if note else ""),
                      fpatr=o.fpatr(), reference=SHARED_REFERENCE)
    case["state"]["shared_tiles"] = o.registers()
    return case


def shared_fault(name, description, o: SharedOperands, fault="Fault_TileLegality", *, program=None, registers=None):
    tiles = o.tiles()
    state = {"tiles": tiles, "shared_tiles": o.registers() if registers is None else registers}
    expect = engine.fault_expect(fault, sorted(t["index"] for t in tiles))
    return engine.case(name, description, list(engine.BOTH), "hand", SHARED_REFERENCE, state,
                       program or o.bundle()[0], expect)


def _shared_types(op):
    return ("E4M3", "E4M3") if mx.is_mx(op) else ("FP16", "FP16")


def shared_cases(op: str) -> list:
    a_type, b_type = _shared_types(op)
    cases = []

    def values(name, note="", types=(a_type, b_type), **shape):
        m, n, k = shape.pop("m"), shape.pop("n"), shape.pop("k")
        o = SharedOperands(op, *types, m, n, k, rng_for(f"{op}-shared-{name}"), **shape)
        assert all(mx.power_of_two(x) for x in (m, n, k))
        cases.extend(shared_value_case(f"{name}-{profile}", o, profile, note) for profile in engine.BOTH)

    values("b-shared", "A Local, B (K x N) read from S5 as stored.", m=2, n=4, k=8)
    values("b-shared-transb", "TransB: S5 stores N x K; B(k, n) is its element (n, k).", m=2, n=4, k=8,
           trans_b=True)
    values("a-and-b-shared-transa", "Both groups Shared; TransA: S5 stores K x M.", m=4, n=2, k=8, both=True,
           trans_a=True)
    values("a-and-b-shared-both-transposed", "Both groups Shared and both transposed.", m=2, n=8,
           k=64 if mx.is_mx(op) else 4, both=True, trans_a=True, trans_b=True)
    if mx.is_mx(op):
        values("fp16-a-local-e5m2-b-shared-transb", "An unscaled FP16 A (Local) and a scaled E5M2 B whose scale "
               "is the second Shared source.", types=("FP16", "E5M2"), m=2, n=2, k=64, trans_b=True)
    else:
        values("s8-b-shared-transb", "Signed integer inputs (S32 accumulator) with a transposed Shared B.",
               types=("S8", "S8"), m=2, n=4, k=8, trans_b=True)
    if op != "TMATMUL":
        return cases + _shared_faults(op, a_type, b_type, short=True)
    values("register-larger-than-read", "S5 holds 8 x 8 valid elements; B reads its top-left 4 x 8 with the "
           "register's own row stride.", m=2, n=8, k=4, extra_rows=4)
    values("m32-both-shared-cube-m32", "Both Shared, no C: M = 32 selects CUBE_M32 for D.", m=32, n=2, k=2,
           both=True)
    return cases + _shared_faults(op, a_type, b_type)


def _shared_faults(op, a_type, b_type, short=False) -> list:
    rng = rng_for(f"{op}-shared-faults")

    def operands(m=2, n=4, k=8, **kw):
        return SharedOperands(op, a_type, b_type, m, n, k, rng, **kw)

    o = operands()
    program = o.bundle()[0].replace("B.DIM LB1=4", "B.DIM LB1=3")
    cases = [shared_fault("n-not-a-power-of-two", "LB1 = 3 with a Shared B: a Shared block needs M, N and K "
                          "powers of two (BundleTMATMULDimensionsLegal): Fault_TileLegality.",
                          operands(n=4), program=program),
             shared_fault("transa-with-a-local-a", "TransA = 1 with only B Shared: TransA needs a Shared A "
                          "(BundleMatrixSharedSchemasLegal): Fault_TileLegality.", o,
                          program=o.bundle(fpatr="B.FPATR TransA=1")[0])]
    if short:
        return cases
    o = operands(trans_b=True)
    cases.append(shared_fault("register-not-on-all-four-pes", "S5 is allocated on PEs 1-3 only (mask 0111): not "
                              "cooperative-matrix ready (SharedTileCooperativeMatrixReady): Fault_TileLegality.",
                              o, registers=o.registers(mask="0111")))
    registers = o.registers()
    registers[0] = dict(registers[0])
    stored = o.stored["B"][2]
    registers[0].update(engine.tile(5, b_type, registers[0]["capacity"] * 2, len(stored),
                                    [len(stored[0]), len(stored)], mx.shared_primary(stored, len(stored[0]), len(stored),
                                                                                    True)))
    cases.append(shared_fault("transb-register-stored-k-by-n", "TransB = 1 but S5 stores B as K x N (8 columns where "
                              "the transposed read needs N = 4): SharedTileReadSchemaLegal fails: Fault_TileLegality.",
                              o, registers=registers))
    registers = o.registers()
    registers[0] = dict(registers[0], dtype="BF16")
    cases.append(shared_fault("register-of-another-type", "S5 is BF16 where the B type is FP16: "
                              "Fault_TileLegality.", o, registers=registers))
    cases.append(shared_fault("unconfigured-register", "B.IOS names S9, which holds no descriptor: not "
                              "cooperative-matrix ready: Fault_TileLegality.", o,
                              program=o.bundle(ios=["B.IOS S9, mask=1111"])[0]))
    cases.append(shared_fault("shared-destination-binding", "The B.IOS names S5 as a destination (SizeCode 1): "
                              "a Matrix Shared operand is a source (BundleMatrixSharedSourceSchemaLegal): "
                              "Fault_TileLegality.", o, program=o.bundle(ios=["B.IOS mask=1111, ->S5<1>"])[0]))
    cases.append(shared_fault("three-shared-bindings", "Three B.IOS bindings: neither the right group (1) nor both "
                              "groups (2) (TileMatrixSharedSourceCountLegal): Fault_TileLegality.", o,
                              program=o.bundle(ios=["B.IOS S5, mask=1111", "B.IOS S6, mask=1111",
                                                    "B.IOS S7, mask=1111"])[0]))
    local_b = operands()
    tiles = local_b.tiles() + [cube_tile(2, b_type, "CUBE_N8", local_b.b)]
    program = local_b.bundle()[0].replace("B.IOT T1, mask=1111", "B.IOT T1, T2, mask=1111")
    cases.append(engine.case("local-b-beside-shared-b", "B bound both through B.IOS and as a Local source: the "
                             "Local stream holds one source too many (BundleMatrixDynamicBindingsComplete): "
                             "Fault_TileLegality.", list(engine.BOTH), "hand", SHARED_REFERENCE,
                             {"tiles": tiles, "shared_tiles": local_b.registers()}, program,
                             engine.fault_expect("Fault_TileLegality", [1, 2])))
    program = local_b.bundle(ios=[])[0].replace("B.FPATR", "B.FPATR TransB=1", 1)
    cases.append(engine.case("transb-without-b-ios", "TransB = 1 on a Local block (A and B both Local tiles): "
                             "Fault_TileLegality (BundleMatrixSharedSchemasLegal with no Shared binding).",
                             list(engine.BOTH), "hand", SHARED_REFERENCE, {"tiles": tiles},
                             program.replace("B.IOT T1, mask=1111", "B.IOT T1, T2, mask=1111"),
                             engine.fault_expect("Fault_TileLegality", [1, 2])))
    wide = operands(m=64, n=2, k=2, both=True)
    cases.append(shared_fault("m64-both-shared-no-layout", "Both groups Shared, no C, M = 64: no CUBE_M layout "
                              "holds 64 rows (BundleMatrixCooperativeMLayout): Fault_TileLegality.", wide,
                              program=wide.bundle(size=SIZE_CODES[16384])[0]))
    small = operands(m=16, n=8, k=8)
    program = small.bundle(size=SIZE_CODES[128])[0]
    cases.append(shared_fault("d-tsize-too-small-allocation", "Every rule holds but D's TSize (128 B) cannot hold "
                              "the 16 x 8 FP32 D: Fault_TileAllocation, after every legality rule.", small,
                              "Fault_TileAllocation", program=program))
    cases.append(shared_fault("legality-before-allocation", "D's TSize is too small and S5 is of another type: "
                              "Fault_TileLegality, decided before the allocation.", small, program=program,
                              registers=[dict(small.registers()[0], dtype="BF16")]))
    return cases


def shared_file(op: str) -> dict:
    return {
        "format": "pto-avs-vector/1",
        "id": f"PTO-AVS-X-{op.replace('_', '-')}-SHARED-001",
        "operation": op,
        "kind": "execution",
        "summary": f"{op} with Shared operands through B.IOS: the right group or both groups from shared tile "
                   "registers, TransA/TransB, power-of-two M/N/K, the schema faults and their order",
        "exercises": Flow(["ADR-0034", "ADR-0065", "ADR-0071"] + (["ADR-0073"] if mx.has_acc(op) else [])
                          + ["ADR-0079"]),
        "provenance": PROVENANCE.replace("Written by", "Shared registers and their logical operands from "
                                         "matrix.py's shared_primary (MaterializeBundleSharedMatrixPrimary); "
                                         "the fault cases by hand from the ASL named in each. Written by"),
        "cases": shared_cases(op),
    }




# --------------------------------------------------------------------------------------
# Post-processing of an integer accumulator: PTO-AVS-X-TMATMUL-PP-S32-001

PP_S32_REFERENCE = ("asl/arch/profile/matrix-postprocess.asl MatrixPostQuantBaseWithFlags (the S32 source), "
                    "matrix-quantization.asl MatrixShiftS32ToS16, MatrixQuantizedAffine, "
                    "ReferenceMatrixIntegerEncoding, asl/block/attributes/B.FPATR.asl (the S32 modes, "
                    "BundleFPATRAccumulatorTypeLegal) (vectors/reference/postprocess.py integer_source)")
FP19_SCALES = (0x3B800000, 0x3FC00000, 0x3C000000, 0x3E800000)  # 2^-8, 1.5, 2^-7, 0.25 (FP32 bits of FP19)
ALPHAS = (0x3EC00000, 0x3F000000, 0x3E000000)  # 0.375, 0.5, 0.125


# (mode, relu, B.DATR controls, scalar scale, offset): the S32 modes, then ReLU alone (mode 0)
S32_CONFIGS = (
    (2, 0, "", 0, 3), (2, 1, "RTZ, Sat=1", 0, -5), (3, 0, "", 0x3B800000, -3), (3, 2, "RNA", 0x3C000000, 7),
    (4, 0, "", 0, 0), (4, 3, "RTP", 0, 0), (5, 0, "", 0x3D800000, 0), (5, 0, "RTZ, Sat=1", 0x3D800000, 0),
    (12, 0, "", 0, 0), (13, 0, "", 7, 0), (13, 1, "", 3, 0), (17, 0, "", 0x39800000, 2), (18, 1, "RTM, Sat=1", 0, -1),
    (19, 0, "", 0x3F000000, -100), (20, 2, "RTO", 0, 9), (35, 0, "", 0x3A800000, 0), (39, 1, "RTM", 0, 0),
    (0, 1, "", 0, 0), (0, 2, "", 0, 0), (0, 3, "", 0, 0),
)


def _quant_words(mode: int, scale: int, offset: int, n: int) -> list:
    """The QuantParam Word of each column: a scalar one repeated, a vector one per column
    (shift modes: the code in bits 35:32)."""
    vector = mode in pp.VECTOR_MODES
    out = []
    for j in range(n):
        if mode in pp.SHIFT_MODES:
            out.append(((j * 5 + 1) % 16 if vector else scale) << 32)
        elif mode in pp.SCALAR_MODES | pp.VECTOR_MODES:
            word_scale = FP19_SCALES[j % 4] if vector else scale
            word_offset = ((offset + 3 * j) if vector else offset)
            width = pp.OFFSET_WIDTH.get(mode, 0)
            if width:
                word_offset = max(min(word_offset, (1 << (width - 1)) - 1), -(1 << (width - 1)))
            out.append(pp.quant_word(word_scale, word_offset, width))
        else:
            out.append(0)
    return out


def _pp_note(mode, relu, datr, acc_type, output) -> str:
    head = f"B.FPATR PreQuantMode {mode}, ReluMode {relu}" + (f", B.DATR {datr}" if datr else "")
    if mode in pp.SHIFT_MODES:
        body = "its low 32 bits shifted right by QuantParam bits 35:32 plus one, clamped to S16 (no ReLU)"
    else:
        width = pp.OFFSET_WIDTH.get(mode)
        body = (f"the {'S32' if mode else acc_type} value times the selected multiplier, "
                + (f"rounded into the S{width} intermediate, the offset added, " if width else "")
                + f"encoded to {output if mode else acc_type}")
    return f"{head} on the {acc_type} accumulator: {body} (postprocess.py integer_source)."


def s32_pp_case(op, mode, relu, datr, scale, offset, types=("S16", "S16"), name=None):
    rng = rng_for(f"{op}-pp-s32-{mode}-{relu}-{datr}-{types}")
    m, n, k = 2, 8, 2
    o = _random_operands(op, *types, m, n, k, rng)
    if types[0] == "S16":  # row 1 near the S16 bounds: sums near and past the S32 range
        o.a[1] = [lane_word("S16", ref.element_bits("S16", v)) for v in (32767, -32768)]
        o.b = [[lane_word("S16", ref.element_bits("S16", rng.choice((32767, -32768, rng.randint(-999, 999)))))
                for _ in range(n)] for _ in range(k)]
    quant = _quant_words(mode, scale, offset, n)
    alphas = [pp.relu_word(ALPHAS[j % 3]) for j in range(n)] if relu == 3 else \
        [pp.relu_word(ALPHAS[0])] * n if relu == 2 else [0] * n
    rmode = next((f for f in datr.replace(" ", "").split(",") if f in pp.RMODES), "NONE")
    config = pp.Config(mode, relu, rmode, "Sat=1" in datr, tuple(quant), tuple(alphas))
    extra, scalars = [], []
    base = len(o.tiles()) + 1
    if mode in pp.VECTOR_MODES:
        extra.append(row_tile(base + len(extra), "U64", [quant]))
    elif mode in pp.SCALAR_MODES:
        scalars.append(quant[0])
    if relu == 3:
        extra.append(row_tile(base + len(extra), "U64", [alphas]))
    elif relu == 2:
        scalars.append(alphas[0])
    gprs = {5 + i: v for i, v in enumerate(scalars)}
    fpatr = f"B.FPATR PreQuantMode={mode}, ReluMode={relu}"
    out = []
    for profile in engine.BOTH:
        case = block_case(f"{name or f'mode{mode}-relu{relu}'}{'-' + datr.replace(', ', '-').lower() if datr else ''}"
                          f"-{profile}".replace("=", ""), o, profile, config=config, fpatr=fpatr,
                          gprs=gprs or None, gpr="5" + (", R6" if len(scalars) == 2 else "") if scalars else None,
                          extra_tiles=extra, reference=PP_S32_REFERENCE,
                          note=_pp_note(mode, relu, datr, o.acc_type, config.output))
        if datr:
            case["program"] = case["program"].replace(fpatr, f"{fpatr}\nB.DATR {types[1]}, {datr}")
        out.append(case)
    return out


def pp_s32_file() -> dict:
    op = "TMATMUL"
    cases = []
    for mode, relu, datr, scale, offset in S32_CONFIGS:
        cases += s32_pp_case(op, mode, relu, datr, scale, offset)
    cases += s32_pp_case(op, 0, 1, "", 0, 0, types=("U16", "U16"), name="u32-mode0-relu1-keeps-every-value")
    cases += s32_pp_case(op, 0, 2, "", 0, 0, types=("U16", "U16"), name="u32-mode0-relu2-keeps-every-value")
    rng = rng_for("pp-s32-faults")
    for name, types, mode, why in (("s32-mode-on-fp32-accumulator", ("FP16", "FP16"), 2,
                                    "PreQuantMode 2 takes an S32 accumulator; FP16 inputs give FP32"),
                                   ("fp32-mode-on-s32-accumulator", ("S8", "S8"), 1,
                                    "PreQuantMode 1 takes an FP32 accumulator; S8 inputs give S32"),
                                   ("s32-mode-on-u32-accumulator", ("U8", "U8"), 3,
                                    "PreQuantMode 3 takes an S32 accumulator; U8 inputs give U32")):
        o = _random_operands(op, *types, 2, 2, 2, rng)
        tiles = o.tiles()
        extra = [row_tile(len(tiles) + 1, "U64", [_quant_words(mode, 0, 0, 2)])] if mode in pp.VECTOR_MODES else []
        program = o.bundle(f"B.FPATR PreQuantMode={mode}", [t["index"] for t in extra],
                           gpr="5" if mode in pp.SCALAR_MODES else None, out_type=pp.OUTPUT_TYPE[mode])[0]
        cases.append(engine.fault_case(name, f"{why} (BundleFPATRAccumulatorTypeLegal): Fault_TileLegality.",
                                       tiles + extra, program, reference=PP_S32_REFERENCE,
                                       gprs={5: _quant_words(mode, 0x3F800000, 0, 1)[0]}
                                       if mode in pp.SCALAR_MODES else None))
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TMATMUL-PP-S32-001",
        "operation": op,
        "kind": "execution",
        "summary": "TMATMUL B.FPATR post-processing of an integer accumulator: the twelve S32 modes (S8, S4X2 and "
                   "S16 with their offsets, the S16 shifts, FP16 and BF16), ReLU/LReLU/PReLU alone on S32 and U32, "
                   "B.DATR RMode and Sat, and the accumulator-class faults",
        "exercises": Flow(["ADR-0034", "ADR-0065", "ADR-0071", "ADR-0079"]),
        "provenance": PROVENANCE.replace("B.FPATR post-processing from postprocess.py",
                                         "B.FPATR post-processing of the S32/U32 accumulator from postprocess.py's "
                                         "integer_source"),
        "cases": cases,
    }


FAMILY = engine.Family("generate_matrix", OPERATIONS, files)
