"""Strength vectors (issue 30): cases that isolate what an implementation of the elementwise
and compare/select operations can get wrong on its own, one file per operation,
``PTO-AVS-X-<OP>-STRENGTH-001.yaml``:

- ``status-*``: a nonzero NumericStatus before the block must survive it (NumericStatus is
  the sticky OR); each comes with its twin, the same program and tiles from status 0, so the
  status bits the case starts with are never ones the block raises itself;
- ``blocks-*``: two blocks whose flags must accumulate (the first raises flags, the last
  raises none), with the twin that runs the last block alone on the same state;
- ``scalar-*``: every class of the scalar operand at its element type (quiet NaN, quiet
  NaN with a payload, signalling NaN, both infinities, both zeros, a subnormal, the largest
  finite value, bits above the element width; integer zero, extremes, upper bits);
- ``carrier-*``: pto-v0 whole carrier Words of the valid region and of the padding, with
  elements whose top bit is set (a sign-extending or garbage-leaving device differs);
- ``size-*``: tiles at the model's size bounds (64 KiB numeric tiles; 16,384-element
  predicate tiles for TCMP/TCMPS/TSEL/TSELS) whose logical elements 0 and 4,096 differ.

Expected values come from the independent element references (``elementwise.py``,
``arith_elements.py``, ``compare_elements.py``); nothing here imports ``device_model``.

    .venv/bin/python -m pto_avs.vectors.reference generate|check
"""
from __future__ import annotations

import itertools

from . import arith_elements as arith
from . import compare_elements as cmp
from . import elementwise as ew
from . import engine
from . import generate_compare as compare_gen
from .engine import Flow, FlowMap, Hex

GENERATOR = "strength.py"
COMMAND = ".venv/bin/python -m pto_avs.vectors.reference generate"
REFERENCE = COMMAND + " (vectors/reference/strength.py; elements: {})"
BOTH = ["pto-v0", "hw-ieee"]
GPR = 5
ALL_FLAGS = 0x1F
NX = 0x10

# ---------------------------------------------------------------------------------------
# The operations and their element references

ELEMENTWISE = tuple(ew.OPERATIONS)
ARITHMETIC = tuple(arith.OPERATIONS)
COMPARE = cmp.OPERATIONS
# TMULS is TMUL's element (TileProfileBinaryWithFlags MUL) with a scalar right operand, and
# records its flags in both profiles like every tile-scalar operation.
TILE_SCALAR_MULTIPLY = "TMULS"
OPERATIONS = ELEMENTWISE + ARITHMETIC + COMPARE + (TILE_SCALAR_MULTIPLY,)


def kind(op: str) -> str:
    """binary, unary, fma, scalar, fill, compare, compare-scalar, select, select-scalar."""
    if op in ew.OPERATIONS:
        return ew.OPERATIONS[op][1]
    if op in arith.OPERATIONS:
        return arith.OPERATIONS[op][1]
    if op == TILE_SCALAR_MULTIPLY:
        return "scalar"
    return {"TCMP": "compare", "TCMPS": "compare-scalar", "TSEL": "select", "TSELS": "select-scalar"}[op]


def has_scalar(op: str) -> bool:
    return kind(op) in ("scalar", "fill", "compare-scalar", "select-scalar")


def numeric_sources(op: str) -> int:
    return {"binary": 2, "unary": 1, "fma": 3, "scalar": 1, "fill": 0, "compare": 2, "compare-scalar": 1,
            "select": 2, "select-scalar": 1}[kind(op)]


def legal_types(op: str) -> tuple:
    if op in ew.LEGAL_TYPES:
        return ew.LEGAL_TYPES[op]
    if op in arith.LEGAL_TYPES:
        return arith.LEGAL_TYPES[op]
    if op == TILE_SCALAR_MULTIPLY:
        return arith.FLOAT_TYPES + arith.INTEGER_TYPES
    return cmp.LEGAL_TYPES


def element_reference(op: str) -> str:
    return ("vectors/reference/elementwise.py" if op in ew.OPERATIONS else "vectors/reference/arith_elements.py"
            if op in arith.OPERATIONS or op == TILE_SCALAR_MULTIPLY else "vectors/reference/compare_elements.py")


def evaluate(op: str, t: str, profile: str, operands: tuple, mask_bit: int = 1):
    """(result Word or predicate bit, the NumericStatus bits the block records) of one element.
    ``operands``: the numeric source Words in operand order, then the raw scalar."""
    k = kind(op)
    if op in ew.OPERATIONS:
        word, flags = ew.evaluate(op, t, *operands)
        # Tile-tile TMAX/TMIN record no status under pto-v0 (SPEC-CHOICES row 22).
        return word, 0 if k == "binary" and profile == "pto-v0" else flags
    if op in arith.OPERATIONS:
        word, flags = arith.evaluate(op, t, profile, *operands)
        return word, arith.recorded_status(op, profile, flags)
    if op == TILE_SCALAR_MULTIPLY:  # TileRawElementValue of the scalar, then TMUL's element
        return arith.element_op("MUL", t, profile, operands[0], arith.element(operands[1], t))
    if k == "compare":
        return cmp.compare("EQ", t, operands[0], operands[1], profile)
    if k == "compare-scalar":
        return cmp.compare("EQ", t, operands[0], cmp.scalar_operand(operands[1], t), profile)
    if k == "select":
        return cmp.select(mask_bit, operands[0], operands[1]), 0
    return cmp.select(mask_bit, operands[0], cmp.scalar_operand(operands[1], t)), 0


def faults(op: str, t: str, operands: tuple) -> bool:
    """An integer zero divisor (TDIV, TREM, TDIVS, TREMS) faults."""
    return op in arith.OPERATIONS and len(operands) > 1 and arith.zero_divisor(op, t, operands[-1] if kind(op) == "scalar"
                                                                             else operands[1])


# ---------------------------------------------------------------------------------------
# Operand pools

FLOAT_POOL = {  # FP32 values: ordinary, then every special class
    "one": 0x3F800000, "two": 0x40000000, "half": 0x3F000000, "three": 0x40400000, "minus-one-half": 0xBFC00000,
    "third": 0x3EAAAAAB, "pos-zero": 0x00000000, "neg-zero": 0x80000000, "pos-inf": 0x7F800000,
    "neg-inf": 0xFF800000, "qnan": 0x7FC00000, "snan": 0x7F800001, "subnormal": 0x00000001,
    "max-finite": 0x7F7FFFFF,
}
INTEGER_POOL = (1, 2, 3, 7, 0x100, 0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000)  # U32 element bits

# The scalar of every class, at FP32 and at S32 (TileRawElementValue keeps the low bits).
FLOAT_SCALARS = {
    "qnan": 0x7FC00000, "qnan-payload": 0xFFC01234, "snan": 0x7F800123, "pos-inf": 0x7F800000,
    "neg-inf": 0xFF800000, "pos-zero": 0x00000000, "neg-zero": 0x80000000, "subnormal": 0x00000005,
    "max-finite": 0x7F7FFFFF, "upper-bits": 0xDEADBEEF3FC00000,
}
INTEGER_SCALARS = {"zero": 0, "max": 0x7FFFFFFF, "min": 0x80000000, "upper-bits": 0xFFFFFFFF00000007}
FLOAT_TILE = (0x3F800000, 0xC0000000, 0x3EAAAAAB, 0x00000000)  # 1, -2, 1/3, +0
INTEGER_TILE = (1, 2, 3, 0x100)


def type_of(op: str) -> str:
    """The element type of the status and block cases: FP32 where legal, else U32."""
    return "FP32" if "FP32" in legal_types(op) else "U32"


def pool(t: str) -> list:
    return list(FLOAT_POOL.values()) if t == "FP32" else list(INTEGER_POOL)


def outcomes(op: str, t: str, operands: tuple) -> dict:
    """{profile: (result, flags)} of one element tuple."""
    return {p: evaluate(op, t, p, operands) for p in BOTH}


def element_tuples(op: str, t: str) -> list:
    """Every element operand tuple of the pool (the scalar last, the same for a whole tile)."""
    arity = numeric_sources(op) + has_scalar(op)
    return [ops for ops in itertools.product(pool(t), repeat=arity) if not faults(op, t, ops)]


def flag_free_row(op: str, t: str, scalar=None, size: int = 4) -> list:
    """``size`` distinct element tuples that raise no flag in either profile (with ``scalar``)."""
    out = []
    for ops in element_tuples(op, t):
        if scalar is not None and ops[-1] != scalar:
            continue
        if all(f == 0 for _, f in outcomes(op, t, ops).values()):
            out.append(ops)
            if has_scalar(op):
                scalar = ops[-1]  # one scalar for the whole tile
        if len(out) == size:
            return out
    return out


def flag_tuple(op: str, t: str, both: bool):
    """The first element tuple whose flags are nonzero in both profiles (``both``) or in one."""
    for ops in element_tuples(op, t):
        flags = [f for _, f in outcomes(op, t, ops).values()]
        if (all(flags) if both else any(flags)):
            return ops
    return None


def flag_raising_row(op: str, t: str, both: bool):
    """A row of 4 tuples: one that raises flags, then others with the same scalar (flag-free
    ones first)."""
    first = flag_tuple(op, t, both)
    if first is None:
        return None
    same = [ops for ops in element_tuples(op, t) if ops != first and (not has_scalar(op) or ops[-1] == first[-1])]
    same.sort(key=lambda ops: any(f for _, f in outcomes(op, t, ops).values()))
    return [first] + same[:3]


# ---------------------------------------------------------------------------------------
# Blocks: tiles, program text and expectations


class Block:
    """One block (or direct call) of ``op`` at element type ``t`` over rows of element tuples,
    its source tiles at ``first`` on, its scalar (if any) in GPR ``gpr``. A block may also be
    given whole tiles (``fills``: one (fill, {logical index: value}) per tile)."""

    def __init__(self, op, t, rows=None, *, first=0, gpr=GPR, mask_bits=None, fills=None, shape=None,
                 pe_mask="1111"):
        self.op, self.t, self.first, self.gpr, self.pe_mask = op, t, first, gpr, pe_mask
        self.rows = rows  # rows of operand tuples (the scalar last)
        self.fills = fills
        if rows is not None:
            self.valid = (len(rows), len(rows[0]))
            self.mask_bits = mask_bits or [[1 if (r + c) % 2 == 0 else 0 for c in range(self.valid[1])]
                                           for r in range(self.valid[0])]
        else:
            self.valid = shape
            self.mask_bits = mask_bits
        self.cols, self.capacity, self.tile_rows = engine.smallest_tile(t, self.valid)

    def reshape(self, cols: int, capacity: int) -> None:
        """Place the valid region in tiles of ``cols`` columns and ``capacity`` bytes."""
        self.cols, self.capacity = cols, capacity
        self.tile_rows = engine.rows_of(capacity, cols, self.t)

    # --- operands ------------------------------------------------------------------
    @property
    def predicate_source(self) -> bool:
        return kind(self.op).startswith("select")

    def scalar(self):
        if not has_scalar(self.op):
            return None
        return self.rows[0][0][-1] if self.rows is not None else self.fills[-1][0]

    def indices(self) -> list:
        n = numeric_sources(self.op) + self.predicate_source
        return list(range(self.first, self.first + n))

    def source_rows(self, i: int) -> list:
        return [[ops[i] for ops in row] for row in self.rows]

    def state_tiles(self) -> list:
        tiles, index = [], self.first
        if self.predicate_source:
            tiles.append(self._predicate_tile(index))
            index += 1
        for i in range(numeric_sources(self.op)):
            tiles.append(self._numeric_tile(index, i))
            index += 1
        if self.pe_mask != "1111":
            for tile in tiles:
                tile["mask"] = self.pe_mask
        return tiles

    def _predicate_tile(self, index) -> dict:
        """The mask: a predicate tile of the data tiles' geometry (rows x cols)."""
        if self.fills is None:
            return compare_gen.predicate_tile(index, self.tile_rows, self.cols, self.valid, self.mask_bits)
        out = compare_gen.predicate_tile(index, self.tile_rows, self.cols, self.valid)
        fill, elements = self.mask_bits
        out["fill"] = fill
        out["elements"] = {self._coordinate(i): v for i, v in elements.items()}
        return out

    def _numeric_tile(self, index, i) -> dict:
        if self.fills is None:
            return engine.tile(index, self.t, self.capacity, self.cols, self.valid, self.source_rows(i))
        fill, elements = self.fills[i]
        out = engine.tile(index, self.t, self.capacity, self.cols, self.valid)
        out["fill"] = Hex(fill)
        if elements:
            out["elements"] = {self._coordinate(k): Hex(v) for k, v in elements.items()}
        return out

    def _coordinate(self, logical: int) -> str:
        return f"{logical // self.valid[1]},{logical % self.valid[1]}"

    # --- program -------------------------------------------------------------------
    def destination_size(self) -> int:
        if kind(self.op).startswith("compare"):
            return compare_gen.predicate_capacity(self.tile_rows, self.cols)
        return self.capacity

    def text(self) -> str:
        size = engine.size_code(self.destination_size())
        operands = self.indices()
        if len(operands) == 3:  # TSEL, TFMA: at most two sources a B.IOT
            bindings = [engine.iot_line(operands[:2], mask=self.pe_mask, last=False),
                        engine.iot_line(operands[2:], size, self.pe_mask)]
        else:
            bindings = [engine.iot_line(operands, size, self.pe_mask)]
        unit = engine.OPERATION_TABLE[self.op]["engine"]
        return engine.bundle_text(f"BSTART.{unit} {self.op}, {self.t}", dims=engine.dims_of(self.valid, self.cols),
                                  bindings=bindings, gpr=self.gpr if has_scalar(self.op) else None)

    # --- expectations ----------------------------------------------------------------
    def results(self, profile: str):
        """(rows of result Words or bits, recorded flags)."""
        out, flags = [], 0
        for r, row in enumerate(self.rows):
            line = []
            for c, ops in enumerate(row):
                value, f = evaluate(self.op, self.t, profile, ops, self.mask_bits[r][c])
                line.append(value)
                flags |= f
            out.append(line)
        return out, flags

    def expected_tile(self, index: int, profile: str, carrier: bool, pad=None) -> tuple[dict, int]:
        words, flags = self.results(profile)
        if kind(self.op).startswith("compare"):
            return compare_gen.predicate_result(index, self.tile_rows, self.cols, self.valid,
                                                self.destination_size(), words, pad), flags
        tile = engine.result_tile(index, self.t, self.capacity, self.cols, self.valid, words, pad, carrier=carrier,
                                  element=lambda w: w & engine.element_mask(self.t))
        return tile, flags


def by_profile(build, profiles=BOTH) -> list:
    """Cases from ``build(profile) -> (key, expect)``: one case for the profiles that agree."""
    groups = {}
    for profile in profiles:
        key, expect = build(profile)
        groups.setdefault(key, (expect, []))[1].append(profile)
    return list(groups.values())


def make_cases(name, description, op, state, program, build, profiles=BOTH) -> list:
    out = []
    groups = by_profile(build, profiles)
    for expect, profiles in groups:
        suffix = "" if len(groups) == 1 else f"-{profiles[0]}"
        if op in ("TEXP", "TLOG") and profiles == ["hw-ieee"] and int(expect["flags"]) & NX:
            expect["ulp_tolerance"] = 1  # correctly rounded here; a device may round faithfully (SPEC-CHOICES row 20)
        out.append(engine.case(name + suffix, description, profiles, "reference-generator",
                               REFERENCE.format(element_reference(op)), state, program, expect))
    return out


def single_block_cases(name, description, block: Block, status: int = 0) -> list:
    """One block from ``status``: the destination lands at the first free index."""
    tiles = block.state_tiles()
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    scalar = block.scalar()
    if scalar is not None:
        state["gprs"] = engine.gpr_map({block.gpr: scalar})
    indices = [t["index"] for t in tiles]
    target = engine.first_free(indices)

    def build(profile):
        tile, flags = block.expected_tile(target, profile, carrier=False)
        expect = engine.success_expect(flags | status, sorted(indices + [target]), indices, [tile])
        return repr(expect), expect
    return make_cases(name, description, block.op, state, block.text(), build)


# ---------------------------------------------------------------------------------------
# The condition classes


def status_cases(op: str) -> list:
    """The status survives a flag-free block and a flag-raising one; each with its twin."""
    t = type_of(op)
    out = []
    rows = {"flag-free": [flag_free_row(op, t)]} if flag_free_row(op, t) else {}
    raising = flag_raising_row(op, t, both=False)
    if raising:
        rows["flags"] = [raising]
    for label, row in rows.items():
        block = Block(op, t, row)
        raised = 0
        for profile in BOTH:
            raised |= block.results(profile)[1]
        status = ALL_FLAGS & ~raised
        out += single_block_cases(f"{label}-from-status-0", f"""{t}: the block from NumericStatus 0 (the twin of
            {label}-status-survives): the flags are the block's own.""", block)
        out += single_block_cases(f"{label}-status-survives", f"""{t}: the block starts from NumericStatus
            {status:#04x}, bits the block never raises itself (see {label}-from-status-0); NumericStatus is the sticky
            OR, so they must survive it.""", block, status)
    return out


# The first block of a two-block program when the operation raises no flag in both
# profiles: TCMPS FP32 against a signalling NaN records NV in both.
SEED_OPERATION = "TCMPS"


def blocks_cases(op: str) -> list:
    """Two blocks whose flags must accumulate: the first raises flags (the operation itself
    when it can in both profiles, else TCMPS against a signalling NaN), the last raises
    none; the twin runs the last block alone on the same state."""
    t = type_of(op)
    raising = flag_raising_row(op, t, both=True)
    first = Block(op, t, [raising]) if raising else \
        Block(SEED_OPERATION, "FP32", [flag_raising_row(SEED_OPERATION, "FP32", both=True)])
    last_rows = [flag_free_row(op, t)]
    last = Block(op, t, last_rows, first=len(first.indices()), gpr=6)
    tiles = first.state_tiles() + last.state_tiles()
    indices = [x["index"] for x in tiles]
    state = {"tiles": tiles}
    gprs = {b.gpr: b.scalar() for b in (first, last) if b.scalar() is not None}
    if gprs:
        state["gprs"] = engine.gpr_map(gprs)
    a_index = engine.first_free(indices)
    b_index = engine.first_free(indices + [a_index])
    description = f"""Two blocks: {first.op} {first.t} raises flags, then {op} {t} raises none; NumericStatus
        after the program is the OR of both (a last block that writes its own flags loses the first's). The
        twin {op.lower()}-last-block-alone runs the last block alone on the same state."""

    def build(profile):
        a_tile, a_flags = first.expected_tile(a_index, profile, carrier=False)
        b_tile, b_flags = last.expected_tile(b_index, profile, carrier=False)
        expect = engine.success_expect(a_flags | b_flags, sorted(indices + [a_index, b_index]), indices,
                                       [a_tile, b_tile])
        return repr(expect), expect
    out = make_cases("blocks-accumulate", description, op, state, first.text() + "\n" + last.text(), build)

    def build_alone(profile):
        tile, flags = last.expected_tile(a_index, profile, carrier=False)
        expect = engine.success_expect(flags, sorted(indices + [a_index]), indices, [tile])
        return repr(expect), expect
    out += make_cases("last-block-alone", f"""The last block of blocks-accumulate alone on the same state: {op}
        {t} raises no flag (the twin that shows the accumulated flags come from the first block).""", op, state,
                      last.text(), build_alone)
    return out


def scalar_cases(op: str) -> list:
    """Every class of the scalar operand, at FP32 and S32 where the operation takes them."""
    if not has_scalar(op):
        return []
    out = []
    for t, scalars, values in (("FP32", FLOAT_SCALARS, FLOAT_TILE), ("S32", INTEGER_SCALARS, INTEGER_TILE)):
        if t not in legal_types(op):
            continue
        for label, scalar in scalars.items():
            row = [tuple([v] * numeric_sources(op)) + (scalar,) for v in values]
            if any(faults(op, t, ops) for ops in row):
                continue
            block = Block(op, t, [row])
            out += single_block_cases(f"scalar-{t.lower()}-{label}", f"""{t}: the scalar is {label}
                ({scalar:#x}); the tile holds ordinary values.""", block)
    return out


CARRIER_VALUES = {  # narrow types whose results have their top element bit set
    "FP16": (0xBC00, 0xC000, 0x3C00, 0x8000),  # -1, -2, 1, -0
    "S16": (0x8001, 0xFFFE, 0x0003, 0x8000),
    "U16": (0x8001, 0xFFFE, 0x0003, 0x8000),
}


def carrier_cases(op: str) -> list:
    """pto-v0: the whole carrier Words of the valid region (elements with their top bit set)
    and of the padding (a direct call padding with Max), from a narrow type."""
    if kind(op).startswith("compare"):
        return []  # a packed predicate destination has no carrier Words
    for t in (x for x in ("FP16", "S16", "U16") if x in legal_types(op)):
        values = CARRIER_VALUES[t]
        scalar = values[0] if has_scalar(op) else None
        n = numeric_sources(op)
        row = [tuple(values[(i + j) % 4] for j in range(n)) + ((scalar,) if scalar is not None else ())
               for i in range(4)]
        row = ([ops for ops in row if not faults(op, t, ops)] * 4)[:4]
        block = Block(op, t, [row])
        words, _ = block.results("pto-v0")
        if any(w >> (engine.width(t) - 1) & 1 for w in words[0]):
            break  # a result whose top element bit is set (TRELU zeroes the negative FP16 and S16 ones)
    block.reshape(8, 128)
    tiles = block.state_tiles()
    indices = [x["index"] for x in tiles]
    target = len(indices)
    tiles.append(engine.tile(target, t, 128, 8, block.valid, defined="none"))
    program = engine.direct_call(op, target, indices, scalar=scalar, pad="Max")
    words, _ = block.results("pto-v0")
    flags = block.results("pto-v0")[1]
    result = engine.result_tile(target, t, 128, 8, block.valid, words, "Max", carrier=True)
    expect = engine.success_expect(flags, sorted(indices + [target]), indices, [result])
    return [engine.case(f"carrier-{t.lower()}-words-and-pad-word", f"""pto-v0, a direct call with PadValue Max:
        {t} results whose top element bit is set, compared as whole carrier Words (the ASL writes the element
        bits zero-extended, or what the operation defines), and the whole Max pad Word of every padded
        coordinate.""", ["pto-v0"], "reference-generator", REFERENCE.format(element_reference(op)),
                        {"tiles": tiles}, program, expect)]


BOUND_SHAPE = (128, 128)  # FP32: 64 KiB, the largest local allocation; 16,384 predicate bits
WRAP = 4096  # logical index whose value must differ from index 0's
# One PE: a 64 KiB tile allocated on all four PEs would take the whole 256 KiB core capacity.
BOUND_PE_MASK = "0001"


def size_cases(op: str) -> list:
    """Tiles at the size bounds: FP32 (or U32) 128 x 128 sources and destination (64 KiB),
    and for TCMP/TCMPS/TSEL/TSELS 16,384-element predicate tiles; logical element 4,096 holds
    another value than the rest."""
    t = type_of(op)
    base = flag_free_row(op, t, None, 64)
    pairs = [(a, b) for a in base for b in base
             if (not has_scalar(op) or a[-1] == b[-1]) and outcomes(op, t, a) != outcomes(op, t, b)
             and a[:numeric_sources(op)] != b[:numeric_sources(op)]]
    if kind(op).startswith("select"):
        pairs = [(a, b) for a in base for b in base if a == b and a[0] != a[1 if kind(op) == "select" else -1]]
    if not pairs and kind(op) == "fill" and base:
        pairs = [(base[0], base[0])]  # a broadcast writes one value: the bound alone
    if not pairs:
        return []
    usual, odd = pairs[0]
    n = numeric_sources(op)
    fills = [(usual[i], {WRAP: odd[i]} if odd[i] != usual[i] else {}) for i in range(n)]
    if has_scalar(op):
        fills.append((usual[-1], {}))
    mask = (1, {WRAP: 0}) if kind(op).startswith("select") else None
    block = Block(op, t, fills=fills, shape=BOUND_SHAPE, mask_bits=mask, pe_mask=BOUND_PE_MASK)
    tiles = block.state_tiles()
    state = {"tiles": tiles}
    if has_scalar(op):
        state["gprs"] = engine.gpr_map({block.gpr: usual[-1]})
    indices = [x["index"] for x in tiles]
    target = engine.first_free(indices)
    rows, cols = BOUND_SHAPE

    def build(profile):
        if kind(op).startswith("select"):
            value, _ = evaluate(op, t, profile, usual, 1)
            other, _ = evaluate(op, t, profile, usual, 0)
            flags = 0
        else:
            value, f1 = evaluate(op, t, profile, usual)
            other, f2 = evaluate(op, t, profile, odd)
            flags = f1 | f2
        coordinate = f"{WRAP // cols},{WRAP % cols}"
        if kind(op).startswith("compare"):
            tile = {"index": target, "storage_kind": "predicate", "dtype": "U8", "rows": rows, "cols": cols,
                    "valid": Flow(BOUND_SHAPE), "capacity": block.destination_size(), "mask": BOUND_PE_MASK, "fill": value,
                    "elements": {coordinate: FlowMap(value=other)}}
        else:
            mask = engine.element_mask(t)
            tile = {"index": target, "dtype": t, "rows": engine.rows_of(block.capacity, cols, t), "cols": cols,
                    "valid": Flow(BOUND_SHAPE), "capacity": block.capacity, "mask": BOUND_PE_MASK,
                    "fill": Hex(value & mask),
                    "elements": {coordinate: FlowMap(value=Hex(other & mask))}}
        expect = engine.success_expect(flags, sorted(indices + [target]), indices, [tile])
        return repr(expect), expect
    what = "a 16,384-element predicate tile and " if op in COMPARE else ""
    # The spec device takes about 200 s for one case of 16,384-element tiles: the predicate
    # bound runs under both profiles, the numeric bound of the other operations under hw-ieee.
    profiles = BOTH if op in COMPARE else ["hw-ieee"]
    return make_cases(f"size-bound-{t.lower()}", f"""{what}64 KiB {t} tiles of 128 x 128 elements (the largest
        local allocation): every element holds one value and logical element {WRAP} another, so an element index
        that wraps at {WRAP} shows.""", op, state, block.text(), build, profiles)


def zero_divisor_cases(op: str) -> list:
    """TDIVS/TREMS: the integer zero scalar is observable only as its fault (operand legality
    after allocation, TilePayloadNonzero: Fault_TileLegality, the destination rolled back)."""
    if op not in ("TDIVS", "TREMS"):
        return []
    block = Block(op, "S32", [[(v, 0) for v in INTEGER_TILE]])
    tiles = block.state_tiles()
    return [engine.fault_case("scalar-s32-zero-faults", """S32 scalar 0 (B.IOR R5 = 0): an integer zero
        divisor fails operand legality, Fault_TileLegality, nothing published.""", tiles, block.text(),
                              source="hand", reference="asl/tile/model/legality/operand-schema.asl "
                              "(TileOperandsLegal_ExecuteTileScalar: TilePayloadNonzero of the divisor)",
                              gprs={GPR: 0})]


def datr_pad_only_cases(op: str) -> list:
    """A B.DATR that gives only a PadValue still encodes DataType 0, FP64, which becomes the
    destination type: a block whose source is not FP64 allocates an FP64 destination, fails
    the source/destination type match and is rolled back (SPEC-CHOICE 34)."""
    if kind(op) in ("fill", "compare", "compare-scalar"):
        return []  # no numeric source of the block type to mismatch (TEXPANDS), or a predicate destination
    t = type_of(op)
    rows = [flag_free_row(op, t)]
    block = Block(op, t, rows)
    tiles = block.state_tiles()
    program = block.text().replace("\nB.DIM", "\nB.DATR Max\nB.DIM", 1)
    scalar = block.scalar()
    return [engine.fault_case(f"datr-pad-only-{t.lower()}-faults", f"""B.DATR Max alone in a {t} block: the
        B.DATR's DataType field is 0, FP64, the effective destination type; the FP64 destination does not match
        the {t} source, Fault_TileLegality, rolled back (SPEC-CHOICE 34: a padding value works only on FP64
        blocks).""", tiles, program, source="hand", reference="asl/block/model/dispatch/destination-shape.asl "
        "(ResolveBundleEffectiveDataType: a present B.DATR always gives DataType); "
        "asl/tile/model/legality/operand-schema.asl (TileShapeAndTypeMatch)", gprs={GPR: scalar} if scalar is not None else None)]


def strength_file(op: str) -> dict:
    cases = status_cases(op) + blocks_cases(op) + scalar_cases(op) + zero_divisor_cases(op) + carrier_cases(op) \
        + size_cases(op) + datr_pad_only_cases(op)
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-STRENGTH-001", "operation": op,
            "kind": "execution", "exercises": Flow(engine.UNITS[op]["readiness_subjects"]),
            **engine.also_exercises(op, cases),
            "provenance": (f"Cases that each isolate one condition a device can get wrong on its own (issue 30: "
                           f"sticky NumericStatus from a nonzero start and across blocks, every scalar class, "
                           f"whole carrier Words, tiles at the size bounds). Every expected value comes from "
                           f"the independent element reference {element_reference(op)}, which shares no code "
                           f"with device_model, through `{COMMAND}` (vectors/reference/strength.py). Nothing "
                           f"here was produced by running the golden model."),
            "cases": cases}


def files(operations) -> dict:
    return {f"PTO-AVS-X-{op}-STRENGTH-001.yaml": engine.render_spec_id(strength_file(op), GENERATOR)
            for op in operations}


# The files of its own operations only: other families (generate_rearrange) write their own
# PTO-AVS-X-<OP>-STRENGTH-001 files.
FAMILY = engine.Family("strength", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-X-{op}-STRENGTH-001.yaml" for op in OPERATIONS))
