"""The TGEMV_MX_ACC post-processing vectors, from ``vectors/reference/postprocess.py``.

A family of its own that builds on ``generate_numeric`` (its case builder and probes; that
module does not import this one), written by the same command:

- ``PTO-AVS-X-TGEMV-MX-ACC-PP-MODES-001``: one case per configuration: every PreQuantMode
  of an FP32 accumulator with every ReluMode, PreQuantMode 0 with each activation, every
  B.DATR RMode of the programmable modes, Sat=1 of every mode and LReLU with alpha +0;
  each tile mixes NaN, sNaN, infinities, signed zeros and values whose scaled result is a
  tie, a quarter point, an overflow or a subnormal of the output type;
- ``PTO-AVS-X-TGEMV-MX-ACC-PP-FLAGS-001``: per configuration, one case per isolation key
  (``value_classes``): NumericStatus of each value class on its own.

Every case is M = 1, K = 1: A = +0 (FP16), B = -0 (FP16) for every column, so the
accumulator reaching the post-processing is C unchanged in both profiles (pto-v0 adds the
raw product MultiplyWord(0, b) = 0 to the raw C Word; hw-ieee's FP32 fused add of the
product -0 is exact and keeps -0, and a signalling NaN C raises NV there as the
post-processing of pto-v0 does), and the post-processing itself is bit-exact in both.
"""
from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from . import engine
from . import numeric as ref
from . import postprocess as pp
from . import value_classes as classes
from .engine import ISOLATION_MAX, SIZE_CODES, Flow, FlowMap, Hex
from .generate_numeric import COMMAND, dedupe, exact_bits, float_probes, generated_case, isolation_text

SPECIALS = (0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000)
SCALAR_SCALE = 0x3FC00000  # 1.5
VECTOR_SCALES = (0x3FC00000, 0x3FA00000, 0x3F400000, 0x40000000)  # 1.5 1.25 0.75 2
SCALAR_ALPHA = 0x3EC00000  # 0.375
VECTOR_ALPHAS = (0x3EC00000, 0x3F000000, 0x3FA00000)  # 0.375 0.5 1.25
SCALAR_OFFSET = -100
VECTOR_OFFSETS = (-100, 0, 37, -256, 255)
MIXED_MAX = 64
CELL_COLUMNS = {32: 2, 16: 4, 8: 8}  # CUBE_M16 cell columns by element width (cube-cell.asl)
S8_TARGETS = ([Fraction(k, 4) for k in (1, 2, 3, 5, 6, 9, 10, 14, 15, 18, 21, 30)]
              + [Fraction(x) for x in (126, 127, 128, 200, 255, 256, 257, 270, 300, 1000)]
              + [Fraction(255, 2), Fraction(511, 2), Fraction(1023, 4), Fraction(513, 2)])
# FP32 outputs: accumulators whose product with the scale is a tie, an inexact value, an
# overflow (the exponent of the exact value above 127) or a subnormal of FP32.
FP32_INPUTS = ([0x3F800000 + k for k in range(8)] + [0x3FFFFFFF, 0x3FFFFFFE, 0x4B000001]
               + [0x7F7FFFFF, 0x7F7FFFFE, 0x7F400000, 0x7F2AAAAB, 0x7F000000]
               + [0x00000001, 0x00000003, 0x00000005, 0x00000007, 0x00555555, 0x007FFFFF,
                  0x00800000, 0x00800001, 0x00AAAAAB, 0x01000001])
PROVENANCE = (
    "Every expected value was computed by the independent exact reference "
    "vectors/reference/postprocess.py (fractions.Fraction, sharing no code with device_model), "
    "transcribed from the executable ASL of B.FPATR post-processing: "
    "asl/arch/profile/matrix-postprocess.asl (MatrixPostQuantBaseWithFlags, "
    "MatrixFPATREffectiveControl, MatrixPostQuantSpecialValue, MatrixSelectedMultiplier), "
    "asl/arch/profile/matrix-quantization.asl (MatrixRoundAndSaturateSigned, "
    "ReferenceMatrixIntegerEncoding, ReferenceBinary16Encoding, ReferenceFP8Encoding), "
    "asl/arch/profile/reference-quantization.asl (ReferenceFP32FiniteEncoding), "
    "asl/arch/data-types/fp19.asl and asl/block/attributes/B.FPATR.asl, checked against the "
    "spec's matrix post-processing test points and hardware vectors "
    "(tests/vectors/test_reference_postprocess.py), and written by "
    f"`{COMMAND}`. Nothing here comes from running the golden model. A = +0 and B = -0 (FP16, "
    "M = K = 1) leave the accumulator C unchanged in both profiles; the post-processing is "
    "bit-exact in both (hardware profile reference_model_relation), so every case holds in "
    "pto-v0 and hw-ieee. The ASL encoders detect tininess before rounding and overflow on the "
    "exact value's exponent (SPEC-CHOICE, digest 7.12: followed in both profiles).")


# --------------------------------------------------------------------------------------
# Configurations


def base_config(mode: int, relu: int, rmode: str = "NONE", sat: bool = False) -> pp.Config:
    return pp.Config(mode, relu, rmode, sat)


def configurations() -> list[pp.Config]:
    """Every mode x activation, the RModes of the programmable modes, Sat=1 of every mode
    and of LReLU into S8 (``plan`` adds LReLU with alpha +0)."""
    out = [base_config(mode, relu) for mode in pp.FP32_MODES for relu in pp.RELU_MODES]
    out += [base_config(0, relu) for relu in pp.RELU_MODES[1:]]
    out += [base_config(mode, 0, rmode) for mode in (23, 24, 27, 38) for rmode in pp.RMODES[1:]]
    out += [base_config(mode, 0, sat=True) for mode in pp.FP32_MODES]
    return out + [base_config(24, 2, sat=True)]


def label(config: pp.Config, zero_alpha: bool = False) -> str:
    return (f"mode{config.mode}-relu{config.relu}-{config.rmode.lower()}-sat{int(config.sat)}"
            + ("-alpha0" if zero_alpha else ""))


# --------------------------------------------------------------------------------------
# Elements: (accumulator C, quant parameter Word, activation parameter Word)


def _quant_word(mode: int, scale: int, offset: int) -> int:
    if mode in pp.SCALAR_MODES | pp.VECTOR_MODES:
        return pp.quant_word(scale, offset, pp.OFFSET_WIDTH.get(mode, 0))
    return 0  # no parameter: the mode scales by 1.0


def _fixed(config: pp.Config, zero_alpha: bool) -> tuple[int, int]:
    """The scalar parameters (quant Word, activation Word) of a configuration."""
    alpha = 0 if zero_alpha else pp.relu_word(SCALAR_ALPHA)
    return _quant_word(config.mode, SCALAR_SCALE, SCALAR_OFFSET), alpha


def _targets(out: str) -> list[Fraction]:
    if out == "S8":
        return S8_TARGETS
    return float_probes(out)


def _element(config: pp.Config, zero_alpha: bool, index: int, magnitude: Fraction, negative: bool):
    """An element whose activated value is +-magnitude (C exact in FP32), or None."""
    quant, alpha = _fixed(config, zero_alpha)
    vector_quant, vector_relu = config.mode in pp.VECTOR_MODES, config.relu == 3
    activation = negative and config.relu != 0
    if activation and config.relu == 1 or activation and zero_alpha:
        c = exact_bits("FP32", -magnitude)
        return None if c is None else (c, quant, alpha)
    offsets = VECTOR_OFFSETS if vector_quant else (SCALAR_OFFSET,)
    offset = offsets[index % len(offsets)]
    if activation:
        choices = ([pp.relu_word(a) for a in VECTOR_ALPHAS[index % 3:] + VECTOR_ALPHAS[:index % 3]]
                   if vector_relu else [alpha])
        for word in choices:
            c = exact_bits("FP32", -magnitude / pp.fp19_value(word))
            if c is not None:
                return (c, quant, word)
        return None
    scales = (VECTOR_SCALES[index % 4:] + VECTOR_SCALES[:index % 4] if vector_quant else (SCALAR_SCALE,))
    relu_param = pp.relu_word(VECTOR_ALPHAS[index % 3]) if vector_relu else alpha
    for scale in scales:
        word = _quant_word(config.mode, scale, offset)
        multiplier = pp.fp19_value(word >> 13 & 0x7FFFF) if word else Fraction(1)
        c = exact_bits("FP32", (-magnitude if negative else magnitude) / multiplier)
        if c is not None:
            return (c, word, relu_param)
    return None


def elements(config: pp.Config, zero_alpha: bool = False) -> list[tuple]:
    """The configuration's inputs: specials, then targets of both signs (FP32 outputs:
    FP32_INPUTS of both signs), each with its column's parameters."""
    quant, alpha = _fixed(config, zero_alpha)
    vector_quant, vector_relu = config.mode in pp.VECTOR_MODES, config.relu == 3
    out = []
    for i, c in enumerate(SPECIALS):
        q = _quant_word(config.mode, VECTOR_SCALES[i % 4], VECTOR_OFFSETS[i % 5]) if vector_quant else quant
        out.append((c, q, pp.relu_word(VECTOR_ALPHAS[i % 3]) if vector_relu else alpha))
    if config.output == "FP32":
        for i, c in enumerate(FP32_INPUTS):
            for sign in (0, 0x80000000):
                index = 2 * i + (sign >> 31)
                q = _quant_word(config.mode, VECTOR_SCALES[index % 4], 0) if vector_quant else quant
                r = pp.relu_word(VECTOR_ALPHAS[index % 3]) if vector_relu else alpha
                out.append((c | sign, q, r))
    else:
        for i, magnitude in enumerate(_targets(config.output)):
            for negative in (False, True):
                element = _element(config, zero_alpha, 2 * i + negative, magnitude, negative)
                if element is not None:
                    out.append(element)
    return dedupe(out)


def run(config: pp.Config, members: list[tuple]) -> list[tuple]:
    """[(element, steps)] with the per-column parameters of each element."""
    out = []
    for c, q, r in members:
        column = replace(config, quant=(q,), relu_param=(r,))
        out.append(((c, q, r), pp.transform(c, column, 0)))
    return out


def classified(config: pp.Config, members: list[tuple]) -> list[tuple]:
    """[(element, class, flags)]."""
    return [(element, classes.postprocess_class(steps, config), steps.flags)
            for element, steps in run(config, members)]


def representative(config: pp.Config, members: list[tuple]) -> list[tuple]:
    """At most MIXED_MAX elements, the first of every class and flag set kept."""
    return classes.capped(((e, (cls, flags)) for e, cls, flags in classified(config, members)), MIXED_MAX)


# --------------------------------------------------------------------------------------
# Cases


def _columns(n: int) -> int:
    """A power-of-two column count of at least 16 (legal CUBE and U64 parameter tiles)."""
    columns = 16
    while columns < n:
        columns *= 2
    return columns


def pp_case(config: pp.Config, members: list[tuple], zero_alpha: bool = False,
            only: tuple | None = None) -> dict:
    n = _columns(len(members))
    members = [members[i % len(members)] for i in range(n)]  # repeat to fill the columns
    results = [steps for _, steps in run(config, members)]
    out = config.output
    width = ref.fmt(out).width
    cell = CELL_COLUMNS[width]
    d_cap = n // cell * 128
    c_words = [c for c, _, _ in members]
    tiles = [{"index": 1, "dtype": "FP32", "capacity": n // 2 * 128, "valid": Flow([1, n]),
              "layout": "CUBE_M16", "location": "Matrix", "data": [Flow(Hex(c) for c in c_words)]},
             {"index": 2, "dtype": "FP16", "capacity": 128, "valid": Flow([1, 1]), "layout": "CUBE_M16",
              "location": "Matrix", "data": [Flow([Hex(0)])]},
             {"index": 3, "dtype": "FP16", "capacity": n // 8 * 128, "valid": Flow([1, n]),
              "layout": "CUBE_N8", "location": "Matrix", "data": [Flow([Hex(0x8000)] * n)]}]
    if config.mode in pp.VECTOR_MODES:
        tiles.append({"index": len(tiles) + 1, "dtype": "U64", "capacity": n * 8, "cols": n,
                      "valid": Flow([1, n]), "layout": "RowMajor",
                      "data": [Flow(Hex(q) for _, q, _ in members)]})
    if config.relu == 3:
        tiles.append({"index": len(tiles) + 1, "dtype": "U64", "capacity": n * 8, "cols": n,
                      "valid": Flow([1, n]), "layout": "RowMajor",
                      "data": [Flow(Hex(r) for _, _, r in members)]})
    sources = [t["index"] for t in tiles]
    gprs = []
    if config.mode in pp.SCALAR_MODES:
        gprs.append(members[0][1])
    if config.relu == 2:
        gprs.append(members[0][2])
    lines = ["BSTART.TGEMVMX.ACC FP16"]
    datr = ([config.rmode] if config.rmode != "NONE" else []) + (["Sat=1"] if config.sat else [])
    if datr:
        lines.append("B.DATR " + ", ".join(["FP16"] + datr))
    lines += [f"B.FPATR PreQuantMode={config.mode}, ReluMode={config.relu}",
              "B.DIM LB0=1", f"B.DIM LB1={n}", "B.DIM LB2=1"]
    if gprs:
        lines.append("B.IOR " + ", ".join(f"R{5 + i}" for i in range(len(gprs))))
    for i in range(0, len(sources), 2):
        lines.append("B.IOT " + ", ".join(f"T{s}" for s in sources[i:i + 2]) + ", mask=1111")
    lines += [f"B.IOT mask=1111, <last>, ->T<{SIZE_CODES[d_cap]}>", "BSTOP"]
    state = {}
    if gprs:
        state["gprs"] = FlowMap({5 + i: Hex(w) for i, w in enumerate(gprs)})
    state["tiles"] = tiles
    data = [Flow(Hex(s.word & ((1 << width) - 1)) for s in results)]
    result = {"dtype": out, "layout": "CUBE_M16", "location": "Matrix", "rows": 16,
              "cols": n // cell * cell, "valid": Flow([1, n]), "capacity": d_cap, "data": data}
    if ref.fmt(out).kind == "signed":
        result["words"] = [Flow(Hex(s.word) for s in results)]
    result["padding"] = FlowMap(defined=False)
    flags = 0
    for s in results:
        flags |= s.flags
    name = label(config, zero_alpha) + (f"-only-{classes.key_label(only)}" if only is not None else "")
    return generated_case(name, describe(config, zero_alpha, only), ["pto-v0", "hw-ieee"],
                          state, "\n".join(lines), flags, sources, result)


def describe(config: pp.Config, zero_alpha: bool, only: tuple | None) -> str:
    mode, relu = config.mode, config.relu
    if mode in pp.VECTOR_MODES:
        scale = "per-column FP19 scales (and S9 offsets) from a U64 vector tile"
    elif mode in pp.SCALAR_MODES:
        scale = ("the FP19 scale 1.5" + (f" and S9 offset {SCALAR_OFFSET}" if mode in pp.OFFSET_WIDTH else "")
                 + " from B.IOR R5")
    else:
        scale = "scale 1.0"
    activation = {0: "no activation", 1: "ReLU (negatives times 0)",
                  2: "LReLU with alpha " + ("+0" if zero_alpha else "0.375") + " from B.IOR",
                  3: "PReLU with per-column alphas from a U64 vector tile"}[relu]
    fixed = (" (fixed RHB)" if mode in (25, 28) else " (fixed RNE)" if mode in pp.FIXED_ROUNDING
             else "")
    what = (isolation_text(only) if only is not None else
            "NaN, sNaN, +-Inf, +-0 and values whose activated result is a tie, quarter point, "
            "overflow or subnormal of the output type")
    return (f"TGEMV_MX_ACC post-processing, PreQuantMode {mode} (FP32 accumulator -> {config.output}), "
            f"{scale}, {activation}; B.DATR RMode {config.rmode} -> {config.rounding}{fixed}, "
            f"Sat={int(config.sat)}: {what}. D = C (A = +0, B = -0) in both profiles; expected D and "
            "NumericStatus from vectors/reference/postprocess.py (MatrixPostQuantBaseWithFlags, "
            "asl/arch/profile/matrix-postprocess.asl:180-252).")


def plan() -> list[tuple]:
    """(config, zero_alpha) of every configuration; with alpha +0 a -Inf accumulator takes
    the multiplier path to +0 instead of the special-value path."""
    out = [(config, False) for config in configurations()]
    return out + [(base_config(32, 2), True)]


def modes_file() -> dict:
    cases = []
    for config, zero_alpha in plan():
        cases.append(pp_case(config, representative(config, elements(config, zero_alpha)), zero_alpha))
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TGEMV-MX-ACC-PP-MODES-001",
        "operation": "TGEMV_MX_ACC",
        "kind": "execution",
        "summary": "TGEMV_MX_ACC post-processing of the FP32 accumulator: every PreQuantMode and "
                   "ReluMode, every RMode of the programmable modes, Sat",
        "exercises": Flow(["ADR-0047", "ADR-0073", "ADR-0079", "ADR-0085", "PTO-INST-TILE-TGEMV-MX-ACC"]),
        "provenance": PROVENANCE,
        "cases": cases,
    }


def flags_file() -> dict:
    cases = []
    for config, zero_alpha in plan():
        sets = classes.isolation_sets(classified(config, elements(config, zero_alpha)), ISOLATION_MAX)
        cases += [pp_case(config, members, zero_alpha, only=key) for key, members in sets.items()]
    return {
        "format": "pto-avs-vector/1",
        "id": "PTO-AVS-X-TGEMV-MX-ACC-PP-FLAGS-001",
        "operation": "TGEMV_MX_ACC",
        "kind": "execution",
        "summary": "TGEMV_MX_ACC post-processing: NumericStatus of each value class on its own",
        "exercises": Flow(["ADR-0047", "ADR-0073", "ADR-0079", "ADR-0085", "PTO-INST-TILE-TGEMV-MX-ACC"]),
        "provenance": PROVENANCE + " Flag isolation (vectors/reference/value_classes.py): each case "
                      "holds the inputs of one value class with one flag set, or only inputs that raise "
                      "no flag, taken from the configuration's inputs in PTO-AVS-X-TGEMV-MX-ACC-PP-MODES-001.",
        "cases": cases,
    }


def read_case(case: dict) -> list[tuple]:
    """(accumulator C Word, Config with the column's parameters) of every column of a case
    of these files (a YAML mapping as loaded), read from its program, GPRs and tiles."""
    program = case["program"]
    fpatr = re.search(r"PreQuantMode=(\d+), ReluMode=(\d+)", program)
    mode, relu = int(fpatr.group(1)), int(fpatr.group(2))
    datr = re.search(r"B\.DATR FP16((?:, [A-Za-z0-9=]+)*)", program)
    fields = [f.strip() for f in datr.group(1).split(",") if f.strip()] if datr else []
    rmode = next((f for f in fields if f in pp.RMODES), "NONE")
    state = case["state"]
    gprs = [state.get("gprs", {}).get(r, 0) for r in (5, 6)]
    tiles = {t["index"]: t for t in state["tiles"]}
    vectors = [t["data"][0] for _, t in sorted(tiles.items()) if t["dtype"] == "U64"]
    quant = vectors.pop(0) if mode in pp.VECTOR_MODES else None
    relu_tile = vectors.pop(0) if relu == 3 else None
    scalar_quant = gprs[0] if mode in pp.SCALAR_MODES else 0
    scalar_relu = gprs[1 if mode in pp.SCALAR_MODES else 0] if relu == 2 else 0
    return [(c, pp.Config(mode, relu, rmode, "Sat=1" in fields,
                          (quant[i] if quant is not None else scalar_quant,),
                          (relu_tile[i] if relu_tile is not None else scalar_relu,)))
            for i, c in enumerate(tiles[1]["data"][0])]


def files() -> list[dict]:
    return [modes_file(), flags_file()]


FAMILY = engine.Family("generate_postprocess", ("TGEMV_MX_ACC",),
                       lambda operations: {f"{doc['id']}.yaml": engine.to_yaml(doc) for doc in files()},
                       owns=("PTO-AVS-X-TGEMV-MX-ACC-PP-*.yaml",))
