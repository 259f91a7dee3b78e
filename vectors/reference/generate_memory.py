"""Write the vectors of TLOAD, TSTORE and TPREFETCH (the regular TLSU memory family).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TLOAD TSTORE TPREFETCH
    .venv/bin/python -m pto_avs.vectors.reference.generate_memory [--out DIR] [--check]  (the same)

- one file per spec test ID (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``): the spec test point as a
  block (its memory, tile and values, ``source: spec-test``), then the same facts through the
  other forms (B.IOR omitted, the events it records; ``source: hand``);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): every DataType
  (the 4-bit ones included), strides (dense default, explicit, zero, wide), alignment and page
  faults with their address (at the top of a 4096-byte memory, of 256 and 65536 bytes, and an
  address that wraps), the fault order (alignment before page, legality before memory), the
  precise preflight (a fault leaves memory, the event log and the tiles as they were), the
  events (at most the spec's 16), the per-PE GPR files of TPREFETCH, the binding schema and
  the B.DATR rules.

Expected memory, tiles and events come from the independent reference
``vectors/reference/memory.py`` (no device_model code); the spec tests' own values are checked
against it here. Nothing here runs the golden model.
"""
from __future__ import annotations

import sys

from . import engine, kernels
from . import memory as ref
from .engine import UNITS, Block, Flow, FlowMap, Hex, case, hexrows, size_code, smallest_tile, spec_ref, width

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_memory"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("TLOAD", "TSTORE", "TPREFETCH")
REFERENCE = ("vectors/reference/memory.py (ProbeDataAccess, TileMemoryStridedByteAddress, TLOAD, TSTORE and "
             "TPREFETCHCore, one access at a time, from the ASL)")
SPEC_MEMORY = 4096  # PTO_MODEL_MEMORY_BYTES of the spec build (config default)
BASE_GPR, STRIDE_GPR = 1, 2
EVENT_LIMIT = 16
GUARD = 4  # bytes on each side of a stored span that must stay as they were


def pattern(count: int, t: str, seed: int = 0x35) -> list:
    """``count`` distinct element values of ``t`` (element bits), every byte of each nonzero."""
    bits = width(t)
    out = []
    for i in range(count):
        value = 0
        for byte in range(max(1, bits // 8)):
            value |= ((seed + 29 * i + 7 * byte) % 250 + 3) << (8 * byte)
        out.append(value & ((1 << bits) - 1) if bits == 4 else value)
    if bits == 4:
        out = [(seed + 5 * i) % 15 + 1 for i in range(count)]
    return out


def rows_of_values(values, cols):
    return [values[i:i + cols] for i in range(0, len(values), cols)]


def memory_state(size: int, regions) -> dict:
    state = {"size": size}
    if regions:
        state["regions"] = [FlowMap(address=Hex(a), bytes=bytes(d).hex(" ")) for a, d in regions]
    return state


def region(address: int, data: bytes) -> FlowMap:
    return FlowMap(address=Hex(address), bytes=bytes(data).hex(" "))


def event_list(events) -> list:
    out = []
    for e in events:
        entry = {"kind": e["kind"], "agent": e["agent"], "address": Hex(e["address"]), "size": e["size"]}
        if e["kind"] == "Load":
            entry["read"] = Hex(e["read"])
        else:
            entry["write"] = Hex(e["write"])
        entry["order"] = e["order"]
        out.append(FlowMap(entry))
    return out


def block(bstart: str, dims: dict, ior: str | None, bindings=(), datr: str | None = None) -> str:
    lines = [bstart] + ([datr] if datr else [])
    lines += [f"B.DIM {k}={v}" for k, v in dims.items() if v is not None]
    if ior:
        lines.append(ior)
    lines += list(bindings)
    lines.append("BSTOP")
    return "\n".join(lines)


def state_of(size, regions, gprs=None, tiles=None, pe_gprs=None) -> dict:
    state = {"tiles": tiles or Flow([])}
    if gprs:
        state["gprs"] = FlowMap({k: Hex(v) for k, v in gprs.items()})
    if pe_gprs:
        state["pe_gprs"] = {pe: FlowMap({k: Hex(v) for k, v in regs.items()}) for pe, regs in pe_gprs.items()}
    state["memory"] = memory_state(size, regions)
    return state


def fault_expect(fault, address, allocated, events=True) -> dict:
    expect = {"fault": fault}
    if address is not None:
        expect["fault_address"] = Hex(address)
    expect.update({"flags": Hex(0), "allocated": Flow(allocated), "unchanged": "all", "memory_unchanged": True})
    if events:
        expect["events"] = Flow([])
    return expect


def scalar_inputs(base: int, stride, dense: int, explicit: bool, zero_stride: bool, ior=None) -> tuple:
    """(base, stride, gprs, B.IOR line) of a TLOAD/TSTORE block: ``explicit``: R1 holds the base and R2
    the stride (None: ``dense``); ``zero_stride``: R1 and an encoded zero stride; neither: no B.IOR,
    base 0 and the dense stride (the omission defaults). ``ior`` replaces the line."""
    if not explicit:
        base, stride = 0, dense
    stride = 0 if zero_stride else (dense if stride is None else stride)
    gprs = {BASE_GPR: base} if zero_stride else ({BASE_GPR: base, STRIDE_GPR: stride} if explicit else None)
    line = ior if ior is not None else (
        f"B.IOR R{BASE_GPR}, zero" if zero_stride else (f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}" if explicit else None))
    return base, stride, gprs, line


def transfer_case(name, description, profiles, source, reference, state, program, fault, allocated, outcome) -> dict:
    """One memory-transfer case: the reference's first faulting access ``fault`` gives the precise
    fault over the ``allocated`` state tiles; else ``outcome()`` gives (expect, image) and the image's
    events are expected when they are within the spec's bound."""
    if fault:
        return case(name, description, profiles, source, reference, state, program, fault_expect(*fault, allocated))
    expect, image = outcome()
    if len(image.events) <= EVENT_LIMIT:
        expect["events"] = event_list(image.events)
    return case(name, description, profiles, source, reference, state, program, expect)


# ---------------------------------------------------------------------------------------
# TLOAD

def load_case(name, description, t, valid, *, cols=None, base=0x100, stride=None, explicit=True, size=SPEC_MEMORY,
              regions=None, profiles=BOTH, source="reference-generator", reference="", datr=None, ior=None,
              capacity=None, layout="RowMajor", zero_stride=False, effective=None):
    """A TLOAD block over ``valid`` (``cols`` physical columns); ``explicit``: B.IOR names the
    base and stride GPRs (``stride`` None: the dense stride), else both come from the omission
    defaults. The memory holds ``regions`` (default: the pattern at the footprint). ``effective``:
    the destination's type when it is not the BSTART type ``t`` (SPEC-CHOICE 60: a B.DATR
    DataType code 0 is FP64); the dense stride stays the BSTART type's."""
    bstart_type, t = t, effective or t
    cols, capacity, rows = smallest_tile(t, valid, cols, capacity)
    base, stride, gprs, ior_line = scalar_inputs(base, stride, ref.dense_stride(cols, bstart_type), explicit,
                                                 zero_stride, ior)
    accesses = ref.strided_accesses(base, stride, valid[0], valid[1], t)
    values = pattern(valid[0] * valid[1], t)
    if regions is None:
        regions = _regions_holding(accesses, t, values, size)
    dims = {"LB0": valid[1], "LB1": valid[0], "LB2": cols if cols != valid[1] else None}
    program = block(f"BSTART.TLOAD {bstart_type}", dims, ior_line,
                    [f"B.IOT mask=1111, <last>, ->T<{size_code(capacity)}>"], datr)
    state = state_of(size, regions, gprs)

    def outcome():
        image = ref.Memory(size, regions)
        grid = rows_of_values(image.tload(t, accesses), valid[1])
        mask = (1 << width(t)) - 1
        tile = {"index": 0, "dtype": t, "layout": layout, "location": "Any", "rows": rows, "cols": cols,
                "valid": Flow(list(valid)), "capacity": capacity, "mask": "1111",
                "data": hexrows([[w & mask for w in row] for row in grid]), "words": hexrows(grid)}
        if valid[0] * valid[1] < rows * cols:
            tile["padding"] = FlowMap(defined=False)
        return {"fault": None, "flags": Hex(0), "allocated": Flow([0]), "tiles": [tile], "memory_unchanged": True}, image
    return transfer_case(name, description, profiles, source, reference, state, program,
                         ref.probe((a for a, _ in accesses), ref.element_bytes(t), size), [], outcome)


def _regions_holding(accesses, t, values, size):
    """Memory regions that put ``values`` at the accesses (nibbles packed into their bytes),
    merged into contiguous runs, each inside ``size``."""
    image = {}
    for (address, high), value in zip(accesses, values):
        if address + ref.element_bytes(t) > size:
            continue
        if width(t) == 4:
            old = image.get(address, 0)
            image[address] = (old & 0x0F) | (value << 4) if high else (old & 0xF0) | value
        else:
            for k, byte in enumerate(value.to_bytes(ref.element_bytes(t), "little")):
                image[address + k] = byte
    runs, start, data = [], None, bytearray()
    for address in sorted(image):
        if start is not None and address == start + len(data):
            data.append(image[address])
        else:
            if start is not None:
                runs.append((start, bytes(data)))
            start, data = address, bytearray([image[address]])
    if start is not None:
        runs.append((start, bytes(data)))
    return runs


def tload_direct_cases() -> list:
    """PTO-AVS-TILE-TLOAD-DIRECT-001: four U64 values at 0x200, 0x208, 0x220, 0x228 (Store),
    TLOAD base 0x200 stride 32 into a 2x2 U64 tile of 256 bytes."""
    values = {0x200: 1, 0x208: 2, 0x220: 3, 0x228: 4}
    regions = [(a, v.to_bytes(8, "little")) for a, v in values.items()]
    reference = spec_ref("PTO-AVS-TILE-TLOAD-DIRECT-001",
                         "TLOAD(4, 0x200, 32) reads 1, 2 / 3, 4 and the tile becomes contents_defined")
    spec = load_case("direct-u64-2x2-stride-32", "The spec test's 2x2 U64 load at base 0x200 with a 32-byte row "
                     "stride, as a BSTART.TLOAD block (B.IOR R1=0x200, R2=32).", "U64", (2, 2), base=0x200, stride=32,
                     regions=regions, capacity=256, source="spec-test", reference=reference)
    assert [v["words"] for v in spec["expect"]["tiles"]] == [hexrows([[1, 2], [3, 4]])], "reference disagrees"
    dense = load_case("direct-u64-dense-default", "B.IOR omitted: base 0 and the dense stride of two U64 columns "
                      "(16 bytes).", "U64", (2, 2), explicit=False, capacity=256, source="hand",
                      reference=spec_ref("PTO-AVS-TILE-TLOAD-DIRECT-001", "TileBundleInstructionOperands: omitted "
                                         "B.IOR gives base zero and TileDenseRowStrideBytes"))
    return [spec, dense]


def static_cases(op: str, test_id: str) -> list:
    """The static contract test: BSTART.<op> decodes to TLSU Function 0/1/3 and runs as a block."""
    word = {"TLOAD": 0x00011181, "TSTORE": 0x00111181, "TPREFETCH": 0x00311181}[op] | engine.dtype_code("U8") << 27
    what = {"TLOAD": "DecodeTileOperation(TLSU, 0) == TLOAD", "TSTORE": "DecodeTileOperation(TLSU, 1) == TSTORE",
            "TPREFETCH": "DecodeTileOperation(TLSU, 3) == TPREFETCH"}[op]
    reference = spec_ref(test_id, what)
    if op == "TLOAD":
        built = load_case("bstart-tload-u8", "BSTART.TLOAD U8 opens a TLOAD block (TLSU Function 0).", "U8", (1, 2),
                          source="spec-test", reference=reference)
    elif op == "TSTORE":
        built = store_case("bstart-tstore-u8", "BSTART.TSTORE U8 opens a TSTORE block (TLSU Function 1).", "U8",
                           (1, 2), source="spec-test", reference=reference)
    else:
        built = prefetch_case("bstart-tprefetch-u8", "BSTART.TPREFETCH U8 opens a TPREFETCH block (TLSU Function 3).",
                              "U8", (1, 2), source="spec-test", reference=reference)
    built["expect"]["encoding"] = Flow([Hex(word)] + _encoding_tail(built["program"]))
    return [built]


def _encoding_tail(program) -> list:
    """The words of the program lines after BSTART, packed by hand (B.DIM, B.IOR, B.IOT, BSTOP)."""
    words = []
    for line in str(program).splitlines()[1:]:
        words.append(Hex(_word_of(line.strip())))
    return words


def _word_of(line: str) -> int:
    """B.DIM LBn=imm (RegSrc zero), B.IOR Ra, Rb, the B.IOT forms used here, BSTOP (forms.py layouts)."""
    if line == "BSTOP":
        return 0x00000001
    if line.startswith("B.DIM"):
        lb, imm = line[6:].split("=")
        match = {"LB0": 0x00000043, "LB1": 0x00001043, "LB2": 0x00002043}[lb]
        imm = int(imm)
        return match | (imm & 0xFFF) << 20 | (imm >> 12 & 0x1F) << 7
    if line.startswith("B.IOR"):
        regs = [r.strip() for r in line[6:].split(",")]
        number = [0 if r == "zero" else int(r[1:]) for r in regs]
        return 0x00000013 | number[0] << 15 | number[1] << 20
    if line.startswith("B.IOT mask=1111, <last>, ->T<"):  # B.IOT.D: L=19, SizeCode=15:4, PEMode 7 (1111)=9:3
        code = int(line.split("<")[-1].rstrip(">"))
        return 0x00006013 | 1 << 19 | code << 15 | 7 << 9
    if line.startswith("B.IOT T"):  # B.IOT.S: SrcTile0=20:6, L=19, PEMode=9:3
        src = int(line[7:].split(",")[0])
        return 0x00005013 | src << 20 | 1 << 19 | 7 << 9
    raise AssertionError(line)


def tload_x_cases() -> list:
    cases = []
    for t in engine.DATA_TYPES:
        valid = (2, 5) if width(t) == 4 else (2, 3)
        cols = 8 if width(t) == 4 else 4
        stride = ref.dense_stride(cols, t) + (3 if width(t) == 4 else 2 * ref.element_bytes(t))
        cases.append(load_case(f"type-{t.lower()}", f"{t}: a {valid[0]}x{valid[1]} rectangle at 0x100 with a row "
                               f"stride of {stride} bytes (wider than the row); signed integers sign-extend, "
                               "4-bit elements take the nibble of their column's parity.", t, valid, cols=cols,
                               stride=stride))
    cases += [
        load_case("dense-default-from-lb2", "B.IOR omitted: base 0 and the dense stride of LB2=8 U16 columns "
                  "(16 bytes) for a 3x3 region.", "U16", (3, 3), cols=8, explicit=False),
        load_case("zero-stride-aliases-rows", "B.IOR R1, zero: an encoded zero stride reads every row from the "
                  "same bytes.", "U32", (3, 2), zero_stride=True),
        load_case("sixteen-events", "A 4x4 U8 load records exactly the spec's bound of 16 Load events.", "U8",
                  (4, 4), stride=16),
        load_case("wide-no-event-bound", "An 8x8 U16 load (64 accesses: more than the event bound, so no events "
                  "are expected).", "U16", (8, 8), stride=32),
        load_case("top-of-memory-fits", "A U32 row whose last element ends at the last byte of the 4096-byte "
                  "memory (4092..4095).", "U32", (1, 4), base=4080),
        load_case("top-of-memory-page-fault", "The same row from 4084: the fourth element at 4096 is a "
                  "Fault_DataPage naming 0x1000; nothing is allocated or recorded.", "U32", (1, 4), base=4084),
        load_case("alignment-fault-first-element", "U16 at an odd base: Fault_DataAlignment at the base.", "U16",
                  (1, 2), base=0x101),
        load_case("alignment-fault-second-row", "U32 with a 6-byte stride: row 1 starts at base+6, misaligned.",
                  "U32", (2, 1), stride=6),
        load_case("alignment-before-page", "Row 1 at 4098 is both misaligned and past the memory: the "
                  "alignment check comes first (Fault_DataAlignment at 0x1002).", "U32", (2, 2), base=4088,
                  stride=10),
        load_case("address-wraps", "A base of 2**64-8: the U64 access wraps and ends past the memory "
                  "(Fault_DataPage at 0xFFFFFFFFFFFFFFF8).", "U64", (1, 1), base=(1 << 64) - 8),
        load_case("four-bit-odd-base-nibbles", "U4X2 from an odd byte base: five nibbles in three bytes, "
                  "low nibble first.", "U4X2", (1, 5), cols=8, base=0x101),
        load_case("memory-256-top", "A 256-byte memory: a U64 pair ending at its last byte.", "U64", (1, 2),
                  base=0xF0, size=256, source="hand", profiles=BOTH),
        load_case("memory-256-page-fault", "A 256-byte memory: the second U64 at 0x100 is outside it.", "U64",
                  (1, 2), base=0xF8, size=256, source="hand"),
        load_case("memory-65536-top", "A 65536-byte memory: a U16 pair at 0xFFFC..0xFFFF.", "U16", (1, 2),
                  base=0xFFFC, size=65536, source="hand"),
        load_case("layout-nd2dn-column-major-fp64", "BSTART.TLOAD U32 with B.DATR ND2DN (DataType field 0, the only "
                  "value TLOAD allows): the destination is ColumnMajor and of the effective type FP64 (SPEC-CHOICE "
                  "60), so logical (row, col) reads 8 bytes at base + row * stride + col * 8.", "U32", (16, 2),
                  cols=8, stride=32, datr="B.DATR NONE, ND2DN, Zero", layout="ColumnMajor", effective="FP64"),
    ]
    cases += tload_legality() + cube_cases()
    return cases


def tload_legality() -> list:
    regions = [(0x100, bytes(range(1, 9)))]
    state = state_of(SPEC_MEMORY, regions, {BASE_GPR: 0x100, STRIDE_GPR: 8})
    misaligned = state_of(SPEC_MEMORY, regions, {BASE_GPR: 0x101, STRIDE_GPR: 8})
    dest = "B.IOT mask=1111, <last>, ->T<1>"
    ior = f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}"
    out = []
    for name, description, program, fault, st in (
        ("pad-null-is-tile-legality", "B.DATR with PadValue Null on an ordinary TLOAD: the pad union stays zero "
         "(Fault_TileLegality), before any memory access.",
         block("BSTART.TLOAD U8", {"LB0": 2}, ior, [dest], "B.DATR NONE, NORM, Null"), "Fault_TileLegality", state),
        ("legality-before-alignment", "PadValue Null and a misaligned base: the B.DATR rule faults first.",
         block("BSTART.TLOAD U16", {"LB0": 2}, ior, [dest], "B.DATR NONE, NORM, Null"), "Fault_TileLegality",
         misaligned),
        ("datr-datatype-is-tile-legality", "B.DATR DataType U16 on TLOAD: DataType is not applicable.",
         block("BSTART.TLOAD U8", {"LB0": 2}, ior, [dest], "B.DATR U16, NORM, Zero"), "Fault_TileLegality", state),
        ("ior-regsrc2-is-bundle-control", "B.IOR R1, R2, R3: TLOAD consumes two inputs; a third is a surplus "
         "field (Fault_BundleControl).", block("BSTART.TLOAD U8", {"LB0": 2}, f"{ior}, R3", [dest]),
         "Fault_BundleControl", state),
        ("no-destination-is-bundle-control", "A TLOAD block with no destination B.IOT.",
         block("BSTART.TLOAD U8", {"LB0": 2}, ior, []), "Fault_BundleControl", state),
        ("shape-overflow-is-tile-allocation", "LB0=200 U8 columns do not fit a 128-byte destination.",
         block("BSTART.TLOAD U8", {"LB0": 200}, ior, [dest]), "Fault_TileAllocation", state),
    ):
        out.append(case(name, description, BOTH, "hand", "asl/block/model/dispatch/tile-execution.asl: the Local "
                        "block order (bindings, B.IOR, B.DATR, destination) before TLOAD's preflight",
                        st, program, fault_expect(fault, None, [])))
    zero_mask = block("BSTART.TLOAD U8", {"LB0": 2}, ior, ["B.IOT mask=0000, <last>, ->T<1>"])
    out.append(case("mask-zero-no-effect", "PE mask 0000: a strict no-op (no allocation, no access, no event) "
                    "even with a misaligned base.", BOTH, "hand",
                    "asl/tile/memory-and-data-movement/regular/TLOAD.asl: PE_MASK=0000 is a strict no-op",
                    misaligned, zero_mask, {"fault": None, "flags": Hex(0), "allocated": Flow([]),
                                            "memory_unchanged": True, "events": Flow([])}))
    return out


# ---------------------------------------------------------------------------------------
# TSTORE

def store_case(name, description, t, valid, *, cols=None, base=0x100, stride=None, explicit=True, size=SPEC_MEMORY,
               fill=0xEE, profiles=BOTH, source="reference-generator", reference="", capacity=None, index=0,
               zero_stride=False, values=None, initial=None, dims=None, ior=None, extra_regions=()):
    """A TSTORE block of source tile ``index`` (``valid`` in ``cols`` columns, the pattern or
    ``values``) to memory pre-filled with ``fill`` around the footprint."""
    cols, capacity, rows = smallest_tile(t, valid, cols, capacity)
    base, stride, gprs, ior_line = scalar_inputs(base, stride, ref.dense_stride(dims.get("LB2", cols) if dims else cols, t),
                                                 explicit, zero_stride, ior)
    values = values or pattern(valid[0] * valid[1], t, 0x51)
    accesses = ref.strided_accesses(base, stride, valid[0], valid[1], t)
    size_bytes = ref.element_bytes(t)
    inside = [a for a, _ in accesses if a + size_bytes <= size]
    if initial is None:
        if inside:
            low = max(0, min(inside) - GUARD)
            high = min(size, max(inside) + size_bytes + GUARD)
            initial = [(low, bytes([fill]) * (high - low))]
        else:
            initial = []
    initial = list(initial) + list(extra_regions)
    tile = engine.tile(index, t, capacity, cols, list(valid), rows_of_values(values, valid[1]))
    program = block(f"BSTART.TSTORE {t}", dims or {}, ior_line, [f"B.IOT T{index}, mask=1111, <last>"])
    state = state_of(size, initial, gprs, [tile])

    def outcome():
        image = ref.Memory(size, initial)
        image.tstore(t, accesses, values)
        touched = sorted({a for a, _ in accesses})
        low, high = max(0, touched[0] - GUARD), min(size, touched[-1] + size_bytes + GUARD)
        return {"fault": None, "flags": Hex(0), "allocated": Flow([index]), "unchanged": "all",
                "memory": [region(low, image.bytes[low:high])]}, image
    return transfer_case(name, description, profiles, source, reference, state, program,
                         ref.probe((a for a, _ in accesses), size_bytes, size), [index], outcome)


def tstore_direct_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-TSTORE-DIRECT-001", "TSTORE(0x300, DenseStride(4, U64), 4) writes 1, 2 at "
                         "0x300, 0x308 and 3, 4 at 0x320, 0x328; tile 4 keeps its descriptor and payload")
    spec = store_case("direct-u64-2x2-stride-32", "The spec test's 2x2 U64 source (tile 4, 256 bytes) stored at "
                      "0x300 with the stride InstructionContractDenseStride_TSTORE(4, U64) = 32.", "U64", (2, 2),
                      base=0x300, stride=ref.dense_stride(4, "U64"), capacity=256, index=4, values=[1, 2, 3, 4],
                      fill=0, source="spec-test", reference=reference)
    stored = bytes.fromhex(spec["expect"]["memory"][0]["bytes"].replace(" ", ""))
    assert stored[GUARD:GUARD + 16] == (1).to_bytes(8, "little") + (2).to_bytes(8, "little"), "reference disagrees"
    dense = store_case("direct-u64-dense-default", "B.IOR omitted: base 0 and the dense stride of the source's two "
                       "columns (16 bytes): the rows land back to back.", "U64", (2, 2), explicit=False, capacity=256,
                       index=4, values=[1, 2, 3, 4], fill=0, source="hand",
                       reference=spec_ref("PTO-AVS-TILE-TSTORE-DIRECT-001", "omitted B.IOR: the dense stride of "
                                          "BundleDestinationPhysicalColumns(source)"))
    return [spec, dense]


def tstore_precise_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-TSTORE-PRECISE-001", "TSTORE(4088, 1, 5) faults Fault_DataPage with zero "
                         "memory events; 4088 keeps 9 and tile 5 keeps 21, 22")
    spec = store_case("precise-second-element-page", "The spec test: a 1x2 U64 tile (21, 22) stored at 4088: the "
                      "second element at 4096 is outside the 4096-byte memory; nothing is written, no event is "
                      "recorded, 4088 keeps its 9.", "U64", (1, 2), base=4088, stride=1, index=5, values=[21, 22],
                      initial=[(4088, (9).to_bytes(8, "little"))], source="spec-test", reference=reference)
    assert spec["expect"]["fault"] == "Fault_DataPage" and int(spec["expect"]["fault_address"]) == 4096
    first_row_ok = store_case("precise-last-row-page", "A 3x2 U32 store whose last row crosses the top of memory: "
                              "rows 0 and 1 would fit, but nothing is written (the whole footprint is probed "
                              "first).", "U32", (3, 2), base=4080, stride=8, index=5, source="hand",
                              reference=reference)
    return [spec, first_row_ok]


def tstore_x_cases() -> list:
    cases = []
    for t in engine.DATA_TYPES:
        valid = (2, 5) if width(t) == 4 else (2, 3)
        cols = 8 if width(t) == 4 else 4
        stride = ref.dense_stride(cols, t) + (3 if width(t) == 4 else 2 * ref.element_bytes(t))
        cases.append(store_case(f"type-{t.lower()}", f"{t}: a {valid[0]}x{valid[1]} source stored at 0x100 with a "
                                f"{stride}-byte stride into bytes filled with 0xEE: the element bytes (4-bit: "
                                "nibbles, the other half kept) land, nothing else changes.", t, valid, cols=cols,
                                stride=stride))
    cases += [
        store_case("dense-default-source-columns", "B.IOR omitted: base 0 and the dense stride of the source's "
                   "eight U16 columns; the padding columns are never stored.", "U16", (2, 3), cols=8,
                   explicit=False),
        store_case("dense-default-lb2", "B.IOR omitted and LB2=4: the dense stride comes from LB2 (4 U32 "
                   "columns, 16 bytes), not from the source's 8 columns.", "U32", (2, 3), cols=8,
                   explicit=False, dims={"LB2": 4}),
        store_case("zero-stride-last-row-wins", "B.IOR R1, zero: every row is stored to the same bytes; the "
                   "last row's values remain.", "U16", (3, 2), zero_stride=True),
        store_case("four-bit-odd-count-keeps-nibble", "U4X2, three elements: the high nibble of the second byte "
                   "keeps its old value (0xE).", "U4X2", (1, 3), cols=8),
        store_case("sixteen-events", "A 2x8 U8 store records the spec's bound of 16 Store events.", "U8", (2, 8),
                   stride=16),
        store_case("top-of-memory-fits", "A U64 pair ending at byte 4095.", "U64", (1, 2), base=4080),
        store_case("top-of-memory-page-fault", "A U64 pair from 4088: the second element at 4096 faults; "
                   "memory and events stay.", "U64", (1, 2), base=4088),
        store_case("alignment-fault", "U32 at base 0x102: Fault_DataAlignment at 0x102.", "U32", (1, 2), base=0x102),
        store_case("alignment-fault-later-row", "U64 with stride 12: row 1 at base+12 is misaligned; row 0 is not "
                   "written.", "U64", (2, 1), stride=12),
        store_case("address-wraps", "Base 2**64-4 for a U32: the access wraps to the top of the address space "
                   "(Fault_DataPage at 0xFFFFFFFFFFFFFFFC).", "U32", (1, 1), base=(1 << 64) - 4),
        store_case("memory-256-top", "A 256-byte memory: a U32 row ending at byte 255.", "U32", (1, 4), base=0xF0,
                   size=256, source="hand"),
        store_case("memory-65536-page-fault", "A 65536-byte memory: a U16 at 0xFFFF is misaligned, not a page "
                   "fault (alignment first).", "U16", (1, 1), base=0xFFFF, size=65536, source="hand"),
    ]
    cases += tstore_legality()
    return cases


def tstore_legality() -> list:
    t = "U8"
    tile = engine.tile(0, t, 128, 8, [1, 2], [[1, 2]])
    undefined = dict(engine.tile(0, t, 128, 8, [1, 2]), defined="none")
    state = state_of(SPEC_MEMORY, [(0x100, bytes(4))], {BASE_GPR: 0x100, STRIDE_GPR: 8}, [tile])
    ior = f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}"
    out = []
    for name, description, program, fault, tiles in (
        ("undefined-source-is-tile-legality", "A source whose elements are undefined: TileSourceContentsDefined "
         "fails (Fault_TileLegality) before any store.", block("BSTART.TSTORE U8", {}, ior,
                                                             ["B.IOT T0, mask=1111, <last>"]),
         "Fault_TileLegality", [undefined]),
        ("destination-binding-is-bundle-control", "A B.IOT with a destination: TSTORE has none.",
         block("BSTART.TSTORE U8", {}, ior, ["B.IOT T0, mask=1111, <last>, ->T<1>"]), "Fault_BundleControl", [tile]),
        ("unterminated-is-bundle-control", "A source B.IOT without <last>.",
         block("BSTART.TSTORE U8", {}, ior, ["B.IOT T0, mask=1111"]), "Fault_BundleControl", [tile]),
        ("pad-null-is-tile-legality", "B.DATR PadValue Null on an ordinary TSTORE.",
         block("BSTART.TSTORE U8", {}, ior, ["B.IOT T0, mask=1111, <last>"], "B.DATR NONE, NORM, Null"),
         "Fault_TileLegality", [tile]),
    ):
        st = dict(state, tiles=tiles)
        out.append(case(name, description, BOTH, "hand", "asl/block/model/dispatch/tile-execution.asl and "
                        "ExecuteTileInstruction (TileSourceContentsDefined) before TSTORE's preflight", st, program,
                        fault_expect(fault, None, [0])))
    return out


# ---------------------------------------------------------------------------------------
# TPREFETCH

def prefetch_case(name, description, t, valid, *, cols=None, bases=(0x180,) * 4, strides=None, explicit=True,
                  size=SPEC_MEMORY, profiles=BOTH, source="reference-generator", reference=""):
    cols = cols or valid[1]
    strides = list(strides or [cols] * 4)
    bases = list(bases)
    if not explicit:
        bases, strides = [0] * 4, [cols] * 4
    accesses = ref.prefetch_accesses(bases, strides, valid[0], valid[1], t)
    size_bytes = ref.element_bytes(t)
    touched = sorted({a + k for _, a in accesses for k in range(size_bytes) if a + size_bytes <= size})
    regions = _regions_holding([(a, False) for a in touched], "U8", [(a * 7 + 3) & 0xFF for a in touched], size)
    pe_gprs = {pe: {BASE_GPR: bases[pe], STRIDE_GPR: strides[pe]} for pe in (1, 2, 3)} if explicit else None
    gprs = {BASE_GPR: bases[0], STRIDE_GPR: strides[0]} if explicit else None
    dims = {"LB0": valid[1], "LB1": valid[0] if valid[0] != 1 else None, "LB2": cols if cols != valid[1] else None}
    program = block(f"BSTART.TPREFETCH {t}", dims, f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}" if explicit else None)
    state = state_of(size, regions, gprs, None, pe_gprs)

    def outcome():
        image = ref.Memory(size, regions)
        image.tprefetch(t, accesses)
        return {"fault": None, "flags": Hex(0), "allocated": Flow([]), "memory_unchanged": True}, image
    return transfer_case(name, description, profiles, source, reference, state, program,
                         ref.probe((a for _, a in accesses), ref.element_bytes(t), size), [], outcome)


def tprefetch_requests_cases() -> list:
    reference = spec_ref("PTO-AVS-TILE-TPREFETCH-REQUESTS-001", "TPREFETCHAllPEs(0x180, 2, 2, 1, 2, U8): 8 events, "
                         "event 0 agent 0 at 0x180, event 1 at 0x181, event 6 agent 3, event 7 at 0x181; capacity "
                         "in use 0")
    spec = prefetch_case("all-pes-u8-two-elements", "The spec test as a block: every PE's R1=0x180 and R2=2 "
                         "(stride in elements), ValidCol 2, ValidRow 1, Col 2: two Load events per PE, in PE order; "
                         "nothing is allocated.", "U8", (1, 2), strides=[2] * 4, source="spec-test",
                         reference=reference)
    events = spec["expect"]["events"]
    assert len(events) == 8 and int(events[1]["address"]) == 0x181 and events[6]["agent"] == 3
    omitted = prefetch_case("ior-omitted-base-zero", "B.IOR omitted: base 0 and the stride Col for all four PEs.",
                            "U8", (1, 2), explicit=False, source="hand", reference=reference)
    return [spec, omitted]


def tprefetch_x_cases() -> list:
    cases = [
        prefetch_case("per-pe-bases", "Each PE reads its own R1/R2: PE 0 at 0x100, PE 1 at 0x200, PE 2 at 0x300, "
                      "PE 3 at 0x400 (U16, two elements each).", "U16", (1, 2),
                      bases=(0x100, 0x200, 0x300, 0x400)),
        prefetch_case("per-pe-strides-in-elements", "U32 2x1 with per-PE strides 1, 2, 3, 4 elements.", "U32",
                      (2, 1), bases=(0x100,) * 4, strides=(1, 2, 3, 4)),
        prefetch_case("four-bit-index-halved", "U4X2: element index i reads byte base + i div 2.", "U4X2", (1, 4),
                      bases=(0x101, 0x111, 0x121, 0x131)),
        prefetch_case("fault-in-pe-three-records-nothing", "PE 3's base is misaligned: Fault_DataAlignment at its "
                      "address, and not one event of PEs 0..2 is recorded.", "U16", (1, 2),
                      bases=(0x100, 0x200, 0x300, 0x401)),
        prefetch_case("top-of-memory-page-fault", "PE 2's second element is at 4096.", "U8", (1, 2),
                      bases=(0x100, 0x100, 4095, 0x100)),
        prefetch_case("wide-no-event-bound", "8x4 U8 for four PEs: 128 accesses, past the event bound.", "U8",
                      (8, 4), strides=[4] * 4),
    ]
    state = state_of(SPEC_MEMORY, [], None)
    tile_state = state_of(SPEC_MEMORY, [], None, [engine.tile(0, "U8", 128, 8, [1, 1], [[1]])])
    for name, description, program, st in (
        ("u64-is-tile-legality", "TPREFETCH of a 64-bit type: not a carrier or packed baseline type.",
         block("BSTART.TPREFETCH U64", {"LB0": 2}, None), state),
        ("binding-is-tile-legality", "A B.IOT in a TPREFETCH block: Fault_TileLegality (not BundleControl).",
         block("BSTART.TPREFETCH U8", {"LB0": 1}, None, ["B.IOT T0, mask=1111, <last>"]), tile_state),
        ("lb0-zero-is-tile-legality", "An encoded LB0=0 is a value, not the omission default.",
         block("BSTART.TPREFETCH U8", {"LB0": 0}, None), state),
        ("col-not-power-of-two", "LB2=3: Col must be a nonzero power of two.",
         block("BSTART.TPREFETCH U8", {"LB0": 2, "LB2": 3}, None), state),
        ("valid-wider-than-col", "LB0=4 with LB2=2.", block("BSTART.TPREFETCH U8", {"LB0": 4, "LB2": 2}, None), state),
        ("pad-null-is-tile-legality", "B.DATR PadValue Null: TPREFETCH's pad union must be zero.",
         block("BSTART.TPREFETCH U8", {"LB0": 2}, None, datr="B.DATR NONE, NORM, Null"), state),
        ("cube-transport-layout", "B.DATR Layout ND2M32: the CUBE transport path has no TPREFETCH conversion "
         "(Fault_TileLegality).", block("BSTART.TPREFETCH U8", {"LB0": 2}, None, datr="B.DATR NONE, ND2M32, Zero"),
         state),
    ):
        allocated = [0] if st is tile_state else []
        cases.append(case(name, description, BOTH, "hand", "asl/block/model/dispatch/tlsu-prefetch.asl "
                          "ExecuteBundleTPREFETCHOperation (and the transport routing of tlsu-layout-conversion.asl)",
                          st, program, fault_expect("Fault_TileLegality", None, allocated)))
    return cases


# ---------------------------------------------------------------------------------------
# CUBE conversion forms (B.DATR Layout ND2M32/ND2M16/ND2N8 on TLOAD, M322ND/M162ND/N82ND on TSTORE)

CUBE_LOAD = {"CUBE_M32": "ND2M32", "CUBE_M16": "ND2M16", "CUBE_N8": "ND2N8"}
CUBE_STORE = {"CUBE_M32": "M322ND", "CUBE_M16": "M162ND", "CUBE_N8": "N82ND"}
CUBE_REFERENCE = ("asl/block/model/dispatch/tlsu-layout-conversion.asl ExecuteBundleCubeTransportOperation and "
                  "TLOAD/TSTORE of asl/tile/model/memory/load-store.asl")


def cube_datr(layout_code: str, pad: str = "Zero") -> str:
    return f"B.DATR {{{layout_code}, DTYPE_NONE, {pad}, EQ, Default, 0, 0}}"


def cube_round_trip(name, description, t, layout, valid, size_code_, base=0x100, stride=None, out=0x800):
    """TLOAD through ``layout`` then TSTORE back out of it: the stored bytes are the loaded ones
    (the reference walks both footprints); the destination's descriptor is the CUBE one."""
    stride = ref.dense_stride(valid[1], t) if stride is None else stride
    accesses = ref.strided_accesses(base, stride, valid[0], valid[1], t)
    values = pattern(valid[0] * valid[1], t, 0x47)
    regions = _regions_holding(accesses, t, values, SPEC_MEMORY)
    out_accesses = ref.strided_accesses(out, stride, valid[0], valid[1], t)
    low = out - GUARD
    high = max(a for a, _ in out_accesses) + ref.element_bytes(t) + GUARD
    regions.append((low, bytes([0xEE]) * (high - low)))
    image = ref.Memory(SPEC_MEMORY, regions)
    words = image.tload(t, accesses)
    image.tstore(t, out_accesses, words)
    dims = {"LB0": valid[1], "LB1": valid[0]}
    program = "\n".join([
        block(f"BSTART.TLOAD {t}", dims, f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}",
              [f"B.IOT mask=1111, <last>, ->T<{size_code_}>"], cube_datr(CUBE_LOAD[layout])),
        block(f"BSTART.TSTORE {t}", dims, f"B.IOR R3, R{STRIDE_GPR}", ["B.IOT T0, mask=1111, <last>"],
              cube_datr(CUBE_STORE[layout]))])
    state = state_of(SPEC_MEMORY, sorted(regions), {BASE_GPR: base, STRIDE_GPR: stride, 3: out})
    tile = {"index": 0, "dtype": t, "layout": layout, "location": "Matrix", "valid": Flow(list(valid)),
            "mask": "1111"}
    return transfer_case(name, description, BOTH, "reference-generator", CUBE_REFERENCE, state, program, None, [0],
                         lambda: ({"fault": None, "flags": Hex(0), "allocated": Flow([0]), "tiles": [tile],
                                   "memory": [region(low, image.bytes[low:high])]}, image))


def cube_cases() -> list:
    cases = [
        cube_round_trip("cube-m16-fp16-round-trip", "ND2M16 then M162ND: a 2x4 FP16 rectangle into CUBE_M16 storage "
                        "and back out; the bytes stored equal the bytes loaded (16 events).", "FP16", "CUBE_M16",
                        (2, 4), 2),
        cube_round_trip("cube-n8-u8-round-trip", "ND2N8 then N82ND for a 3x5 U8 rectangle with a 7-byte stride.",
                        "U8", "CUBE_N8", (3, 5), 2, stride=7),
        cube_round_trip("cube-m32-u32-round-trip", "ND2M32 then M322ND for a 2x3 U32 rectangle.", "U32", "CUBE_M32",
                        (2, 3), 4, stride=16),
    ]
    regions = [(0x100, bytes(range(1, 65)))]
    gprs = {BASE_GPR: 0x100, STRIDE_GPR: 16}
    state = state_of(SPEC_MEMORY, regions, gprs)
    ior = f"B.IOR R{BASE_GPR}, R{STRIDE_GPR}"
    dest = "B.IOT mask=1111, <last>, ->T<2>"
    for name, description, program, fault, st in (
        ("cube-lb2-is-tile-legality", "ND2M16 with LB2 present: a CUBE transport takes LB0 and LB1 only.",
         block("BSTART.TLOAD FP16", {"LB0": 4, "LB1": 2, "LB2": 8}, ior, [dest], cube_datr("ND2M16")),
         "Fault_TileLegality", state),
        ("cube-datatype-not-none", "ND2M16 with B.DATR DataType FP16 instead of DTYPE_NONE.",
         block("BSTART.TLOAD FP16", {"LB0": 4, "LB1": 2}, ior, [dest], "B.DATR {ND2M16, FP16, Zero, EQ, Default, 0, 0}"),
         "Fault_TileLegality", state),
        ("cube-wrong-direction", "TLOAD with the store Layout M162ND.",
         block("BSTART.TLOAD FP16", {"LB0": 4, "LB1": 2}, ior, [dest], cube_datr("M162ND")), "Fault_TileLegality",
         state),
        ("cube-64-bit-type", "ND2M16 of U64: no CUBE layout holds a 64-bit type.",
         block("BSTART.TLOAD U64", {"LB0": 2, "LB1": 2}, ior, [dest], cube_datr("ND2M16")), "Fault_TileLegality",
         state),
        ("cube-tsize-too-small", "ND2M16 of a 32x4 FP16 rectangle into 128 bytes: Fault_TileAllocation.",
         block("BSTART.TLOAD FP16", {"LB0": 4, "LB1": 32}, ior, ["B.IOT mask=1111, <last>, ->T<1>"],
               cube_datr("ND2M16")), "Fault_TileAllocation", state),
    ):
        cases.append(case(name, description, BOTH, "hand", CUBE_REFERENCE, st, program, fault_expect(fault, None, [])))
    top = state_of(SPEC_MEMORY, [(4080, bytes(16))], {BASE_GPR: 4088, STRIDE_GPR: 8})
    cases.append(case("cube-page-fault-nothing-allocated", "ND2M16 of a 2x4 FP16 rectangle from 4088: row 1 at 4096 "
                      "faults (Fault_DataPage at 0x1000) after the destination was resolved; nothing stays allocated.",
                      BOTH, "hand", CUBE_REFERENCE, top,
                      block("BSTART.TLOAD FP16", {"LB0": 4, "LB1": 2}, ior, [dest], cube_datr("ND2M16")),
                      fault_expect("Fault_DataPage", 4096, [])))
    return cases


# ---------------------------------------------------------------------------------------
# The Shared-source TSTORE forms (Function 1 and TSTORE.SPART, Function 14)

SHARED_REFERENCE = ("asl/block/model/dispatch/shared-tlsu.asl ExecuteBundleSharedTLSUOperation, "
                    "asl/tile/model/memory/shared-movement.asl TSTOREShared, shared-registers.asl "
                    "ReadSharedTileWord (vectors/reference/memory.py shared_store_accesses, shared_word)")
PE_BASES = (0x100, 0x200, 0x300, 0x400)


def shared_store_case(name, description, t, register, *, sid=5, mask="1111", spart=False, bases=PE_BASES,
                      stride=16, dims=None, ior="B.IOR R1, R2", extra=(), size=SPEC_MEMORY, expect_fault=None,
                      binding=None, bstart_type=None):
    """A TSTORE of S``sid`` (``register``: None, unallocated, or (capacity, cols, valid, allocation mask)
    with the pattern in its valid region) through B.IOS, each PE's base and stride in its own R1/R2."""
    dims = dict(dims or {})
    if register is not None:
        capacity, cols, valid, allocated = register
        words = pattern(valid[0] * valid[1], t, 0x61)
        by_element = {r * cols + c: words[r * valid[1] + c] for r in range(valid[0]) for c in range(valid[1])}
        shared = engine.tile(sid, t, capacity, cols, list(valid), rows_of_values(words, valid[1]))
        if allocated != "1111":
            shared["mask"] = allocated
        shape = (dims.get("LB1", valid[0]), dims.get("LB0", valid[1]), dims.get("LB2", cols))
    else:
        allocated, by_element = "0000", None
        shape = (dims.get("LB1", 1), dims.get("LB0", 1), dims.get("LB2", dims.get("LB0", 1)))
        capacity = 128
        while engine.rows_of(capacity, shape[2], t) < shape[0]:
            capacity *= 2
    strides = [stride] * 4 if isinstance(stride, int) else list(stride)
    pe_gprs = {pe: {BASE_GPR: bases[pe], STRIDE_GPR: strides[pe]} for pe in range(1, 4)}
    program = block(f"BSTART.TSTORE{'.SPART' if spart else ''} {bstart_type or t}", dims, ior,
                    [binding or f"B.IOS S{sid}, mask={mask}", *extra])
    accesses = ref.shared_store_accesses(bases, strides, *shape, t, capacity, mask) if expect_fault is None else []
    size_bytes = ref.element_bytes(t)
    inside = [a for _, _, a, _ in accesses if a + size_bytes <= size]
    initial = [(max(0, min(inside) - GUARD), bytes([0xEE]) * (max(inside) - min(inside) + size_bytes + 2 * GUARD))] \
        if inside else []
    state = state_of(size, initial, {BASE_GPR: bases[0], STRIDE_GPR: strides[0]}, None, pe_gprs)
    if register is not None:
        state["shared_tiles"] = [shared]
    if expect_fault is not None:
        return case(name, description, BOTH, "hand", SHARED_REFERENCE, state, program,
                    fault_expect(expect_fault, None, []))
    fault = ref.probe((a for _, _, a, _ in accesses), size_bytes, size)

    def outcome():
        image = ref.Memory(size, initial)
        values = [ref.shared_word(sid, e, by_element, allocated, agent) for agent, e, _, _ in accesses]
        ref.store_by_agents(image, t, accesses, values)
        touched = sorted(a for _, _, a, _ in accesses)
        low, high = max(0, touched[0] - GUARD), min(size, touched[-1] + size_bytes + GUARD)
        return {"fault": None, "flags": Hex(0), "allocated": Flow([]), "unchanged": "all",
                "memory": [region(low, image.bytes[low:high])]}, image
    return transfer_case(name, description, BOTH, "hand" if fault else "reference-generator", SHARED_REFERENCE, state,
                         program, fault, [], outcome)


def tstore_shared_cases() -> list:
    quarters = (128, 4, (8, 2), "1111")  # U32: rows 0-1 in PE 0's quarter, 2-3 PE 1's, 4-5 PE 2's, 6-7 PE 3's
    return [
        shared_store_case("full-four-quarters-per-pe-bases", """Function 1 over S5 (U32, 128 B, 4 columns, valid
            8x2): each element's quarter of the register (rows 0-1, 2-3, 4-5, 6-7) is stored by its PE, at that
            PE's own R1 base (0x100, 0x200, 0x300, 0x400) plus row * R2 (16), with that PE as the event agent.""",
                          "U32", quarters),
        shared_store_case("spart-one-pe", """TSTORE.SPART (Function 14) with mask 0100: only PE 1's quarter (rows 2
            and 3) is stored, from PE 1's base.""", "U32", quarters, mask="0100", spart=True),
        shared_store_case("spart-two-pes-wide-strides", """TSTORE.SPART with mask 1100 (PE 0 and 1), each PE its own
            stride (8, 24, 8, 40).""", "U32", quarters, mask="1100", spart=True, stride=(8, 24, 8, 40)),
        shared_store_case("spart-u8-reduced-valid-region", """TSTORE.SPART over a U8 register (128 B, 4 columns,
            valid 32x4) read as LB1=20 x LB0=3: quarters of 8 rows each; mask 1110 stores rows 0-19 by PE 0, 1
            and 2 (PE 3's quarter, rows 24-31, is outside the read).""", "U8", (128, 4, (32, 4), "1111"), mask="1110", spart=True,
                          dims={"LB0": 3, "LB1": 20}, bases=(0x100, 0x200, 0x300, 0x400), stride=4),
        shared_store_case("unallocated-register-undefined-words", """S9 has no descriptor: LB0=4 gives a 1x4 U16
            read at the least capacity (128 B); every element is the undefined-register value 9 XOR element
            (0x9, 0x8, 0xB, 0xA) and the register stays unallocated.""", "U16", None, sid=9,
                          dims={"LB0": 4}),
        shared_store_case("partially-allocated-register", """S5 allocated on PE 0 and 1 only (mask 1100): the
            quarters of PE 2 and 3 are not initialized, so SPART 1111 stores their undefined-register values
            (5 XOR element).""", "U32", (128, 4, (8, 2), "1100"), mask="1111", spart=True),
        shared_store_case("u4x2-nibbles", """A 4-bit register: each element's nibble of the containing byte
            (col div 2, the high nibble for an odd column), the quarter by byte offset; mask 0001 stores PE 3's rows 24-31.""", "U4X2",
                          (128, 8, (32, 8), "1111"), mask="0001", spart=True, stride=4),
        shared_store_case("page-fault-in-pe-3-nothing-stored", """PE 3's base 4092: its second row's element at
            4092 + 16 faults Fault_DataPage; every selected access is probed first, so no PE stores and no event
            is recorded.""", "U32", quarters, bases=(0x100, 0x200, 0x300, 4092)),
        shared_store_case("alignment-fault-in-pe-1", """PE 1's base 0x201 is not 4-byte aligned:
            Fault_DataAlignment at 0x201 + 2 * 16 (its first element, row 2), nothing stored.""", "U32", quarters,
                          bases=(0x100, 0x201, 0x300, 0x400)),
        shared_store_case("function-1-needs-all-four-pes", """Function 1 (BSTART.TSTORE) with mask 1100:
            SharedStorePEMaskLegal asks 1111, Fault_TileLegality.""", "U32", quarters, mask="1100",
                          expect_fault="Fault_TileLegality"),
        shared_store_case("b-ior-regsrc2-is-bundle-control", """B.IOR RegSrc2 nonzero: the scalar binding schema,
            Fault_BundleControl.""", "U32", quarters, ior="B.IOR R1, R2, R3", expect_fault="Fault_BundleControl"),
        shared_store_case("shared-destination-binding", """The B.IOS names S5 as a destination (SizeCode 1): TSTORE
            reads a Shared source only, Fault_TileLegality.""", "U32", quarters,
                          expect_fault="Fault_TileLegality", binding="B.IOS mask=1111, ->S5<1>"),
        shared_store_case("two-shared-bindings", """Two B.IOS bindings: the Shared TLSU path takes exactly one,
            Fault_TileLegality.""", "U32", quarters, expect_fault="Fault_TileLegality",
                          extra=("B.IOS S6, mask=1111",)),
        shared_store_case("spart-with-a-tile-binding", """TSTORE.SPART with a B.IOT beside its B.IOS:
            Fault_TileLegality.""", "U32", quarters, mask="1111", spart=True, expect_fault="Fault_TileLegality",
                          extra=("B.IOT T0, mask=1111, <last>",)),
        shared_store_case("cols-differ-from-register", """LB2=8 against the register's 4 columns: the read schema
            fails, Fault_TileLegality.""", "U32", quarters, dims={"LB2": 8}, expect_fault="Fault_TileLegality"),
        shared_store_case("type-differs-from-register", """BSTART.TSTORE.SPART S32 over a U32 register: the read
            schema asks the register's type, Fault_TileLegality.""", "U32", quarters, spart=True,
                          expect_fault="Fault_TileLegality", bstart_type="S32"),
    ]


def tstore_shared_file() -> dict:
    return engine.execution_file("PTO-AVS-X-TSTORE-SHARED-001", "TSTORE",
                       "TSTORE from a Shared tile register: Function 1 on all four PEs and TSTORE.SPART on a PE "
                       "subset, each quarter stored by its PE from that PE's own base and stride, "
                       "undefined-register values, faults and their order",
                       f"Expected memory and events from the independent reference {SHARED_REFERENCE}, one "
                       f"access at a time (no code shared with device_model), written by `{COMMAND}`. Nothing "
                       "here was produced by running the golden model.", tstore_shared_cases())


# ---------------------------------------------------------------------------------------
# The Shared destination form of TLOAD (Function 0, one destination B.IOS), observed through a
# Function 1 TSTORE of the register that follows it

LOAD_SHARED_REFERENCE = ("asl/block/model/dispatch/shared-tlsu.asl ExecuteBundleSharedTLSUOperation, "
                         "asl/tile/model/memory/shared-movement.asl TLOADShared and TSTOREShared, shared-registers.asl "
                         "SharedTileUpdateCompatible, AtomicUpdateSharedTile and ReadSharedTileWord (vectors/reference/"
                         "memory.py shared_store_accesses, load_by_agents, shared_word)")
OUT_BASES = (0x800, 0x880, 0x900, 0x980)
OUT_GPR, OUT_STRIDE_GPR = 3, 4


def shared_load_case(name, description, t, shape, *, sid=5, mask="1111", bases=PE_BASES, stride=16,
                     out_stride=16, initial_register=None, dims=None, ior="B.IOR R1, R2", bindings=None,
                     expect_fault=None, tile_capacity=None, local_tiles=None, store=True):
    """TLOAD of ``shape`` (capacity, cols, valid) into S``sid`` on PE ``mask`` (each PE its own R1 base
    and R2 stride), then (``store``) TSTORE S``sid`` (Function 1, all four PEs, its own shape) to each
    PE's R3 base at R4 stride. ``initial_register``: (valid, allocation mask) of an S``sid`` already
    installed with ``shape``'s capacity and columns (its pattern values)."""
    capacity, cols, valid = shape
    strides = [stride] * 4 if isinstance(stride, int) else list(stride)
    dims = dims if dims is not None else {"LB0": valid[1], "LB1": valid[0], "LB2": cols}
    loads = ref.shared_store_accesses(bases, strides, *valid, cols, t, capacity, mask)
    values = pattern(len(loads), t, 0x29)
    regions = _regions_holding([(a, h) for _, _, a, h in loads], t, values, SPEC_MEMORY)
    outs = ref.shared_store_accesses(OUT_BASES, [out_stride] * 4, *valid, cols, t, capacity, "1111")
    size_bytes = ref.element_bytes(t)
    low, high = min(a for _, _, a, _ in outs) - GUARD, max(a for _, _, a, _ in outs) + size_bytes + GUARD
    if store:
        regions.append((low, bytes([0xEE]) * (high - low)))
    pe_gprs = {pe: {BASE_GPR: bases[pe], STRIDE_GPR: strides[pe], OUT_GPR: OUT_BASES[pe], OUT_STRIDE_GPR: out_stride}
               for pe in range(1, 4)}
    gprs = {BASE_GPR: bases[0], STRIDE_GPR: strides[0], OUT_GPR: OUT_BASES[0], OUT_STRIDE_GPR: out_stride}
    state = state_of(SPEC_MEMORY, sorted(regions), gprs, local_tiles, pe_gprs)
    if tile_capacity is not None:
        state = {"tile_capacity": tile_capacity, **state}
    register_words, allocated = None, mask
    if initial_register is not None:
        old_valid, allocated = initial_register
        words = pattern(old_valid[0] * old_valid[1], t, 0x61)
        register_words = {r * cols + c: words[r * old_valid[1] + c] for r in range(old_valid[0])
                          for c in range(old_valid[1])}
        item = engine.tile(sid, t, capacity, cols, list(old_valid), rows_of_values(words, old_valid[1]))
        if allocated != "1111":
            item["mask"] = allocated
        state["shared_tiles"] = [item]
    lines = [block(f"BSTART.TLOAD {t}", dims, ior, bindings if bindings is not None else
                   [f"B.IOS mask={mask}, ->S{sid}<{size_code(capacity)}>"])]
    if store:
        lines.append(block(f"BSTART.TSTORE {t}", {}, f"B.IOR R{OUT_GPR}, R{OUT_STRIDE_GPR}", [f"B.IOS S{sid}, mask=1111"]))
    program = "\n".join(lines)
    unchanged = [t_["index"] for t_ in (local_tiles or [])]
    if expect_fault is not None:
        return case(name, description, BOTH, "hand", LOAD_SHARED_REFERENCE, state, program,
                    fault_expect(expect_fault, None, unchanged))

    def outcome():
        image = ref.Memory(SPEC_MEMORY, regions)
        words = {**(register_words or {}), **ref.load_by_agents(image, t, loads)}
        expect = {"fault": None, "flags": Hex(0), "allocated": Flow(unchanged)}
        if store:
            ref.store_by_agents(image, t, outs, [ref.shared_word(sid, e, words, allocated, agent)
                                                 for agent, e, _, _ in outs])
            expect.update({"unchanged": "all", "memory": [region(low, image.bytes[low:high])]})
        else:
            expect["memory_unchanged"] = True
        return expect, image
    built = transfer_case(name, description, BOTH, "reference-generator", LOAD_SHARED_REFERENCE, state, program,
                          ref.probe((a for _, _, a, _ in loads), size_bytes, SPEC_MEMORY), unchanged, outcome)
    if built["expect"].get("events") == []:
        built["expect"]["events"] = Flow([])
    return built


def tload_shared_cases() -> list:
    u32 = (128, 4, (8, 1))  # U32, 4 columns, 8 rows: two rows per PE quarter, one valid column
    return [
        shared_load_case("full-four-quarters-per-pe-bases", """TLOAD S5 (U32, 128 B, 4 columns, valid 8x1) on all
            four PEs: each element's quarter (rows 0-1, 2-3, 4-5, 6-7) is loaded by its PE from that PE's own R1 base
            (0x100, 0x200, 0x300, 0x400) plus row * R2 (16), the PE the Load event's agent; the TSTORE of S5 that
            follows stores each quarter from its PE's R3 base.""", "U32", u32),
        shared_load_case("one-quarter-others-undefined", """TLOAD S5 with B.IOS mask 0100: only PE 1's quarter (rows 2
            and 3) is loaded and S5 is allocated on PE 1 alone, so the full TSTORE reads the other quarters as the
            undefined-register value 5 XOR element.""", "U32", u32, mask="0100"),
        shared_load_case("two-pes-own-strides", """Mask 1100 (PE 0 and PE 1), each PE its own row stride (8, 24, 8,
            40).""", "U32", u32, mask="1100", stride=(8, 24, 8, 40)),
        shared_load_case("u8-reduced-valid-three-pes", """A U8 register (128 B, 4 columns: quarters of 8 rows) loaded
            as valid 6x1 on mask 1110 (PE 0, 1 and 2; rows 0-5 are in PE 0's quarter only).""", "U8", (128, 4, (6, 1)),
                         mask="1110", stride=4),
        shared_load_case("u8-quarters-of-eight-rows", """U8, 128 B of 4 columns, valid 32x1 (rows 0-7, 8-15, 16-23,
            24-31 are the quarters) loaded on PE 2 only: eight Loads at PE 2's base.""", "U8", (128, 4, (32, 1)),
                         mask="0010", stride=2),
        shared_load_case("u4x2-nibbles-of-pe-3", """A 4-bit register (128 B, 8 columns, valid 32x1): each element is the
            nibble of its column's parity in the containing byte; mask 0001 loads PE 3's rows 24-31.""", "U4X2",
                         (128, 8, (32, 1)), mask="0001", stride=4),
        shared_load_case("existing-register-one-quarter-updated", """S5 already holds a U32 8x1 register (all four
            PEs): TLOAD mask 0010 of the same descriptor replaces PE 2's quarter and keeps the other three quarters'
            values (AtomicUpdateSharedTile).""", "U32", u32, mask="0010", initial_register=((8, 1), "1111")),
        shared_load_case("ior-omitted-dense-stride", """B.IOR omitted: every PE's base is 0 and its stride the dense
            stride of LB2 = 4 U32 columns (16 bytes), so the quarters read rows 0-7 at 0x00, 0x10, ...""", "U32",
                         u32, ior=None, bases=(0, 0, 0, 0)),
        shared_load_case("page-fault-in-pe-3-nothing-loaded", """PE 3's base 4080: its second row at 4080 + 16 = 4096
            is outside memory (Fault_DataPage at 0x1000); every selected access is probed first, so no Load event is
            recorded and the run stops before the TSTORE.""", "U32", u32, bases=(0x100, 0x200, 0x300, 4080)),
        shared_load_case("alignment-fault-in-pe-1", """PE 1's base 0x202 is not 4-byte aligned: Fault_DataAlignment at
            0x202 + 2 * 16 (its first element, row 2), nothing loaded.""", "U32", u32, bases=(0x100, 0x202, 0x300, 0x400)),
        shared_load_case("mask-zero-no-effect", """B.IOS mask 0000 with a misaligned base: a strict no-op (no probe, no
            event, no register: the TSTORE reads the undefined-register values).""", "U32", u32, mask="0000",
                         bases=(0x101, 0x201, 0x301, 0x401), store=False),
        shared_load_case("existing-register-other-descriptor", """S5 holds a U32 register of valid 8x2: a TLOAD of valid
            8x1 into it is not SharedTileDescriptorsCompatible (Fault_TileLegality, nothing loaded).""", "U32", u32,
                         initial_register=((8, 2), "1111"), expect_fault="Fault_TileLegality"),
        shared_load_case("existing-register-fewer-pes", """S5 is allocated on PE 0 and PE 1 (mask 1100): a TLOAD on
            all four PEs names PEs it is not allocated on (Fault_TileLegality).""", "U32", u32,
                         initial_register=((8, 1), "1100"), expect_fault="Fault_TileLegality"),
        shared_load_case("capacity-exceeded", """tile_capacity 1024 with a 256-byte Local tile on four PEs (1024 bytes in
            use): a new 128-byte register on four PEs does not fit (Fault_TileLegality, not TileAllocation).""",
                         "U32", u32, tile_capacity=1024, local_tiles=[engine.tile(0, "U8", 256, 16, [1, 2], [[1, 2]])],
                         expect_fault="Fault_TileLegality"),
        shared_load_case("shape-past-capacity", """LB1=16 rows of 4 U32 columns need 256 bytes; the B.IOS SizeCode 1
            gives 128 (Fault_TileLegality).""", "U32", u32, dims={"LB0": 1, "LB1": 16, "LB2": 4},
                         expect_fault="Fault_TileLegality"),
        shared_load_case("lb2-absent-is-tile-legality", """The Shared TLOAD reads LB0, LB1 and LB2 as encoded: an absent
            LB2 is its reset zero (Fault_TileLegality).""", "U32", u32, dims={"LB0": 1, "LB1": 8},
                         expect_fault="Fault_TileLegality"),
        shared_load_case("lb0-past-lb2", """LB0=8 valid columns of LB2=4 (Fault_TileLegality).""", "U32", u32,
                         dims={"LB0": 8, "LB1": 8, "LB2": 4}, expect_fault="Fault_TileLegality"),
        shared_load_case("source-binding-is-tile-legality", """A source B.IOS (SizeCode 0) on TLOAD: Function 0 loads a
            Shared destination only (Fault_TileLegality).""", "U32", u32, bindings=["B.IOS S5, mask=1111"],
                         expect_fault="Fault_TileLegality"),
        shared_load_case("tile-binding-beside-is-tile-legality", """A destination B.IOT beside the B.IOS
            (Fault_TileLegality).""", "U32", u32, bindings=["B.IOS mask=1111, ->S5<1>",
                                                           "B.IOT mask=1111, <last>, ->T<1>"],
                         expect_fault="Fault_TileLegality"),
        shared_load_case("ior-regsrc2-is-bundle-control", """B.IOR R1, R2, R3: the scalar binding schema
            (Fault_BundleControl).""", "U32", u32, ior="B.IOR R1, R2, R3", expect_fault="Fault_BundleControl"),
    ]


def shared_capacity_case() -> dict:
    """A Shared register counts against the core capacity a later Local allocation must fit in
    (CoreTileCapacityInUse = TileCapacityInUse + SharedTileCapacityInUse)."""
    built = shared_load_case("shared-register-counts-against-local", "", "U32", (128, 4, (8, 1)), store=False,
                             tile_capacity=1024)
    local = block("BSTART.TLOAD U8", {"LB0": 2}, None, ["B.IOT mask=1111, <last>, ->T<2>"])
    built["program"] = Block(str(built["program"]) + "\n" + local)
    built["description"] = " ".join("""tile_capacity 1024: TLOAD S5 allocates 128 bytes on four PEs (512 in use),
        so a Local TLOAD of 256 bytes on four PEs that follows (1024 more) does not fit: Fault_TileAllocation at
        that block, after the first block's eight Load events.""".split())
    built["expect"].update({"fault": "Fault_TileAllocation", "allocated": Flow([])})
    return built


def tload_shared_file() -> dict:
    return engine.execution_file("PTO-AVS-X-TLOAD-SHARED-001", "TLOAD",
                       "TLOAD into a Shared tile register: each selected quarter loaded by its PE from that PE's own "
                       "base and stride, a new or an existing register updated, faults and their order",
                       f"Expected memory and events from the independent reference {LOAD_SHARED_REFERENCE}, one "
                       f"access at a time (no code shared with device_model), written by `{COMMAND}`. Nothing here "
                       "was produced by running the golden model.", tload_shared_cases() + [shared_capacity_case()],
                       also=("TSTORE",))


# ---------------------------------------------------------------------------------------
# B.CATR memory ordering: every event of a block carries CurrentBundleMemoryOrder

ORDER_REFERENCE = ("asl/block/model/state/control-state.asl CurrentBundleMemoryOrder, asl/block/attributes/B.CATR.asl, "
                   "asl/block/model/commit/validation.asl (DR) (vectors/reference/memory.py memory_order)")


def with_catr(built: dict, items, description: str) -> dict:
    """``built`` with ``B.CATR {items}`` after its BSTART and every expected event in the order those
    items give (memory_order)."""
    lines = str(built["program"]).splitlines()
    built["program"] = Block("\n".join([lines[0], "B.CATR {" + ", ".join(items) + "}", *lines[1:]]))
    order = ref.memory_order(items)
    for event in built["expect"].get("events", []):
        event["order"] = order
    built["description"] = " ".join(description.split())
    built["reference"] = ORDER_REFERENCE
    return built


def order_cases(op: str) -> list:
    if op == "TLOAD":
        def make(name):
            return load_case(name, "", "U16", (1, 3))
        forms = [((), "relaxed-without-catr"), (("aq",), "acquire"), (("rl",), "release"),
                 (("aqrl",), "acquire-release"), (("aq", "rl"), "aq-and-rl"),
                 (("atomic", "far", "dr"), "atomic-far-dr-stay-relaxed"), (("aqrl", "far", "dr"), "far-dr-aqrl")]
    elif op == "TSTORE":
        def make(name):
            return store_case(name, "", "U32", (2, 2))
        forms = [(("aq",), "acquire"), (("rl",), "release"), (("aqrl", "atomic"), "acquire-release-atomic")]
    else:
        def make(name):
            return prefetch_case(name, "", "U8", (1, 2), strides=[2] * 4)
        forms = [(("rl",), "release"), (("aqrl", "dr"), "acquire-release-dr")]
    cases = []
    for items, name in forms:
        order = ref.memory_order(items)
        built = make(name)
        if not items:
            built["description"] = f"No B.CATR: every {op} event is Relaxed."
            built["reference"] = ORDER_REFERENCE
            cases.append(built)
            continue
        cases.append(with_catr(built, items, f"""B.CATR {{{", ".join(items)}}}: every {op} event of the block
            carries the memory order {order} (aq and rl select it; trap, atomic, far and dr do not)."""))
    duplicate = with_catr(make("duplicate-catr-is-bundle-control"), ("aq",), "")
    lines = str(duplicate["program"]).splitlines()
    duplicate["program"] = Block("\n".join([lines[0], lines[1], lines[1], *lines[2:]]))
    duplicate["description"] = "A second B.CATR in one header: Fault_BundleControl before any effect."
    duplicate["source"] = "hand"
    tiles = duplicate.get("state", {}).get("tiles") or []
    duplicate["expect"] = fault_expect("Fault_BundleControl", None, [t["index"] for t in tiles])
    cases.append(duplicate)
    return cases


def order_file(op: str) -> dict:
    return engine.execution_file(f"PTO-AVS-X-{op}-ORDER-001", op,
                       f"{op} under B.CATR: every memory event carries the block's memory order (aq, rl), the other "
                       "B.CATR fields leave it Relaxed, and B.CATR is unique per header",
                       f"Expected memory and events from the independent reference {REFERENCE}, the order from "
                       f"{ORDER_REFERENCE}, written by `{COMMAND}`. Nothing here was produced by running the "
                       "golden model.", order_cases(op))


# ---------------------------------------------------------------------------------------
# Files

def referenced(cases: list, reference: str) -> list:
    for item in cases:
        if not item["reference"]:
            item["reference"] = reference
    return cases


def spec_cases(op: str, test_id: str) -> list:
    if test_id.endswith("-STATIC-001"):
        cases = static_cases(op, test_id)
    else:
        cases = {"PTO-AVS-TILE-TLOAD-DIRECT-001": tload_direct_cases,
                 "PTO-AVS-TILE-TSTORE-DIRECT-001": tstore_direct_cases,
                 "PTO-AVS-TILE-TSTORE-PRECISE-001": tstore_precise_cases,
                 "PTO-AVS-TILE-TPREFETCH-REQUESTS-001": tprefetch_requests_cases}[test_id]()
    return referenced(cases, REFERENCE)


def x_file(op: str) -> dict:
    cases = {"TLOAD": tload_x_cases, "TSTORE": tstore_x_cases, "TPREFETCH": tprefetch_x_cases}[op]()
    return engine.execution_file(f"PTO-AVS-X-{op}-REF-001", op,
                       f"{op}: every DataType, strides, alignment and page faults with their address, fault order, "
                       "the precise preflight, memory events and the binding rules",
                       f"Expected memory, tiles and events from the independent reference {REFERENCE} (no code "
                       f"shared with device_model), written by `{COMMAND}`. Nothing here was produced by running "
                       "the golden model.", referenced(cases, REFERENCE),
                       also=("TSTORE",) if op == "TLOAD" else ())  # the CUBE round trips store back


PROVENANCE = engine.spec_provenance("vectors/reference/memory.py", COMMAND)


def files(operations) -> dict:
    """The spec-ID and reference files, and with TSTORE the whole kernels (kernels.py), which
    end in a TSTORE."""
    out = engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_memory.py")
    if "TSTORE" in operations:
        out["PTO-AVS-X-TSTORE-SHARED-001.yaml"] = engine.render_spec_id(tstore_shared_file(), "generate_memory.py")
    if "TLOAD" in operations:
        out["PTO-AVS-X-TLOAD-SHARED-001.yaml"] = engine.render_spec_id(tload_shared_file(), "generate_memory.py")
    for op in operations:
        out[f"PTO-AVS-X-{op}-ORDER-001.yaml"] = engine.render_spec_id(order_file(op), "generate_memory.py")
        for vector_id in kernels.KERNELS:
            out[f"{vector_id}.yaml"] = engine.render_spec_id(
                kernels.kernel_file(vector_id, UNITS["TSTORE"]["readiness_subjects"], COMMAND), "kernels.py")
    return out


FAMILY = engine.Family("generate_memory", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X"))
                       + ("PTO-AVS-X-KERNEL-*.yaml",))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
