"""Hypothesis strategies of random bundles and tile states for every operation ``--op`` takes.

``scenarios(operation, dtypes)`` draws a ``Scenario``: the initial machine state
(in the loader's normalized form) and one bundle in the project assembly syntax.
TCVT, TQUANT, TMULS and TGEMV_MX_ACC have builders of their own; every other
elementwise TEPL operation the golden model registers shares one builder whose
bundle comes from data: the B.IOT/B.IOR/B.DATR composition the spec's
instruction contract gives for the operation (``composition``) and the type set
of the operation's registry entry. Every other registered operation (memory, gather and
scatter, the matrix engine, reductions, sorting, generation, rearrangement) is drawn by the
seeded builder: a shipped case of the operation with elements of its tiles, its status and
its GPRs redrawn, and now and then one program line dropped, repeated or moved
(``_seeded``). Most draws are legal bundles over legal
tiles, so the numeric paths get exercised; about a fifth carry one defect from
a list (a wrong dimension, a missing BSTOP, a duplicated B.DATR, an undefined
source, an exhausted tile capacity, a Canonicalize that does not match the
source, a type outside the operation's set, sources of different shapes, ...),
so legality and fault order get exercised as well. Element values mix uniform
bits with the special encodings of the type (zeros, extremes, NaN, infinity,
smallest subnormal and normal). Shrinking moves toward the first choice of
every ``sampled_from`` and toward small values, i.e. toward the simplest legal
bundle.
"""
from __future__ import annotations

import copy
import re
import struct
from dataclasses import dataclass
from functools import lru_cache

from hypothesis import strategies as st

from ...contract import spec_data
from ...device_model import dtypes
from ...device_model import machine  # noqa: F401  (every operation joins the registry)
from ...device_model.encoding.names import CMODE_NAMES, LAYOUT_CODES, ROUNDING_NAMES, transform_layouts
from ...device_model.layouts import cube_geometry, fractal_inner
from ...device_model.ops import registry

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
    names = tuple(n for n in dtypes.NAMES if allowed is None or n in allowed)
    if operation in HAND_WRITTEN:
        return HAND_WRITTEN[operation](names)
    if operation in elementwise_operations():
        return _elementwise(operation, names)
    if operation in seeded_operations():
        return _seeded(operation, names)
    raise ValueError(f"unknown operation {operation!r}; expected one of {', '.join(OPERATIONS)}")


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
    if t.is_integer:  # the width and one less: shift counts at the edge
        return sorted({0, 1, t.mask, t.int_max, t.int_min & t.mask, t.bits - 1, t.bits})
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
        one = f.bias << (f.frac_bits + f.frac_shift)
        values |= {one_quantum, smallest_normal, smallest_normal - one_quantum, one}
        if f.sign_bit is not None:
            values.add(one | 1 << f.sign_bit)
        if f.has_inf:  # +-infinity, and a signaling NaN (quiet bit clear) where the fraction has room
            infinity = ((1 << f.exp_bits) - 1) << (f.frac_bits + f.frac_shift)
            values |= {infinity, infinity | 1 << f.sign_bit}
            if f.frac_bits >= 2:
                values.add(infinity | one_quantum)
    return sorted({v & t.mask & ~t.must_be_zero for v in values})


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


def gpr_values(name: str, encodings_valid: bool = True):
    """GPR Words carrying an element of ``name``: the canonical Word, or arbitrary bits above the
    element (an operation reads only the element bits, TileRawElementValue)."""
    t = dtypes.dtype(name)
    values = element_values(name, encodings_valid)
    if t.bits == 64:
        return values
    above = st.integers(1, (1 << (64 - t.bits)) - 1).map(lambda u: u << t.bits)  # never all zero
    return st.one_of(values, st.tuples(values, above).map(lambda vu: (vu[0] & t.mask) | vu[1]))


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
    """"none" (DEFECT_WEIGHT draws in DEFECT_WEIGHT + 1), else one of ``choices`` (each as likely:
    one long list would leave its tail to hypothesis's uneven index draws)."""
    if draw(st.sampled_from((False,) * DEFECT_WEIGHT + (True,))):
        return draw(st.sampled_from(choices))
    return "none"


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


# ---------------------------------------------------------------------------
# every other elementwise TEPL operation: one builder over the spec's block composition

ELEMENTWISE_CLASSES = ("elementwise-tile-tile", "tile-scalar-and-immediate")  # tile-operations.json
PREDICATE = "Predicate"  # the role name of a packed predicate tile in a composition
TILE_POOL = (0, 1, 2, 3, 5, 17, 33, 63)  # source tile indices (hands T, U, N)
GPR_POOL = (5, 1, 9, 23)  # B.IOR selectors (R1..R23; R0 reads zero)
PE_MASK = "1111"  # every binding and tile: all four PEs
GENERIC_DEFECTS = ("lb0-off-by-one", "capacity-exhausted", "lb1-zero", "lb0-twice", "no-bstop", "no-last",
                   "size-code", "extra-binding", "surplus-ior", "duplicate-datr")
SOURCE_DEFECTS = ("undefined-source", "bstart-type", "layout", "missing-source")  # operations with sources
PAIR_DEFECTS = ("shape-mismatch", "type-mismatch")  # operations with two or more sources
PAD_DEFECTS = ("datr-type", "datr-sat")  # operations whose B.DATR may carry a PadValue
CMODE_DEFECTS = ("cmode-reserved",)  # operations whose B.DATR carries a comparison mode


@dataclass(frozen=True)
class Composition:
    """An operation's block as its spec contract composes it, e.g. ``BSTART.VEC TFMA, FP32;
    B.DIM LB0=ValidCol; B.IOT SrcLeft, SrcRight, mask=PE_MASK; B.IOT SrcAddend, mask=PE_MASK,
    <last>, ->DstTile<TSize>; BSTOP``."""

    unit: str  # the BSTART form written (BSTART.VEC, BSTART.SFU)
    bindings: tuple  # per B.IOT, the source roles it names; the last B.IOT ends the stream
    destination: str  # the role of the new tile (DstTile, Predicate)
    gpr_inputs: tuple  # the GPR roles B.IOR reads (ScalarGPR)
    pad: bool  # a B.DATR may carry a PadValue (the operation's B.DATR contract)
    cmode: bool  # a B.DATR may carry a CMode (the same)

    @property
    def sources(self) -> tuple:
        return tuple(role for binding in self.bindings for role in binding)


@lru_cache(maxsize=None)
def composition(operation: str) -> Composition:
    """The composition of ``operation`` read from contract/spec_data (instruction-contracts.json
    example, tile-operations.json B.DATR contract); ValueError when there is none this builder knows."""
    contract = next((c for c in spec_data.load("instruction-contracts")["contracts"]
                     if c["mnemonic"] == operation), None)
    table = next((o for o in spec_data.load("tile-operations")["operations"] if o["name"] == operation), None)
    if contract is None or table is None or len(contract["examples"]) != 1:
        raise ValueError(f"{operation}: the spec catalogs give no single block composition")
    unit, bindings, destination, gprs = None, [], None, ()
    for part in (p.strip() for p in contract["examples"][0].split(";")):
        mnemonic, _, rest = part.partition(" ")
        operands = [o.strip() for o in rest.replace("(optional)", "").split(",") if o.strip()]
        if mnemonic.startswith("BSTART."):
            unit = mnemonic
        elif mnemonic == "B.IOT":
            roles = operands[:next(i for i, o in enumerate(operands) if o.startswith("mask="))]
            target = next((re.fullmatch(r"->(\w+)<TSize>", o) for o in operands if o.startswith("->")), None)
            if destination is not None or (target is not None) != ("<last>" in operands):
                raise ValueError(f"{operation}: the destination B.IOT is not the one that ends the stream")
            destination = target and target.group(1)
            bindings.append(tuple(roles))
        elif mnemonic == "B.IOR":
            gprs = tuple(o for o in operands if o != "zero" and not o.startswith("->"))
    if unit is None or destination is None:
        raise ValueError(f"{operation}: the spec's example block has no BSTART or no destination")
    allowed = table.get("datr_contract", {}).get("allowed_nonzero_fields", ())
    return Composition(unit, tuple(bindings), destination, gprs, "PadValueOrByteId" in allowed, "CMode" in allowed)


@lru_cache(maxsize=None)
def elementwise_operations() -> tuple:
    """The registered elementwise TEPL operations the generic builder draws: the spec catalog's
    tile-tile and tile-scalar TEPL classes, with a type set in the registry entry and no builder
    of their own."""
    table = {o["name"]: o for o in spec_data.load("tile-operations")["operations"]}
    return tuple(name for name, entry in registry.OPERATIONS.items()
                 if name not in HAND_WRITTEN and table.get(name, {}).get("family") == "TEPL"
                 and table[name]["classification"] in ELEMENTWISE_CLASSES
                 and isinstance(getattr(entry, "types", None), frozenset))


def _other_type(draw, name: str, candidates) -> str:
    """A type other than ``name`` from ``candidates``, of the same width where one exists (so
    the tile keeps its element count)."""
    others = [n for n in candidates if n != name]
    same = [n for n in others if dtypes.dtype(n).bits == dtypes.dtype(name).bits]
    return draw(st.sampled_from(same or others))


def _related_grid(draw, name: str, valid, pool: list, encodings_valid: bool) -> list:
    """A grid of ``name`` elements, each new or one of ``pool`` (a first source's elements), so
    binary operations meet equal operands (x - x, max(x, x)) often."""
    values = st.one_of(element_values(name, encodings_valid), st.sampled_from(pool)) if pool \
        else element_values(name, encodings_valid)
    flat = draw(st.lists(values, min_size=valid[0] * valid[1], max_size=valid[0] * valid[1]))
    return [flat[r * valid[1]:(r + 1) * valid[1]] for r in range(valid[0])]


def _predicate_tile(draw, index: int, capacity: int, rows: int, cols: int, valid) -> dict:
    """A packed predicate state tile (storage_kind predicate, U8 RowMajor) with random bits."""
    bits = draw(st.lists(st.integers(0, 1), min_size=valid[0] * valid[1], max_size=valid[0] * valid[1]))
    data = [bits[r * valid[1]:(r + 1) * valid[1]] for r in range(valid[0])]
    return {"storage_kind": "predicate", "rows": rows, **_tile(index, "U8", capacity, cols, valid, data)}


def _changed(valid, rows: int, cols: int) -> tuple:
    """Another valid region inside rows x cols (the element count allows one)."""
    if valid[1] < cols:
        return valid[0], valid[1] + 1
    if valid[1] > 1:
        return valid[0], valid[1] - 1
    return valid[0] % rows + 1, valid[1]


def _elementwise(operation: str, names):
    entry = registry.find(operation)
    shape = composition(operation)
    roles = shape.sources
    if len(roles) != entry.SOURCES or len(shape.gpr_inputs) != entry.GPR_INPUTS:
        raise ValueError(f"{operation}: the spec composes {len(roles)} source(s) and {len(shape.gpr_inputs)} "
                         f"GPR input(s), the model {entry.SOURCES} and {entry.GPR_INPUTS}")
    types = tuple(n for n in names if n in entry.types) or tuple(n for n in dtypes.NAMES if n in entry.types)
    outside = tuple(n for n in names if n not in entry.types)
    fragile = tuple(n for n in types if dtypes.dtype(n).must_be_zero)  # types with invalid encodings
    defects = GENERIC_DEFECTS + (("unsupported-type",) if outside else ()) + (("invalid-encoding",) if fragile else ())
    numeric = [position for position, role in enumerate(roles) if role != PREDICATE]  # numeric sources
    defects += (SOURCE_DEFECTS if numeric else ()) + (PAIR_DEFECTS if len(numeric) > 1 else ())
    defects += (PAD_DEFECTS if shape.pad else ()) + (CMODE_DEFECTS if shape.cmode else ())
    # Tile bytes each tile may take so that the sources, an extra binding's tile and the
    # destination fit the reset tile capacity (a mask of four PEs takes four times TSize).
    room = RESET_CAPACITY // (PE_MASK.count("1") * (len(roles) + 2))

    @st.composite
    def draw_elementwise(draw):
        defect = _defect(draw, defects)
        name = draw(st.sampled_from(fragile if defect == "invalid-encoding" else types))
        if defect == "unsupported-type":
            name = draw(st.sampled_from(outside))
        bits = dtypes.dtype(name).bits
        encodings_valid = defect != "invalid-encoding"
        elements = draw(st.sampled_from([e for e in (1 << k for k in range(13))
                                         if 1024 // bits <= e <= SHAPE_LIMIT and e * bits // 8 <= room]))
        cols = draw(st.sampled_from([c for c in (1 << k for k in range(13)) if c <= elements]))
        rows = elements // cols
        valid = (draw(st.integers(1, min(rows, 4))), draw(st.integers(1, min(cols, 8))))
        capacity = elements * bits // 8
        indices = draw(st.lists(st.sampled_from(TILE_POOL), min_size=len(roles) + 1, max_size=len(roles) + 1,
                                unique=True))
        tiles, pool = [], []
        for position, index in enumerate(indices[:len(roles)]):
            if roles[position] == PREDICATE:  # the predicate of the numeric sources' shape
                tiles.append(_predicate_tile(draw, index, capacity, rows, cols, valid))
                continue
            tile_type, tile_valid, last = name, valid, position == len(roles) - 1
            if last and defect == "type-mismatch":
                tile_type = _other_type(draw, name, types)
            if last and defect == "shape-mismatch":
                tile_valid = _changed(valid, rows, cols)
            data = _related_grid(draw, tile_type, tile_valid, pool if tile_type == name else [], encodings_valid)
            pool = pool or [v for row in data for v in row]
            layout = "ColumnMajor" if defect == "layout" and position == numeric[0] else "RowMajor"
            defined = "none" if defect == "undefined-source" and last else "valid"
            tiles.append(_tile(index, tile_type, elements * dtypes.dtype(tile_type).bits // 8, cols, tile_valid,
                               data, layout=layout, defined=defined))
        size_code = draw(st.integers(1, 10)) if defect == "size-code" else _size_code(capacity)
        body = _datr(draw, shape, name, defect)
        body += _dims(*valid, cols, defect)
        names_of = [_name(i) for i in indices[:len(roles)]]
        if defect == "missing-source":
            names_of[-1] = None
        if defect == "extra-binding":
            extra = indices[len(roles)]
            tiles.append(_tile(extra, name, capacity, cols, valid, grids(draw, name, *valid)))
            body.append(f"B.IOT {_name(extra)}, mask={PE_MASK}")
        position = 0
        for number, binding in enumerate(shape.bindings):
            operands = [n for n in names_of[position:position + len(binding)] if n is not None]
            position += len(binding)
            if number < len(shape.bindings) - 1:
                body += [f"B.IOT {', '.join(operands)}, mask={PE_MASK}"] if operands else []
                continue
            ending = ("" if defect == "no-last" else ", <last>") + f", ->T<{size_code}>"
            body.append(f"B.IOT {', '.join(operands + [f'mask={PE_MASK}'])}{ending}")
        gprs = {}
        inputs = len(shape.gpr_inputs) + (defect == "surplus-ior")
        if inputs and (defect == "surplus-ior" or draw(st.sampled_from((True, True, True, False)))):
            selectors = draw(st.lists(st.sampled_from(GPR_POOL), min_size=inputs, max_size=inputs, unique=True))
            scalars = st.one_of(gpr_values(name, encodings_valid), st.sampled_from(pool)) if pool \
                else gpr_values(name, encodings_valid)  # a scalar equal to an element now and then
            gprs = {r: draw(scalars) for r in selectors}
            body.append("B.IOR " + ", ".join(f"R{r}" for r in selectors))
        bstart = _other_type(draw, name, names) if defect == "bstart-type" else name
        return Scenario(operation, _common_state(draw, tiles, defect, gprs),
                        _bundle(f"{shape.unit} {operation}, {bstart}", body, defect), defect)

    return draw_elementwise()


def _datr(draw, shape: Composition, name: str, defect: str) -> list:
    """The B.DATR lines: a CMode where the operation compares (EQ when omitted); a PadValue where the
    B.DATR's DataType (0, FP64, unless given) does not retype the destination, i.e. an FP64 type or a
    predicate destination (choice 2 of the index in vectors/); with a defect, a field the operation
    must not set."""
    fields = []
    if shape.cmode and (defect == "cmode-reserved" or draw(st.sampled_from((True, True, True, False)))):
        fields.append(f"CMode={draw(st.sampled_from((6, 7)))}" if defect == "cmode-reserved"
                      else f"CMode={draw(st.sampled_from(CMODE_NAMES))}")
    if shape.pad and (defect in PAD_DEFECTS + ("duplicate-datr",) or (
            (name == "FP64" or shape.destination == PREDICATE) and draw(st.booleans()))):
        fields.append(f"PadValue={draw(st.sampled_from(PADS))}")
    fields += {"datr-type": [f"DataType={name}"], "datr-sat": ["Sat=1"]}.get(defect, [])
    if not fields:
        return []
    return [f"B.DATR {', '.join(fields)}"] * (2 if defect == "duplicate-datr" else 1)


HAND_WRITTEN = {"TCVT": _tcvt, "TQUANT": _tquant, "TMULS": _tmuls, "TGEMV_MX_ACC": _tgemv}


# ---------------------------------------------------------------------------
# every other operation: shipped cases as seeds

SEED_DEFECTS = ("line-dropped", "line-doubled", "lines-swapped")  # one program line removed, repeated or moved
SEED_POSITIONS = 4  # elements of one tile redrawn per example (at most)


def seeded_operations() -> tuple:
    """The registered operations with no builder of their own: the seeded builder draws them."""
    return tuple(sorted(set(registry.OPERATIONS) - set(HAND_WRITTEN) - set(elementwise_operations())))


def shipped_seeds(operation: str) -> tuple:
    """The shipped cases of ``operation`` whose program is assembly text, as (state, program text)."""
    return _all_seeds().get(operation, ())


@lru_cache(maxsize=1)
def _all_seeds() -> dict:
    """Operation -> its seeds, from one reading of the shipped vectors."""
    from ...contract.loader import VECTORS_DIR, VectorError, load_paths

    seeds: dict = {}
    for loaded in load_paths([VECTORS_DIR]):
        for case in loaded.entries:
            if not isinstance(case, VectorError) and all(isinstance(item, str) for item in case.program):
                program = "".join(item if item.endswith("\n") else item + "\n" for item in case.program)
                seeds.setdefault(case.operation, []).append((case.state, program))
    return {operation: tuple(found) for operation, found in seeds.items()}


def _seeded(operation: str, names):
    """A shipped case of ``operation`` with some elements of its numeric tiles, its status and its
    GPRs redrawn; one draw in DEFECT_WEIGHT + 1 also drops, repeats or moves one program line. The
    seeds' shapes and types are the vectors' own, so most draws stay legal; the redrawn values
    reach the numeric and index paths the vectors left at their chosen values."""
    seeds = [seed for seed in shipped_seeds(operation)
             if all(tile.get("dtype") in names for tile in seed[0].get("tiles", []) if "dtype" in tile)] \
        or list(shipped_seeds(operation))
    if not seeds:
        raise ValueError(f"{operation}: no shipped case with a text program to seed the campaign from")

    @st.composite
    def draw_seeded(draw):
        state, program = draw(st.sampled_from(seeds))
        state = copy.deepcopy(state)
        for tile in state.get("tiles", []):
            data = tile.get("data")
            if not data or tile.get("storage_kind") == "predicate" or not data[0]:
                continue
            for _ in range(draw(st.integers(0, SEED_POSITIONS))):
                row = draw(st.integers(0, len(data) - 1))
                col = draw(st.integers(0, len(data[row]) - 1))
                data[row][col] = draw(element_values(tile["dtype"]))
        state["status"] = draw(st.sampled_from((state.get("status", 0),) * 3 + (0x01, 0x10, 0x1F)))
        for register in list(state.get("gprs", {})):
            if draw(st.booleans()):
                state["gprs"][register] = draw(st.one_of(st.sampled_from((0, 1, (1 << 64) - 1)),
                                                         st.integers(0, (1 << 64) - 1)))
        defect = _defect(draw, SEED_DEFECTS)
        lines = [line for line in program.splitlines() if line.strip()]
        if defect != "none" and len(lines) > 1:
            at = draw(st.integers(0, len(lines) - 2))
            if defect == "line-dropped":
                del lines[at]
            elif defect == "line-doubled":
                lines.insert(at, lines[at])
            else:
                lines[at], lines[at + 1] = lines[at + 1], lines[at]
        return Scenario(operation, state, "\n".join(lines), defect)

    return draw_seeded()


OPERATIONS = tuple(HAND_WRITTEN) + elementwise_operations() + seeded_operations()
