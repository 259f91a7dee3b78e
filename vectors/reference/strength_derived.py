"""Strength vectors (issue 30) of the operations whose cases come from their own families'
builders: the row and column reductions, the broadcasts and partial operations, TCVT, TQUANT,
the memory operations TLOAD, TSTORE and TPREFETCH, the indexed ones (MGATHER, MGATHER_MASK,
MGATHER_CAS, MSCATTER, MSCATTER_MASK), the moves TMOV and GMOV, and TIMG2COL. One file per
operation, ``PTO-AVS-X-<OP>-STRENGTH-001.yaml`` (``_`` written ``-``):

- ``status-*``: the family's own case from NumericStatus 0 (the twin) and the same case from
  a nonzero NumericStatus made of bits the case never raises itself; NumericStatus is the
  sticky OR, so those bits must survive (expected flags: the twin's OR the status);
- ``blocks-*``: a first block that raises NV in both profiles (TCMPS FP32 against a
  signalling NaN, from ``compare_elements.py``) and then the family's flag-free case as the
  last block, with the twin that runs that last block alone on the same state; the expected
  flags of the program are the OR of both blocks';
- ``size-*``: the family's case over tiles at the model's bound (64 KiB, 128 x 128 FP32 on
  one PE) whose logical elements 0 and 4,096 differ (the reductions: and so do the results
  that read them), so an element index that wraps at 4,096 shows; for the memory
  operations, a memory of the largest size (65,536 bytes) accessed at its top; for the indexed
  operations 16,384 lanes (every lane but lane 4,096 at the base, lane 4,096 four bytes above:
  the lanes that share an address store, or compare and store, one value, so the ARBITRARY
  lane order the spec leaves open has one outcome) and a lane just past the top of a
  65,536-byte memory, which faults;
- ``carrier-pad-*`` (pto-v0): TMOV and GMOV move a padding Word with bits above the element
  width whole; a CUBE TLOAD pads with the Max Word (the regular TLOAD takes no PadValue).

A TIMG2COL block always faults (SPEC-CHOICE 79), so its cases are direct calls, and its
two-block program is a TCMPS block followed by the call.

Every expected value comes from the family's independent reference through the family's
own case builder (``reductions.py`` through ``generate_reductions``, ``expansion.py`` through
``generate_expansion``, ``numeric.py`` through ``generate_numeric``, ``memory.py`` through
``generate_memory`` and ``generate_movement``, ``gather_scatter.py`` through
``generate_gather_scatter``, ``img2col.py`` through ``generate_img2col``), combined by two
rules of the ASL only: NumericStatus is the OR of what was there and what each block
records, and a block's destination lands at the first free T index. Nothing here imports
``device_model``.

    .venv/bin/python -m pto_avs.vectors.reference generate|check
"""
from __future__ import annotations

import copy

from . import engine
from . import gather_scatter as indexed_ref
from . import generate_expansion as expansion_gen
from . import generate_gather_scatter as indexed_gen
from . import generate_img2col as img2col_gen
from . import generate_memory as memory_gen
from . import generate_movement as movement_gen
from . import generate_numeric as numeric_gen
from . import generate_reductions as reduction_gen
from . import memory as memory_ref
from . import numeric, strength
from .engine import Flow, FlowMap, Hex

GENERATOR = "strength_derived.py"
COMMAND = ".venv/bin/python -m pto_avs.vectors.reference generate"
ALL_FLAGS = 0x1F
SEED_GPR = 9  # the first block's scalar register (no family case uses it)
BOUND = (128, 128)
BOUND_BYTES = 65536
BOUND_PE_MASK = "0001"  # three 64 KiB tiles fit one PE's share, not four PEs'
WRAP = 4096
ONE, TWO, THREE, HALF = 0x3F800000, 0x40000000, 0x40400000, 0x3F000000

REDUCTIONS = reduction_gen.OPERATIONS
EXPANSIONS = expansion_gen.OPERATIONS
CONVERSIONS = ("TCVT", "TQUANT")
MEMORY = memory_gen.OPERATIONS
INDEXED = indexed_gen.OPERATIONS
MOVES = movement_gen.OPERATIONS
IMAGE = img2col_gen.OPERATIONS
OPERATIONS = tuple(REDUCTIONS) + tuple(EXPANSIONS) + CONVERSIONS + tuple(MEMORY) + INDEXED + MOVES + IMAGE


def reference_of(op: str) -> str:
    if op in REDUCTIONS:
        return "vectors/reference/reductions.py"
    if op in EXPANSIONS:
        return "vectors/reference/expansion.py"
    if op in CONVERSIONS:
        return "vectors/reference/numeric.py"
    if op in INDEXED:
        return "vectors/reference/gather_scatter.py"
    if op in IMAGE:
        return "vectors/reference/img2col.py"
    return "vectors/reference/memory.py"


def file_id(op: str) -> str:
    return f"PTO-AVS-X-{op.replace('_', '-')}-STRENGTH-001"


# ---------------------------------------------------------------------------------------
# The family cases each derived case starts from (all fault-free single blocks)

def _reduction_rows(op: str) -> list:
    return [[ONE, TWO, THREE], [HALF, ONE, TWO]]


def base_cases(op: str) -> list:
    """The family's flag-free cases of ``op`` (one or more; each a single block, both or
    one profile), built by the family's own builder from its reference."""
    return _sourced(op, _family_cases(op))


def _sourced(op: str, cases: list) -> list:
    for case in cases:
        case["source"] = "reference-generator"
        case["reference"] = f"{COMMAND} (vectors/reference/strength_derived.py; values: {reference_of(op)})"
    return cases


def _family_cases(op: str) -> list:
    if op in REDUCTIONS:
        return reduction_gen.per_profile_cases("base-fp32", "FP32 source of ordinary values", op, "FP32",
                                               _reduction_rows(op))
    if op in EXPANSIONS:
        return _expansion_cases(op, "base", (2, 4), lambda r, c: [ONE, TWO, HALF, THREE][(r + c) % 4],
                                lambda i: [ONE, TWO][i % 2])
    if op == "TCVT":
        return [numeric_gen.tcvt_case("FP32", "FP16", "RNE", 0, codes=[ONE, TWO, 0xBF000000, 0]),
                numeric_gen.tcvt_case("S16", "S32", "NONE", 0, codes=[1, 0x7FFF, 0x8000, 0xFFFF])]
    if op == "TQUANT":
        return [numeric_gen.tquant_case("S8", "RNE", 0, None, 0, codes=[ONE, TWO, 0xC0400000, 0])]
    if op == "TLOAD":
        return [memory_gen.load_case("base-u16", "U16 2 x 4 from the pattern", "U16", (2, 4))]
    if op == "TSTORE":
        return [memory_gen.store_case("base-u16", "U16 2 x 4 into memory filled with 0xEE", "U16", (2, 4))]
    if op == "TPREFETCH":
        return [memory_gen.prefetch_case("base-u16", "U16 2 x 4 per PE", "U16", (2, 4))]
    if op in INDEXED:
        return [_indexed_spec(op, "U16", (1, 4), [[0, 2, 4, 6]]).case(
            "base-u16", "U16 1 x 4, S32 byte displacements 0, 2, 4, 6 from 0x200"
            + (", lane 1 disabled" if "MASK" in op else ""))]
    if op in MOVES:
        return [movement_gen.moved(op, "base-u16", "U16 2 x 3 of distinct patterns in 4 columns",
                                   movement_gen.source_grid("U16", (2, 3), 4),
                                   peers=(1, 2, 3, 0) if op == "GMOV" else None)]
    fm = img2col_gen.BASE
    rows, cols = img2col_gen.window(fm)
    return [img2col_gen.direct_case("base-u16", f"""U16 direct call over a 3x3 image of two channels under a 2x2
        filter: the whole {rows}x{cols} matrix""", "U16", fm, (rows, cols))]


def _indexed_spec(op: str, t: str, valid, indices, **options) -> indexed_gen.Spec:
    """A block of the indexed ``op`` from 0x200: the masked forms with lane 1 disabled (unless
    ``options`` give the mask), the gathers padding with Max."""
    if "MASK" in op and "mask" not in options:
        options["mask"] = [[0 if (r, c) == (0, 1) else 1 for c in range(valid[1])] for r in range(valid[0])]
    if op in ("MGATHER", "MGATHER_MASK"):
        options.setdefault("pad", "Max")
    return indexed_gen.Spec(op, t, valid, indices, base=options.pop("base", 0x200), **options)


def _expansion_cases(op, name, valid, source_value, broadcast_value, *, capacity=None, mask=None):
    """A block of the broadcast or partial ``op`` at FP32 over ``valid`` (each source element
    ``source_value(row, col)``, each broadcast element ``broadcast_value(line)``)."""
    rows, cols = valid
    t = "FP32"
    if op in expansion_gen.ref.PARTIAL_OPERATIONS:
        left = [[source_value(r, c) for c in range(cols)] for r in range(rows)]
        right = [[broadcast_value(r * cols + c) for c in range(cols)] for r in range(rows)]
        p = expansion_gen.Partial(op, t, valid, left, right)
        return expansion_gen.partial_cases(name, f"FP32 {rows} x {cols}, both sources covering the destination",
                                           p, direct=False, mask=mask or "1111")
    axis = expansion_gen.axis_of(op)
    source = None if expansion_gen.kind_of(op) == "COPY" else \
        [[source_value(r, c) for c in range(cols)] for r in range(rows)]
    broadcast = [[broadcast_value(r)] for r in range(rows)] if axis == "Row" else \
        [[broadcast_value(c) for c in range(cols)]]
    b = expansion_gen.Broadcast(op, t, valid, source, broadcast, capacity=capacity)
    return expansion_gen.expand_cases(name, f"FP32 {rows} x {cols}", b, direct=False)


# ---------------------------------------------------------------------------------------
# Rules that combine family cases: the sticky status, a first block, the size bound

def _flags(case) -> int:
    return int(case["expect"]["flags"])


def _renamed(case, name, description=None) -> dict:
    out = copy.deepcopy(case)
    out["name"] = name
    if description:
        out["description"] = " ".join(description.split())
    return out


def status_cases(op: str, base: dict, label: str) -> list:
    """The twin (``base`` from status 0) and the case from the status bits ``base`` never raises."""
    status = ALL_FLAGS & ~_flags(base)
    if not status:
        return []
    twin = _renamed(base, f"status-{label}-from-status-0", f"""The family case from NumericStatus 0 (the twin
        of status-{label}-survives): {base['description']}""")
    out = _renamed(base, f"status-{label}-survives", f"""The same block from NumericStatus {status:#04x}, bits
        the block never raises itself (see status-{label}-from-status-0): NumericStatus is the sticky OR, so they
        survive and the flags are the twin's OR {status:#04x}.""")
    state = out.setdefault("state", {})
    state["status"] = Hex(status)
    out["expect"]["flags"] = Hex(_flags(base) | status)
    return [twin, out]


def _seed_block(first: int):
    rows = [strength.flag_raising_row(strength.SEED_OPERATION, "FP32", both=True)]
    return strength.Block(strength.SEED_OPERATION, "FP32", rows, first=first, gpr=SEED_GPR)


def _destinations(case) -> list:
    """The expected tiles of ``case`` that its block allocates (indices not in its state)."""
    state = {t["index"] for t in case.get("state", {}).get("tiles", [])}
    return [t for t in case["expect"].get("tiles", []) if t["index"] not in state]


def blocks_cases(op: str, base: dict) -> list:
    """A TCMPS block raising NV first, then ``base``'s block; and that last block alone on the
    same state. Destinations land at the first free T index, the seed's first."""
    if _flags(base) & numeric.NV:
        return []  # the twin would record NV too
    state = copy.deepcopy(base.get("state") or {})
    used = [t["index"] for t in state.get("tiles", [])]
    first = max(used) + 1 if used else 0
    seed = _seed_block(first)
    seed_tiles = seed.state_tiles()
    seed_indices = [t["index"] for t in seed_tiles]
    state["tiles"] = list(state.get("tiles", [])) + seed_tiles
    gprs = dict(state.get("gprs") or {})
    gprs[SEED_GPR] = Hex(seed.scalar())
    state["gprs"] = FlowMap(gprs)
    occupied = used + seed_indices
    seed_dest = engine.first_free(occupied)
    own = _destinations(base)
    if len(own) > 1:
        return []  # one destination per block here

    def shifted(taken: list) -> dict:
        """``base``'s expectation with its block run after the blocks that allocated ``taken``."""
        expect = copy.deepcopy(base["expect"])
        allocated = {int(i) for i in expect.get("allocated", [])}
        if own:
            old, new = own[0]["index"], engine.first_free(taken)
            allocated = (allocated - {old}) | {new}
            for tile in expect["tiles"]:
                if tile["index"] == old:
                    tile["index"] = new
        expect["allocated"] = Flow(sorted(allocated | set(taken)))
        if isinstance(expect.get("unchanged"), list):
            expect["unchanged"] = Flow(sorted({int(i) for i in expect["unchanged"]} | set(seed_indices)))
        return expect

    profiles = list(base["profiles"])
    seed_flags = {p: seed.results(p)[1] for p in profiles}
    if len(set(seed_flags.values())) != 1:
        raise ValueError("the seed block's flags differ between the profiles")
    nv = seed_flags[profiles[0]]
    both = shifted(occupied + [seed_dest])
    seed_tile, _ = seed.expected_tile(seed_dest, profiles[0], carrier=False)
    both["tiles"] = [seed_tile] + list(both.get("tiles", []))
    both["flags"] = Hex(_flags(base) | nv)
    alone = shifted(occupied)
    program = base["program"]
    if isinstance(program, list):  # a direct call (a TIMG2COL block always faults): the seed block, then the call
        two, last = [seed.text() + "\n", *program], program
    else:
        last = str(program).strip() + "\n"
        two = seed.text() + "\n" + last
    description = f"""Two blocks: TCMPS FP32 against a signalling NaN raises NV, then the family case
        ({base['description']}); NumericStatus after the program is the OR of both blocks' (a last block that
        writes its own flags loses NV). The twin {op.lower()}-last-block-alone runs the last block alone."""
    out = engine.case("blocks-accumulate", description, profiles, base["source"], base["reference"], state, two,
                      both)
    out_alone = engine.case("last-block-alone", f"""The last block of blocks-accumulate alone on the same state:
        {base['description']}""", profiles, base["source"], base["reference"], state, last, alone)
    return [out, out_alone]


def compact(tile: dict, element=Hex) -> dict:
    """``tile`` with its ``data`` rows written as the most common value (``fill``) and the
    others (``elements``, each written by ``element``), so a 16,384-element tile stays a few
    lines."""
    if "data" not in tile:
        return tile
    rows = [[int(v) for v in row] for row in tile.pop("data")]
    counts = {}
    for row in rows:
        for v in row:
            counts[v] = counts.get(v, 0) + 1
    fill = max(counts, key=counts.get)
    tile["fill"] = Hex(fill)
    others = {f"{r},{c}": v for r, row in enumerate(rows) for c, v in enumerate(row) if v != fill}
    if others:
        tile["elements"] = {k: element(v) for k, v in others.items()}
    return tile


def _at_bound(case: dict, program_mask: bool = True, pe_mask=BOUND_PE_MASK) -> dict:
    """``case`` with every tile on one PE (state and expected; ``pe_mask`` None: the masks it
    has) and its tiles compacted."""
    for tile in case.get("state", {}).get("tiles", []):
        if pe_mask:
            tile["mask"] = pe_mask
        compact(tile)
    for tile in case["expect"].get("tiles", []):
        if pe_mask:
            tile["mask"] = pe_mask
        if "data" in tile:
            tile.pop("words", None)  # an expected tile's Words go with its data
        compact(tile, element=lambda v: FlowMap(value=Hex(v)))
    if program_mask:
        case["program"] = engine.Block(str(case["program"]).replace("mask=1111", f"mask={BOUND_PE_MASK}"))
    return case


# The values at logical elements 4,096 and 4,097 (row 32 of 128 columns) against a tile of
# ones: chosen so that the line they sit in reduces to another value than a line of ones
# (the one a wrapped index would read instead).
WRAP_VALUES = {"SUM": (TWO, HALF), "PROD": (TWO, TWO), "MAX": (HALF, TWO), "MIN": (TWO, HALF),
               "ARGMAX": (HALF, TWO), "ARGMIN": (TWO, HALF)}


def size_cases(op: str) -> list:
    """hw-ieee (one 16,384-element case costs the spec device minutes): 64 KiB FP32 tiles."""
    rows, cols = BOUND
    if op in REDUCTIONS:
        a, b = WRAP_VALUES[reduction_gen.ref.OPERATIONS[op][0]]
        data = [[ONE] * cols for _ in range(rows)]
        data[WRAP // cols][0], data[WRAP // cols][1] = a, b
        cases = [reduction_gen.reduction_case(
            "size-bound-fp32", f"""64 KiB FP32 source of 128 x 128 ones on one PE, logical elements {WRAP} and
            {WRAP + 1} (row 32) {a:#x} and {b:#x}: that line reduces to another value than a line of ones, so an
            element index that wraps at {WRAP} shows""", op, "FP32", data, profiles=["hw-ieee"], cols=cols,
            capacity=BOUND_BYTES, mask=BOUND_PE_MASK)]
        return _sourced(op, [_at_bound(c, program_mask=False) for c in cases])
    if op in EXPANSIONS:
        return _expansion_bound(op)
    if op in CONVERSIONS:
        return _sourced(op, [_conversion_bound(op)])
    if op in INDEXED:
        return _sourced(op, _indexed_bound(op))
    if op in MOVES:
        return _sourced(op, _move_bound(op))
    if op in IMAGE:
        return _sourced(op, [_image_bound()])
    return _sourced(op, _memory_bound(op))


# 128 x 127 valid elements in 128 columns (64 KiB FP32): logical element 4,096 is (32, 32), so
# it differs from element 0 in the source and in a broadcast row or column alike.
EXPAND_BOUND = (128, 127)
WRAP_AT = divmod(WRAP, EXPAND_BOUND[1])


def _expansion_bound(op: str) -> list:
    partial = op in expansion_gen.ref.PARTIAL_OPERATIONS

    def source_value(r, c):
        return TWO if (r, c) == WRAP_AT else ONE

    def broadcast_value(i):
        return ONE if partial else (THREE if i == WRAP_AT[0] else ONE)
    rows, cols = EXPAND_BOUND
    if partial:
        left = [[source_value(r, c) for c in range(cols)] for r in range(rows)]
        right = [[ONE] * cols for _ in range(rows)]
        p = expansion_gen.Partial(op, "FP32", EXPAND_BOUND, left, right, cols=BOUND[1])
        cases = expansion_gen.partial_cases("size-bound-fp32", "", p, direct=False, mask=BOUND_PE_MASK,
                                            profiles=["hw-ieee"])
    else:
        axis = expansion_gen.axis_of(op)
        source = None if expansion_gen.kind_of(op) == "COPY" else left_rows(source_value)
        broadcast = [[broadcast_value(r)] for r in range(rows)] if axis == "Row" else \
            [[broadcast_value(c) for c in range(cols)]]
        b = expansion_gen.Broadcast(op, "FP32", EXPAND_BOUND, source, broadcast, cols=BOUND[1],
                                    capacity=BOUND_BYTES)
        cases = expansion_gen.expand_cases("size-bound-fp32", "", b, direct=False, profiles=["hw-ieee"])
    for c in cases:
        c["description"] = (f"64 KiB FP32 tiles of 128 x 127 valid elements in 128 columns on one PE (hw-ieee: "
                            f"one such case costs the spec device minutes); logical element {WRAP} (row "
                            f"{WRAP_AT[0]}, column {WRAP_AT[1]}) of the source and the broadcast line of row and "
                            f"column {WRAP_AT[0]} differ from element 0's, so an element index that wraps at "
                            f"{WRAP} shows.")
        _at_bound(c, program_mask=not partial)
    return _sourced(op, cases)


def left_rows(value) -> list:
    rows, cols = EXPAND_BOUND
    return [[value(r, c) for c in range(cols)] for r in range(rows)]


def _conversion_bound(op: str) -> dict:
    """TCVT FP32 -> FP16 RNE or TQUANT FP32 -> S8 RNE over a 64 KiB FP32 source of 128 x 128
    ones whose logical element 4,096 is 2 (numeric.py's convert and quantize)."""
    rows, cols = BOUND
    codes = [[TWO if r * cols + c == WRAP else ONE for c in range(cols)] for r in range(rows)]
    if op == "TCVT":
        dst, datr, unit = "FP16", "B.DATR FP16, RNE, Sat=0, Zero", "VEC"
        results = [[numeric_gen.ref.convert("FP32", dst, x, "RNE", False, False) for x in row] for row in codes]
    else:
        dst, datr, unit = "S8", "B.DATR S8, RNE, Sat=0", "SFU"
        results = [[numeric_gen.ref.quantize(x, ONE, 0, dst, "RNE", False) for x in row] for row in codes]
    d_capacity = rows * cols * engine.width(dst) // 8
    program = "\n".join([f"BSTART.{unit} {op}, FP32", datr, f"B.DIM LB0={cols}", f"B.DIM LB1={rows}",
                         f"B.IOT T1, mask={BOUND_PE_MASK}, <last>, ->T<{engine.size_code(d_capacity)}>", "BSTOP"])
    source = {"index": 1, "dtype": "FP32", "capacity": BOUND_BYTES, "cols": cols, "valid": Flow([rows, cols]),
              "layout": "RowMajor", "mask": BOUND_PE_MASK, "data": [[x for x in row] for row in codes]}
    flags = 0
    for row in results:
        for _, f in row:
            flags |= f
    result = {"index": 0, "dtype": dst, "layout": "RowMajor", "location": "Any", "rows": rows, "cols": cols,
              "valid": Flow([rows, cols]), "capacity": d_capacity, "mask": BOUND_PE_MASK,
              **numeric_gen.expect_values(dst, [[b for b, _ in row] for row in results])}
    case = engine.case("size-bound-fp32", f"""64 KiB FP32 source of 128 x 128 ones on one PE whose logical element
        {WRAP} is 2 ({op} to {dst}, RNE, hw-ieee): an element index that wraps at {WRAP} shows in element {WRAP}
        of the destination.""", ["hw-ieee"], "reference-generator", "", {"tiles": [compact(source)]}, program,
                       engine.success_expect(flags, [0, 1], [1], [result]))
    return _at_bound(case, program_mask=False)


MEMORY_TOP = 65536  # the model's largest memory (MEMORY_BYTES bound); the spec build has 4096


def _memory_bound(op: str) -> list:
    """The memory operations at the bounds (hw-ieee: the spec build refuses another memory size):
    a 65,536-byte memory accessed in its top page, and (TLOAD, TSTORE) a 64 KiB U32 tile of
    128 x 128 elements whose logical element 4,096 differs from element 0."""
    top = MEMORY_TOP - 0x100
    out = []
    if op == "TLOAD":
        values = {0: 0x11111111, WRAP: 0x22222222, 16383: 0x33333333}
        regions = [(4 * i, v.to_bytes(4, "little")) for i, v in values.items()]
        case = memory_gen.load_case("size-bound-u32", f"""A 64 KiB U32 tile of 128 x 128 loaded densely from
            address 0 of a {MEMORY_TOP}-byte memory (its last element from the top 4 bytes): logical elements 0,
            {WRAP} and 16383 hold distinct values, the rest zero.""", "U32", BOUND, base=0, size=MEMORY_TOP,
                                    regions=regions, profiles=["hw-ieee"])
        out.append(_at_bound(case))
        out.append(memory_gen.load_case("memory-top-u16", f"""U16 2 x 4 loaded from the top page of a
            {MEMORY_TOP}-byte memory (address {top:#x}).""", "U16", (2, 4), base=top, size=MEMORY_TOP,
                                        profiles=["hw-ieee"]))
    elif op == "TSTORE":
        values = [0x01010101] * (BOUND[0] * BOUND[1])
        values[0], values[WRAP], values[-1] = 0x11111111, 0x22222222, 0x33333333
        case = memory_gen.store_case("size-bound-u32", f"""A 64 KiB U32 tile of 128 x 128 stored densely from
            address 0 of a zeroed {MEMORY_TOP}-byte memory: elements 0, {WRAP} and 16383 hold distinct values,
            the rest 0x01010101; the bytes around each of them and the top of memory are compared.""", "U32",
                                     BOUND, base=0, size=MEMORY_TOP, values=values, initial=[], profiles=["hw-ieee"])
        whole = bytes.fromhex(case["expect"]["memory"][0]["bytes"].replace(" ", ""))
        start = int(case["expect"]["memory"][0]["address"])
        case["expect"]["memory"] = [memory_gen.region(a, whole[a - start:a - start + 16])
                                    for a in (0, 4 * WRAP - 8, MEMORY_TOP - 16)]
        case["expect"].pop("events", None)
        out.append(_at_bound(case))
        out.append(memory_gen.store_case("memory-top-u16", f"""U16 2 x 4 stored into the top page of a
            {MEMORY_TOP}-byte memory (address {top:#x}).""", "U16", (2, 4), base=top, size=MEMORY_TOP,
                                         profiles=["hw-ieee"]))
    else:
        out.append(memory_gen.prefetch_case("memory-top-u16", f"""U16 2 x 4 prefetched by every PE from the top
            page of a {MEMORY_TOP}-byte memory (address {top:#x}).""", "U16", (2, 4), bases=(top,) * 4,
                                            size=MEMORY_TOP, profiles=["hw-ieee"]))
    return out


# The indexed operations at the bound: 128 x 128 lanes of a U32 transfer over an S32 index
# tile (both 64 KiB), every lane's index 0 but lane 4,096's, which is 4.
INDEXED_BASE = 0x200
LANE_VALUES = (0x11111111, 0x22222222)  # a scatter's source: every lane, lane 4,096
CAS_REPLACEMENT = 0x5A5A5A5A  # lane 4,096's replacement; the others store back what they find


def _indexed_bound(op: str) -> list:
    rows, cols = BOUND
    t = "U32"
    at = divmod(WRAP, cols)
    indices = [[0] * cols for _ in range(rows)]
    indices[at[0]][at[1]] = 4
    options = {"mask": [[1] * cols for _ in range(rows)]} if "MASK" in op else {}
    if op in ("MSCATTER", "MSCATTER_MASK"):
        data = [[LANE_VALUES[0]] * cols for _ in range(rows)]
        data[at[0]][at[1]] = LANE_VALUES[1]
        options["data"] = data
    spec = _indexed_spec(op, t, BOUND, indices, base=INDEXED_BASE, **options)
    if op == "MGATHER_CAS":  # every lane expects what its address holds; lane 4,096 alone stores another value
        image = memory_ref.Memory(spec.memory_size, spec.initial)
        held = [image.read(INDEXED_BASE + 4 * k, 4) for k in (0, 1)]
        spec.expected = [[held[0]] * cols for _ in range(rows)]
        spec.replacement = [[held[0]] * cols for _ in range(rows)]
        spec.expected[at[0]][at[1]], spec.replacement[at[0]][at[1]] = held[1], CAS_REPLACEMENT
    what = {"MGATHER": "loads", "MGATHER_MASK": "loads (every predicate bit 1)", "MGATHER_CAS": (
        "compares and swaps (every other lane expects and stores back what the base holds, lane 4,096 expects "
        f"what base + 4 holds and stores {CAS_REPLACEMENT:#x})"), "MSCATTER": (
        f"stores (every other lane {LANE_VALUES[0]:#x}, lane 4,096 {LANE_VALUES[1]:#x})"),
        "MSCATTER_MASK": (f"stores (every predicate bit 1; every other lane {LANE_VALUES[0]:#x}, lane 4,096 "
                          f"{LANE_VALUES[1]:#x})")}[op]
    expect = spec.expect() if op in ("MGATHER", "MGATHER_MASK") else _one_outcome_expect(spec)
    case = engine.case("size-bound-u32", f"""hw-ieee (one such case costs the spec device minutes): 128 x 128
        lanes, a 64 KiB S32 index tile and 64 KiB U32 tiles on one PE; every lane's byte displacement is 0 but
        lane {WRAP}'s, 4, and lane {WRAP} {what} at base + 4, so a lane counter that wraps at {WRAP} shows.""",
                       ["hw-ieee"], "reference-generator", "", spec.state(), spec.program(mask=BOUND_PE_MASK), expect)
    top = dict(mask=[[1, 1]]) if "MASK" in op else {}
    return [_at_bound(case, program_mask=False),
            _indexed_spec(op, t, (1, 2), [[0, 4]], base=MEMORY_TOP - 8, memory_size=MEMORY_TOP, **top).case(
                "memory-top-u32", f"""hw-ieee (the spec build has 4096 bytes): both lanes in the top eight bytes of
                a {MEMORY_TOP}-byte memory, the model's largest.""", profiles=["hw-ieee"]),
            _indexed_spec(op, t, (1, 2), [[0, 4]], base=MEMORY_TOP - 4, memory_size=MEMORY_TOP, **top).case(
                "memory-top-lane-past-faults", f"""hw-ieee: lane 0 at the top four bytes of a {MEMORY_TOP}-byte
                memory, lane 1 at {MEMORY_TOP:#x}, past it: Fault_DataPage at {MEMORY_TOP:#x} (an address that
                wrapped to the bottom of memory would not fault), nothing accessed.""", profiles=["hw-ieee"])]


def _one_outcome_expect(spec) -> dict:
    """The expectation of a scatter or MGATHER_CAS block whose lanes that share an address
    cannot be told apart: each scatter lane of such a group stores the same bytes, each CAS
    lane of one expects the bytes its address holds and stores them back (a no-op that
    observes them), so every commit order the spec leaves open (ARBITRARY) has the outcome
    of the row-major one, which gather_scatter.py's scatter and compare_and_swap give."""
    t, active = spec.t, spec.active
    size = memory_ref.element_bytes(t)
    low = (1 << 8 * size) - 1
    image = memory_ref.Memory(spec.memory_size, spec.initial)
    if indexed_ref.probe(active, t, spec.memory_size):
        raise ValueError(f"{spec.op}: the bound case faults")

    def by_lane(rows):
        return {r * spec.valid[1] + c: w for r, row in enumerate(rows) for c, w in enumerate(row)}
    groups = indexed_ref.duplicate_groups(active)
    state = sorted(indexed_gen.TILE_OF[spec.op].values())
    order = list(range(len(active)))
    if spec.op == "MGATHER_CAS":
        expected, replacement = by_lane(spec.expected), by_lane(spec.replacement)
        for lane, address in (active[i] for group in groups for i in group):
            if not expected[lane] & low == replacement[lane] & low == image.read(address, size):
                raise ValueError(f"MGATHER_CAS lane {lane}: its lane order would be observable")
        observed = indexed_ref.compare_and_swap(image, t, active, expected, replacement, order)
        return {"fault": None, "flags": Hex(0), "allocated": Flow(sorted(state + [spec.destination])),
                "unchanged": Flow(state), "tiles": [spec.destination_tile(observed)],
                "memory": indexed_gen.expected_regions(image, spec.initial)}
    values = by_lane(spec.data)
    for group in groups:
        if len({values[active[i][0]] & low for i in group}) != 1:
            raise ValueError(f"{spec.op}: duplicate lanes store different values")
    indexed_ref.scatter(image, t, active, values, order)
    return {"fault": None, "flags": Hex(0), "allocated": Flow(state), "unchanged": "all",
            "memory": indexed_gen.expected_regions(image, spec.initial)}


def _move_bound(op: str) -> list:
    """TMOV: a 64 KiB U32 tile of 128 x 128 on one PE. GMOV cannot reach 64 KiB: its source is
    allocated on all four PEs (BundleGMOVCore4SourceReady) and its destination has the source's
    TSize, so 4 x 64 KiB + 64 KiB pass the 262,144-byte capacity; its largest is a 32 KiB U16
    tile of 128 x 128 (4 x 32 KiB + 4 x 32 KiB)."""
    rows, cols = BOUND
    at = divmod(WRAP, cols)
    if op == "TMOV":
        t, capacity, mask, peers, values = "U32", BOUND_BYTES, BOUND_PE_MASK, None, (0x11111111, 0x22222222)
        name, what = "size-bound-u32", "a 64 KiB U32 tile of 128 x 128 on one PE"
    else:
        t, capacity, mask, peers, values = "U16", BOUND_BYTES // 2, "1111", (1, 2, 3, 0), (0x1111, 0x2222)
        name, what = "size-largest-u16", ("the largest GMOV: a 32 KiB U16 tile of 128 x 128 on all four PEs (a 64 KiB "
                                          "source on four PEs and its 64 KiB destination pass the 262,144-byte "
                                          "capacity)")
    data = [[values[0]] * cols for _ in range(rows)]
    data[at[0]][at[1]] = values[1]
    source = movement_gen.grid(t, capacity, cols, BOUND, data)
    case = movement_gen.moved(op, name, f"""hw-ieee (one such case costs the spec device minutes): {what}, every
        element {values[0]:#x} but logical element {WRAP}, {values[1]:#x}: an element index that wraps at {WRAP}
        shows.""", source, mask=mask, peers=peers, profiles=["hw-ieee"])
    return [_at_bound(case, program_mask=False, pe_mask=mask if op == "TMOV" else None)]


def _image_bound() -> dict:
    """A direct TIMG2COL of a 1 x 128 image of 128 channels under a 1 x 1 filter: the 128 x 128
    matrix is the source's storage order, so the 64 KiB FP32 source and destination hold element
    4,096 at the same place."""
    rows, cols = BOUND
    fm = {"batches": 1, "channel_groups": 1, "height": 1, "width": cols, "channels_per_group": rows,
          "filter_height": 1, "filter_width": 1}
    words = [TWO if i == WRAP else ONE for i in range(rows * cols)]
    case = img2col_gen.direct_case("size-bound-fp32", f"""hw-ieee (one such case costs the spec device minutes):
        64 KiB FP32 source and destination of 128 x 128 on one PE (a 1 x 128 image of 128 channels in one group,
        a 1 x 1 filter), every element 1.0 but logical element {WRAP}, 2.0: an element index that wraps at {WRAP}
        shows.""", "FP32", fm, BOUND, words=words, profiles=["hw-ieee"], cols=cols, capacity=BOUND_BYTES)
    return _at_bound(case, program_mask=False)


# pto-v0: a padding Word with bits above the U8 element width (element bits 0x5a)
PAD_WORD = 0xC3C3C3C3C3C3C35A


def carrier_cases(op: str) -> list:
    """pto-v0 padding Words: TMOV and GMOV copy the source's whole payload, a padding Word with
    bits above the element width included; a CUBE TLOAD (the regular TLOAD takes no PadValue)
    writes the Max pad Word at every padded coordinate (TLOAD: TileWithPadding with the bundle's
    PadValue when the destination layout is CUBE)."""
    if op in MOVES:
        source = movement_gen.source_grid("U8", (2, 3), 4)
        for r in range(source.rows):
            for c in range(source.cols):
                if r >= 2 or c >= 3:
                    source.write(r, c, PAD_WORD)
        return _sourced(op, [movement_gen.moved(op, "carrier-pad-words", f"""pto-v0: every padding coordinate of
            the U8 source holds the Word {PAD_WORD:#x}, defined; the move copies the whole payload, so every
            padded coordinate of the destination reads that Word back, bits above the element width
            included.""", source, peers=(1, 2, 3, 0) if op == "GMOV" else None, profiles=["pto-v0"])])
    if op != "TLOAD":
        return []
    case = memory_gen.load_case("carrier-pad-cube-max", """pto-v0: a 2 x 4 FP16 rectangle loaded through B.DATR
        Layout ND2M16 (a CUBE_M16 destination in Matrix) with PadValue Max: the valid region holds the loaded
        elements and every padded coordinate of the CUBE storage the FP16 Max pad Word.""", "FP16", (2, 4),
                                capacity=256, layout="CUBE_M16", datr=memory_gen.cube_datr("ND2M16", "Max"),
                                profiles=["pto-v0"])
    tile = case["expect"]["tiles"][0]
    del tile["rows"], tile["cols"]  # the CUBE storage geometry, not a RowMajor one
    tile["location"] = "Matrix"
    pad = engine.pad_word("Max", "FP16")
    tile["padding"] = FlowMap(defined=True, value=Hex(pad & engine.element_mask("FP16")), word=Hex(pad))
    return _sourced(op, [case])


# ---------------------------------------------------------------------------------------
# Files

def strength_cases(op: str) -> list:
    out = []
    bases = base_cases(op)
    for i, base in enumerate(bases):
        label = f"{i}" if len(bases) > 1 else "base"
        for derived in status_cases(op, base, label):
            out.append(derived)
    flag_free = next((b for b in bases if not _flags(b)), bases[0])
    out += blocks_cases(op, flag_free)
    out += carrier_cases(op)
    out += size_cases(op)
    names = [c["name"] for c in out]
    if len(names) != len(set(names)):
        raise ValueError(f"{op}: repeated case names {names}")
    return out


def strength_file(op: str) -> dict:
    cases = strength_cases(op)
    return {"format": "pto-avs-vector/1", "id": file_id(op), "operation": op,
            "kind": "execution", "exercises": Flow(engine.UNITS[op]["readiness_subjects"]),
            **engine.also_exercises(op, cases),
            "provenance": (f"Cases that each isolate one condition a device can get wrong on its own (issue 30: "
                           f"sticky NumericStatus from a nonzero start and across blocks, tiles at the size "
                           f"bound). Each starts from a case of the operation's own family builder, whose values "
                           f"come from the independent reference {reference_of(op)}; the first block of a "
                           f"two-block program comes from vectors/reference/compare_elements.py. Written by "
                           f"`{COMMAND}` (vectors/reference/strength_derived.py). Nothing here was produced by "
                           f"running the golden model."),
            "cases": cases}


def files(operations) -> dict:
    return {f"{file_id(op)}.yaml": engine.render_spec_id(strength_file(op), GENERATOR) for op in operations}


FAMILY = engine.Family("strength_derived", OPERATIONS, files, owns=tuple(f"{file_id(op)}.yaml" for op in OPERATIONS))
