"""Write the vectors of the TLSU tile-to-tile moves: Local TMOV and the Core4 peer move GMOV.

    .venv/bin/python -m pto_avs.vectors.reference generate|check TMOV GMOV
    .venv/bin/python -m pto_avs.vectors.reference.generate_movement [--out DIR] [--check]  (the same)

- one file per spec test ID: the spec test point (``source: spec-test``; TMOV's as its direct
  call, InstructionContractExecute_TMOV; GMOV's as a BSTART.GMOV block, since GMOV has no
  direct-call contract), the same facts through the other forms, and the BSTART decode of the
  static points (the raw BSTART word packed by hand);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): every legal
  DataType with distinct bit patterns (the 4-bit ones in packed carriers, pto-v0 carrier Words
  copied whole), padding copied with its definedness, ColumnMajor tiles, partial PE masks,
  per-PE peer_tid GPRs, no memory event, and each legality rule in the ASL's order.

Every expectation is the spec test's assertion or follows from the ASL's copy
(asl/tile/model/memory/shared-movement.asl TMOV and GMOV: the destination takes the source's
payload and per-element definedness; ``memory.move``) and its legality (tlsu-gmov.asl,
tile-execution.asl, memory-schema.asl, indexed-layout.asl), derived by hand per case. Nothing here
runs the golden model.
"""
from __future__ import annotations

import sys

from . import engine
from . import memory as ref
from . import rearrange as grids
from .engine import UNITS, Flow, FlowMap, Hex, case, first_free, iot_line, rows_of, size_code, spec_ref
from .generate_rearrange import expect_tile, grid, pattern_rows, state_tile

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_movement"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("TMOV", "GMOV")
REFERENCE = {"TMOV": "asl/tile/model/memory/shared-movement.asl TMOV (vectors/reference/memory.py move)",
             "GMOV": "asl/tile/model/memory/shared-movement.asl GMOV, asl/block/model/dispatch/tlsu-gmov.asl "
                     "ExecuteBundleGMOVOperation (vectors/reference/memory.py move)"}
LEGALITY = {"TMOV": "asl/block/model/dispatch/tile-execution.asl (the flow's order), destination-shape.asl "
                    "ResolveBundleTileDestinations, descriptor-legality.asl ResolveBundleEffectiveDataType, "
                    "ExecuteTileInstruction's TMOV entry, memory-schema.asl TileOperandsLegal_TMOV",
            "GMOV": "asl/block/model/dispatch/tlsu-gmov.asl ExecuteBundleGMOVOperation (its order), "
                    "asl/tile/model/legality/indexed-layout.asl TileOperandsLegal_GMOV"}
BSTART_MATCH = {"TMOV": 0x00211181, "GMOV": 0x00D11181}  # command forms 47 and 48: DataType 31:27
FUNCTION = {"TMOV": 2, "GMOV": 13}
PEER_GPR = 1
# TileCarrierOrPackedBaselineDataTypeSupported: a 4-bit type or a type of at most 32 bits.
GMOV_TYPES = tuple(t for t in engine.DATA_TYPES if engine.width(t) <= 32)


def bstart(op: str, t: str) -> str:
    return f"BSTART.{op} {t}"


def block_text(op, t, binding, *, datr=None, dims=(), ior=None, extra=()) -> str:
    lines = [bstart(op, t)] + ([datr] if datr else []) + [f"B.DIM {k}={v}" for k, v in dict(dims).items()]
    lines += [binding, *extra] + ([ior] if ior else []) + ["BSTOP"]
    return "\n".join(lines)


def peer_state(peers) -> dict:
    """PE 0's R1 in ``gprs``, PE 1..3's in ``pe_gprs`` (None: left at zero)."""
    out = {}
    if peers[0]:
        out["gprs"] = engine.gpr_map({PEER_GPR: peers[0]})
    others = {pe: FlowMap({PEER_GPR: Hex(v)}) for pe, v in enumerate(peers) if pe and v}
    if others:
        out["pe_gprs"] = others
    return out


def moved(op, name, description, src: grids.Grid, *, t=None, index=1, dst_size=None, dims=None, datr=None,
          peers=None, mask="1111", layout=None, profiles=BOTH, source="reference-generator", reference="",
          others=(), carrier=None) -> dict:
    """A completed block: ``src`` at T``index`` (and ``others``, state Grids at their indices) moves to the
    first free T, its descriptor the source's (the derived shape), its contents ``memory.move``'s."""
    t = t or src.dtype
    used = [index] + [i for i, _ in others]
    dst = first_free(used)
    size = dst_size or src.capacity
    destination = grid(src.dtype, src.capacity, src.cols, src.valid)
    result = ref.move(destination, src)
    result.capacity = src.capacity
    ior = f"B.IOR R{PEER_GPR}, zero" if peers is not None else None
    program = block_text(op, t, iot_line([index], size_code(size), mask=mask), datr=datr, dims=dims or {}, ior=ior)
    state = {"tiles": [state_tile(index, src, layout)] + [state_tile(i, g) for i, g in others]}
    state.update(peer_state(peers or (0, 0, 0, 0)))
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    expect = engine.success_expect(0, sorted({*used, dst}), sorted(used),
                                   [expect_tile(dst, result, carrier=carrier, layout=layout or "RowMajor", mask=mask)])
    expect["events"] = Flow([])
    return case(name, description, list(profiles), source, reference or REFERENCE[op], state, program, expect)


def refused(op, name, description, tiles, program, fault="Fault_TileLegality", *, peers=None, reference="") -> dict:
    """A rejected block or call: ``fault``, every state tile unchanged, nothing allocated, no event."""
    state = {"tiles": tiles}
    state.update(peer_state(peers or (0, 0, 0, 0)))
    expect = engine.fault_expect(fault, sorted(t["index"] for t in tiles))
    expect["events"] = Flow([])
    return case(name, description, BOTH, "hand", reference or LEGALITY[op], state, program, expect)


def source_grid(t: str, valid=(2, 3), cols=4, capacity=None, padding=None, shift=0) -> grids.Grid:
    rows = pattern_rows(t, *valid, shift)
    capacity = capacity or _capacity(t, cols, valid[0])
    return grid(t, capacity, cols, valid, rows, padding)


def _capacity(t, cols, rows):
    capacity = 128
    while rows_of(capacity, cols, t) < rows:
        capacity *= 2
    return capacity


def raw_word(op: str, t: str) -> int:
    return BSTART_MATCH[op] | engine.dtype_code(t) << 27


# ---------------------------------------------------------------------------------------
# Spec test points

def tmov_defined(test_id) -> list:
    what = ("TMOV(2, 1): destination (0,0) = 7 and defined, (0,1) not defined, source (0,0) still 7")
    reference = spec_ref(test_id, what)
    src = grid("U8", 128, 4, (1, 1), [[7]])
    destination = grid("U8", 128, 4, (1, 1), [[0x55]], padding={(0, 1): 0x66})  # every coordinate defined before
    result = ref.move(destination, src)
    assert result.words[0][0] == 7 and result.defined[0][0] and not result.defined[0][1], "reference disagrees"
    result.capacity = 128
    direct = case("direct-call-copies-definedness", """The spec's point as its direct call
        (InstructionContractExecute_TMOV): the source T1 holds 7 at (0,0) and nothing defined elsewhere; the
        destination T2 (same descriptor) was defined everywhere, and after the move (0,0) is 7 and defined and
        (0,1) is undefined, the source unchanged. The spec test's tile has valid 1x2 with (0,1) undefined;
        the format states definedness per region, so (0,1) is padding here, which TMOV copies the same way.""",
                  BOTH, "spec-test", reference, {"tiles": [state_tile(1, src), state_tile(2, destination)]},
                  engine.direct_call("TMOV", 2, [1]),
                  engine.success_expect(0, [1, 2], [1], [expect_tile(2, result, carrier=False)]))
    undefined_src = grid("U8", 128, 4, (1, 2))
    undefined_src.write(0, 0, 7)
    partial = ref.move(grid("U8", 128, 4, (1, 2)), undefined_src)
    partial.capacity = 128
    spec_choice = case("direct-call-partially-defined-source", """SPEC-CHOICE 71: a direct call of a source
        whose valid region is not wholly defined (state defined: none, so nothing defined) is legal, as
        InstructionContractOperandsLegal_TMOV (TileShapeAndTypeMatch only) accepts it and the spec's own
        test moves such a tile; the destination becomes undefined everywhere and the source stays.""",
                       BOTH, "hand", reference,
                       {"tiles": [dict(engine.tile(1, "U8", 128, 4, [1, 2], [[7, 0]]), defined="none"),
                                  state_tile(2, grid("U8", 128, 4, (1, 2), [[1, 2]]))]},
                       engine.direct_call("TMOV", 2, [1]),
                       engine.success_expect(0, [1, 2], [1], [_undefined_expect(2, partial)]))
    block = moved("TMOV", "block-copies-valid-region", """The same move as a BSTART.TMOV block: the destination
        (renamed to T0) takes the source's descriptor (LB0..LB2 omitted), its Words and definedness.""",
                  grid("U8", 128, 4, (1, 2), [[7, 9]]), source="hand", reference=reference)
    inferred = moved("TMOV", "block-dtype-none-takes-the-source-type", """BSTART.TMOV DTYPE_NONE: the effective type
        is the bound source's (ResolveBundleEffectiveDataType's TMOV branch).""",
                     grid("U16", 128, 4, (1, 2), [[0x1234, 0xBEEF]]), t="DTYPE_NONE", source="hand",
                     reference=reference)
    block_undefined = refused("TMOV", "block-partially-defined-source-is-tile-legality", """A block reaches
        ExecuteTileInstruction, whose TMOV entry asks TileSourceContentsDefined first: a source with nothing
        defined is Fault_TileLegality (SPEC-CHOICE 71: the direct call accepts it).""",
                              [dict(engine.tile(1, "U8", 128, 4, [1, 2], [[7, 0]]), defined="none")],
                              block_text("TMOV", "U8", iot_line([1], 1)))
    return [direct, spec_choice, block, inferred, block_undefined]


def _undefined_expect(index, g) -> dict:
    out = expect_tile(index, g, carrier=False)
    del out["data"]
    out["elements"] = {f"{r},{c}": FlowMap(defined=False) for r in range(g.valid[0]) for c in range(g.valid[1])}
    return out


def gmov_copy(test_id) -> list:
    what = "GMOV(1, 0, 2): destination (0,0) = 0x31, (0,1) = 0x42, source (0,0) still 0x31, no memory event"
    reference = spec_ref(test_id, what)
    src = grid("U8", 128, 2, (1, 2), [[0x31, 0x42]])
    spec = moved("GMOV", "block-peer-2-copies-the-fragment", """The spec's point as a BSTART.GMOV block (GMOV has no
        direct-call contract): every PE's peer_tid (R1 of its own GPR file) is 2; the destination (renamed to T0,
        the source at T1) receives 0x31, 0x42, the source is unchanged and no memory event is recorded.""",
                 src, peers=(2, 2, 2, 2), source="spec-test", reference=reference)
    assert [v for v in spec["expect"]["tiles"][0]["data"][0]] == [0x31, 0x42], "reference disagrees"
    omitted = moved("GMOV", "b-ior-omitted-peer-zero", """B.IOR omitted: peer_tid zero in each PE
        (the contract's default); the copy is the same.""", src, source="hand", reference=reference)
    repeated = moved("GMOV", "per-pe-peers-differ-and-repeat", """Each PE names its own peer (0, 3, 3, 1 in
        PE 0..3's R1); repeats are legal, and the one-level model's Core4 snapshot copies the same fragment.""",
                     src, peers=(0, 3, 3, 1), source="hand", reference=reference)
    return [spec, omitted, repeated]


def static_cases(op, test_id) -> list:
    spec = UNITS[op]
    what = f"DecodeTileOperation(TLSU, {FUNCTION[op]}) selects {op} (engine TLSU)"
    reference = spec_ref(test_id, what)
    word = raw_word(op, "U8")
    src = grid("U8", 128, 4, (1, 2), [[5, 6]])
    text = moved(op, f"bstart-{op.lower()}-u8", f"""BSTART.{op} U8 = {word:#010x} opens a {op} block (TLSU
        Function {FUNCTION[op]}).""", src, source="spec-test", reference=reference)
    raw = moved(op, "raw-bstart-word", f"""The BSTART as the raw word {word:#010x} packed by hand (command form
        match {BSTART_MATCH[op]:#010x}, DataType 31:27).""", src, source="spec-test", reference=reference)
    raw["program"] = engine.raw_bstart_program(str(raw["program"]), word)
    del spec
    return [text, raw]


# ---------------------------------------------------------------------------------------
# Reference files

def type_sweep(op) -> list:
    cases = []
    types = engine.DATA_TYPES if op == "TMOV" else GMOV_TYPES
    for t in types:
        cols = 8 if engine.width(t) == 4 else 4
        src = source_grid(t, (2, 3), cols)
        cases.append(moved(op, f"type-{t.lower()}", f"""{t}: a 2x3 valid region of distinct bit patterns in {cols}
            columns is copied bit for bit.""", src, peers=(1, 2, 3, 0) if op == "GMOV" else None))
    return cases


def carriers(op) -> list:
    """pto-v0: the whole carrier Word of a non-packed tile is copied (bits above the element width too)."""
    out = []
    for t in ("U8", "FP16", "S32"):
        src = source_grid(t, (2, 2), 4)
        for r in range(2):
            for c in range(2):
                src.write(r, c, src.words[r][c] | (0xA5 << 40) | (r << 56) | (c << 60))
        out.append(moved(op, f"carrier-words-{t.lower()}", f"""pto-v0 raw carrier: {t} Words with bits above the
            element width set are copied whole.""", src, profiles=["pto-v0"]))
    return out


def padding_cases(op) -> list:
    src = source_grid("U8", (1, 2), 4, padding={(0, 2): 0x5A, (0, 3): 0xC3, (5, 1): 0x11})
    full = source_grid("U16", (2, 4), 4)
    return [
        moved(op, "padding-copied-with-its-definedness", """The source's padding is defined (0x5A, 0xC3, 0x11 at
            three coordinates, 0 elsewhere): the destination's padding holds the same Words, defined.""", src),
        moved(op, "padding-undefined-stays-undefined", """The source's padding is undefined: so is the
            destination's.""", source_grid("U8", (3, 2), 4)),
        moved(op, "whole-tile-valid", "A valid region as wide as the tile (no padding column).", full),
    ]


def layout_cases(op) -> list:
    out = []
    if op == "TMOV":
        src = source_grid("FP64", (2, 3), 4)
        out.append(moved(op, "column-major-by-datr", """B.DATR ND2DN (destination ColumnMajor) with a ColumnMajor FP64 source: a present
            B.DATR's DataType field is 0 (only Layout may be nonzero), which is the concrete FP64 that
            ResolveBundleEffectiveDataType takes before the BSTART type (as SPEC-CHOICE 60 reads it for TLOAD), so
            the destination is FP64 ColumnMajor.""", src, datr="B.DATR NONE, ND2DN, Zero",
                         layout="ColumnMajor"))
        out.append(moved(op, "partial-mask-1100", """PE mask 1100: the destination is allocated on PE 2 and 3
            only; the copy is whole.""", source_grid("U8", (1, 3), 4), mask="1100"))
        big = source_grid("U32", (16, 16), 16)
        out.append(moved(op, "sixteen-by-sixteen-u32", "A 16x16 U32 tile of 1 KiB is copied whole.", big))
    else:
        out.append(moved(op, "partial-mask-1100-selects-destination-writes", """PE mask 1100: any nonzero mask is
            legal and selects the destination's PEs (its allocation mask 1100); readiness and peer selection
            still take all four PEs' sources and GPRs.""", source_grid("U8", (1, 3), 4), mask="1100",
                         peers=(0, 1, 2, 3)))
        big = source_grid("U32", (16, 16), 16)
        out.append(moved(op, "sixteen-by-sixteen-u32", "A 16x16 U32 tile of 1 KiB is copied whole.", big,
                         peers=(3, 2, 1, 0)))
    return out


def no_op(op) -> list:
    src = grid("U8", 128, 4, (1, 2), [[1, 2]])
    program = block_text(op, "U8", iot_line([1], 1, mask="0000"))
    state = {"tiles": [state_tile(1, src)]}
    expect = {"fault": None, "flags": Hex(0), "allocated": Flow([1]), "unchanged": "all", "events": Flow([])}
    return [case("pe-mask-zero-is-a-strict-no-op", """PE_MASK 0000: a strict no-op before every check (nothing
        allocated, nothing faults).""", BOTH, "hand", LEGALITY[op], state, program, expect)]


def tmov_legality() -> list:
    src = grid("U8", 128, 4, (1, 2), [[1, 2]])
    tiles = [state_tile(1, src)]
    reference = LEGALITY["TMOV"]
    cases = [
        refused("TMOV", "b-ior-field-is-bundle-control", """TMOV reads no GPR: a nonzero B.IOR RegSrc0 fails
            BundleOperationBindingsComplete, Fault_BundleControl.""", tiles,
                block_text("TMOV", "U8", iot_line([1], 1), ior="B.IOR R1, zero"), "Fault_BundleControl"),
        refused("TMOV", "no-source-is-bundle-control", """A binding with a destination and no source fails
            BundleOperationBindingsComplete: Fault_BundleControl.""", tiles,
                block_text("TMOV", "U8", "B.IOT mask=1111, <last>, ->T<1>"), "Fault_BundleControl"),
        refused("TMOV", "datr-padvalue-is-tile-legality", """B.DATR PadValue Null (code 3): TMOV's B.DATR applicability
            allows Layout only (pad union must-zero): Fault_TileLegality.""", tiles,
                block_text("TMOV", "U8", iot_line([1], 1), datr="B.DATR NONE, NORM, Null")),
        refused("TMOV", "datr-present-makes-fp64-type-mismatch", """Any B.DATR makes the effective type FP64 (its
            DataType field 0): the FP64 destination against a U8 source fails TileOperandsLegal_TMOV.""", tiles,
                block_text("TMOV", "U8", iot_line([1], 1), datr="B.DATR NONE, NORM, Zero")),
        refused("TMOV", "bstart-type-differs-is-tile-legality", """BSTART.TMOV U16 over a U8 source: the U16
            destination (capacity 128, the source's columns) differs in type: TileOperandsLegal_TMOV.""", tiles,
                block_text("TMOV", "U16", iot_line([1], 1))),
        refused("TMOV", "dims-change-the-valid-region", """B.DIM LB0=1 gives the destination a 1x1 valid region,
            which differs from the source's 1x2: TileShapeAndTypeMatch fails.""", tiles,
                block_text("TMOV", "U8", iot_line([1], 1), dims={"LB0": 1})),
        refused("TMOV", "dtype-none-without-a-source-descriptor", """BSTART.TMOV DTYPE_NONE whose source T3 is not
            allocated: no effective type resolves, Fault_TileLegality before allocation.""", tiles,
                block_text("TMOV", "DTYPE_NONE", iot_line([3], 1))),
        refused("TMOV", "destination-too-small-is-tile-allocation", """A U16 source of 256 bytes (8 columns, 16
            rows) into a 128-byte destination: the derived 16x8 U16 shape does not fit, Fault_TileAllocation.""",
                [state_tile(1, grid("U16", 256, 8, (16, 2), [[i, i + 1] for i in range(16)]))],
                block_text("TMOV", "U16", iot_line([1], 1)), "Fault_TileAllocation"),
        refused("TMOV", "shared-binding-is-tile-legality", """A B.IOS binding selects the Shared TLSU path, where
            Function 2 has no form: Fault_TileLegality.""", tiles,
                block_text("TMOV", "U8", iot_line([1], 1), extra=["B.IOS S7, mask=1111"])),
        refused("TMOV", "cube-transport-layout-is-tile-legality", """B.DATR Layout ND2M16 routes the block to the
            CUBE transport, whose attribute rule admits only TLOAD's and TSTORE's layouts: Fault_TileLegality.""",
                tiles, block_text("TMOV", "U8", iot_line([1], 1), datr="B.DATR ND2M16, NONE, Zero")),
        refused("TMOV", "direct-shape-mismatch-is-tile-legality", """A direct call into a destination of another
            valid region (1x1): TileOperandsLegal_TMOV, Fault_TileLegality.""",
                tiles + [state_tile(2, grid("U8", 128, 4, (1, 1), [[0]]))], engine.direct_call("TMOV", 2, [1])),
        refused("TMOV", "direct-type-mismatch-is-tile-legality", """A direct call into an S8 destination of the same
            shape: the types differ, Fault_TileLegality.""",
                tiles + [state_tile(2, grid("S8", 128, 4, (1, 2), [[0, 0]]))], engine.direct_call("TMOV", 2, [1])),
    ]
    for item in cases:
        item["reference"] = reference
    return cases


def gmov_legality() -> list:
    src = grid("U8", 128, 4, (1, 2), [[1, 2]])
    tiles = [state_tile(1, src)]
    line = iot_line([1], 1)
    ior = f"B.IOR R{PEER_GPR}, zero"
    partial = dict(state_tile(1, src), mask="1110")
    return [
        refused("GMOV", "b-ior-regsrc1-is-tile-legality", """B.IOR RegSrc1 nonzero: BundleOperationBindingsComplete
            fails, and ExecuteBundleGMOVOperation answers every schema failure with Fault_TileLegality (not
            Fault_BundleControl as the TEPL flow does).""", tiles, block_text("GMOV", "U8", line, ior="B.IOR zero, R2")),
        refused("GMOV", "shared-binding-is-tile-legality", "A B.IOS binding: Fault_TileLegality.", tiles,
                block_text("GMOV", "U8", line, extra=["B.IOS S7, mask=1111"])),
        refused("GMOV", "two-bindings-is-tile-legality", """The source and the destination in two B.IOT bindings:
            not the one terminating binding, Fault_TileLegality.""", tiles,
                block_text("GMOV", "U8", "B.IOT T1, mask=1111", extra=["B.IOT mask=1111, <last>, ->T<1>"])),
        refused("GMOV", "datr-padvalue-is-tile-legality", "B.DATR PadValue Null (code 3): Layout only may be nonzero.", tiles,
                block_text("GMOV", "U8", line, datr="B.DATR NONE, NORM, Null")),
        refused("GMOV", "source-not-on-all-four-pes", """The source is allocated on PE 1..3 only (mask 1110): not
            Core4-ready (BundleGMOVCore4SourceReady), Fault_TileLegality.""", [partial],
                block_text("GMOV", "U8", iot_line([1], 1, mask="1110"))),
        refused("GMOV", "source-undefined-is-tile-legality", "A source with nothing defined is not Core4-ready.",
                [dict(state_tile(1, src), defined="none")], block_text("GMOV", "U8", line)),
        refused("GMOV", "destination-size-differs", """Destination TSize 256 against a 128-byte source:
            Fault_TileLegality.""", tiles, block_text("GMOV", "U8", iot_line([1], 2))),
        refused("GMOV", "bstart-type-differs", "BSTART.GMOV S8 over a U8 source: Fault_TileLegality.", tiles,
                block_text("GMOV", "S8", line)),
        refused("GMOV", "sixty-four-bit-type", """BSTART.GMOV U64 over a U64 source: U64 is not a carrier or packed
            baseline type, Fault_TileLegality.""", [state_tile(1, grid("U64", 128, 4, (1, 2), [[1, 2]]))],
                block_text("GMOV", "U64", line)),
        refused("GMOV", "datr-present-is-tile-legality", """B.DATR NORM (PadValue Zero): its DataType field 0 makes the effective
            type FP64, so the FP64 destination differs from the U8 source and TileOperandsLegal_GMOV fails (SPEC-CHOICE
            72: with the executable's reading GMOV cannot carry a B.DATR at all).""", tiles,
                block_text("GMOV", "U8", line, datr="B.DATR NONE, NORM, Zero")),
        refused("GMOV", "source-layout-differs-from-datr", """A ColumnMajor source without B.DATR (NORM): the source
            layout must be CurrentBundleTileLayout, Fault_TileLegality.""",
                [state_tile(1, src, "ColumnMajor")], block_text("GMOV", "U8", line)),
        refused("GMOV", "b-dim-is-tile-legality", "Any B.DIM: Fault_TileLegality.", tiles,
                block_text("GMOV", "U8", line, dims={"LB0": 2})),
        refused("GMOV", "peer-tid-4-in-pe-3", """PE 3's R1 holds 4 (the others 0..3): every PE's peer_tid is checked
            before allocation, Fault_TileLegality.""", tiles, block_text("GMOV", "U8", line, ior=ior),
                peers=(0, 1, 2, 4)),
        refused("GMOV", "peer-tid-wide-in-pe-1", "PE 1's peer_tid 0x100000000: out of 0..3.", tiles,
                block_text("GMOV", "U8", line, ior=ior), peers=(1, 1 << 32, 1, 1)),
        refused("GMOV", "no-free-index-is-tile-allocation", """Every T index holds a tile: the destination finds no
            free index, Fault_TileAllocation (after every schema and peer check).""",
                tiles + [state_tile(i, grid("U8", 128, 4, (1, 1), [[i]])) for i in range(16) if i != 1],
                block_text("GMOV", "U8", line, ior=ior), "Fault_TileAllocation", peers=(1, 1, 1, 1)),
        refused("GMOV", "cube-transport-layout-is-tile-legality", """B.DATR Layout M162ND: the CUBE transport admits
            only TLOAD's and TSTORE's layouts, Fault_TileLegality.""", tiles,
                block_text("GMOV", "U8", line, datr="B.DATR M162ND, NONE, Zero")),
    ]


# ---------------------------------------------------------------------------------------
# The Shared forms of TMOV: TMOV.L2S.INSERT / .PUBLISH (Functions 9, 10) and TMOV.S2L.BROADCAST /
# .EXTRACT (Functions 11, 12)

SHARED_REFERENCE = ("asl/block/model/dispatch/shared-tlsu.asl ExecuteBundleSharedTLSUOperation, "
                    "BundleSharedTMOVLocalSchemaLegal, BundleSharedTMOVDestinationSchemaLegal; shared-movement.asl "
                    "TMOVLocalToShared, TMOVSharedToLocal; shared-registers.asl AtomicUpdateSharedTileWithPublication, "
                    "SharedTileReadSchemaLegalAtCapacity, ReadSharedTileWord (vectors/reference/memory.py "
                    "shared_to_local, local_to_shared, shared_word)")
SHARED_SHAPE = ("U32", 128, 4, (8, 4))  # a whole 8 x 4 U32 tile: rows 2p, 2p + 1 are PE p's quarter


def _words(count: int, seed: int) -> dict:
    return {e: (seed * 0x01010101 + 0x00030507 * e) & 0xFFFFFFFF for e in range(count)}


def _split(flat: list, cols: int) -> list:
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


def l2s(sid: int, mask: str, publish: bool, source: int = 0, code: int = 1) -> str:
    form = "PUBLISH" if publish else "INSERT"
    return (f"BSTART.TMOV.L2S.{form} U32\nB.IOT T{source}, mask={mask}, <last>\nB.IOS mask={mask}, ->S{sid}<{code}>"
            "\nBSTOP")


def s2l(sid: int, mask: str, broadcast: bool, code: int = 1, t: str = "U32", dims=None) -> str:
    form = "BROADCAST" if broadcast else "EXTRACT"
    lines = [f"BSTART.TMOV.S2L.{form} {t}"] + [f"B.DIM {k}={v}" for k, v in (dims or {}).items()]
    return "\n".join(lines + [f"B.IOS S{sid}, mask={mask}", f"B.IOT mask={mask}, <last>, ->T<{code}>", "BSTOP"])


def shared_tmov_case(name, description, program, *, register=None, local=None, moved=(), extract=None,
                     fault=None, source="reference-generator", register_valid=None) -> dict:
    """A program of Shared TMOV blocks over an 8 x 4 U32 shape. ``register``: (sid, words, allocation
    mask) installed first; ``local``: the Words of Local T0; ``moved``: the reference's L2S updates
    (sid, mask) in program order; ``extract``: (sid, mask) of the last block, an S2L into T1 (T0 when
    there is no Local tile), whose expected tile the reference gives; ``fault``: the expected fault."""
    t, capacity, cols, valid = SHARED_SHAPE
    count = valid[0] * valid[1]
    state = {"tiles": Flow([])}
    registers = {}
    if register is not None:
        sid, words, allocated = register
        shape = register_valid or valid
        item = engine.tile(sid, t, capacity, cols, list(shape), _split([words[r * cols + c] for r in range(shape[0])
                                                                         for c in range(shape[1])], shape[1]))
        if allocated != "1111":
            item["mask"] = allocated
        state["shared_tiles"] = [item]
        registers[sid] = (words, allocated)
    if local is not None:
        state["tiles"] = [engine.tile(0, t, capacity, cols, list(valid), _split([local[e] for e in range(count)], cols))]
    allocated_tiles = [0] if local is not None else []
    if fault is not None:
        expect = {"fault": fault, "flags": Hex(0), "allocated": Flow(allocated_tiles), "unchanged": "all",
                  "memory_unchanged": True, "events": Flow([])}
        return case(name, description, BOTH, "hand", SHARED_REFERENCE, state, program, expect)
    for sid, mask in moved:
        old = registers.get(sid)
        registers[sid] = ref.local_to_shared(local, mask, 32, capacity, *(old or (None, None)))
    sid, mask = extract
    words, allocated = registers.get(sid, (None, "0000"))
    read = ref.shared_to_local(sid, count, 32, capacity, mask, words, allocated)
    index = 1 if local is not None else 0
    out = {"index": index, "dtype": t, "layout": "RowMajor", "location": "Any", "rows": valid[0], "cols": cols,
           "valid": Flow(list(valid)), "capacity": capacity, "mask": mask}
    if len(read) == count:
        out["data"] = engine.hexrows(_split([read[e] for e in range(count)], cols))
    else:
        out["elements"] = {f"{e // cols},{e % cols}": FlowMap({"value": Hex(read[e]), "defined": True}) if e in read
                           else FlowMap(defined=False) for e in range(count)}
    expect = {"fault": None, "flags": Hex(0), "allocated": Flow(allocated_tiles + [index]),
              "unchanged": Flow(allocated_tiles), "tiles": [out], "memory_unchanged": True, "events": Flow([])}
    return case(name, description, BOTH, source, SHARED_REFERENCE, state, program, expect)


def tmov_shared_cases() -> list:
    a, b = _words(32, 0x11), _words(32, 0x60)
    return [
        shared_tmov_case("extract-all-four-pes", """TMOV.S2L.EXTRACT of S5 (U32, 128 B, 8 x 4) on all four PEs: every
            element of T0 is S5's; the destination is wholly defined.""", s2l(5, "1111", False),
                         register=(5, a, "1111"), extract=(5, "1111")),
        shared_tmov_case("extract-one-pe", """EXTRACT with mask 0100: only PE 1's quarter (rows 2 and 3) is copied and
            defined; the rest of the new T0 stays undefined.""", s2l(5, "0100", False), register=(5, a, "1111"),
                         extract=(5, "0100")),
        shared_tmov_case("extract-partially-allocated", """S5 allocated on PE 0 and PE 1 only: EXTRACT 1111 reads the
            other quarters (rows 4-7) as the undefined-register value 5 XOR element.""", s2l(5, "1111", False),
                         register=(5, a, "1100"), extract=(5, "1111")),
        shared_tmov_case("extract-unallocated-register", """S9 has no descriptor: EXTRACT with LB0=4, LB1=8, LB2=4 into
            128 bytes gives every element the undefined-register value 9 XOR element.""",
                         s2l(9, "1111", False, dims={"LB0": 4, "LB1": 8, "LB2": 4}), extract=(9, "1111")),
        shared_tmov_case("broadcast-published", """TMOV.S2L.BROADCAST of a published S5 allocated on all four PEs: the
            whole register.""", s2l(5, "1111", True), register=(5, a, "1111"), extract=(5, "1111")),
        shared_tmov_case("publish-then-broadcast", """TMOV.L2S.PUBLISH of T0 into a new S7 on all four PEs, then
            BROADCAST of S7 into T1: T0's values.""", l2s(7, "1111", True) + "\n" + s2l(7, "1111", True),
                         local=a, moved=[(7, "1111")], extract=(7, "1111")),
        shared_tmov_case("insert-then-extract", """TMOV.L2S.INSERT of T0 into a new S7 on PE 0 and PE 1 (S7 allocated
            there, unpublished), then EXTRACT 1111: rows 0-3 are T0's, rows 4-7 the undefined values 7 XOR
            element.""", l2s(7, "1100", False) + "\n" + s2l(7, "1111", False), local=a, moved=[(7, "1100")],
                         extract=(7, "1111")),
        shared_tmov_case("insert-keeps-other-quarters", """S5 holds register values; INSERT of T0 on PE 2 replaces only
            rows 4 and 5 (AtomicUpdateSharedTileWithPublication); EXTRACT shows the other quarters kept.""",
                         l2s(5, "0010", False) + "\n" + s2l(5, "1111", False), register=(5, b, "1111"), local=a,
                         moved=[(5, "0010")], extract=(5, "1111")),
        shared_tmov_case("broadcast-after-insert-unpublished", """INSERT creates S7 unpublished: a BROADCAST of it
            fails SharedTilePublished (Fault_TileLegality).""", l2s(7, "1111", False) + "\n" + s2l(7, "1111", True),
                         local=a, fault="Fault_TileLegality"),
        shared_tmov_case("broadcast-partial-mask", """BROADCAST needs PE_MASK 1111: mask 1100 is Fault_TileLegality.""",
                         s2l(5, "1100", True), register=(5, a, "1111"), fault="Fault_TileLegality"),
        shared_tmov_case("broadcast-partially-allocated", """BROADCAST of S5 allocated on PE 0 and PE 1 only:
            Fault_TileLegality.""", s2l(5, "1111", True), register=(5, a, "1100"), fault="Fault_TileLegality"),
        shared_tmov_case("s2l-capacity-differs", """EXTRACT of the 128-byte S5 into a 256-byte destination (SizeCode 2):
            the read schema asks the register's capacity, Fault_TileLegality.""", s2l(5, "1111", False, code=2),
                         register=(5, a, "1111"), fault="Fault_TileLegality"),
        shared_tmov_case("s2l-type-differs", """BSTART.TMOV.S2L.EXTRACT S32 over a U32 register: Fault_TileLegality.""",
                         s2l(5, "1111", False, t="S32"), register=(5, a, "1111"), fault="Fault_TileLegality"),
        shared_tmov_case("s2l-cols-differ", """LB2=8 against the register's 4 columns: Fault_TileLegality.""",
                         s2l(5, "1111", False, dims={"LB2": 8}), register=(5, a, "1111"), fault="Fault_TileLegality"),
        shared_tmov_case("l2s-capacity-differs", """INSERT of a 128-byte T0 through a B.IOS SizeCode 2 (256 bytes):
            Fault_TileLegality.""", l2s(7, "1111", False, code=2), local=a, fault="Fault_TileLegality"),
        shared_tmov_case("l2s-other-descriptor", """S5 holds a 128-byte U32 register of valid 8 x 2, not T0's
            descriptor (valid 8 x 4): SharedTileDescriptorsCompatible fails, Fault_TileLegality.""",
                         l2s(5, "1111", False), register=(5, a, "1111"), register_valid=(8, 2), local=a,
                         fault="Fault_TileLegality"),
        shared_tmov_case("l2s-fewer-pes-allocated", """S5 is allocated on PE 0 and PE 1: an INSERT on all four PEs
            names PEs it is not allocated on (Fault_TileLegality).""", l2s(5, "1111", False),
                         register=(5, a, "1100"), local=a, fault="Fault_TileLegality"),
        shared_tmov_case("tmov-function-2-with-bios", """BSTART.TMOV (Function 2) with a B.IOS: the Shared path has no
            Function 2 form (Fault_TileLegality).""", "BSTART.TMOV U32\nB.IOS S5, mask=1111\nB.IOT mask=1111, <last>, "
                         "->T<1>\nBSTOP", register=(5, a, "1111"), fault="Fault_TileLegality"),
        shared_tmov_case("l2s-without-bios", """TMOV.L2S.INSERT with no B.IOS: the Shared path takes exactly one
            (Fault_TileLegality).""", "BSTART.TMOV.L2S.INSERT U32\nB.IOT T0, mask=1111, <last>\nBSTOP", local=a,
                         fault="Fault_TileLegality"),
    ]


def tmov_shared_file() -> dict:
    return engine.execution_file(
        "PTO-AVS-X-TMOV-SHARED-001", "TMOV", "TMOV to and from a Shared tile register: INSERT and PUBLISH (Local to "
        "Shared, the quarters of the mask, publication), BROADCAST and EXTRACT (Shared to Local, undefined-register "
        "values), and their legality", f"Expected tiles from the independent reference {SHARED_REFERENCE}, one element "
        f"at a time (no code shared with device_model), written by `{COMMAND}`. Nothing here was produced by running "
        "the golden model.", tmov_shared_cases())


def spec_cases(op: str, test_id: str) -> list:
    if test_id.endswith("-STATIC-001"):
        return static_cases(op, test_id)
    return {"PTO-AVS-TILE-TMOV-DEFINED-001": tmov_defined, "PTO-AVS-TILE-GMOV-COPY-001": gmov_copy}[test_id](test_id)


def x_file(op: str) -> dict:
    cases = (type_sweep(op) + carriers(op) + padding_cases(op) + layout_cases(op) + no_op(op)
             + (tmov_legality() if op == "TMOV" else gmov_legality()))
    return engine.execution_file(
        f"PTO-AVS-X-{op}-REF-001", op, f"{op}: every legal DataType, carrier Words, padding and definedness copied, "
        "layouts, PE masks, no memory event, and the legality rules in the ASL's order",
        f"Expected tiles from the ASL's copy ({REFERENCE[op]}) and its legality ({LEGALITY[op]}), derived by hand per "
        f"case and written by `{COMMAND}`. Nothing here was produced by running the golden model.", cases)


PROVENANCE = engine.spec_provenance("vectors/reference/memory.py", COMMAND)


def files(operations) -> dict:
    out = engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_movement.py")
    if "TMOV" in operations:
        out["PTO-AVS-X-TMOV-SHARED-001.yaml"] = engine.render_spec_id(tmov_shared_file(), "generate_movement.py")
    return out


FAMILY = engine.Family("generate_movement", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names
    sys.exit(engine.legacy_main([FAMILY]))
