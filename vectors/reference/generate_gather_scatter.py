"""Write the vectors of MGATHER, MGATHER_MASK, MGATHER_CAS, MSCATTER and MSCATTER_MASK (the
indexed TLSU memory family).

    .venv/bin/python -m pto_avs.vectors.reference generate|check MGATHER MGATHER_MASK MGATHER_CAS MSCATTER MSCATTER_MASK
    .venv/bin/python -m pto_avs.vectors.reference.generate_gather_scatter [--out DIR] [--check]  (the same)

- one file per spec test ID: the spec test point as a block (its memory, tiles and values,
  ``source: spec-test``), then the same facts through other forms (``source: hand``);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): every legal
  transfer DataType and the 4-bit ones it rejects, every index DataType (signed
  displacements below the base, 4-bit indices), alignment and page faults with their address
  (the top of memory, an address that wraps, a fault in the last lane), the precise preflight,
  masks (disabled lanes are not even probed), duplicates, the events and their bound of 16,
  the pad values, and the block's legality rules in the spec's order.

4-bit (S4X2/U4X2) index tiles follow the executable reading (SPEC-CHOICE 90,
``gather_scatter.lane_index_words``): lane i reads the low nibble of payload carrier i, logical
element 16 * i, sign-extended for S4X2.

Where the spec leaves the lane order ARBITRARY (the winner of duplicate scatter lanes, the
serialization of MGATHER_CAS lanes at one address), a case lists every outcome the spec
allows (``one_of``) and compares the events as a multiset (``events_order: any``), so a
device passes with any allowed order and fails with any other outcome.

Expected memory, tiles and events come from the independent reference
``vectors/reference/gather_scatter.py`` (over ``memory.py``; no device_model code); the spec
tests' own values are checked against it here. Nothing here runs the golden model.
"""
from __future__ import annotations

import sys

from . import engine
from . import gather_scatter as ref
from . import memory as mem
from .engine import UNITS, Flow, FlowMap, Hex, case, hexrows, size_code, smallest_tile, spec_ref, width
from .generate_memory import fault_expect, region, state_of

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_gather_scatter"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("MGATHER", "MGATHER_MASK", "MGATHER_CAS", "MSCATTER", "MSCATTER_MASK")
REFERENCE = ("vectors/reference/gather_scatter.py (TileIndexByteDisplacement, MGATHER, MGATHER_MASK, MSCATTER, "
             "MSCATTER_MASK, CommitScatterLanes and MGATHER_CAS, one lane at a time, from the ASL)")
BLOCK_REFERENCE = {op: f"asl/block/model/dispatch/tlsu-{op.lower().replace('_', '-')}.asl "
                       f"ExecuteBundle{op.replace('_', '')}Operation" for op in OPERATIONS}
BSTART = {"MGATHER": "BSTART.MGATHER", "MGATHER_MASK": "BSTART.MGATHER.MASK", "MGATHER_CAS": "BSTART.MGATHER.CAS",
          "MSCATTER": "BSTART.MSCATTER", "MSCATTER_MASK": "BSTART.MSCATTER.MASK"}
FUNCTION = {"MGATHER": 4, "MSCATTER": 5, "MGATHER_MASK": 6, "MSCATTER_MASK": 7, "MGATHER_CAS": 8}
# The state tiles of each operation's block, in binding order (the destination is the first free T).
ROLES = {"MGATHER": ("indices",), "MGATHER_MASK": ("indices", "mask"),
         "MGATHER_CAS": ("indices", "expected", "replacement"), "MSCATTER": ("source", "indices"),
         "MSCATTER_MASK": ("source", "indices", "mask")}
TILE_OF = {"MGATHER": {"indices": 1}, "MGATHER_MASK": {"indices": 1, "mask": 2},
           "MGATHER_CAS": {"indices": 1, "expected": 2, "replacement": 3},
           "MSCATTER": {"source": 0, "indices": 1}, "MSCATTER_MASK": {"source": 0, "indices": 1, "mask": 2}}
SPEC_MEMORY = 4096
BASE_GPR = 1
EVENT_LIMIT = 16
GUARD = 2  # bytes on each side of an accessed element that the initial memory fills
LEGAL_TYPES = tuple(t for t in engine.DATA_TYPES if ref.transfer_legal(t))
FOUR_BIT = tuple(t for t in engine.DATA_TYPES if not ref.transfer_legal(t))


def gathers(op: str) -> bool:
    return op.startswith("MGATHER")


def background(address: int) -> int:
    """The initial byte at ``address`` around an accessed element: nonzero, varied."""
    return (address * 7 + 0x35) % 251 + 3


def initial_regions(addresses, size: int, memory_size: int, fill=None) -> list:
    """Byte runs covering every access with ``GUARD`` bytes each side (inside memory), the
    background pattern or ``fill``."""
    covered = set()
    for address in addresses:
        for a in range(address - GUARD, address + size + GUARD):
            if 0 <= a < memory_size:
                covered.add(a)
    runs, start, data = [], None, bytearray()
    for a in sorted(covered):
        if start is not None and a == start + len(data):
            data.append(fill if fill is not None else background(a))
        else:
            if start is not None:
                runs.append((start, bytes(data)))
            start, data = a, bytearray([fill if fill is not None else background(a)])
    if start is not None:
        runs.append((start, bytes(data)))
    return runs


def expected_regions(image: mem.Memory, initial: list) -> list:
    """The expected bytes over the initial runs (which cover every access and its guard)."""
    return [region(start, image.bytes[start:start + len(data)]) for start, data in initial]


def event_list(events) -> list:
    out = []
    for e in events:
        entry = {"kind": e["kind"], "agent": e["agent"], "address": Hex(e["address"]), "size": e["size"]}
        if e["kind"] in ("Load", "Atomic"):
            entry["read"] = Hex(e["read"])
        if e["kind"] in ("Store", "Atomic"):
            entry["write"] = Hex(e["write"])
        entry["order"] = e["order"]
        out.append(FlowMap(entry))
    return out or Flow([])


def bindings(op: str, code: int | None, mask: str = "1111") -> list:
    """The B.IOT lines of ``op`` over its state tiles (``code``: the destination's TSize code)."""
    t = TILE_OF[op]
    dst = f", ->T<{code}>"
    m = f"mask={mask}"
    lines = {"MGATHER": lambda: [f"B.IOT T{t['indices']}, {m}, <last>{dst}"],
             "MGATHER_MASK": lambda: [f"B.IOT T{t['indices']}, T{t['mask']}, {m}, <last>{dst}"],
             "MGATHER_CAS": lambda: [f"B.IOT T{t['indices']}, T{t['expected']}, {m}",
                                     f"B.IOT T{t['replacement']}, {m}, <last>{dst}"],
             "MSCATTER": lambda: [f"B.IOT T{t['source']}, T{t['indices']}, {m}, <last>"],
             "MSCATTER_MASK": lambda: [f"B.IOT T{t['source']}, T{t['indices']}, {m}", f"B.IOT T{t['mask']}, {m}, <last>"]}
    return lines[op]()


def program(op: str, t: str, dims: dict, code: int | None, *, datr=None, ior=f"B.IOR R{BASE_GPR}", mask="1111",
            lines=None) -> str:
    out = [f"{BSTART[op]} {t}"] + ([datr] if datr else [])
    out += [f"B.DIM {k}={v}" for k, v in dims.items() if v is not None]
    out += lines if lines is not None else bindings(op, code, mask)
    if ior:
        out.append(ior)
    out.append("BSTOP")
    return "\n".join(out)


def predicate_tile(index, bits, valid) -> dict:
    rows, cols = len(bits), len(bits[0])
    return {"index": index, "storage_kind": "predicate", "capacity": max(128, engine.pow2_at_least(rows * cols)),
            "rows": rows, "cols": cols, "valid": Flow(list(valid)),
            "data": [Flow(int(b) for b in row) for row in bits]}


def values_of(t: str, count: int, seed: int) -> list:
    """``count`` distinct element values of ``t``, every byte nonzero."""
    bits = width(t)
    out = []
    for i in range(count):
        value = 0
        for byte in range(bits // 8):
            value |= ((seed + 37 * i + 11 * byte) % 249 + 4) << (8 * byte)
        out.append(value)
    return out


def rows_of(flat: list, cols: int) -> list:
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


class Spec:
    """One block of an indexed operation: its state tiles, memory and program, and what the
    reference expects of it."""

    def __init__(self, op, t, valid, indices, *, index_type="S32", base=0x200, mask=None, data=None,
                 expected=None, replacement=None, pad=None, memory_size=SPEC_MEMORY, fill=None, datr=None,
                 index_layout=None, cols=None, lb2=None, index_elements=None):
        self.op, self.t, self.valid, self.index_type, self.base, self.pad = op, t, tuple(valid), index_type, base, pad
        self.memory_size = memory_size
        self.indices = indices  # rows of index Words (the index element bits) over the valid region
        self.index_elements = dict(index_elements or {})  # more index-tile writes: {(row, col): Word}
        if mask is None and "mask" in ROLES[op]:
            mask = [[1] * valid[1] for _ in range(valid[0])]
        if op == "MGATHER_CAS" and expected is None:
            expected = [[0] * valid[1] for _ in range(valid[0])]
            replacement = rows_of(values_of(t, valid[0] * valid[1], 0x77), valid[1])
        self.mask = mask
        cols, capacity, rows = smallest_tile(t, valid, cols)
        self.cols, self.capacity, self.rows = cols, capacity, rows
        self.lb2 = lb2 if lb2 is not None else (cols if cols != valid[1] else None)
        icols, _, irows = smallest_tile(index_type, valid)
        written = {(r, c): w for r, row in enumerate(indices) for c, w in enumerate(row)}
        written.update(self.index_elements)
        self.lane_indices = ref.lane_index_words(written, irows, icols, valid, index_type)  # what each lane reads
        self.active = ref.lanes(base, self.lane_indices, index_type, mask)
        size = mem.element_bytes(t)
        inside = [a for _, a in self.active if a + size <= memory_size]
        self.initial = initial_regions(inside, size, memory_size, fill)
        count = valid[0] * valid[1]
        self.data = data if data is not None else rows_of(values_of(t, count, 0x51), valid[1])
        self.expected, self.replacement = expected, replacement
        self.datr = datr if datr is not None else (f"B.DATR NONE, NORM, {pad}" if pad else None)
        self.index_layout = index_layout
        self.dims = {"LB0": valid[1], "LB1": valid[0] if valid[0] != 1 else None, "LB2": self.lb2}

    # --- state -------------------------------------------------------------
    def tiles(self) -> list:
        tiles = []
        roles = ROLES[self.op]
        for role in roles:
            index = TILE_OF[self.op][role]
            if role == "indices":
                icols, icap, _ = smallest_tile(self.index_type, self.valid)
                tile = engine.tile(index, self.index_type, icap, icols, list(self.valid), self.indices,
                                   layout=self.index_layout)
                if self.index_elements:
                    tile["elements"] = {f"{r},{c}": Hex(w) for (r, c), w in sorted(self.index_elements.items())}
            elif role == "mask":
                tile = predicate_tile(index, self.mask, self.valid)
            else:
                words = {"source": self.data, "expected": self.expected, "replacement": self.replacement}[role]
                tile = engine.tile(index, self.t, self.capacity, self.cols, list(self.valid), words)
            tiles.append(tile)
        return sorted(tiles, key=lambda item: item["index"])

    def state(self, tiles=None) -> dict:
        return state_of(self.memory_size, self.initial, {BASE_GPR: self.base}, tiles or self.tiles())

    def program(self, **overrides) -> str:
        code = size_code(self.capacity) if gathers(self.op) else None
        return program(self.op, self.t, overrides.pop("dims", self.dims), code, datr=overrides.pop("datr", self.datr),
                       **overrides)

    @property
    def destination(self) -> int:
        used = set(TILE_OF[self.op].values())
        return engine.first_free(used)

    # --- expectations --------------------------------------------------------
    def expect(self) -> dict:
        state_indices = sorted(TILE_OF[self.op].values())
        fault = ref.probe(self.active, self.t, self.memory_size)
        if fault:
            return fault_expect(*fault, state_indices)
        if self.op == "MGATHER_CAS":
            return self.cas_expect(state_indices)
        if not gathers(self.op):
            return self.scatter_expect(state_indices)
        image = mem.Memory(self.memory_size, self.initial)
        loaded = ref.gather(image, self.t, self.active)
        expect = {"fault": None, "flags": Hex(0), "allocated": Flow(sorted(state_indices + [self.destination])),
                  "unchanged": Flow(state_indices), "tiles": [self.destination_tile(loaded)],
                  "memory_unchanged": True}
        if len(image.events) <= EVENT_LIMIT:
            expect["events"] = event_list(image.events)
        return expect

    def destination_tile(self, lanes: dict) -> dict:
        """The wholly defined destination: loaded lanes, the pad Word at disabled lanes and
        outside the valid region (a Null pad reads zero and is defined: MarkTilePhysicalRegionDefined)."""
        pad = self.pad if self.pad not in (None, "Null") else "Zero"
        count = self.valid[0] * self.valid[1]
        words = [lanes.get(lane, engine.pad_word(pad, self.t)) for lane in range(count)]
        return engine.result_tile(self.destination, self.t, self.capacity, self.cols, list(self.valid),
                                  rows_of(words, self.valid[1]), pad)

    def scatter_expect(self, state_indices) -> dict:
        values = {r * self.valid[1] + c: w for r, row in enumerate(self.data) for c, w in enumerate(row)}
        outcomes = []
        for order in ref.scatter_orders(self.active):
            image = mem.Memory(self.memory_size, self.initial)
            ref.scatter(image, self.t, self.active, values, order)
            outcomes.append((expected_regions(image, self.initial), image.events))
        expect = {"fault": None, "flags": Hex(0), "allocated": Flow(state_indices), "unchanged": "all"}
        events = outcomes[0][1]
        distinct = _distinct([m for m, _ in outcomes])
        if not self.active:
            expect["memory_unchanged"] = True
        elif len(distinct) == 1:
            expect["memory"] = distinct[0]
        else:
            expect["one_of"] = [{"memory": m} for m in distinct]
        if len(events) <= EVENT_LIMIT:
            expect["events"] = event_list(events)
            if len(outcomes) > 1:
                expect["events_order"] = "any"
        return expect

    def cas_expect(self, state_indices) -> dict:
        expected = {r * self.valid[1] + c: w for r, row in enumerate(self.expected) for c, w in enumerate(row)}
        replacement = {r * self.valid[1] + c: w for r, row in enumerate(self.replacement) for c, w in enumerate(row)}
        outcomes = []
        for order in ref.cas_orders(self.active):
            image = mem.Memory(self.memory_size, self.initial)
            observed = ref.compare_and_swap(image, self.t, self.active, expected, replacement, order)
            entry = {"memory": expected_regions(image, self.initial), "tiles": [self.destination_tile(observed)]}
            if len(image.events) <= EVENT_LIMIT:
                entry["events"] = event_list(image.events)
            outcomes.append(entry)
        expect = {"fault": None, "flags": Hex(0), "allocated": Flow(sorted(state_indices + [self.destination])),
                  "unchanged": Flow(state_indices)}
        distinct = _distinct(outcomes)
        if len(distinct) == 1:
            only = distinct[0]
            expect["tiles"] = only["tiles"]
            expect["memory"] = only["memory"]
            if "events" in only:
                expect["events"] = only["events"]
        else:
            if "events" in distinct[0]:
                expect["events_order"] = "any"
            expect["one_of"] = distinct
        return expect

    def case(self, name, description, source="reference-generator", reference="", profiles=BOTH, **program):
        return case(name, description, profiles, source, reference, self.state(), self.program(**program),
                    self.expect())


def _distinct(items: list) -> list:
    out, seen = [], set()
    for item in items:
        key = repr(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def legality_case(spec: Spec, name: str, description: str, fault: str = "Fault_TileLegality", *, tiles=None,
                  reference=None, **program) -> dict:
    """``spec``'s block changed into one the operation rejects with ``fault``: nothing is
    allocated, accessed or recorded."""
    state = spec.state(tiles)
    allocated = sorted(t["index"] for t in state["tiles"])
    return case(name, description, BOTH, "hand", reference or BLOCK_REFERENCE[spec.op], state,
                spec.program(**program), fault_expect(fault, None, allocated))


# ---------------------------------------------------------------------------------------
# The spec test points

def static_cases(op: str, test_id: str) -> list:
    """The static contract test: DecodeTileOperation(TLSU, function) is the operation; the
    BSTART word packed by hand (form 0x00011181, Function 24:20, DataType 31:27) opens its
    block, which then runs as the operation."""
    function = FUNCTION[op]
    word = 0x00011181 | function << 20 | engine.dtype_code("U8") << 27
    reference = spec_ref(test_id, f"DecodeTileOperation(TileDecode_TLSU, {function}) == {op}")
    spec = SPECS[op]()
    raw = engine.raw_bstart_program(spec.program(), word)
    first = case(f"bstart-{op.lower().replace('_', '-')}-word", f"The BSTART word {word:#010x} (TLSU Function "
                 f"{function}, U8) opens a {op} block: the block runs as {op}.", BOTH, "spec-test", reference,
                 spec.state(), raw, spec.expect())
    second = spec.case(f"bstart-{op.lower().replace('_', '-')}-text", f"The same block from its assembly text "
                       f"({BSTART[op]} U8).", source="hand", reference=reference)
    return [first, second]


def mgather_bytes_cases() -> list:
    """PTO-AVS-TILE-MGATHER-BYTES-001: U8 destination (valid 1x2), S32 indices 0 and 3, base
    0x200 holding 0x11 at +0 and 0x44 at +3, PadValue Max: two loads, the rest 0xFF."""
    reference = spec_ref("PTO-AVS-TILE-MGATHER-BYTES-001", "MGATHER(0, 0x200, 1, Max): 2 events, (0,0)=0x11, "
                         "(0,1)=0x44, the non-valid row 0xFF")
    spec = Spec("MGATHER", "U8", (1, 2), [[0, 3]], base=0x200, pad="Max")
    spec.initial = [(0x200, bytes([0x11])), (0x203, bytes([0x44]))]
    first = spec.case("bytes-u8-pad-max", "The spec test as a block: S32 index tile T1 = [0, 3], R1 = 0x200, "
                      "B.DATR PadValue Max; the destination's valid lanes read 0x11 and 0x44 (two Load events) and "
                      "every other physical element is 0xFF.", source="spec-test", reference=reference)
    tile = first["expect"]["tiles"][0]
    assert [int(v) for v in tile["data"][0]] == [0x11, 0x44] and int(tile["padding"]["value"]) == 0xFF
    assert len(first["expect"]["events"]) == 2
    null = Spec("MGATHER", "U8", (1, 2), [[0, 3]], base=0x200)
    null.initial = spec.initial
    second = null.case("bytes-u8-pad-null-defined", "No B.DATR (PadValue Null): the physical region is still wholly "
                       "defined, the padding reading zero (MarkTilePhysicalRegionDefined).", source="hand",
                       reference=reference)
    negative = Spec("MGATHER", "U16", (1, 3), [[0xFFFFFFFE, 0, 6]], base=0x200)
    third = negative.case("bytes-signed-displacement", "S32 index -2 reads the U16 two bytes below the base: byte "
                          "displacements are sign-extended and not scaled by the transfer type.", source="hand",
                          reference=reference)
    return [first, second, third]


def mgather_mask_lanes_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-MGATHER-MASK-LANES-001", "MGATHER_MASK(0, 0x280, 1, 2, Zero): 1 event, "
                         "(0,0)=0x62, (0,1)=0")
    spec = Spec("MGATHER_MASK", "U8", (1, 2), [[0, 1]], index_type="U32", base=0x280, mask=[[1, 0]], pad="Zero")
    spec.initial = [(0x280, bytes([0x62, 0x73]))]
    first = spec.case("lanes-u8-pad-zero", "The spec test as a block: U32 indices [0, 1], predicate [1, 0], R1 = "
                      "0x280, PadValue Zero: lane 0 loads 0x62 (one Load event), lane 1 takes the pad 0.",
                      source="spec-test", reference=reference)
    assert [int(v) for v in first["expect"]["tiles"][0]["data"][0]] == [0x62, 0] and len(first["expect"]["events"]) == 1
    disabled_fault = Spec("MGATHER_MASK", "U32", (1, 2), [[0, 0xFFF]], index_type="U32", base=0x280, mask=[[1, 0]],
                          pad="Max")
    second = disabled_fault.case("disabled-lane-not-probed", "The disabled lane's address (0x127F, misaligned and "
                                 "past memory) is never probed: no fault, lane 1 is the Max pad.", source="hand",
                                 reference=reference)
    return [first, second]


def mgather_cas_rmw_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-MGATHER-CAS-RMW-001", "MGATHER_CAS(0, 0x300, 1, 2, 3): 2 Atomic events, "
                         "0x300 becomes 9, 0x301 keeps 6, the destination observes 5, 6")
    spec = Spec("MGATHER_CAS", "U8", (1, 2), [[0, 1]], index_type="U32", base=0x300, expected=[[5, 7]],
                replacement=[[9, 10]])
    spec.initial = [(0x300, bytes([5, 6]))]
    first = spec.case("rmw-u8-match-and-mismatch", "The spec test as a block: lane 0 expects 5 and finds 5 (stores "
                      "9), lane 1 expects 7 and finds 6 (keeps it); the destination observes 5 and 6; two Atomic "
                      "events, each with the replacement as its write value.", source="spec-test",
                      reference=reference)
    e = first["expect"]
    assert bytes.fromhex(e["memory"][0]["bytes"].replace(" ", "")) == bytes([9, 6])
    assert [int(v) for v in e["tiles"][0]["data"][0]] == [5, 6] and [x["kind"] for x in e["events"]] == ["Atomic"] * 2
    dup = Spec("MGATHER_CAS", "U8", (1, 2), [[0, 0]], index_type="U32", base=0x300, expected=[[5, 9]],
               replacement=[[9, 11]])
    dup.initial = [(0x300, bytes([5, 6]))]
    second = dup.case("rmw-duplicate-lanes-either-order", "Both lanes at 0x300 (holding 5): lane 0 expects 5 -> 9, "
                      "lane 1 expects 9 -> 11. Row-major: 5 -> 9 -> 11 (observes 5, 9); the other order: lane 1 "
                      "fails on 5, then lane 0 stores 9 (observes 5, 5). The spec's order is implementation-defined: "
                      "both outcomes pass, events compared as a multiset.", source="hand", reference=reference)
    assert len(second["expect"]["one_of"]) == 2
    return [first, second]


def mscatter_bytes_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-MSCATTER-BYTES-001", "MSCATTER(0x240, 0, 1): 2 events, 0x240=0x21, "
                         "0x243=0x54; source and indices unchanged")
    spec = Spec("MSCATTER", "U8", (1, 2), [[0, 3]], index_type="S64", base=0x240, data=[[0x21, 0x54]], fill=0)
    first = spec.case("bytes-u8-s64-indices", "The spec test as a block: U8 source [0x21, 0x54], S64 indices [0, "
                      "3], R1 = 0x240: two Store events; 0x240 = 0x21, 0x243 = 0x54; both source tiles unchanged.",
                      source="spec-test", reference=reference)
    image = {r["address"]: bytes.fromhex(r["bytes"].replace(" ", "")) for r in first["expect"]["memory"]}
    flat = {int(a) + k: b for a, data in image.items() for k, b in enumerate(data)}
    assert flat[0x240] == 0x21 and flat[0x243] == 0x54 and len(first["expect"]["events"]) == 2
    dup = Spec("MSCATTER", "U16", (1, 3), [[4, 0, 4]], index_type="U32", base=0x240)
    second = dup.case("duplicate-either-lane-wins", "Lanes 0 and 2 both store at 0x244: the spec's winner is "
                      "implementation-defined, so memory is one of the two values and the events a multiset.",
                      source="hand", reference=reference)
    assert len(second["expect"]["one_of"]) == 2
    return [first, second]


def mscatter_mask_lanes_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-MSCATTER-MASK-LANES-001", "MSCATTER_MASK(0x2c0, 0, 1, 2): 1 event, "
                         "0x2c0=0x35, 0x2c1 keeps 0xbb")
    spec = Spec("MSCATTER_MASK", "U8", (1, 2), [[0, 1]], index_type="U32", base=0x2C0, mask=[[1, 0]],
                data=[[0x35, 0x46]])
    spec.initial = [(0x2C0, bytes([0xAA, 0xBB]))]
    first = spec.case("lanes-u8-one-enabled", "The spec test as a block: source [0x35, 0x46], U32 indices [0, 1], "
                      "predicate [1, 0], R1 = 0x2C0: one Store event; 0x2C0 = 0x35, 0x2C1 keeps 0xBB.",
                      source="spec-test", reference=reference)
    assert bytes.fromhex(first["expect"]["memory"][0]["bytes"].replace(" ", "")) == bytes([0x35, 0xBB])
    dup = Spec("MSCATTER_MASK", "U32", (1, 4), [[8, 8, 8, 0]], index_type="U32", base=0x2C0, mask=[[1, 0, 1, 1]])
    second = dup.case("enabled-duplicates-either-wins", "Lanes 0, 1, 2 share 0x2C8 but lane 1 is disabled: the "
                      "winner is lane 0 or lane 2, never lane 1.", source="hand", reference=reference)
    assert len(second["expect"]["one_of"]) == 2
    return [first, second]


SPECS = {  # the block of each operation's static test: its smallest working form
    "MGATHER": lambda: Spec("MGATHER", "U8", (1, 2), [[0, 1]], base=0x180),
    "MGATHER_MASK": lambda: Spec("MGATHER_MASK", "U8", (1, 2), [[0, 1]], base=0x180, mask=[[0, 1]]),
    "MGATHER_CAS": lambda: Spec("MGATHER_CAS", "U8", (1, 2), [[0, 1]], base=0x180, expected=[[0, 0]],
                                replacement=[[1, 2]]),
    "MSCATTER": lambda: Spec("MSCATTER", "U8", (1, 2), [[0, 1]], base=0x180),
    "MSCATTER_MASK": lambda: Spec("MSCATTER_MASK", "U8", (1, 2), [[1, 0]], base=0x180, mask=[[1, 1]]),
}


# ---------------------------------------------------------------------------------------
# The reference files

def spread_indices(count: int, stride: int, cols: int, start: int = 0) -> list:
    """Rows of ``count`` displacements, lane i at start + stride * (count - 1 - i) (reversed order)."""
    return rows_of([start + stride * (count - 1 - i) for i in range(count)], cols)


def type_cases(op: str) -> list:
    """Every legal transfer DataType (2x2, reversed strided lanes) and the 4-bit ones rejected."""
    out = []
    for t in LEGAL_TYPES:
        size = mem.element_bytes(t)
        extra = {}
        if op == "MGATHER_CAS":
            extra = {"expected": [[0, 0], [0, 0]], "replacement": rows_of(values_of(t, 4, 0x77), 2)}
        if "MASK" in op:
            extra["mask"] = [[1, 1], [0, 1]]
        spec = Spec(op, t, (2, 2), spread_indices(4, 2 * size, 2), base=0x300, **extra)
        if op == "MGATHER_CAS":  # lanes 0 and 3 find their expected value, 1 and 2 do not
            image = mem.Memory(spec.memory_size, spec.initial)
            old = [image.read(a, size) for _, a in spec.active]
            spec.expected = rows_of([old[0], old[1] ^ 1, old[2] ^ 1, old[3]], 2)
        out.append(spec.case(f"type-{t.lower()}", f"{t}: four lanes at base + 6s, 4s, 2s, 0 (s = {size} bytes): raw "
                             f"bytes move unchanged (signed integers narrower than the Word sign-extend on load)."))
    for t in FOUR_BIT:
        spec = Spec(op, "U8", (1, 2), [[0, 1]], base=0x300)
        spec.t = t
        out.append(legality_case(spec, f"four-bit-{t.lower()}-reserved", f"{t} as the transfer type: the block "
                                 "carries no nibble selector (IndexedTLSUTransferDataTypeLegal): Fault_TileLegality "
                                 "before any access.", tiles=_retyped(spec.tiles(), t, op)))
    return out


def _retyped(tiles, t, op) -> list:
    """The data operands of a 4-bit block in that type (so only the transfer-type rule fails)."""
    out = []
    for tile in tiles:
        if tile["index"] in [TILE_OF[op].get(r) for r in ("source", "expected", "replacement")]:
            tile = dict(tile, dtype=t, cols=tile["cols"], data=hexrows([[1, 2]]))
        out.append(tile)
    return out


def index_cases(op: str) -> list:
    """Every index DataType (the contracts list only S32/U32/S64/U64 indices; the ASL accepts
    every integer type), each with a displacement below the base where the type is signed."""
    out = []
    for index_type in ref.INTEGER:
        bits = width(index_type)
        signed = index_type in ref.SIGNED
        negative = ((1 << bits) - 4) if signed else 4  # -4 or +4
        extra = {"expected": [[0, 0, 0]], "replacement": [[0x11, 0x22, 0x33]]} if op == "MGATHER_CAS" else {}
        if "MASK" in op:
            extra["mask"] = [[1, 1, 1]]
        choice = "" if index_type in ref.CONTRACT_INDEX_TYPES else " (the contracts list only " \
            "S32/U32/S64/U64; the executable rule accepts every integer type)"
        what = "-4: the lane two U16 below the base" if signed else "+4"
        if bits == 4:
            # SPEC-CHOICE 90: lane i reads the low nibble of payload carrier i, logical element 16 * i
            # of the 1x3-of-4-columns index tile (rows 4 and 8 of column 0); the valid region's own
            # elements 1 and 2 hold decoys (6 and 4) that the logical reading would take.
            spec = Spec(op, "U16", (1, 3), [[negative, 6, 4]], index_type=index_type, base=0x208,
                        index_elements={(4, 0): 0, (8, 0): 2}, **extra)
            assert spec.lane_indices == [[negative, 0, 2]], "the carrier reading moved"
            out.append(spec.case(f"index-{index_type.lower()}", f"""{index_type} indices{choice}. SPEC-CHOICE 90:
                the executable MGATHER/MSCATTER/MGATHER_CAS read lane i's index from payload slot i, a packed
                carrier of 16 nibbles, so lane i's displacement is the low nibble of logical element 16 * i:
                elements 0, 16 and 32 (at (0,0), (4,0), (8,0)) hold [{what}, 0, 2], and the valid region's
                elements 1 and 2 (6 and 4) are not read."""))
            continue
        spec = Spec(op, "U16", (1, 3), [[negative, 0, 2]], index_type=index_type, base=0x208, **extra)
        out.append(spec.case(f"index-{index_type.lower()}", f"{index_type} indices [{what}, 0, 2]{choice}."))
    spec = Spec(op, "U16", (1, 2), [[0, 2]], base=0x208,
                **({"expected": [[0, 0]], "replacement": [[1, 2]]} if op == "MGATHER_CAS" else {}),
                **({"mask": [[1, 1]]} if "MASK" in op else {}))
    for bad in ("FP32", "BF16"):
        tiles = [dict(tile, dtype=bad) if tile["index"] == TILE_OF[op]["indices"] else tile for tile in spec.tiles()]
        out.append(legality_case(spec, f"index-{bad.lower()}-not-integer", f"A {bad} index tile: "
                                 "IndexedTLSUIndexDataTypeLegal asks an integer type (Fault_TileLegality).",
                                 tiles=tiles))
    return out


def fault_cases(op: str) -> list:
    size_extra = {"MGATHER_CAS": lambda n: {"expected": [[0] * n], "replacement": [[7] * n]}}.get(op, lambda n: {})
    mask = (lambda n: {"mask": [[1] * n]}) if "MASK" in op else (lambda n: {})

    def spec(t, indices, base, memory_size=SPEC_MEMORY, index_type="U32"):
        n = len(indices[0])
        return Spec(op, t, (1, n), indices, base=base, index_type=index_type, memory_size=memory_size,
                    **size_extra(n), **mask(n))

    return [
        spec("U32", [[0, 4, 8, 12]], 4080).case("top-of-memory-fits", "Four U32 lanes whose last ends at the last "
                                                "byte of the 4096-byte memory."),
        spec("U32", [[0, 4, 8, 12]], 4084).case("top-of-memory-page-fault-last-lane", "The last lane at 4096: "
                                                "Fault_DataPage at 0x1000, and no lane before it takes effect (no "
                                                "event, memory and tiles unchanged, nothing allocated)."),
        spec("U64", [[0, 12]], 0x100).case("alignment-fault-second-lane", "U64 lane 1 at base + 12: "
                                           "Fault_DataAlignment at 0x10C after lane 0 was fine; nothing happens."),
        spec("U32", [[8, 4098 - 0x100]], 0x100).case("alignment-before-page", "Lane 1 at 4098 is misaligned and past "
                                                     "memory: Fault_DataAlignment (checked first) at 0x1002."),
        spec("U16", [[0, (1 << 32) - 2]], 0, index_type="S32").case("address-wraps-below-zero", "Base 0 with S32 "
                                                                   "index -2: the address wraps to 2**64-2, a "
                                                                   "Fault_DataPage at 0xFFFFFFFFFFFFFFFE."),
        spec("U8", [[0, 1]], 0xFE, memory_size=256).case("memory-256-top", "A 256-byte memory: lanes at 0xFE, 0xFF.",
                                                        source="hand"),
        spec("U8", [[0, 2]], 0xFE, memory_size=256).case("memory-256-page-fault", "A 256-byte memory: lane 1 at "
                                                        "0x100 is outside it.", source="hand"),
    ]


def event_bound_cases(op: str) -> list:
    n16 = {"expected": [[0] * 4] * 4, "replacement": [[1] * 4] * 4} if op == "MGATHER_CAS" else {}
    n17 = {"expected": [[0] * 17], "replacement": [[1] * 17]} if op == "MGATHER_CAS" else {}
    if "MASK" in op:
        n16["mask"] = [[1] * 4] * 4
        n17["mask"] = [[1] * 17]
    return [
        Spec(op, "U8", (4, 4), spread_indices(16, 1, 4), base=0x400, **n16).case(
            "sixteen-events", "16 lanes record exactly the spec's bound of 16 events."),
        Spec(op, "U8", (1, 17), [list(range(17))], base=0x400, lb2=32, **n17).case(
            "seventeen-lanes-no-event-bound", "17 lanes: more than the bound of 16, so no events are expected."),
    ]


def legality_cases(op: str) -> list:
    extra = {"expected": [[0, 0]], "replacement": [[1, 2]]} if op == "MGATHER_CAS" else {}
    if "MASK" in op:
        extra["mask"] = [[1, 1]]
    spec = Spec(op, "U16", (1, 2), [[0, 2]], base=0x100, **extra)
    misaligned = Spec(op, "U16", (1, 2), [[0, 2]], base=0x101, **extra)
    lines = bindings(op, size_code(spec.capacity) if gathers(op) else None)
    out = [
        legality_case(spec, "no-ior", "B.IOR omitted: the base GPR is required (Fault_TileLegality).", ior=None),
        legality_case(spec, "ior-regsrc1-nonzero", "B.IOR R1, R2: only RegSrc0 is consumed; a nonzero RegSrc1 is "
                      "Fault_TileLegality (not BundleControl).", ior=f"B.IOR R{BASE_GPR}, R2"),
        legality_case(spec, "lb0-missing", "LB0 (ValidCol) is required.", dims={}),
        legality_case(spec, "lb1-zero", "An encoded LB1 = 0 is illegal.", dims={"LB0": 2, "LB1": 0}),
        legality_case(spec, "col-not-power-of-two", "LB2 = 3: physical Col must be a power of two.",
                      dims={"LB0": 2, "LB2": 3}),
        legality_case(spec, "valid-wider-than-col", "LB0 = 2 with LB2 = 1.", dims={"LB0": 2, "LB2": 1}),
        legality_case(spec, "shape-mismatch", "LB0 = 1 while the operands are 1x2.", dims={"LB0": 1}),
        legality_case(spec, "datr-datatype", "B.DATR DataType U16: only PadValue and Layout apply.",
                      datr="B.DATR U16, NORM, Zero"),
        legality_case(misaligned, "legality-before-alignment", "LB0 missing and a misaligned base: the block rule "
                      "faults first.", dims={}),
        legality_case(spec, "unterminated-stream", "The last B.IOT without <last>.",
                      lines=lines[:-1] + [lines[-1].replace(", <last>", "")]),
    ]
    shared = legality_case(spec, "shared-binding", "A B.IOS binding (the raw word 0x00501E13: S5, mask 1111) before "
                           "the B.IOT: the indexed forms take Local bindings only (Fault_TileLegality).",
                           lines=["@IOS@"] + lines)
    shared["program"] = Flow([Hex(0x00501E13) if line == "@IOS@" else line for line in str(shared["program"]).splitlines()])
    out.append(shared)
    undefined = [dict(t, defined="none") if t["index"] == TILE_OF[op]["indices"] else t for t in spec.tiles()]
    out.append(legality_case(spec, "indices-not-defined", "The index tile's elements undefined: TileSourceContentsDefined "
                             "(Fault_TileLegality).", tiles=undefined))
    out.append(case("mask-zero-no-effect", "PE mask 0000 on every binding: a strict no-op before any check, even "
                    "with B.IOR missing and a misaligned base.", BOTH, "hand", BLOCK_REFERENCE[op],
                    misaligned.state(), misaligned.program(ior=None, mask="0000"),
                    {"fault": None, "flags": Hex(0), "allocated": Flow(sorted(TILE_OF[op].values())),
                     "unchanged": "all", "memory_unchanged": True, "events": Flow([])}))
    if gathers(op):
        out.append(legality_case(spec, "destination-too-small", "LB1 = 128 rows of 2 U16 need 512 bytes: TSize 128 "
                                 "cannot hold them (Fault_TileAllocation after the operand rules).",
                                 "Fault_TileAllocation", tiles=_tall(spec, 128), dims={"LB0": 2, "LB1": 128}))
    else:
        out.append(legality_case(spec, "pad-value-not-applicable", "B.DATR PadValue Null (a nonzero code) on a "
                                 "scatter: only Layout applies.", datr="B.DATR NONE, NORM, Null"))
        source = [dict(t, dtype="S16") if t["index"] == TILE_OF[op]["source"] else t for t in spec.tiles()]
        out.append(legality_case(spec, "source-type-differs", "An S16 source in a U16 block: the source must be of "
                                 "the BSTART type.", tiles=source))
        wide = [dict(t, cols=4) if t["index"] == TILE_OF[op]["source"] else t for t in spec.tiles()]
        out.append(legality_case(spec, "source-cols-differ-from-lb2", "A source of 4 physical columns where the "
                                 "block's Col is 2.", tiles=wide))
    if op == "MGATHER_CAS":
        rep = [dict(t, dtype="S16") if t["index"] == TILE_OF[op]["replacement"] else t for t in spec.tiles()]
        out.append(legality_case(spec, "replacement-type-differs", "An S16 replacement tile in a U16 block.",
                                 tiles=rep))
    if "MASK" in op:
        numeric = [engine.tile(TILE_OF[op]["mask"], "U8", 128, 2, [1, 2], [[1, 1]]) if t["index"] == TILE_OF[op]["mask"]
                   else t for t in spec.tiles()]
        out.append(legality_case(spec, "mask-not-predicate", "A numeric U8 tile as the mask: TilePredicateValuesLegal "
                                 "asks a predicate tile.", tiles=numeric))
    if op in ("MGATHER_MASK", "MSCATTER", "MSCATTER_MASK"):
        column = [dict(t, layout="ColumnMajor", cols=t["cols"]) if t["index"] == TILE_OF[op]["indices"] else t
                  for t in spec.tiles()]
        out.append(legality_case(spec, "index-layout-differs", "A ColumnMajor index tile in a NORM (RowMajor) block: "
                                 "the operands must be in the block's layout.", tiles=column))
    return out


def _tall(spec: Spec, rows: int) -> list:
    """``spec``'s operand tiles reshaped to ``rows`` x 2 (the destination then overflows)."""
    out = []
    for tile in spec.tiles():
        if tile.get("storage_kind") == "predicate":
            tile = predicate_tile(tile["index"], [[1, 1]] * rows, (rows, 2))
        else:
            t = tile["dtype"]
            cols, capacity, _ = smallest_tile(t, (rows, 2))
            values = [[(2 * r + c) * 2 if tile["index"] == TILE_OF[spec.op]["indices"] else 1 for c in range(2)]
                      for r in range(rows)]
            tile = engine.tile(tile["index"], t, capacity, cols, [rows, 2], values)
        out.append(tile)
    return out


def gather_extra_cases(op: str) -> list:
    """Pads, duplicates that read the same element, ND2DN."""
    out = []
    extra = {"expected": [[0, 0, 0, 0]], "replacement": [[1, 2, 3, 4]]} if op == "MGATHER_CAS" else {}
    if "MASK" in op:
        extra["mask"] = [[1, 0, 1, 1]]
    for pad in ("Zero", "Max", "Min"):
        out.append(Spec(op, "S16", (1, 4), [[6, 4, 2, 0]], base=0x200, pad=pad, **extra).case(
            f"pad-{pad.lower()}", f"PadValue {pad} fills every physical element outside the valid region"
            + (" and every disabled lane" if "MASK" in op else "") + "; S16 lanes sign-extend."))
    if op != "MGATHER_CAS":
        out.append(Spec(op, "U32", (1, 4), [[4, 4, 0, 4]], base=0x200, **extra).case(
            "duplicate-lanes-read-the-same", "Three lanes at base + 4 load the same U32 (a gather's duplicates "
            "are legal and read alike)."))
    return out


def mask_cases(op: str) -> list:
    t = "U16"
    out = []
    for name, bits, what in (("all-disabled", [[0, 0, 0, 0]], "no lane accesses memory (no event)"),
                             ("alternate", [[0, 1, 0, 1]], "lanes 1 and 3 only"),
                             ("all-enabled", [[1, 1, 1, 1]], "every lane")):
        out.append(Spec(op, t, (1, 4), [[0, 2, 4, 6]], base=0x200, mask=bits, pad="Max" if gathers(op) else None)
                   .case(f"mask-{name}", f"Predicate {bits[0]}: {what}."))
    inverted = Spec(op, t, (2, 2), [[0, 2], [0x7FFF, 6]], base=0x200, mask=[[1, 1], [0, 1]],
                    pad="Min" if gathers(op) else None)
    out.append(inverted.case("mask-disabled-faulting-lane", "Lane (1,0) is disabled and its address is misaligned: "
                             "only enabled lanes are probed, so no fault."))
    return out


def scatter_extra_cases(op: str) -> list:
    mask = {"mask": [[1, 1, 1, 1]]} if "MASK" in op else {}
    mask3 = {"mask": [[1, 1, 1]]} if "MASK" in op else {}
    masked = [Spec(op, "U32", (1, 3), [[8, 0, 8]], base=0x200, mask=[[1, 1, 0]]).case(
        "duplicate-last-lane-disabled", "Lanes 0 and 2 share 0x208 but lane 2 is disabled: lane 0's value must "
        "land there (the only enabled lane), whatever the lane order.")] if "MASK" in op else []
    return masked + [
        Spec(op, "U32", (1, 4), [[0, 0, 8, 0]], base=0x200, **mask).case(
            "duplicates-three-lanes", "Lanes 0, 1 and 3 all store at 0x200: any one of them may hold it "
            "(three outcomes); lane 2's 0x208 is fixed."),
        Spec(op, "U64", (1, 3), [[0, 8, 0]], base=0x200, **mask3).case(
            "duplicates-u64", "Two U64 lanes at 0x200, one at 0x208."),
        Spec(op, "S8", (1, 3), [[2, 1, 0]], base=0x200, data=[[0x80, 0xFF, 0x7F]], **mask3).case(
            "s8-low-byte-only", "S8 elements store one byte each (the low byte of the Word)."),
    ]


def cas_extra_cases() -> list:
    out = []
    three = Spec("MGATHER_CAS", "U32", (1, 3), [[0, 0, 0]], index_type="U32", base=0x200,
                 expected=[[0, 1, 2]], replacement=[[1, 2, 3]])
    three.initial = [(0x1FE, bytes([0xEE, 0xEE]) + (0).to_bytes(4, "little") + bytes([0xEE, 0xEE]))]
    out.append(three.case("three-lanes-one-address", "Three lanes at 0x200 (holding 0), expecting 0, 1, 2 and "
                          "storing 1, 2, 3: only the row-major order counts up to 3; every one of the six orders is "
                          "allowed and listed.", source="hand"))
    signed = Spec("MGATHER_CAS", "S16", (1, 2), [[0, 2]], index_type="U32", base=0x200, expected=[[0xFFFFFFFFFFFF8001, 5]],
                  replacement=[[0x1234, 6]])
    signed.initial = [(0x200, bytes([0x01, 0x80, 0x07, 0x00]))]
    out.append(signed.case("s16-compare-low-bytes", "S16: lane 0 expects the Word 0xFFFF...8001, whose low two bytes "
                           "0x8001 equal memory: it stores 0x1234 and observes -32767 sign-extended; lane 1 expects "
                           "5, finds 7, keeps it.", source="hand"))
    high = Spec("MGATHER_CAS", "U16", (1, 1), [[0]], index_type="U32", base=0x200, expected=[[0x10007]],
                replacement=[[0x20009]])
    high.initial = [(0x200, bytes([0x07, 0x00]))]
    out.append(high.case("u16-expected-high-bits-ignored", "Expected Word 0x10007: only its low 16 bits (7) are "
                         "compared (NormalizeMemoryAccessValue), so the swap happens and stores 9.", source="hand"))
    return out


def x_cases(op: str) -> list:
    cases = type_cases(op) + index_cases(op) + fault_cases(op) + event_bound_cases(op) + legality_cases(op)
    if gathers(op):
        cases += gather_extra_cases(op)
    if "MASK" in op:
        cases += mask_cases(op)
    if op in ("MSCATTER", "MSCATTER_MASK"):
        cases += scatter_extra_cases(op)
    if op == "MGATHER_CAS":
        cases += cas_extra_cases()
    return cases


# ---------------------------------------------------------------------------------------
# Files

def referenced(cases: list, reference: str) -> list:
    for item in cases:
        if not item["reference"]:
            item["reference"] = reference
    return cases


SPEC_POINTS = {"PTO-AVS-TILE-MGATHER-BYTES-001": mgather_bytes_cases,
               "PTO-AVS-TILE-MGATHER-MASK-LANES-001": mgather_mask_lanes_cases,
               "PTO-AVS-TILE-MGATHER-CAS-RMW-001": mgather_cas_rmw_cases,
               "PTO-AVS-TILE-MSCATTER-BYTES-001": mscatter_bytes_cases,
               "PTO-AVS-TILE-MSCATTER-MASK-LANES-001": mscatter_mask_lanes_cases}


def spec_cases(op: str, test_id: str) -> list:
    cases = static_cases(op, test_id) if test_id.endswith("-STATIC-001") else SPEC_POINTS[test_id]()
    return referenced(cases, REFERENCE)


def x_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op.replace('_', '-')}-REF-001", "operation": op,
            "kind": "execution",
            "summary": f"{op}: every DataType and index DataType, byte displacements, alignment and page faults with "
                       "their address, the precise preflight, masks, duplicates, the events and the block rules",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": (f"Expected memory, tiles and events from the independent reference {REFERENCE} (no code "
                           f"shared with device_model), written by `{COMMAND}`. Nothing here was produced by running "
                           "the golden model."),
            "cases": referenced(x_cases(op), REFERENCE)}


PROVENANCE = engine.spec_provenance("vectors/reference/gather_scatter.py", COMMAND)


def files(operations) -> dict:
    out = {}
    for op in operations:
        for test_id in UNITS[op]["tests"]:
            doc = engine.spec_file(op, test_id, PROVENANCE, spec_cases(op, test_id))
            out[f"{test_id}.yaml"] = engine.render_spec_id(doc, "generate_gather_scatter.py")
        out[f"PTO-AVS-X-{op.replace('_', '-')}-REF-001.yaml"] = engine.render_spec_id(x_file(op),
                                                                                     "generate_gather_scatter.py")
    return out


FAMILY = engine.Family("generate_gather_scatter", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op.replace('_', '-')}-*.yaml" for op in OPERATIONS
                                  for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
