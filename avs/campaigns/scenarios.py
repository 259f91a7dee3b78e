"""Hypothesis strategies of random bundles and tile states for the four operations.

``scenarios(operation, dtypes)`` draws a ``Scenario``: the initial machine state
(in the loader's normalized form) and one bundle in the project assembly syntax.
Most draws are legal bundles over legal tiles, so the numeric paths get
exercised; about a fifth carry one defect from a per-operation list (a wrong
dimension, a missing BSTOP, a duplicated B.DATR, an undefined source, an
exhausted tile capacity, a Canonicalize that does not match the source, ...),
so legality and fault order get exercised as well. Element values mix uniform
bits with the special encodings of the type (zeros, extremes, NaN, infinity,
smallest subnormal and normal). Shrinking moves toward the first choice of
every ``sampled_from`` and toward small values, i.e. toward the simplest legal
bundle.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from hypothesis import strategies as st

from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding.names import LAYOUT_CODES, ROUNDING_NAMES, transform_layouts
from pto_avs.device_model.layouts import cube_geometry, fractal_inner

OPERATIONS = ("TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC")
ROUNDINGS = ROUNDING_NAMES  # NONE (operation default) first
PADS = ("Zero", "Null", "Max", "Min")
TRANSFORMS = tuple(name for name, code in sorted(LAYOUT_CODES.items(), key=lambda kv: kv[1])
                   if transform_layouts(code) is not None)
TMULS_TYPES = ("U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64", "FP16", "BF16", "FP32", "FP64",
               "TF32", "HF32", "E4M3", "E5M2")
MX_TYPES = ("FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2")
MX_SCALED = frozenset(MX_TYPES) - {"FP16", "BF16"}
HANDS = "TUMN"
RESET_CAPACITY = 262144
SHAPE_LIMIT = 4096  # elements per tile: keeps a campaign example to a few milliseconds
DEFECT_WEIGHT = 4  # one draw in DEFECT_WEIGHT + 1 has a defect


@dataclass(frozen=True)
class Scenario:
    operation: str
    state: dict  # normalized like pto_avs.contract.loader does (every tile field present)
    program: str  # one bundle, newline separated
    defect: str  # "none" or the defect drawn

    def describe(self) -> str:
        return f"{self.operation} bundle" + ("" if self.defect == "none" else f" with defect {self.defect}")


def scenarios(operation: str, allowed=None):
    """Strategy of Scenarios for ``operation``; ``allowed`` limits the DataTypes (None: all)."""
    builders = {"TCVT": _tcvt, "TQUANT": _tquant, "TMULS": _tmuls, "TGEMV_MX_ACC": _tgemv}
    if operation not in builders:
        raise ValueError(f"unknown operation {operation!r}; expected one of {', '.join(OPERATIONS)}")
    names = tuple(n for n in dtypes.NAMES if allowed is None or n in allowed)
    return builders[operation](names)


# ---------------------------------------------------------------------------
# pieces


def _tile(index, dtype, capacity, cols, valid, data, layout="RowMajor", location="Any", mask="1111",
          defined="valid"):
    return {"index": index, "dtype": dtype, "capacity": capacity, "cols": cols, "valid": list(valid),
            "layout": layout, "location": location, "mask": mask, "defined": defined, "data": data}


def _state(tiles, tile_capacity=RESET_CAPACITY, status=0, gprs=None):
    return {"tile_capacity": tile_capacity, "status": status, "gprs": dict(sorted((gprs or {}).items())),
            "tiles": tiles}


def special_values(name: str) -> list:
    """The encodings of ``name`` where conversions and products change behaviour."""
    t = dtypes.dtype(name)
    if t.is_integer:
        return sorted({0, 1, t.mask, t.int_max, t.int_min & t.mask})
    f = t.fmt
    values = {0, 1, t.max_finite}
    if f.sign_bit is not None:
        sign = 1 << f.sign_bit
        values |= {sign, sign | 1, sign | t.max_finite}
    if t.canonical_nan is not None:
        values.add(t.canonical_nan)
    if f.kind == "binary":
        one_quantum = 1 << f.frac_shift
        smallest_normal = 1 << (f.frac_bits + f.frac_shift)
        values |= {one_quantum, smallest_normal, smallest_normal - one_quantum}
        if f.has_inf:
            values.add(((1 << f.exp_bits) - 1) << (f.frac_bits + f.frac_shift))
    return sorted(v & t.mask & ~t.must_be_zero for v in values)


def element_values(name: str, encodings_valid: bool = True):
    """Element bits of ``name``: specials or uniform bits (valid encodings unless told)."""
    t = dtypes.dtype(name)
    uniform = st.integers(0, t.mask)
    if encodings_valid and t.must_be_zero:
        uniform = uniform.map(lambda v: v & ~t.must_be_zero)
    # Bits ending in 1 then k zeros: a tie for any rounding that drops k bits; bits
    # ending in k zeros: exact for any destination keeping all but k of them.
    ties = st.tuples(uniform, st.integers(1, max(1, t.bits - 1))).map(
        lambda vk: (vk[0] & ~((1 << vk[1]) - 1)) | (1 << (vk[1] - 1)))
    short = st.tuples(uniform, st.integers(0, t.bits - 1)).map(lambda vk: vk[0] & ~((1 << vk[1]) - 1))
    if encodings_valid and t.must_be_zero:
        ties = ties.map(lambda v: v & ~t.must_be_zero)
    values = st.one_of(st.sampled_from(special_values(name)), uniform, ties, short)
    if t.signed and t.bits < 64:  # the canonical Word of a signed element is sign-extended
        sign = 1 << (t.bits - 1)
        extend = (1 << 64) - (1 << t.bits)
        values = values.map(lambda v: v | extend if v & sign else v)
    return values


def grids(draw, name: str, rows: int, cols: int, encodings_valid: bool = True) -> list:
    values = draw(st.lists(element_values(name, encodings_valid), min_size=rows * cols, max_size=rows * cols))
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


def fp32_bits():
    """FP32 encodings: floats of every magnitude (NaN and infinities included) or raw bits."""
    floats = st.floats(width=32, allow_nan=True, allow_infinity=True).map(
        lambda x: struct.unpack("<I", struct.pack("<f", x))[0])
    return st.one_of(floats, st.integers(0, 0xFFFFFFFF), st.sampled_from(special_values("FP32")))


def _size_code(capacity: int) -> int:
    """B.IOT SizeCode of a power-of-two TSize (128 B is code 1)."""
    return capacity.bit_length() - 1 - 6


def _pow2_at_least(value: int) -> int:
    return 1 << max(value - 1, 0).bit_length()


def _defect(draw, choices) -> str:
    return draw(st.sampled_from(("none",) * (DEFECT_WEIGHT * len(choices)) + tuple(choices)))


def _dims(valid_rows: int, valid_cols: int, cols: int, defect: str) -> list:
    lines = [f"B.DIM LB0={valid_cols + (defect == 'lb0-off-by-one')}"]
    if valid_rows != 1 or defect == "lb1-zero":
        lines.append(f"B.DIM LB1={0 if defect == 'lb1-zero' else valid_rows}")
    if cols != valid_cols:
        lines.append(f"B.DIM LB2={cols}")
    if defect == "lb0-twice":
        lines.append(f"B.DIM LB0={valid_cols}")
    return lines


def _bundle(header: str, body: list, defect: str) -> str:
    lines = [header, *body]
    if defect == "no-bstop":
        return "\n".join(lines)
    return "\n".join(lines + ["BSTOP"])


def _common_state(draw, tiles, defect: str, gprs=None):
    """The state around ``tiles``: a preset sticky status now and then; with the defect
    ``capacity-exhausted`` a tile capacity that the initial tiles fill completely."""
    in_use = sum(tile["capacity"] * tile["mask"].count("1") for tile in tiles)
    tile_capacity = in_use if defect == "capacity-exhausted" else RESET_CAPACITY
    status = draw(st.sampled_from((0,) * 4 + (0x01, 0x10, 0x1F)))
    return _state(tiles, tile_capacity, status, gprs)


# ---------------------------------------------------------------------------
# TCVT

TCVT_DEFECTS = ("lb0-off-by-one", "capacity-exhausted", "lb1-zero", "lb0-twice", "no-bstop", "duplicate-datr", "bstart-type",
                "undefined-source", "canonicalize-flipped", "layout-mismatch", "size-code", "invalid-encoding")


def _tcvt(names):
    @st.composite
    def draw_tcvt(draw):
        defect = _defect(draw, TCVT_DEFECTS)
        src = draw(st.sampled_from(names))
        dst = draw(st.sampled_from(names + ("DTYPE_NONE",)))
        effective = src if dst == "DTYPE_NONE" else dst
        sbits, dbits = dtypes.dtype(src).bits, dtypes.dtype(effective).bits
        transform = draw(st.sampled_from(("NORM",) * len(TRANSFORMS) + TRANSFORMS))
        src_layout, dst_layout = transform_layouts(LAYOUT_CODES[transform])
        if defect == "layout-mismatch":
            src_layout = draw(st.sampled_from([x for x in ("RowMajor", "ColumnMajor", "ZN", "NZ") if x != src_layout]))
        fractal = {"ZN", "NZ"} & {src_layout, dst_layout}
        # Both tiles share rows x cols; a ZN/NZ side needs rows % 16 == 0 and cols % (256 / bits) == 0.
        min_cols = max(fractal_inner(sbits), fractal_inner(dbits)) if fractal else 1
        min_elements = max(1024 // sbits, 1024 // dbits, 16 * min_cols if fractal else 1)
        elements = draw(st.sampled_from([e for e in (1 << k for k in range(17)) if min_elements <= e <= SHAPE_LIMIT]
                                        or [min_elements]))
        cols = draw(st.sampled_from([c for c in (1 << k for k in range(17))
                                     if min_cols <= c <= elements and (not fractal or elements // c >= 16)]))
        rows = elements // cols
        valid = (draw(st.integers(1, min(rows, 4))), draw(st.integers(1, min(cols, 8))))
        location = draw(st.sampled_from(("Any",) * 6 + ("Vector", "Matrix")))
        if location == "Matrix":  # a private source: RowMajor, NORM, Canonicalize=1
            src_layout, transform = "RowMajor", "NORM"
        canonicalize = (location == "Matrix") != (defect == "canonicalize-flipped")
        data = grids(draw, src, *valid, encodings_valid=defect != "invalid-encoding")
        source_index = draw(st.sampled_from((1, 2, 17, 33, 5)))
        hand = draw(st.sampled_from("TTTTUMN"))
        size = elements * dbits // 8
        size_code = draw(st.integers(1, 10)) if defect == "size-code" else _size_code(size)
        rounding = draw(st.sampled_from(ROUNDINGS))
        sat = draw(st.integers(0, 1))
        pad = draw(st.sampled_from(PADS))
        tile = _tile(source_index, src, elements * sbits // 8, cols, valid, data, layout=src_layout,
                     location=location, defined="none" if defect == "undefined-source" else "valid")
        bstart = draw(st.sampled_from([n for n in dtypes.NAMES if n != src])) if defect == "bstart-type" else src
        datr = f"B.DATR {dst}, {rounding}, {transform}, {pad}, Sat={sat}, Canon={int(canonicalize)}"
        body = [datr] + (["B.DATR Zero"] if defect == "duplicate-datr" else [])
        body += _dims(*valid, cols, defect)
        body.append(f"B.IOT {_name(source_index)}, mask=1111, <last>, ->{hand}<{size_code}>")
        return Scenario("TCVT", _common_state(draw, [tile], defect), _bundle(f"BSTART.VEC TCVT, {bstart}", body, defect),
                        defect)

    return draw_tcvt()


def _name(index: int) -> str:
    return f"{HANDS[index // 16]}{index % 16}"


# ---------------------------------------------------------------------------
# TQUANT

TQUANT_DEFECTS = ("lb0-off-by-one", "capacity-exhausted", "lb1-zero", "no-bstop", "undefined-source", "multiplier", "zero-point",
                  "datr-pad", "no-datr", "size-code")


def _tquant(names):
    @st.composite
    def draw_tquant(draw):
        defect = _defect(draw, TQUANT_DEFECTS)
        dst = draw(st.sampled_from(("S8", "U8")))
        elements = draw(st.sampled_from((32, 64, 128, 256)))
        cols = draw(st.sampled_from([c for c in (1 << k for k in range(9)) if c <= elements]))
        rows = elements // cols
        valid = (draw(st.integers(1, min(rows, 4))), draw(st.integers(1, min(cols, 8))))
        data = draw(st.lists(fp32_bits(), min_size=valid[0] * valid[1], max_size=valid[0] * valid[1]))
        data = [data[r * valid[1]:(r + 1) * valid[1]] for r in range(valid[0])]
        multiplier = draw(st.floats(min_value=2.0 ** -149, max_value=3.4028234663852886e38, width=32).map(
            lambda x: struct.unpack("<I", struct.pack("<f", x))[0]))
        if defect == "multiplier":
            multiplier = draw(st.sampled_from((0, 0x80000000, 0x7F800000, 0x7FC00000, 0xBF800000)))
        t = dtypes.dtype(dst)
        zero_point = draw(st.integers(t.int_min, t.int_max)) & ((1 << 64) - 1)
        if defect == "zero-point":
            zero_point = draw(st.sampled_from((0x80, 0x100, 0xFFFFFFFF)))
        with_ior = draw(st.sampled_from((True, True, True, False)))
        rounding = draw(st.sampled_from(ROUNDINGS))
        sat = draw(st.integers(0, 1))
        size = max(128, _pow2_at_least(rows * cols))
        size_code = draw(st.integers(1, 10)) if defect == "size-code" else _size_code(size)
        tile = _tile(1, "FP32", elements * 4, cols, valid, data,
                     defined="none" if defect == "undefined-source" else "valid")
        body = [] if defect == "no-datr" else [
            f"B.DATR {dst}, {rounding}, Sat={sat}" + (", Max" if defect == "datr-pad" else "")]
        body += _dims(*valid, cols, defect)
        gprs = {}
        if with_ior:
            gprs = {3: multiplier, 4: zero_point}
            body.append("B.IOR R3, R4")
        body.append(f"B.IOT T1, mask=1111, <last>, ->T<{size_code}>")
        return Scenario("TQUANT", _common_state(draw, [tile], defect, gprs),
                        _bundle("BSTART.SFU TQUANT, FP32", body, defect), defect)

    return draw_tquant()


# ---------------------------------------------------------------------------
# TMULS

TMULS_DEFECTS = ("lb0-off-by-one", "capacity-exhausted", "lb1-zero", "no-bstop", "undefined-source", "datr-sat",
                 "datr-type", "size-code",
                 "unsupported-type", "second-source")


def _tmuls(names):
    types = tuple(n for n in TMULS_TYPES if n in names) or TMULS_TYPES

    @st.composite
    def draw_tmuls(draw):
        defect = _defect(draw, TMULS_DEFECTS)
        name = draw(st.sampled_from(types))
        if defect == "unsupported-type":
            name = draw(st.sampled_from([n for n in names if n not in TMULS_TYPES] or ["E8M0"]))
        bits = dtypes.dtype(name).bits
        elements = draw(st.sampled_from([e for e in (1 << k for k in range(13))
                                         if 1024 // bits <= e <= SHAPE_LIMIT]))
        cols = draw(st.sampled_from([c for c in (1 << k for k in range(13)) if c <= elements]))
        rows = elements // cols
        valid = (draw(st.integers(1, min(rows, 4))), draw(st.integers(1, min(cols, 8))))
        data = grids(draw, name, *valid)
        scalar = draw(element_values(name))
        pad = draw(st.sampled_from(PADS))
        capacity = elements * bits // 8
        size_code = draw(st.integers(1, 10)) if defect == "size-code" else _size_code(capacity)
        tiles = [_tile(1, name, capacity, cols, valid, data,
                       defined="none" if defect == "undefined-source" else "valid")]
        # An explicit B.DATR also encodes DataType 0 (FP64), which becomes the destination
        # type: only FP64 takes a PadValue; any other type gets the defect.
        datr = name == "FP64" or defect in ("datr-sat", "datr-type")
        body = [f"B.DATR {pad}" + (", Sat=1" if defect == "datr-sat" else "")] if datr else []
        body += _dims(*valid, cols, defect)
        body.append("B.IOR R5")
        sources = "T1, T2" if defect == "second-source" else "T1"
        if defect == "second-source":
            tiles.append(_tile(2, name, capacity, cols, valid, data))
        body.append(f"B.IOT {sources}, mask=1111, <last>, ->T<{size_code}>")
        return Scenario("TMULS", _common_state(draw, tiles, defect, {5: scalar}),
                        _bundle(f"BSTART.VEC TMULS, {name}", body, defect), defect)

    return draw_tmuls()


# ---------------------------------------------------------------------------
# TGEMV_MX_ACC

TGEMV_DEFECTS = ("no-fpatr", "capacity-exhausted", "no-bstop", "scale-shape", "c-index-is-d-hand", "undefined-c", "m-two",
                 "k-mismatch", "size-code")


def _cube_tile(index, dtype, valid, data, layout):
    geometry = cube_geometry(layout, dtypes.dtype(dtype), *valid)
    capacity = -(-geometry.required_bytes // 128) * 128
    tile = _tile(index, dtype, capacity, None, valid, data, layout=layout, location="Matrix")
    return tile, geometry


def _tgemv(names):
    types = tuple(n for n in MX_TYPES if n in names) or MX_TYPES

    @st.composite
    def draw_tgemv(draw):
        defect = _defect(draw, TGEMV_DEFECTS)
        left = draw(st.sampled_from(types))
        right = draw(st.sampled_from(types))
        k = draw(st.integers(1, 48))
        n = draw(st.integers(1, 4))
        blocks = -(-k // 32)
        c_index = 1 if defect == "c-index-is-d-hand" else 20
        tiles = []
        c_data = draw(st.lists(fp32_bits(), min_size=n, max_size=n))
        c_tile, _ = _cube_tile(c_index, "FP32", (1, n), [c_data], "CUBE_M16")
        c_tile["capacity"] = _pow2_at_least(c_tile["capacity"])  # C's capacity is D's TSize
        if defect == "undefined-c":
            c_tile["defined"] = "none"
        tiles.append(c_tile)
        a_tile, _ = _cube_tile(21, left, (1, k), grids(draw, left, 1, k), "CUBE_M16")
        tiles.append(a_tile)
        b_rows = k + (defect == "k-mismatch")
        b_tile, _ = _cube_tile(22, right, (b_rows, n), grids(draw, right, b_rows, n), "CUBE_N8")
        tiles.append(b_tile)
        scales = draw(st.lists(st.one_of(st.integers(118, 136), st.sampled_from((0, 0xFE, 0xFF))),
                               min_size=blocks * (1 + n), max_size=blocks * (1 + n)))
        order = [c_index, 21]
        if left in MX_SCALED:
            width = blocks + (defect == "scale-shape")
            row = (scales[:blocks] + [127])[:width]
            tiles.append(_tile(23, "E8M0", 128, 8, (1, width), [row]))
            order.append(23)
        order.append(22)
        if right in MX_SCALED:
            rows = [scales[blocks + i * n:blocks + (i + 1) * n] for i in range(blocks)]
            tiles.append(_tile(24, "E8M0", 128, 8, (blocks, n), rows))
            order.append(24)
        size_code = draw(st.integers(1, 10)) if defect == "size-code" else _size_code(c_tile["capacity"])
        body = [] if right == left else [f"B.DATR {right}"]
        body += [] if defect == "no-fpatr" else ["B.FPATR"]
        body += [f"B.DIM LB0={2 if defect == 'm-two' else 1}", f"B.DIM LB1={n}", f"B.DIM LB2={k}"]
        pairs = [order[i:i + 2] for i in range(0, len(order), 2)]
        for position, pair in enumerate(pairs):
            operands = ", ".join(_name(i) for i in pair)
            if position == len(pairs) - 1:
                body.append(f"B.IOT {operands}, mask=1111, <last>, ->T<{size_code}>")
            else:
                body.append(f"B.IOT {operands}, mask=1111")
        return Scenario("TGEMV_MX_ACC", _common_state(draw, tiles, defect),
                        _bundle(f"BSTART.TGEMVMX.ACC {left}", body, defect), defect)

    return draw_tgemv()
