"""Write the hw-ieee numeric vectors ``vectors/PTO-AVS-X-*-HW-*.yaml`` from the exact reference.

    .venv/bin/python -m pto_avs.vectors.reference generate TCVT TQUANT TMULS TGEMV_MX_ACC
    .venv/bin/python -m pto_avs.vectors.reference.generate_numeric [--out DIR] [--check]  (the same)

Every expected value comes from ``vectors/reference/numeric.py`` (exact rationals, no
``device_model`` code), never from running the golden model. The same command writes the
TGEMV_MX_ACC post-processing vectors ``PTO-AVS-X-TGEMV-MX-ACC-PP-*`` of the family
``generate_postprocess.py`` (from ``postprocess.py``), which builds on this module. Each ``*-HW-<X>-001`` file has a
``*-FLAGS-001`` companion of flag-isolation cases (``value_classes.py``). The output is deterministic:
inputs are chosen by rules and by ``random.Random`` seeded from the case name, so a
re-run reproduces the files byte for byte.

Each case is one bundle in the project assembly syntax over a small legal tile:
- TCVT: source at T1 (index 1), 4 x 64 physical elements in both tiles (so the derived
  rows agree for every pair of element widths), valid region 1..4 x up to 64;
  destination renamed to T0 (index 0).
- TQUANT: FP32 source 1 x 64 physical (256 B), S8/U8 destination 2 x 64 (128 B).
- TMULS: source and destination of one type, 64 columns, 1..4 rows.
- TGEMV_MX_ACC: C, A, [A-scale], B, [B-scale] at T1.. in that order, D renamed to T0.
"""
from __future__ import annotations

import random
import sys
import zlib
from fractions import Fraction
from functools import lru_cache

from . import engine
from . import numeric as ref
from . import value_classes as classes
from .engine import ISOLATION_MAX, SIZE_CODES, Block, Flow, FlowMap, Hex  # noqa: F401  (FlowMap: generate_postprocess)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_numeric"
ALL_MODES = ref.MODES

PROVENANCE = (
    "Every expected value was computed by the independent exact reference "
    "vectors/reference/numeric.py (fractions.Fraction and integers only, sharing no code with "
    "device_model), written from spec/hardware-conformance-profile.json, "
    "asl/arch/profile/e8m0-conversion.asl, spec/evidence/pto-isa-0583-hardware-numeric-vectors.json "
    "and the project's hw-ieee decisions 1-14 (each marked SPEC-CHOICE where the profile is "
    f"silent), and written by `{COMMAND}`. Nothing here comes from running the golden model."
)

ISOLATION_PROVENANCE = (
    "Flag isolation (vectors/reference/value_classes.py): NumericStatus is the sticky OR over "
    "the tile, so each case holds the inputs of one value class with one flag set (or only "
    "inputs that raise no flag), taken from the configuration's mixed case in the file without "
    "-FLAGS; a flag forgotten or wrongly raised for one class cannot hide behind another class.")


def isolation_text(key: tuple) -> str:
    if key == classes.NOFLAG:
        return "flag isolation: only inputs that raise no flag"
    return f"flag isolation: only {key[0]} inputs, each raising {classes.flag_text(key[1]).upper()}"


# --------------------------------------------------------------------------------------
# Shared helpers


def rng_for(name: str) -> random.Random:
    return random.Random(zlib.crc32(name.encode()))


def word(dtype: str, bits: int) -> Hex:
    """The value written into a source tile: the 64-bit Word (signed integers
    sign-extended), or the lane for 4-bit types."""
    if ref.fmt(dtype).width == 4:
        return Hex(bits & 0xF)
    return Hex(ref.result_word(dtype, bits))


def grid(dtype: str, rows: list[list[int]]) -> list:
    return [Flow(word(dtype, b) for b in row) for row in rows]


def expect_values(dtype: str, rows: list[list[int]]) -> dict:
    """Expected element bits (`data`), plus the whole Words (`words`) where they differ:
    signed integer results are sign-extended to 64 bits (decision 13; packed 4-bit tiles
    keep only the lane)."""
    f = ref.fmt(dtype)
    out = {"data": [Flow(Hex(b & ((1 << f.width) - 1)) for b in row) for row in rows]}
    if f.kind == "signed" and f.width not in (4, 64):
        out["words"] = [Flow(Hex(ref.result_word(dtype, b)) for b in row) for row in rows]
    return out


def capacity(dtype: str, rows: int, cols: int) -> int:
    size = rows * cols * ref.fmt(dtype).width // 8
    assert size % 128 == 0 and size in SIZE_CODES, (dtype, rows, cols)
    return size


def shape(codes: list[int], max_cols: int = 64) -> list[list[int]]:
    """Lay a list of codes out as the fewest full rows of at most max_cols (padded with 0)."""
    rows = -(-len(codes) // max_cols)
    cols = -(-len(codes) // rows)
    padded = codes + [0] * (rows * cols - len(codes))
    return [padded[r * cols:(r + 1) * cols] for r in range(rows)]


def dedupe(codes) -> list[int]:
    seen, out = set(), []
    for c in codes:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def flags_or(results) -> int:
    out = 0
    for _, f in results:
        out |= f
    return out


def generated_case(name: str, description: str, profiles: list[str], state: dict, program: str,
                   flags: int, sources: list[int], result: dict) -> dict:
    """One successful bundle case: destination tile 0 (``result``) written from ``sources``."""
    return {
        "name": name,
        "description": description,
        "profiles": Flow(profiles),
        "source": "reference-generator",
        "reference": COMMAND,
        "state": state,
        "program": Block(program),
        "expect": {
            "fault": None,
            "flags": Hex(flags),
            "allocated": Flow([0] + sources),
            "unchanged": Flow(sources),
            "tiles": [{"index": 0, **result}],
        },
    }


def exact_bits(dtype: str, x: Fraction):
    """The encoding of the exact value x in dtype, or None when x is not representable."""
    f = ref.fmt(dtype)
    if f.is_int:
        lo, hi = f.int_range
        if x.denominator == 1 and lo <= x <= hi:
            return ref.element_bits(dtype, int(x))
        return None
    if f.kind == "e8m0":
        if x > 0 and x == ref.pow2(ref.floor_log2(x)) and -127 <= ref.floor_log2(x) <= 127:
            return ref.floor_log2(x) + 127
        return None
    bits, flags = ref.encode_value(dtype, x < 0, abs(x), "RNE", False)
    if flags or ref.decode(dtype, bits).exact != x:
        return None
    return bits


def nearest_bits(dtype: str, x: Fraction):
    """The RNE encoding of x in a floating dtype, or None when it overflows."""
    bits, flags = ref.encode_value(dtype, x < 0, abs(x), "RNE", False)
    return None if flags & ref.OF else bits


@lru_cache(maxsize=None)
def finite_codes(dtype: str) -> list[int]:
    f = ref.fmt(dtype)
    return [c for c in range(1 << f.width)
            if ref.encoding_valid(dtype, c) and ref.decode(dtype, c).cls == "finite"]


def all_valid_codes(dtype: str) -> list[int]:
    return [c for c in range(1 << ref.fmt(dtype).width) if ref.encoding_valid(dtype, c)]


def random_code(dtype: str, rng: random.Random, exp_window: tuple[int, int] | None = None) -> int:
    """A random finite encoding; for wide binary formats optionally within an exponent window."""
    f = ref.fmt(dtype)
    if f.is_int:
        lo, hi = f.int_range
        return ref.element_bits(dtype, rng.randint(lo, hi))
    if f.width <= 16:
        return rng.choice(finite_codes(dtype))
    lo, hi = exp_window or (1 - f.bias, f.bias)
    exp = rng.randint(lo, hi) + f.bias
    frac = rng.getrandbits(f.frac_bits)
    sign = rng.getrandbits(1)
    return (sign << f.sign_bit) | (exp << (f.frac_lsb + f.frac_bits)) | (frac << f.frac_lsb)


def special_codes(dtype: str) -> list[int]:
    """Zeros, NaNs, infinities and the finite extremes of a source type."""
    f = ref.fmt(dtype)
    if f.is_int:
        lo, hi = f.int_range
        vals = [0, 1, hi, lo, hi - 1, lo + 1] + ([-1] if lo < 0 else [])
        return dedupe(ref.element_bits(dtype, v) for v in vals)
    if f.kind == "e8m0":
        return [0xFF, 0x00, 0xFE, 0x7F]
    neg = ref.sign_mask(dtype)
    out = [0]
    if f.kind != "hif8":
        out.append(neg)
    if f.has_nan:
        qnan = ref.canonical_nan(dtype)
        out.append(qnan)
        if f.nan == "ieee":
            top = f.frac_lsb + f.frac_bits - 1
            out += [(qnan & ~(1 << top)) | (1 << f.frac_lsb), qnan | neg]
        elif f.nan == "e4m3":
            out.append(qnan | neg)
    if f.has_inf:
        out += [ref.infinity_code(dtype, False), ref.infinity_code(dtype, True)]
    top, low = ref.max_finite_code(dtype), (1 if f.kind == "hif8" else 1 << f.frac_lsb)
    out += [top, top | neg, low, low | neg]
    return dedupe(out)


def probe_group(values: list[Fraction]) -> list[Fraction]:
    """Points that separate the modes between consecutive representable values:
    the values, both midpoints (ties of either parity), and a quarter and three-quarter point."""
    out = list(values)
    for lo, hi in zip(values, values[1:]):
        out.append((lo + hi) / 2)
    if len(values) >= 3:
        out.append(values[0] + (values[1] - values[0]) / 4)
        out.append(values[1] + 3 * (values[2] - values[1]) / 4)
    return out


def float_probes(dtype: str) -> list[Fraction]:
    """Magnitudes around the interesting places of a floating destination."""
    f = ref.fmt(dtype)
    value = lambda code: ref.decode(dtype, code).magnitude  # noqa: E731
    top = ref.max_finite(dtype)
    if f.kind == "hif8":
        mags = [m for m, _ in ref.positive_value_set(dtype)]

        def around(x, before=1, after=2):
            i = mags.index(x)
            return mags[max(i - before, 0):i + after + 1]
        groups = [around(Fraction(1)), around(Fraction(2), 2, 1), around(Fraction(16)),
                  around(ref.pow2(-15), 2, 1), mags[:4], around(top, 2, 0)]
        over = [top * Fraction(9, 8), top * Fraction(5, 4), top * Fraction(11, 8), top * 2]
    else:
        step = 1 << f.frac_lsb
        one = exact_bits(dtype, Fraction(1))
        normal = exact_bits(dtype, ref.min_normal(dtype))
        top_code = ref.max_finite_code(dtype)
        groups = [[value(one + i * step) for i in range(4)],
                  [value(top_code - i * step) for i in (2, 1, 0)],
                  [value(i * step) for i in range(4)],
                  [value(normal + i * step) for i in (-2, -1, 0, 1)]]
        wide = ref.pow2(f.frac_bits + 2)  # the binade whose spacing is 4
        if wide * 2 <= top:
            start = exact_bits(dtype, wide)
            groups.append([value(start + i * step) for i in range(4)])
        ulp = top - value(ref.max_finite_code(dtype) - step)
        over = [top + ulp / 4, top + ulp / 2, top + 3 * ulp / 4, top + ulp, top * 2]
    tiny = groups[2][1] if f.kind != "hif8" else mags[1]
    under = [tiny / 4, tiny / 2, 3 * tiny / 4]
    out = []
    for g in groups:
        out += probe_group(g)
    return [p for p in dedupe(out + over + under) if p > 0]


def int_probes(dtype: str) -> list[Fraction]:
    """Signed values that separate the modes and the range handling of an integer destination."""
    lo, hi = ref.fmt(dtype).int_range
    out = [Fraction(k, 4) for k in (1, 2, 3, 6, 10, 14)]  # 0.25 0.5 0.75 1.5 2.5 3.5
    out += [-x for x in out]
    out += [Fraction(hi) - Fraction(1, 2), Fraction(hi), Fraction(hi) + Fraction(1, 2),
            Fraction(hi) + Fraction(1, 4), Fraction(hi + 1), Fraction(hi) * 4 + 3,
            Fraction(lo) + Fraction(1, 2), Fraction(lo) - Fraction(1, 2), Fraction(lo - 1),
            Fraction(lo) - Fraction(3, 4), Fraction(lo) * 4 - 3]
    if lo == 0:
        out += [Fraction(-1), Fraction(-300)]
    return out


def e8m0_probes() -> list[Fraction]:
    """Magnitudes that separate the exponent-domain modes of an E8M0 destination."""
    p = ref.pow2
    return [Fraction(1), Fraction(3, 2), Fraction(3, 4), Fraction(45, 32), Fraction(91, 64),
            Fraction(3), Fraction(6), Fraction(5, 16), Fraction(7, 2) * p(20),
            p(-127), Fraction(3, 2) * p(-127), p(-128), Fraction(3, 2) * p(-128),
            Fraction(5, 4) * p(-126), Fraction(3, 2) * p(126), p(127), Fraction(5, 4) * p(127)]


def int_source_probes(dst: str) -> list[Fraction]:
    """Integers for a wide integer source: precision and range edges of the destination."""
    d = ref.fmt(dst)
    out = []
    if d.is_int:
        lo, hi = d.int_range
        out += [hi, hi + 1, hi + 44, lo, lo - 1, lo - 44, 2 * hi + 1, 300, -300, -1, 1 << 40,
                -(1 << 40), (1 << 63) - 5]
    elif d.kind == "binary":
        p = d.frac_bits + 1
        for e in (p, p + 1, p + 2):  # binades with spacing 2, 4, 8: ties and quarter points
            unit = max((1 << (e - p + 1)) // 4, 1)
            out += [(1 << e) + k * unit for k in range(1, 8)]
        top, ulp = ref.max_finite(dst), ref.max_finite(dst) - ref.decode(
            dst, ref.max_finite_code(dst) - (1 << d.frac_lsb)).magnitude
        out += [top, top + ulp / 2, top + ulp / 4, top + ulp, 2 * top]
        out += [3, 5, 7, 9, 11, 13, 100, 1000]
    else:  # HiF8
        out += [17, 18, 19, 22, 26, 30, 33, 36, 40, 129, 192, 224, 320, 32768, 36864, 40960,
                45056, 49152, 65536, 3, 5, 7, 9]
    return [Fraction(v) for v in out] + [-Fraction(v) for v in out]


# --------------------------------------------------------------------------------------
# TCVT

TCVT_ROWS, TCVT_COLS = 4, 64


def tcvt_inputs(src: str, dst: str, name: str) -> list[int]:
    s = ref.fmt(src)
    if s.width <= 8:  # exhaustive: every valid source encoding
        return all_valid_codes(src)
    d = ref.fmt(dst)
    if s.is_int:
        candidates = int_source_probes(dst)
    elif d.kind == "e8m0":
        candidates = [sign * m for m in e8m0_probes() for sign in (1, -1)]
    elif d.is_int:
        candidates = int_probes(dst)
    else:
        candidates = [sign * m for m in float_probes(dst) for sign in (1, -1)]
    codes = special_codes(src)
    codes += [b for b in (exact_bits(src, x) for x in candidates) if b is not None]
    rng = rng_for(name)
    window = (-8, 8) if s.width > 16 else None
    codes += [random_code(src, rng, window) for _ in range(6)]
    return dedupe(codes)[:128]


def tcvt_decisions(src: str, dst: str, mode: str, canon: bool) -> str:
    s, d = ref.fmt(src), ref.fmt(dst)
    if d.kind == "e8m0":
        return ""
    if s.is_int and d.is_int:
        found = {8, 13}
    elif d.is_int:
        found = {7, 13}
    else:
        found = {1, 10, 12} | ({9} if s.is_int else {4, 5})
        found |= {2} if dst == "E4M3" else set()
        found |= {3} if not d.has_inf and not d.has_nan else set()
        found |= {11} if ref.resolve_mode(mode, src, dst) in ("RNE", "RTO") else set()
    found |= {6} if canon else set()
    return "SPEC-CHOICE: hw-ieee decisions " + ", ".join(str(n) for n in sorted(found)) + "."


def tcvt_name(src: str, dst: str, mode: str, sat: int, canon: bool = False, status: int = 0) -> str:
    return f"{src}-to-{dst}-{mode}-sat{sat}".lower() + ("-canon" if canon else "") + (
        f"-sticky{status:02x}" if status else "")


def tcvt_case(src: str, dst: str, mode: str, sat: int, *, canon: bool = False, status: int = 0,
              pad: str = "Zero", only: tuple | None = None, codes: list | None = None) -> dict:
    """One TCVT bundle over the configuration's inputs, or (``only``: an isolation key,
    ``codes``: its elements) over the inputs of one value class."""
    name = tcvt_name(src, dst, mode, sat, canon, status)
    if codes is None:
        codes = tcvt_inputs(src, dst, name)
    if only is not None:
        name += f"-only-{classes.key_label(only)}"
    rows = shape(codes)
    results = [[ref.convert(src, dst, c, mode, bool(sat), canon) for c in row] for row in rows]
    vr, vc = len(rows), len(rows[0])
    src_cap, dst_cap = capacity(src, TCVT_ROWS, TCVT_COLS), capacity(dst, TCVT_ROWS, TCVT_COLS)
    datr = [dst, mode, f"Sat={sat}"] + (["Canon=1"] if canon else []) + [pad]
    program = "\n".join([
        f"BSTART.VEC TCVT, {src}",
        "B.DATR " + ", ".join(datr),
        f"B.DIM LB0={vc}",
        f"B.DIM LB1={vr}",
        f"B.DIM LB2={TCVT_COLS}",
        f"B.IOT T1, mask=1111, <last>, ->T<{SIZE_CODES[dst_cap]}>",
        "BSTOP",
    ])
    both = (ref.fmt(src).is_int and ref.fmt(dst).is_int) or dst == "E8M0"
    kind = (isolation_text(only) if only is not None else
            "integer -> integer" if ref.fmt(src).is_int and ref.fmt(dst).is_int else
            "E8M0 exponent-domain rounding (bit-exact in both profiles)" if dst == "E8M0" else
            "every valid source encoding" if ref.fmt(src).width <= 8 else
            "ties, quarter points, range edges, subnormals and specials")
    description = (f"TCVT {src} -> {dst}, RMode {mode} (resolves to "
                   f"{ref.resolve_mode(mode, src, dst)}), Sat={sat}"
                   + (", Canonicalize=1 (private source)" if canon else "")
                   + (f", NumericStatus {status:#04x} before (sticky)" if status else "")
                   + f": {kind}. " + tcvt_decisions(src, dst, mode, canon)).strip()
    state = {}
    if status:
        state["status"] = Hex(status)
    src_tile = {"index": 1, "dtype": src, "capacity": src_cap, "cols": TCVT_COLS,
                "valid": Flow([vr, vc]), "layout": "RowMajor"}
    if canon:
        src_tile["location"] = "Matrix"
    src_tile["data"] = grid(src, rows)
    state["tiles"] = [src_tile]
    padding = FlowMap(defined=True, value=Hex(0), word=Hex(0)) if pad == "Zero" else FlowMap(defined=False)
    return generated_case(
        name, description, ["pto-v0", "hw-ieee"] if both else ["hw-ieee"], state, program,
        status | flags_or(r for row in results for r in row), [1],
        {"dtype": dst, "layout": "RowMajor", "location": "Any", "rows": TCVT_ROWS,
         "cols": TCVT_COLS, "valid": Flow([vr, vc]), "capacity": dst_cap,
         **expect_values(dst, [[b for b, _ in row] for row in results]), "padding": padding})


def modes(spec: str) -> list[tuple[str, int]]:
    """'RNE RTZ RNE/1' -> [('RNE', 0), ('RTZ', 0), ('RNE', 1)]; 'ALL' = the seven modes."""
    out = []
    for token in spec.split():
        if token == "ALL":
            out += [(m, 0) for m in ALL_MODES]
            continue
        mode, _, sat = token.partition("/")
        out.append((mode, int(sat or 0)))
    return out


# Per source type: (destination, modes). Chosen so that every type is a source and a
# destination, every mode and both Sat values are exercised, and the narrowing pairs get
# full mode sweeps; small sources are converted exhaustively (every encoding).
TCVT_PLAN: dict[str, list[tuple[str, str]]] = {
    # Sat=1 changes nothing for the finite-only formats (decisions 3-5), so their sweeps
    # stay at Sat=0.
    "FP32": [(d, "ALL RNE/1") for d in ("FP16", "HiF8", "E4M3")]
    + [(d, "ALL") for d in ("BF16", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2")]
    + [("TF32", "RNE RTO RNE/1"), ("HF32", "RNE RTP RNE/1"),
       ("HiF4X2", "RNE RTZ RTO"), ("FP64", "NONE"), ("E8M0", "ALL RNE/1"),
       ("S32", "RNE RTM RTP RNA RTO RHB NONE RNA/1"), ("S64", "NONE"), ("S16", "RHB/1"), ("S8", "RNA/1"),
       ("S4X2", "NONE"), ("U64", "RTP/1"), ("U32", "NONE"), ("U16", "RTM/1"), ("U8", "RNE/1"),
       ("U4X2", "RTO")],
    "FP64": [("FP32", "ALL RNE/1"), ("FP16", "RNE RTZ"), ("BF16", "RNE"), ("TF32", "RTO"),
             ("E5M2", "RNE"), ("HiF8", "RNE"), ("S64", "NONE RNE/1"), ("U64", "NONE RNA/1"),
             ("S32", "RHB"), ("U4X2", "RNE/1")],
    "TF32": [("FP32", "NONE"), ("HF32", "RNE"), ("FP16", "RNE RTZ"), ("BF16", "RTP"),
             ("S16", "NONE"), ("U8", "RNE/1")],
    "HF32": [("FP32", "NONE"), ("TF32", "RNE RNA RTO"), ("BF16", "RNE"), ("FP16", "RTM"),
             ("S32", "NONE"), ("E4M3", "RNE")],
    "FP16": [("FP32", "NONE"), ("FP64", "NONE"), ("BF16", "RNE RTO"),
             ("E4M3", "RNE RTP RNE/1"), ("E5M2", "RNE RNA"), ("HiF8", "RNE"),
             ("E8M0", "RTZ RNE/1"), ("S8", "NONE"), ("U4X2", "RNE/1"), ("S4X2", "NONE"),
             ("E2M3", "RNE"), ("TF32", "NONE")],
    "BF16": [("FP32", "NONE"), ("FP16", "RNE RHB RNE/1"), ("E8M0", "RNE RTM RTO RNE/1"),
             ("E4M3", "RNE"), ("E5M2", "RTO"), ("HiF8", "RNE"), ("S16", "NONE"),
             ("U16", "RNE/1"), ("E3M2", "RNE")],
    "HiF8": [("FP32", "NONE"), ("FP16", "NONE"), ("E4M3", "RNE RTZ RNE/1"),
             ("E5M2", "RNE"), ("E2M1X2", "RNE"), ("S8", "NONE"), ("S32", "RNE/1"),
             ("HiF4X2", "RTO")],
    "E4M3": [("FP32", "NONE"), ("FP16", "NONE"), ("HiF8", "RNE RTZ"),
             ("E5M2", "RNE RTM"), ("E3M2", "RNE"), ("E2M1X2", "RNE"), ("S8", "NONE"),
             ("U8", "RNE/1"), ("FP64", "NONE")],
    "E5M2": [("FP32", "NONE"), ("FP16", "NONE"), ("E4M3", "RNE RTZ RNE/1"), ("HiF8", "RNE"),
             ("S16", "NONE RNE/1")],
    "E3M2": [("FP32", "NONE"), ("E2M3", "RNE RTZ RTP"), ("E2M1X2", "RNE RNA"),
             ("E4M3", "RNE"), ("FP16", "NONE"), ("S8", "NONE"), ("U4X2", "RNE/1")],
    "E2M3": [("FP32", "NONE"), ("E3M2", "RNE RTM RHB"), ("E1M2X2", "RNE RTO"), ("HiF8", "RNE"),
             ("S4X2", "RNE"), ("U8", "NONE")],
    "E2M1X2": [("FP32", "NONE"), ("FP16", "NONE"), ("E1M2X2", "RNE"),
               ("HiF4X2", "RNE"), ("E3M2", "NONE"), ("S4X2", "NONE"), ("U4X2", "RNA/1")],
    "E1M2X2": [("FP32", "NONE"), ("E2M1X2", "RNE RTP RTO"), ("HiF4X2", "NONE"),
               ("E4M3", "NONE"), ("S8", "RNE"), ("U4X2", "RHB")],
    "HiF4X2": [("FP32", "NONE"), ("E1M2X2", "NONE"), ("E2M1X2", "RNE RNA"), ("BF16", "NONE"),
               ("S4X2", "RNE/1")],
    "E8M0": [("FP32", "NONE"), ("BF16", "NONE"), ("FP16", "RNE RTZ RNE/1"), ("E4M3", "RNE"),
             ("HiF8", "RNE"), ("S32", "NONE"), ("U64", "RNE/1"),
             ("S8", "RNE/1")],
    "S64": [("FP32", "RNE RTO"), ("FP64", "RNE RTZ"), ("FP16", "RNE/1"), ("BF16", "RNE"),
            ("S32", "NONE NONE/1"), ("U8", "NONE NONE/1"), ("S4X2", "NONE/1"),
            ("U64", "NONE/1")],
    "U64": [("FP32", "RTZ RTP"), ("FP64", "RNE RTO"), ("S64", "NONE NONE/1"),
            ("U16", "NONE NONE/1"), ("E4M3", "RNE"), ("TF32", "RNE")],
    "S32": [("FP32", "RNE RTM RNA"), ("FP16", "RNE RNE/1"), ("BF16", "RNE"), ("HiF8", "RNE"),
            ("S16", "NONE NONE/1"), ("U32", "NONE NONE/1"), ("S8", "NONE/1"),
            ("E5M2", "RNE")],
    "U32": [("FP32", "RNE RTZ"), ("HF32", "RNE"), ("S32", "NONE NONE/1"), ("U8", "NONE NONE/1"),
            ("U4X2", "NONE/1"), ("S64", "NONE")],
    "S16": [("FP16", "RNE RTP"), ("BF16", "RNE"), ("E4M3", "RNE RNE/1"),
            ("S8", "NONE NONE/1"), ("U16", "NONE/1"), ("S4X2", "NONE"), ("S32", "NONE")],
    "U16": [("FP16", "RNE RTO"), ("BF16", "RTZ"), ("U8", "NONE NONE/1"), ("S16", "NONE NONE/1"),
            ("E5M2", "RNE"), ("FP32", "NONE")],
    "S8": [("FP32", "NONE"), ("E4M3", "RNE RTZ"), ("E2M3", "RNE RNE/1"), ("HiF8", "RNE"),
           ("S4X2", "NONE NONE/1"), ("U8", "NONE NONE/1"), ("S64", "NONE"), ("U4X2", "NONE/1"),
           ("E2M1X2", "RNE")],
    "U8": [("FP16", "NONE"), ("E4M3", "RNE RTP"), ("E5M2", "RNE"), ("S8", "NONE NONE/1"),
           ("U4X2", "NONE NONE/1"), ("S16", "NONE"), ("E3M2", "RNE/1"), ("HiF8", "RNE")],
    "S4X2": [("FP32", "NONE"), ("E2M1X2", "RNE RTP"), ("E1M2X2", "RNE"), ("S8", "NONE"),
             ("U8", "NONE NONE/1"), ("U4X2", "NONE NONE/1"), ("S64", "NONE"), ("BF16", "NONE")],
    "U4X2": [("FP16", "NONE"), ("E2M1X2", "RNE RTO"), ("HiF4X2", "RNE/1"), ("S4X2", "NONE NONE/1"),
             ("U8", "NONE"), ("U64", "NONE")],
}

# Extra TCVT cases: Canonicalize=1 with a private (Matrix) source, and sticky status.
TCVT_EXTRA = {
    "FP32": [dict(dst="FP16", mode="RNE", sat=0, canon=True),
             dict(dst="S16", mode="NONE", sat=0, canon=True, pad="Null"),
             dict(dst="BF16", mode="RTZ", sat=0, status=0x02)],
    "FP16": [dict(dst="E5M2", mode="RNE", sat=1, canon=True)],
    "E5M2": [dict(dst="FP16", mode="NONE", sat=0, canon=True)],
}

TCVT_ADRS = ["ADR-0035", "ADR-0040", "ADR-0043", "ADR-0047", "ADR-0075", "ADR-0085"]


def tcvt_configurations(src: str) -> list[dict]:
    """The TCVT_PLAN and TCVT_EXTRA configurations of one source, with their pad."""
    out = []
    for dst, spec in TCVT_PLAN[src]:
        for mode, sat in modes(spec):
            out.append(dict(dst=dst, mode=mode, sat=sat, pad="Null" if len(out) % 3 == 2 else "Zero"))
    out += [dict(extra) for extra in TCVT_EXTRA.get(src, [])]
    return out


def tcvt_isolation_cases(src: str, dst: str, mode: str, sat: int, canon: bool = False,
                         status: int = 0) -> list[dict]:
    """One case per isolation key of the configuration's inputs (none when they raise no
    flag or fall under one key); pad Zero so that every case also pins the pad Word."""
    if status:
        return []  # a sticky status before the bundle would mask the flags anyway
    codes = tcvt_inputs(src, dst, tcvt_name(src, dst, mode, sat, canon))
    sets = classes.isolation_sets(
        ((c, classes.tcvt_class(src, dst, c, mode, bool(sat), canon),
          ref.convert(src, dst, c, mode, bool(sat), canon)[1]) for c in codes), ISOLATION_MAX)
    return [tcvt_case(src, dst, mode, sat, canon=canon, only=key, codes=members)
            for key, members in sets.items()]


def tcvt_exercises(cases: list[dict]) -> list[str]:
    dsts = {c["expect"]["tiles"][0]["dtype"] for c in cases}
    exercises = list(TCVT_ADRS)
    if any(ref.fmt(d).is_int for d in dsts):
        exercises.insert(3, "ADR-0044")
    return exercises + ["PTO-INST-TILE-TCVT"] + (["PTO-TCVT-CONTRACT-001"] if "E8M0" in dsts else [])


def tcvt_file(src: str) -> dict:
    cases = []
    for config in tcvt_configurations(src):
        config = dict(config)
        dst, mode, sat = config.pop("dst"), config.pop("mode"), config.pop("sat")
        cases.append(tcvt_case(src, dst, mode, sat, **config))
    return {
        "format": "pto-avs-vector/1",
        "id": f"PTO-AVS-X-TCVT-HW-{src.upper()}-001",
        "operation": "TCVT",
        "kind": "execution",
        "summary": f"hw-ieee TCVT from {src}: every listed destination, rounding mode and Sat value",
        "exercises": Flow(tcvt_exercises(cases)),
        "provenance": PROVENANCE,
        "cases": cases,
    }


def tcvt_flags_file(src: str) -> dict | None:
    """The flag-isolation cases of every configuration of PTO-AVS-X-TCVT-HW-<SRC>-001."""
    cases = []
    for config in tcvt_configurations(src):
        config = dict(config)
        dst, mode, sat = config.pop("dst"), config.pop("mode"), config.pop("sat")
        config.pop("pad", None)  # isolation cases pad with Zero
        cases += tcvt_isolation_cases(src, dst, mode, sat, **config)
    if not cases:
        return None
    return {
        "format": "pto-avs-vector/1",
        "id": f"PTO-AVS-X-TCVT-HW-{src.upper()}-FLAGS-001",
        "operation": "TCVT",
        "kind": "execution",
        "summary": f"hw-ieee TCVT from {src}: NumericStatus of each value class on its own",
        "exercises": Flow(tcvt_exercises(cases)),
        "provenance": PROVENANCE + " " + ISOLATION_PROVENANCE,
        "cases": cases,
    }


# --------------------------------------------------------------------------------------
# TQUANT (decision 14)

F32 = lambda x: exact_bits("FP32", Fraction(x))  # noqa: E731

# Multiplier per (mode, Sat): 1, 0.5, 1.5, 0.1f, 2^-127 and 3*2^-149 (subnormals), 6.
# The tiny 3*2^-149 leaves x*m+zp within 2^-20 of zp, which only the directed modes move.
TQUANT_MULTIPLIERS = {
    "RNE": (0x3F800000, 0x3F000000), "RTZ": (0x3FC00000, 0x3DCCCCCD),
    "RTM": (0x00400000, 0x00000003), "RTP": (0x00000003, 0x40C00000),
    "RNA": (0x3F000000, 0x3FC00000), "RTO": (0x3DCCCCCD, 0x00400000),
    "RHB": (0x40C00000, 0x3F800000),
}
TQUANT_ZERO_POINTS = {"S8": [0, -3, 5, 100, -128, 127, -60], "U8": [0, 128, 3, 255, 10, 77, 200]}


def tquant_inputs(dst: str, multiplier: int, zp: int, name: str) -> list[int]:
    lo, hi = ref.fmt(dst).int_range
    m = ref.decode("FP32", multiplier).magnitude
    targets = [Fraction(2 * k + 1, 2) for k in range(-3, 3)]
    targets += [Fraction(k, 4) for k in (-7, -5, -3, -1, 1, 3, 5, 7)] + [Fraction(0), Fraction(1)]
    targets += [Fraction(hi) + Fraction(1, 2), Fraction(hi) - Fraction(1, 2), Fraction(hi + 1),
                Fraction(lo) - Fraction(1, 2), Fraction(lo) + Fraction(1, 2), Fraction(lo - 1),
                Fraction(hi) + Fraction(1, 4), Fraction(hi + 100) + Fraction(1, 2),
                Fraction(lo - 50) - Fraction(1, 2), Fraction(2001, 2), Fraction(-1000),
                Fraction(10 ** 6)]
    codes = [0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
             0x00000001, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF]
    for a in targets:
        x = (a - zp) / m
        if x != 0:
            bits = nearest_bits("FP32", x)
            if bits is not None:
                codes.append(bits)
    rng = rng_for(name)
    codes += [random_code("FP32", rng, (-4, 8)) for _ in range(6)]
    return dedupe(codes)[:64]


def tquant_name(dst: str, mode: str, sat: int, m_bits: int, zp: int, default_ior: bool,
                status: int = 0) -> str:
    return (f"fp32-to-{dst.lower()}-{mode.lower()}-sat{sat}-m{m_bits:08x}-zp{zp}"
            + ("-default-ior" if default_ior else "") + (f"-sticky{status:02x}" if status else ""))


def tquant_case(dst: str, mode: str, sat: int, multiplier: int | None, zp: int,
                status: int = 0, only: tuple | None = None, codes: list | None = None) -> dict:
    """One TQUANT bundle over the configuration's inputs, or over one isolation key's."""
    m_bits = 0x3F800000 if multiplier is None else multiplier
    name = tquant_name(dst, mode, sat, m_bits, zp, multiplier is None, status)
    if codes is None:
        codes = tquant_inputs(dst, m_bits, zp, name)
    if only is not None:
        name += f"-only-{classes.key_label(only)}"
    results = [ref.quantize(c, m_bits, zp, dst, mode, bool(sat)) for c in codes]
    n = len(codes)
    lines = ["BSTART.SFU TQUANT, FP32", f"B.DATR {dst}, {mode}, Sat={sat}", f"B.DIM LB0={n}",
             "B.DIM LB2=64"]
    state = {}
    if status:
        state["status"] = Hex(status)
    if multiplier is not None:
        lines.append("B.IOR R5, R6")
        state["gprs"] = FlowMap({5: Hex(m_bits), 6: Hex(zp & ((1 << 64) - 1))})
    lines += ["B.IOT T1, mask=1111, <last>, ->T<1>", "BSTOP"]
    state["tiles"] = [{"index": 1, "dtype": "FP32", "capacity": 256, "cols": 64,
                       "valid": Flow([1, n]), "layout": "RowMajor",
                       "data": [Flow(Hex(c) for c in codes)]}]
    m_value = float(ref.decode("FP32", m_bits).magnitude)
    description = (f"TQUANT FP32 -> {dst}, RMode {mode}, Sat={sat}, multiplier {m_bits:#010x} "
                   f"(~{m_value:.9g}), zero point {zp}"
                   + (" (B.IOR omitted: defaults 1.0 and 0)" if multiplier is None else "")
                   + (f", NumericStatus {status:#04x} before (sticky)" if status else "")
                   + (f": {isolation_text(only)}. " if only is not None else
                      ": ties, quarter points, wrap/clamp range, NaN, infinities, subnormals. ")
                   + "SPEC-CHOICE: hw-ieee decision 14 (one rounding of the exact x*m+zp; NaN/Inf "
                   "NV with the indefinite value or Sat endpoints; no OF).")
    return generated_case(
        name, description, ["hw-ieee"], state, "\n".join(lines), status | flags_or(results), [1],
        {"dtype": dst, "layout": "RowMajor", "location": "Any", "rows": 2, "cols": 64,
         "valid": Flow([1, n]), "capacity": 128, **expect_values(dst, [[b for b, _ in results]]),
         "padding": FlowMap(defined=False)})


def tquant_configurations() -> list[tuple]:
    """(dst, mode, sat, multiplier, zero point[, status]) of every TQUANT case."""
    out = []
    for dst in ("S8", "U8"):
        for i, mode in enumerate(ALL_MODES):
            for sat in (0, 1):
                out.append((dst, mode, sat, TQUANT_MULTIPLIERS[mode][sat],
                            TQUANT_ZERO_POINTS[dst][(i + sat) % 7]))
    return out + [("S8", "NONE", 0, None, 0), ("U8", "NONE", 1, 0x3E800000, 3),
                  ("S8", "RNE", 0, 0x3FC00000, -3, 0x04)]


def tquant_isolation_cases(dst: str, mode: str, sat: int, multiplier: int | None, zp: int,
                           status: int = 0) -> list[dict]:
    if status:
        return []
    m_bits = 0x3F800000 if multiplier is None else multiplier
    codes = tquant_inputs(dst, m_bits, zp, tquant_name(dst, mode, sat, m_bits, zp, multiplier is None))
    sets = classes.isolation_sets(
        ((c, classes.tquant_class(c, m_bits, zp, dst, mode),
          ref.quantize(c, m_bits, zp, dst, mode, bool(sat))[1]) for c in codes), ISOLATION_MAX)
    return [tquant_case(dst, mode, sat, multiplier, zp, only=key, codes=members)
            for key, members in sets.items()]


def tquant_flags_file() -> dict:
    cases = [case for config in tquant_configurations() for case in tquant_isolation_cases(*config)]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TQUANT-HW-FLAGS-001",
        "operation": "TQUANT",
        "kind": "execution",
        "summary": "hw-ieee TQUANT FP32 -> S8/U8: NumericStatus of each value class on its own",
        "exercises": Flow(["ADR-0035", "ADR-0047", "ADR-0083", "PTO-INST-TILE-TQUANT"]),
        "provenance": PROVENANCE + " " + ISOLATION_PROVENANCE,
        "cases": cases,
    }


def tquant_file() -> dict:
    cases = [tquant_case(*config) for config in tquant_configurations()]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TQUANT-HW-001",
        "operation": "TQUANT",
        "kind": "execution",
        "summary": "hw-ieee TQUANT FP32 -> S8/U8: every rounding mode, Sat 0/1, multipliers "
                   "(subnormal included) and zero points",
        "exercises": Flow(["ADR-0035", "ADR-0047", "ADR-0083", "PTO-INST-TILE-TQUANT"]),
        "provenance": PROVENANCE,
        "cases": cases,
    }


# --------------------------------------------------------------------------------------
# TMULS


def tmuls_scalars(dtype: str) -> list[tuple[str, int]]:
    f = ref.fmt(dtype)
    one = exact_bits(dtype, Fraction(1))
    special = {"FP64": ref.infinity_code("FP64", False), "FP32": 0x7F800001,
               "TF32": ref.canonical_nan("TF32"), "HF32": ref.sign_mask("HF32"),
               "FP16": ref.infinity_code("FP16", True), "BF16": 0x7F81, "E4M3": 0xFF,
               "E5M2": 0x7D}[dtype]
    out = [("one-plus-ulp", one + (1 << f.frac_lsb)), ("eighth", exact_bits(dtype, Fraction(1, 8)))]
    if f.width <= 16:  # the wide formats overflow through max * (1 + ulp) already
        out.append(("sixteen", exact_bits(dtype, Fraction(16))))
    return out + [("special", special)]


def tmuls_inputs(dtype: str, scalar: int, name: str) -> list[int]:
    f = ref.fmt(dtype)
    if f.width == 8:
        return all_valid_codes(dtype)
    s = ref.decode(dtype, scalar)
    codes = special_codes(dtype) + [exact_bits(dtype, Fraction(1))]
    if s.cls == "finite" and s.magnitude != 0:
        for p in float_probes(dtype):
            for sign in (1, -1):
                b = exact_bits(dtype, sign * p / s.exact)
                if b is not None:
                    codes.append(b)
    rng = rng_for(name)
    window = (-6, 6)
    codes += [random_code(dtype, rng, window if f.width > 16 else None) for _ in range(12)]
    return dedupe(codes)[:128]


TMULS_INT_CASES = [("U8", 3), ("S8", -1), ("S16", 300), ("S32", 0x10001), ("S64", -3),
                   ("U64", (1 << 63) + 5)]


def tmuls_case(dtype: str, label: str, scalar: int, status: int = 0, only: tuple | None = None,
               codes: list | None = None) -> dict:
    """One TMULS bundle over the configuration's inputs, or over one isolation key's."""
    f = ref.fmt(dtype)
    name = f"{dtype.lower()}-times-{label}" + (f"-sticky{status:02x}" if status else "")
    if codes is not None:
        name += f"-only-{classes.key_label(only)}"
    elif f.is_int:
        lo, hi = f.int_range
        rng = rng_for(name)
        vals = [0, 1, -1, 2, hi, lo, hi - 1, lo + 1, 7, 86] + [rng.randint(lo, hi) for _ in range(22)]
        codes = dedupe(ref.element_bits(dtype, v) for v in vals if lo <= v <= hi)
    else:
        codes = tmuls_inputs(dtype, scalar, name)
    rows = shape(codes)
    results = [[ref.multiply(dtype, c, scalar) for c in row] for row in rows]
    vr, vc = len(rows), len(rows[0])
    cap = max(128, TCVT_COLS * f.width // 8 * vr)
    phys_rows = cap * 8 // (TCVT_COLS * f.width)
    program = "\n".join([f"BSTART.VEC TMULS, {dtype}", f"B.DIM LB0={vc}", f"B.DIM LB1={vr}",
                         f"B.DIM LB2={TCVT_COLS}", "B.IOR R5",
                         f"B.IOT T1, mask=1111, <last>, ->T<{SIZE_CODES[cap]}>", "BSTOP"])
    gpr = ref.result_word(dtype, scalar)
    state = {}
    if status:
        state["status"] = Hex(status)
    state["gprs"] = FlowMap({5: Hex(gpr)})
    state["tiles"] = [{"index": 1, "dtype": dtype, "capacity": cap, "cols": TCVT_COLS,
                       "valid": Flow([vr, vc]), "layout": "RowMajor", "data": grid(dtype, rows)}]
    if f.is_int:
        description = (f"TMULS {dtype} x {ref.decode(dtype, scalar).exact}: the product wraps at "
                       "the element width, no flags (the same in pto-v0).")
    else:
        description = (f"TMULS {dtype} x scalar {scalar:#x} ({label}"
                       + (f"; {isolation_text(only)}" if only is not None else "") + "): IEEE multiply, RNE, "
                       "canonical NaN, NV/OF/UF/NX (tininess after rounding). "
                       "SPEC-CHOICE: hw-ieee decisions 1" + (", 2" if dtype == "E4M3" else "")
                       + ", 10, 11 (no B.DATR, so Sat=0).")
    return generated_case(
        name, description, ["pto-v0", "hw-ieee"] if f.is_int else ["hw-ieee"], state, program,
        status | flags_or(r for row in results for r in row), [1],
        {"dtype": dtype, "layout": "RowMajor", "location": "Any", "rows": phys_rows,
         "cols": TCVT_COLS, "valid": Flow([vr, vc]), "capacity": cap,
         **expect_values(dtype, [[b for b, _ in row] for row in results]),
         "padding": FlowMap(defined=False)})


def tmuls_isolation_cases(dtype: str, label: str, scalar: int) -> list[dict]:
    codes = tmuls_inputs(dtype, scalar, f"{dtype.lower()}-times-{label}")
    sets = classes.isolation_sets(
        ((c, classes.tmuls_class(dtype, c, scalar), ref.multiply(dtype, c, scalar)[1]) for c in codes),
        ISOLATION_MAX)
    return [tmuls_case(dtype, label, scalar, only=key, codes=members) for key, members in sets.items()]


def tmuls_flags_file() -> dict:
    """Floating TMULS only: integer TMULS raises no flag."""
    cases = [case for dtype in ref.TMULS_FLOAT_TYPES for label, scalar in tmuls_scalars(dtype)
             for case in tmuls_isolation_cases(dtype, label, scalar)]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TMULS-HW-FLAGS-001",
        "operation": "TMULS",
        "kind": "execution",
        "summary": "hw-ieee TMULS: NumericStatus of each value class of the product on its own",
        "exercises": Flow(["ADR-0035", "ADR-0047", "ADR-0081", "PTO-INST-TILE-TMULS"]),
        "provenance": PROVENANCE + " " + ISOLATION_PROVENANCE,
        "cases": cases,
    }


def tmuls_file() -> dict:
    cases = []
    for dtype in ref.TMULS_FLOAT_TYPES:
        for label, scalar in tmuls_scalars(dtype):
            cases.append(tmuls_case(dtype, label, scalar))
    for dtype, value in TMULS_INT_CASES:
        cases.append(tmuls_case(dtype, str(value).replace("-", "minus"),
                                ref.element_bits(dtype, value)))
    cases.append(tmuls_case("FP16", "one-plus-ulp", 0x3C01, status=0x01))
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TMULS-HW-001",
        "operation": "TMULS",
        "kind": "execution",
        "summary": "hw-ieee TMULS: IEEE RNE multiply for every floating type, wrap for integers",
        "exercises": Flow(["ADR-0035", "ADR-0047", "ADR-0081", "PTO-INST-TILE-TMULS"]),
        "provenance": PROVENANCE,
        "cases": cases,
    }


# --------------------------------------------------------------------------------------
# TGEMV_MX_ACC

CUBE_M16_COLS = {16: 4, 8: 8, 4: 16}  # cell columns of CUBE_M16 per element width
CUBE_N8_ROWS = {16: 8, 8: 16, 4: 32}  # cell rows of CUBE_N8 per element width


def mx_random(dtype: str, rng: random.Random) -> int:
    if dtype in ("FP16", "BF16"):
        f = ref.fmt(dtype)
        exp = rng.randint(-3, 3) + f.bias
        return (rng.getrandbits(1) << 15) | (exp << f.frac_bits) | rng.getrandbits(f.frac_bits)
    return rng.choice(finite_codes(dtype))


def fp32_random(rng: random.Random) -> int:
    """An accumulator value whose last place (2^-15 .. 2^1) is coarser than most scaled
    products, so that the per-step rounding matters."""
    return (rng.getrandbits(1) << 31) | ((rng.randint(8, 24) + 127) << 23) | rng.getrandbits(23)


def tgemv_cases(a_type: str, b_type: str, name: str, k: int, n: int, *, a=None, b=None, c=None,
                sa=None, sb=None, note: str = "") -> list[dict]:
    """The case ``name`` and, for each of its columns whose own flags differ from the
    status of all N columns (an OR), that column alone as an N=1 case: a device that
    gets one column's flags wrong cannot hide behind another column's."""
    rng = rng_for(name)
    blocks = -(-k // ref.MX_BLOCK)
    a_scaled, b_scaled = a_type not in ref.MX_UNSCALED, b_type not in ref.MX_UNSCALED
    a = a if a is not None else [mx_random(a_type, rng) for _ in range(k)]
    b = b if b is not None else [[mx_random(b_type, rng) for _ in range(n)] for _ in range(k)]
    if a_scaled and sa is None:
        sa = [rng.randint(122, 132) for _ in range(blocks)]
    if b_scaled and sb is None:
        sb = [[rng.randint(122, 132) for _ in range(n)] for _ in range(blocks)]
    if c is None:  # per column, draw until some fused step of that column rounds
        c = []
        for col in range(n):
            b_col = [[row[col]] for row in b]
            sb_col = [[row[col]] for row in sb] if b_scaled else None
            for _ in range(32):
                value = fp32_random(rng)
                _, flags = ref.gemv_mx_acc([value], a, b_col, a_type, b_type,
                                           sa if a_scaled else None, sb_col)
                if flags & ref.NX:
                    break
            c.append(value)
    d, flags = ref.gemv_mx_acc(c, a, b, a_type, b_type, sa if a_scaled else None,
                               sb if b_scaled else None)
    a_bits, b_bits = ref.fmt(a_type).width, ref.fmt(b_type).width
    c_cap = -(-n // 2) * 128
    tiles = [{"index": 1, "dtype": "FP32", "capacity": c_cap, "valid": Flow([1, n]),
              "layout": "CUBE_M16", "location": "Matrix", "data": [Flow(Hex(x) for x in c)]},
             {"index": 2, "dtype": a_type, "capacity": -(-k // CUBE_M16_COLS[a_bits]) * 128,
              "valid": Flow([1, k]), "layout": "CUBE_M16", "location": "Matrix",
              "data": [Flow(Hex(x) for x in a)]}]
    sources = [1, 2]
    if a_scaled:
        tiles.append({"index": 3, "dtype": "E8M0", "capacity": 128, "cols": 8,
                      "valid": Flow([1, blocks]), "layout": "RowMajor",
                      "data": [Flow(Hex(x) for x in sa)]})
        sources.append(3)
    b_index = len(sources) + 1
    tiles.append({"index": b_index, "dtype": b_type,
                  "capacity": -(-k // CUBE_N8_ROWS[b_bits]) * 128, "valid": Flow([k, n]),
                  "layout": "CUBE_N8", "location": "Matrix",
                  "data": [Flow(Hex(x) for x in row) for row in b]})
    sources.append(b_index)
    if b_scaled:
        tiles.append({"index": b_index + 1, "dtype": "E8M0", "capacity": 128, "cols": 8,
                      "valid": Flow([blocks, n]), "layout": "RowMajor",
                      "data": [Flow(Hex(x) for x in row) for row in sb]})
        sources.append(b_index + 1)
    lines = [f"BSTART.TGEMVMX.ACC {a_type}", "B.FPATR"]
    if b_type != a_type:
        lines.append(f"B.DATR {b_type}")
    lines += ["B.DIM LB0=1", f"B.DIM LB1={n}", f"B.DIM LB2={k}"]
    for i in range(0, len(sources), 2):
        pair = ", ".join(f"T{s}" for s in sources[i:i + 2])
        lines.append(f"B.IOT {pair}, mask=1111")
    lines += [f"B.IOT mask=1111, <last>, ->T<{SIZE_CODES[c_cap]}>", "BSTOP"]
    # SPEC-CHOICE 17: the expected status is the OR of the IEEE flags of every fused step.
    description = (f"TGEMV_MX_ACC {a_type} x {b_type}, M=1, N={n}, K={k} ({blocks} scale "
                   "blocks): D = C then, for k increasing, one FP32 RNE rounding of "
                   "acc + (a_k*2^(sa-127))*(b_k*2^(sb-127)); a 0xFF scale gives 0x7FC00000. "
                   + (note + " " if note else "")
                   + "SPEC-CHOICE: the status is the OR of the IEEE flags of every fused step "
                   "(the profile's exception model; it has no CUBE-specific rule); a 0xFF scale "
                   "and a NaN left by an earlier step are quiet NaN operands (no NV).")
    cases = [generated_case(
        name, description, ["hw-ieee"], {"tiles": tiles}, "\n".join(lines), flags, sources,
        {"dtype": "FP32", "layout": "CUBE_M16", "location": "Matrix", "rows": 16,
         "cols": -(-n // 2) * 2, "valid": Flow([1, n]), "capacity": c_cap,
         "data": [Flow(Hex(x) for x in d)], "padding": FlowMap(defined=False)})]
    for col in range(n if n > 1 else 0):
        b_col = [[row[col]] for row in b]
        sb_col = [[row[col]] for row in sb] if b_scaled else None
        _, col_flags = ref.gemv_mx_acc([c[col]], a, b_col, a_type, b_type, sa if a_scaled else None, sb_col)
        if col_flags != flags:
            cases += tgemv_cases(a_type, b_type, f"{name}-col{col}", k, 1, a=a, b=b_col, c=[c[col]],
                                 sa=sa, sb=sb_col, note=f"Column {col} of {name} alone (its flags: "
                                 f"{col_flags:#04x}, those of all {n} columns: {flags:#04x}).")
    return cases


def tgemv_special_cases() -> list[dict]:
    one = {"E4M3": 0x38, "E5M2": 0x3C, "BF16": 0x3F80, "FP16": 0x3C00}
    fp16 = lambda x: exact_bits("FP16", Fraction(x))  # noqa: E731
    groups = [
        tgemv_cases("E4M3", "E5M2", "e4m3-x-e5m2-k33-hardware-block", 33, 1,
                    a=[one["E4M3"]] * 33, b=[[one["E5M2"]]] * 33, c=[F32(3)],
                    sa=[0x7F, 0x80], sb=[[0x7F], [0x81]],
                    note="The spec hardware vector mx-k-block-33 with prior 3 (expected 43)."),
        tgemv_cases("E4M3", "BF16", "e4m3-x-bf16-k33-e8m0-scale", 33, 1,
                    a=[0x3C] + [0] * 32, b=[[one["BF16"]]] * 33, c=[0], sa=[0x80, 0x7F],
                    note="The spec hardware vector mx-e8m0-scale: 1.5 scaled by 0x80 is 3.0."),
        tgemv_cases("E2M1X2", "FP16", "e2m1x2-x-fp16-nan-a-scale", 40, 2, sa=[0x7F, 0xFF],
                    note="The second A-scale block is 0xFF: every lane becomes canonical NaN."),
        tgemv_cases("E5M2", "E4M3", "e5m2-x-e4m3-nan-b-scale-column", 48, 2,
                    sb=[[0x7F, 0x7E], [0x80, 0xFF]],
                    note="B-scale [1][1] is 0xFF: column 1 is NaN, column 0 is not."),
        tgemv_cases("FP16", "FP16", "fp16-x-fp16-infinity-terms", 34, 3,
                    a=[fp16(1.5)] * 3 + [0x7C00] + [fp16(0.25)] * 30,
                    b=[[fp16(1), fp16(2), fp16(-3)]] * 3 + [[0x0000, fp16(1), fp16(-1)]]
                    + [[fp16(1), fp16(1), fp16(1)]] * 30,
                    note="a_3 = +Inf: times 0 gives NaN (column 0), else +Inf / -Inf."),
        tgemv_cases("E5M2", "E5M2", "e5m2-x-e5m2-overflow", 36, 2,
                    a=[0x7B] * 36, b=[[0x7B, 0xFB]] * 36, c=[0, 0],
                    sa=[0xFE, 0xFE], sb=[[0xFE, 0xFE], [0xFE, 0xFE]],
                    note="Scaled products exceed FP32: the first fused add rounds to +-Inf."),
        tgemv_cases("BF16", "BF16", "bf16-x-bf16-signed-zero-and-cancellation", 35, 3,
                    a=[one["BF16"]] * 35,
                    b=[[0x8000, exact_bits("BF16", Fraction(-3)), 0x0000]]
                    + [[0x8000, 0x0000, 0x0000]] * 34,
                    c=[0x80000000, F32(3), 0x80000000],
                    note="-0 + (-0 terms) stays -0; 3 + (-3) cancels to +0; -0 + (+0) is +0."),
        tgemv_cases("E1M2X2", "E2M1X2", "e1m2x2-x-e2m1x2-subnormal-ties", 64, 2,
                    c=[0, 0x00000001], sa=[0x00, 0x00], sb=[[0x6B, 0x6A], [0x6A, 0x6B]],
                    note="Scaled products near 2^-150: FP32 subnormal results and ties; "
                    "rounding each product on its own first would give other results."),
    ]
    return [case for group in groups for case in group]


def tgemv_file() -> dict:
    cases = []
    for i, (a_type, b_type) in enumerate((x, y) for x in ref.MX_TYPES for y in ref.MX_TYPES):
        k = 33 + (i * 7) % 32
        n = 1 + i % 4
        cases += tgemv_cases(a_type, b_type, f"{a_type}-x-{b_type}-k{k}-n{n}".lower(), k, n)
    cases += tgemv_special_cases()
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TGEMV-MX-ACC-HW-001",
        "operation": "TGEMV_MX_ACC",
        "kind": "execution",
        "summary": "hw-ieee TGEMV_MX_ACC: all 36 MX type pairs, K over two scale blocks, NaN "
                   "scales, special inputs",
        "exercises": Flow(["ADR-0047", "ADR-0065", "ADR-0071", "ADR-0073", "ADR-0079",
                           "PTO-TGEMV-MX-ACC-CONTRACT-001", "PTO-INST-TILE-TGEMV-MX-ACC"]),
        "provenance": PROVENANCE,
        "cases": cases,
    }


# --------------------------------------------------------------------------------------


def files(operations) -> dict[str, str]:
    """File name -> text of the hw-ieee files of ``operations`` (TCVT, TQUANT, TMULS, TGEMV_MX_ACC)."""
    builders = {
        "TCVT": lambda: [tcvt_file(src) for src in TCVT_PLAN] + [tcvt_flags_file(src) for src in TCVT_PLAN],
        "TQUANT": lambda: [tquant_file(), tquant_flags_file()],
        "TMULS": lambda: [tmuls_file(), tmuls_flags_file()],
        "TGEMV_MX_ACC": lambda: [tgemv_file()],
    }
    docs = [doc for op in operations for doc in builders[op]()]
    return {f"{doc['id']}.yaml": engine.to_yaml(doc) for doc in docs if doc is not None}


FAMILY = engine.Family("generate_numeric", ("TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"), files,
                       owns=("PTO-AVS-X-*-HW-*.yaml",))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for this family
    from . import generate_postprocess  # the family built on this one, written by the same command

    sys.exit(engine.legacy_main([FAMILY, generate_postprocess.FAMILY]))
