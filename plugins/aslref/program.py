"""ASL text for a batch of cases: one function per case and a main that runs them.

Each case function writes the case's initial state with the spec's own state
functions (through the helpers of ``harness.asl``), feeds the instruction words
one by one to the spec's encoded-instruction entry point (stopping at the first
one not executed) and calls the spec's direct-call contracts for direct-call
items. ``main`` resets the spec once, snapshots every global variable into a
shadow copy, and before each case restores that copy (``reset="snapshot"``); or,
for the equivalence check, resets the spec itself (``reset="fresh"``, one case per
interpreter run). After each case it prints the observation (``AVSObserve``)
between ``C <n>`` and ``Q <n>`` markers that ``output.py`` reads.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ...contract.case import Case
from ..base import case_needs
from ...contract.tile_state import CUBE_LAYOUTS, parse_coordinate
from ...device_model import dtypes
from ...device_model.encoding import assemble, raw_instruction
from ...device_model.encoding.assembler import parse_tile
from ...device_model.encoding.names import CMODE_NAMES, LAYOUT_CODES, ROUNDING_CODES, ROUNDING_NAMES
from ...device_model.padding import PAD_NAMES, pad_name
from ...device_model.feature_map import PADS, POSITIVE
from ...device_model.feature_map import describe as describe_feature_map

HARNESS = Path(__file__).with_name("harness.asl")
DEFAULT_MEMORY_BYTES = 4096  # the vector format's default memory size (the spec's config default)
WORD_MASK = (1 << 64) - 1
SHADOW_PREFIX = "AVSShadow"
RESETS = ("snapshot", "fresh")
# The other CUBE operations' direct calls (AVSDirectCube), by CUBE function number.
CUBE_FUNCTIONS = {"TMATMUL": 0, "TMATMUL_BIAS": 1, "TMATMUL_ACC": 2, "TMATMUL_MX": 4, "TMATMUL_MX_BIAS": 5,
                  "TMATMUL_MX_ACC": 6, "TGEMV": 16, "TGEMV_BIAS": 17, "TGEMV_ACC": 18, "TGEMV_MX": 20,
                  "TGEMV_MX_BIAS": 21}
# direct calls with their own harness helper
SPECIAL_CALLS = ("TCVT", "TQUANT", "TGEMV_MX_ACC", "TSORT", "TMRGSORT", "TCI", "TTRI", "THISTOGRAM", "TDEQUANT",
                 *CUBE_FUNCTIONS)
# Direct-call arguments of the other operations, matched in order to the contract's TileIndex parameters
# (destination, then sources) and its Word parameter (the scalar); "pad" sets the B.DATR PadValue.
TILE_ARGUMENTS = ("dst", "src", "src1", "src2")
# The contracts' integer {0..65535} parameters (TEXTRACT's and TINSERT's row and column offsets), in order.
NATURAL_ARGUMENTS = ("row_offset", "column_offset")
NATURAL_KIND = "integer {0..65535}"
GENERIC_ARGUMENTS = TILE_ARGUMENTS + ("scalar", "cmode", "pad", "call") + NATURAL_ARGUMENTS
# ConfigureTileFeatureMapDescriptor's integer parameters after the layout, in order.
FEATURE_MAP_INTEGERS = POSITIVE + PADS + ("logical_channels",)
DIRECT_TGEMV_UNMAPPED = ("fpatr", "rounding", "sat", "quant_param", "relu_param")


def _word(value: int) -> str:
    return f"Zeros{{PTO_XLEN}} + 0x{int(value) & WORD_MASK:X}"


def _bits(value: int, width: int) -> str:
    return "'" + format(value, f"0{width}b") + "'"


def _bool(value) -> str:
    return "TRUE" if value else "FALSE"


def _dtype(name: str) -> str:
    return f"TileDataType_{dtypes.dtype(name).name}"


def _type_code(name: str) -> str:
    return _bits(dtypes.dtype(name).code, 5)


def _tile(value) -> int:
    if isinstance(value, str):
        return parse_tile(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 64:
        return value
    raise ValueError(f"tile {value!r} is not a TileIndex 0..63")


def _rounding(value) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 7:
        return value
    code = ROUNDING_CODES.get(str(value).upper())
    if code is None:
        raise ValueError(f"unknown rounding {value!r}")
    return code


def _rounding_args(value) -> str:
    """``rounding_code, rounding, use_default`` of a direct call (NONE: the operation default)."""
    code = _rounding(value)
    name = ROUNDING_NAMES[code]
    return f"{_bits(code, 3)}, NumericRound_{'RNE' if name == 'NONE' else name}, {_bool(code == 0)}"


def _signed(value):
    """A signed integer, or a Word read as a signed 64-bit integer (other values pass through)."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 << 63 <= value <= WORD_MASK:
        return value - (1 << 64)
    return value


def _pad_bits(value) -> str:
    return _bits(PAD_NAMES.index(pad_name(value if value is not None else "Null")), 2)


def unsupported(case: Case, contracts: dict) -> Optional[str]:
    """Why this adapter cannot map a case onto the spec, or None. ``contracts``: the spec's
    direct-call contracts with tile and Word operands (``Spec.direct_contracts``)."""
    for item in case.program:
        if not isinstance(item, dict):
            continue
        name = str(item.get("call", "")).upper()
        if name == "TGEMV_MX_ACC" or name in CUBE_FUNCTIONS:
            mapped = [key for key in DIRECT_TGEMV_UNMAPPED if item.get(key)]
            if mapped:
                return (f"the aslref adapter does not map direct {name} post-processing arguments "
                        f"({', '.join(mapped)}); use a bundle")
        elif name not in SPECIAL_CALLS:
            if name not in contracts:
                return (f"the spec has no direct-call contract InstructionContractExecute_{name} taking tile "
                        "and Word operands only")
            extra = sorted(set(item) - set(GENERIC_ARGUMENTS))
            if extra:
                return f"the aslref adapter does not map direct {name} argument(s) {', '.join(extra)}"
    return None


# ---------------------------------------------------------------------------
# initial state


LAYOUTS = ("RowMajor", "ColumnMajor", "ZN", "NZ") + CUBE_LAYOUTS
LOCATIONS = ("Vector", "Matrix", "Memory", "Any")


def _in_range(what: str, value, low: int, high: int) -> int:
    """Literal arguments outside a parameter's declared range would fail the spec's type check
    (and with it the whole batch), so they are refused here."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} {value!r} is outside {low}..{high}")
    return value


def _state_lines(state: dict) -> list[str]:
    capacity = _in_range("tile_capacity", state.get("tile_capacity", 262144), 0, 262144)
    lines = [f"_SystemRegisters.tile_capacity = {_word(capacity)};",
             f"_SystemRegisters.core_state[36:32] = {_bits(_in_range('status', state.get('status', 0), 0, 31), 5)};"]
    for index, value in sorted(state.get("gprs", {}).items()):
        lines.append(f"AVSSetGPR({_in_range('GPR index', int(index), 0, 23)}, {_word(value)});")
    for pe, gprs in sorted((int(pe), gprs) for pe, gprs in (state.get("pe_gprs") or {}).items()):
        for index, value in sorted((int(i), v) for i, v in gprs.items()):
            lines.append(f"AVSSetPEGPR({_in_range('PE', pe, 0, 3)}, {_in_range('GPR index', index, 0, 23)}, "
                         f"{_word(value)});")
    lines += _memory_lines(state.get("memory"))
    lines += _shared_tile_lines(state.get("shared_tiles") or ())
    for tile in state.get("tiles", []):
        lines += _tile_lines(tile)
    return lines


def region_bytes(region: dict) -> bytes:
    """A memory region's bytes: a hex string (whitespace allowed, as in the vector) or bytes."""
    data = region.get("bytes", b"")
    if isinstance(data, str):
        return bytes.fromhex("".join(data.split()))
    return bytes(data)


def memory_size(state: dict) -> int:
    """The case's PTO_MODEL_MEMORY_BYTES (the vector format's default: 4096)."""
    return int((state.get("memory") or {}).get("size", DEFAULT_MEMORY_BYTES))


def _memory_lines(memory: Optional[dict]) -> list[str]:
    """The initial memory: every nonzero 8-byte piece of each region written with AVSSetMemory (the
    spec's WriteMemoryByte; reset leaves every byte 0, a later region overwrites an earlier one)."""
    if not memory:
        return []
    size = memory_size({"memory": memory})
    image = bytearray(size)
    for region in memory.get("regions") or ():
        address, data = int(region["address"]), region_bytes(region)
        if address < 0 or address + len(data) > size:
            raise ValueError(f"memory region at {address:#x} of {len(data)} bytes does not fit {size} bytes")
        image[address:address + len(data)] = data
    lines = []
    for start in range(0, size, 8):
        piece = bytes(image[start:start + 8])
        if any(piece):
            lines.append(f"AVSSetMemory({start}, {_word(int.from_bytes(piece, 'little'))}, {len(piece)});")
    return lines


SCRATCH_TILE = 0  # the local register a shared tile is built in before it is installed (then given back)


def _shared_tile_lines(shared_tiles) -> list[str]:
    """Each shared tile: configured and written in the scratch local register like a ``tiles`` item,
    then installed as S<index> with the spec's AtomicUpdateSharedTile under the item's mask (its
    allocation mask); the scratch register is given back its reset state first.

    SPEC-CHOICE 66: an initial shared tile is a first AtomicUpdateSharedTile of the whole item: its
    descriptor valid, allocation and initialized masks both the item's mask, published, its contents
    defined; and the vector's ``gprs`` are PE 0's file only (PE 1..3 keep their reset zeros unless
    ``pe_gprs`` gives them)."""
    if not shared_tiles:
        return []
    lines = [f"let AVSScratchTile = _Tiles[[{SCRATCH_TILE}]];",
             f"let AVSScratchMask = _TileAllocationMasks[[{SCRATCH_TILE}]];"]
    for tile in shared_tiles:
        index = _in_range("shared tile index", tile["index"], 0, 255)
        if tile.get("binding"):
            raise ValueError(f"shared tile {index}: the aslref adapter does not map a B.IOS binding")
        if tile.get("layout", "RowMajor") in CUBE_LAYOUTS or tile.get("storage_kind") == "predicate":
            raise ValueError(f"shared tile {index}: a shared tile register holds no CUBE or predicate tile")
        mask = str(tile.get("mask", "1111"))
        lines += _tile_lines({**tile, "index": SCRATCH_TILE})
        lines.append(f"if !AVSInstallSharedTile({_bits(index, 8)}, {SCRATCH_TILE}, '{mask}', AVSScratchTile, "
                     f"AVSScratchMask) then return FALSE; end;")
    return lines


def _predicate_lines(tile: dict, index: int) -> list[str]:
    """A predicate tile: ConfigurePredicateTileForMask, then its bits (AVSPutPredicate)."""
    mask = str(tile.get("mask", "1111"))
    if len(mask) != 4 or set(mask) - {"0", "1"}:
        raise ValueError(f"tile {index}: mask {mask!r} is not four binary digits")
    capacity = _in_range(f"tile {index} capacity", tile["capacity"], 0, 262144)
    rows, cols = (_in_range(f"tile {index} {name}", tile[name], 1, 65535) for name in ("rows", "cols"))
    valid_rows, valid_cols = (_in_range(f"tile {index} valid", v, 0, 65535) for v in tile["valid"])
    lines = [f"AVSConfigurePredicateTile({index}, {capacity}, {rows}, {cols}, {valid_rows}, {valid_cols}, "
             f"'{mask}');"]
    mode = tile.get("defined", "valid")
    bits = {}
    if mode == "all":
        bits.update({(r, c): 0 for r in range(rows) for c in range(cols)})
    base = int(tile.get("fill", 0))
    if mode != "none" or base:
        bits.update({(r, c): base for r in range(valid_rows) for c in range(valid_cols)})
    for r, row in enumerate(tile.get("data", [])):
        bits.update({(r, c): int(value) for c, value in enumerate(row)})
    for key, value in tile.get("elements", {}).items():
        bits[parse_coordinate(key)] = int(value)
    for (r, c), value in sorted(bits.items()):
        _in_range(f"tile {index} bit", value, 0, 1)
        defined = mode == "all" or (mode == "valid" and r < valid_rows and c < valid_cols)
        lines.append(f"AVSPutPredicate({index}, {r}, {c}, {_bool(value)}, {_bool(defined)});")
    return lines


def _tile_lines(tile: dict) -> list[str]:
    index = _in_range("tile index", tile["index"], 0, 63)
    if tile.get("storage_kind") == "predicate":
        return _predicate_lines(tile, index)
    layout = tile.get("layout", "RowMajor")
    location = tile.get("location") or ("Matrix" if layout in CUBE_LAYOUTS else "Any")
    if layout not in LAYOUTS or location not in LOCATIONS:
        raise ValueError(f"tile {index}: layout {layout!r} / location {location!r} is not one the spec names")
    mask = str(tile.get("mask", "1111"))
    if len(mask) != 4 or set(mask) - {"0", "1"}:
        raise ValueError(f"tile {index}: mask {mask!r} is not four binary digits")
    _in_range(f"tile {index} capacity", tile["capacity"], 0, 262144)
    valid_rows, valid_cols = (_in_range(f"tile {index} valid", v, 0, 65535) for v in tile["valid"])
    if layout not in CUBE_LAYOUTS:
        _in_range(f"tile {index} cols", tile.get("cols"), 0, 65535)
    for key in tile.get("elements", {}):
        for v in parse_coordinate(key):
            _in_range(f"tile {index} element coordinate", v, 0, 65535)
    descriptor = (f"{_dtype(tile['dtype'])}, TileLayout_{layout}, TileLocation_{location}, "
                  f"'{mask}'")
    if layout in CUBE_LAYOUTS:
        lines = [f"if !AVSConfigureCubeTile({index}, {tile['capacity']}, {valid_rows}, {valid_cols}, "
                 f"{descriptor}) then return FALSE; end;"]
    else:
        lines = [f"AVSConfigureTile({index}, {tile['capacity']}, {tile['cols']}, {valid_rows}, {valid_cols}, "
                 f"{descriptor});"]
    mode = tile.get("defined", "valid")
    base = int(tile.get("fill", 0)) & WORD_MASK
    data = tile.get("data", [])
    if mode == "all":
        lines.append(f"AVSDefine({index}, -1, -1, {_word(base)});")
    elif mode == "valid" and not data:
        lines.append(f"AVSDefine({index}, {valid_rows}, {valid_cols}, {_word(base)});")
    elif mode == "none" and base:
        lines.append(f"AVSStoreValid({index}, {_word(base)});")
    # Data values: every one when nothing wrote the valid region yet (defined: valid), else those
    # that differ from what is there.
    every = mode == "valid"
    defined = _bool(mode != "none")
    for r, row in enumerate(data):
        for c, value in enumerate(row):
            if every or int(value) & WORD_MASK != base:
                lines.append(f"AVSPut({index}, {r}, {c}, {_word(value)}, {defined});")
    for key, value in tile.get("elements", {}).items():
        r, c = parse_coordinate(key)
        inside = r < valid_rows and c < valid_cols
        element_defined = mode == "all" or (mode == "valid" and inside)
        lines.append(f"AVSPut({index}, {r}, {c}, {_word(value)}, {_bool(element_defined)});")
    return lines + _feature_map_lines(tile, index)


def _feature_map_lines(tile: dict, index: int) -> list[str]:
    """A tile's feature-map descriptor, set after its contents with the spec's
    ConfigureTileFeatureMapDescriptor (the format's defaults filled in; a descriptor given as
    not valid is then invalidated with InvalidateTileFeatureMapDescriptor). Out-of-range fields
    would fail the whole batch's type check, so ``describe`` refuses them first."""
    if tile.get("feature_map") is None:
        return []
    descriptor = describe_feature_map(tile["feature_map"])
    fields = ", ".join(str(getattr(descriptor, name)) for name in FEATURE_MAP_INTEGERS)
    lines = [f"ConfigureTileFeatureMapDescriptor({index}, TileFeatureMapLayout_{descriptor.layout}, {fields}, "
             f"{_word(descriptor.padding)}, {_bool(descriptor.transposed)});"]
    if not descriptor.valid:
        lines.append(f"InvalidateTileFeatureMapDescriptor({index});")
    return lines


# ---------------------------------------------------------------------------
# program


def program_steps(program, contracts: dict, prefix: str = "AVSCall") -> list[tuple[str, str, str]]:
    """Per step, in order: (ASL call returning FALSE when the step is not executed, description,
    the text of a function the call needs or "")."""
    steps = []
    for item in program:
        if isinstance(item, str):
            steps += [("word", ins) for ins in assemble(item)]
        elif isinstance(item, int) and not isinstance(item, bool):
            steps.append(("word", raw_instruction(item)))
        elif isinstance(item, dict):
            steps.append(("call", item))
        else:
            raise ValueError(f"program item {item!r} is not assembly text, a word or a direct call")
    out = []
    for number, (kind, step) in enumerate(steps):
        if kind == "word":
            out.append((f"AVSStep({number}, {_word(step.word)}, {step.length})", step.text, ""))
            continue
        name = str(step.get("call", "")).upper()
        if name in SPECIAL_CALLS:
            out.append((_direct_call(number, step), f"direct {name}", ""))
        else:
            function = f"{prefix}Step{number}"
            out.append((f"{function}()", f"direct {name}",
                        _contract_call(function, number, name, step, contracts.get(name))))
    return out


def _contract_call(function: str, number: int, name: str, item: dict, parameters) -> str:
    """A function calling the spec's direct-call contract of ``name``: the B.DATR PadValue the call
    names, the contract's operand legality, then the contract (InstructionContractExecute_<name>)."""
    if parameters is None:
        raise ValueError(f"the spec has no direct-call contract InstructionContractExecute_{name}")
    tiles = [_tile(item[key]) for key in TILE_ARGUMENTS if item.get(key) is not None]
    if parameters.count("TileIndex") != len(tiles) or parameters.count("Word") > 1:
        raise ValueError(f"direct {name}: {len(tiles)} tile argument(s) for the contract's parameters "
                         f"({', '.join(parameters)})")
    given = iter(tiles)
    naturals = iter(str(_in_range(key, item.get(key, 0), 0, 65535)) for key in NATURAL_ARGUMENTS)
    arguments = ", ".join(str(next(given)) if kind == "TileIndex" else _comparison(item.get("cmode"))
                          if kind == "TileComparison" else next(naturals) if kind == NATURAL_KIND
                          else _word(item.get("scalar", 0)) for kind in parameters)
    pad = pad_name(item.get("pad", "Null"))
    typed = tiles[1] if len(tiles) > 1 else tiles[0]  # the B.DATR DataType: the first source's type
    attributes = "" if pad == "Null" else (
        f"    legal = AVSSetDataAttributes(TileDataTypeToEncoding(_Tiles[[{typed}]].data_type), Zeros{{5}}, "
        f"{_pad_bits(pad)}, Zeros{{3}}, FALSE, FALSE);\n")
    return (f"func {function}() => boolean\nbegin\n"
            "    let saved_present = _BundleDataAttributesPresent;\n"
            "    let saved = _BundleDataAttributes;\n"
            "    var legal = TRUE;\n"
            "    _BundleDataAttributesPresent = FALSE;\n" + attributes +
            f"    legal = legal && InstructionContractOperandsLegal_{name}({arguments});\n"
            f"    if legal then InstructionContractExecute_{name}({arguments}); end;\n"
            "    _BundleDataAttributesPresent = saved_present;\n"
            "    _BundleDataAttributes = saved;\n"
            f"    return legal || AVSDirectRejected({number});\nend;\n")


def _comparison(value) -> str:
    """The TileComparison of a direct call's ``cmode`` (a name or a code 0..5; default EQ)."""
    value = 0 if value is None else value
    name = CMODE_NAMES[value] if isinstance(value, int) and 0 <= value < len(CMODE_NAMES) else str(value).upper()
    if name not in CMODE_NAMES:
        raise ValueError(f"unknown comparison {value!r}")
    return f"TileComparison_{name}"


def _direct_call(number: int, item: dict) -> str:
    name = str(item.get("call", "")).upper()
    if name == "TCVT":
        dtype = item.get("dtype")
        layout = item.get("layout", 0)
        layout = layout if isinstance(layout, int) else LAYOUT_CODES[str(layout).upper()]
        return (f"AVSDirectTCVT({number}, {_tile(item['dst'])}, {_tile(item['src'])}, "
                f"{_type_code(dtype) if dtype else _bits(0, 5)}, {_bool(not dtype)}, {_bits(layout, 5)}, "
                f"{_pad_bits(item.get('pad'))}, {_rounding_args(item.get('rounding'))}, "
                f"{_bool(item.get('sat'))}, {_bool(item.get('canonicalize'))})")
    if name in ("TQUANT", "TDEQUANT"):
        rounding = ROUNDING_NAMES[_rounding(item.get("rounding"))]
        return (f"AVSDirect{name}({number}, {_tile(item['dst'])}, {_tile(item['src'])}, "
                f"{_word(item.get('multiplier', 0x3F800000))}, {_word(item.get('zero_point', 0))}, "
                f"NumericRound_{'RNE' if rounding == 'NONE' else rounding}, {_bool(item.get('sat'))})")
    if name == "TCI":  # the contract's direction is a boolean
        return f"AVSDirectTCI({number}, {_tile(item['dst'])}, {_word(item.get('start', 0))}, {_bool(item.get('descending'))})"
    if name == "TTRI":  # the contract's orientation is a boolean, its diagonal integer {-65535..65535}
        diagonal = _in_range("direct TTRI diagonal", _signed(item.get("diagonal", 0)), -65535, 65535)
        return f"AVSDirectTTRI({number}, {_tile(item['dst'])}, {_bool(item.get('upper'))}, {diagonal})"
    if name == "THISTOGRAM":  # the contract's selected byte is integer {0..3}
        selected = _in_range("direct THISTOGRAM selected_byte", item.get("selected_byte", 0), 0, 3)
        return (f"AVSDirectTHISTOGRAM({number}, {_tile(item['dst'])}, {_tile(item['src'])}, {_tile(item['src1'])}, "
                f"{selected})")
    if name == "TGEMV_MX_ACC":
        atype, btype = item.get("atype"), item.get("btype")
        scale = [_tile(item[k]) if item.get(k) is not None else 0 for k in ("a_scale", "b_scale")]
        return (f"AVSDirectTGEMV_MX_ACC({number}, {_tile(item['dst'])}, {_tile(item['acc'])}, "
                f"{_tile(item['a'])}, {scale[0]}, {_tile(item['b'])}, {scale[1]}, "
                f"{_type_code(atype) if atype else _bits(0, 5)}, {_bool(not atype)}, "
                f"{_type_code(btype) if btype else _bits(0, 5)}, {_bool(btype)})")
    if name == "TSORT":  # the contract's sort_width is integer {1..64}, its direction a boolean
        width = _in_range("direct TSORT sort_width", item.get("sort_width", 32), 1, 64)
        return (f"AVSDirectTSORT({number}, {_tile(item['dst'])}, {_tile(item['dst1'])}, {_tile(item['src'])}, "
                f"{width}, {_bool(item.get('descending'))})")
    if name == "TMRGSORT":
        return (f"AVSDirectTMRGSORT({number}, {_tile(item['dst'])}, {_tile(item['src'])}, {_tile(item['src1'])}, "
                f"{_bool(item.get('descending'))})")
    if name in CUBE_FUNCTIONS:
        atype, btype = item.get("atype"), item.get("btype")
        tiles = [_tile(item[k]) if item.get(k) is not None else 0
                 for k in ("dst", "acc", "a", "a_scale", "b", "b_scale", "bias")]
        return (f"AVSDirectCube({number}, {CUBE_FUNCTIONS[name]}, {', '.join(map(str, tiles))}, "
                f"{_type_code(atype) if atype else _bits(0, 5)}, {_bool(not atype)}, "
                f"{_type_code(btype) if btype else _bits(0, 5)}, {_bool(btype)})")
    raise ValueError(f"direct call {item.get('call')!r}: expected one of {', '.join(SPECIAL_CALLS)}")


def observers(case: Case) -> list[str]:
    """The harness functions that print what the case needs observed beyond tiles and faults: the
    fault address always, the memory image, the event log and the shared tiles when it needs them."""
    needs = case_needs(case)
    return (["AVSObserveFaultAddress"] + (["AVSObserveMemory"] if "memory" in needs else [])
            + (["AVSObserveEvents"] if "events" in needs else [])
            + (["AVSObserveSharedTiles"] if "shared_tiles" in needs else []))


def case_function(number: int, case: Case, contracts: dict) -> tuple[str, list[str]]:
    """The ASL function of one case (after the functions its steps need) and the descriptions
    of its steps (raises ValueError when the case cannot be written). A case that expects memory
    events starts the spec's event capture (agent 0) after its initial state, before its program."""
    steps = program_steps(case.program, contracts, f"AVSCase{number}")
    body = _state_lines(case.state)
    # SPEC-CHOICE 65: the event log is the spec's verification capture (StartMemoryEventCapture), started
    # for agent 0 after the initial state and before the first instruction, only for a case that expects
    # events (a capture past 16 events is an ASL assertion, so the device error names that case).
    if "events" in case_needs(case):
        body.append("StartMemoryEventCapture(0);")
    # SPEC-CHOICE 21: the program ends at the first step not executed. The spec keeps the block open
    # (the trap context saves it; a later BSTART would first commit it), but a vector's program ends at
    # its first fault, so nothing ever continues it (vectors/SPEC-CHOICES.md row 21).
    body += [f"if !{call} then return TRUE; end;" for call, _, _ in steps]
    text = (f"// {case.id}\n" + "".join(needed for _, _, needed in steps if needed)
            + f"func AVSCase{number}() => boolean\nbegin\n"
            + "".join(f"    {line}\n" for line in body) + "    return TRUE;\nend;\n"
            + f"func AVSObserveCase{number}()\nbegin\n    AVSObserve();\n"
            + "".join(f"    {name}();\n" for name in observers(case)) + "end;\n")
    return text, [description for _, description, _ in steps]


# ---------------------------------------------------------------------------
# the batch


def shadow_functions(globals_: list[tuple[str, str]]) -> str:
    """Shadow copies of the spec's global variables, with AVSSnapshot and AVSRestore."""
    declarations = "".join(f"var {SHADOW_PREFIX}{name} : {kind};\n" for name, kind in globals_)
    snapshot = "".join(f"    {SHADOW_PREFIX}{name} = {name};\n" for name, _ in globals_)
    restore = "".join(f"    {name} = {SHADOW_PREFIX}{name};\n" for name, _ in globals_)
    return (declarations + "\nfunc AVSSnapshot()\nbegin\n" + snapshot + "end;\n\n"
            + "func AVSRestore()\nbegin\n" + restore + "end;\n")


def batch_program(functions: list[tuple[int, str]], globals_: list[tuple[str, str]], reset: str) -> str:
    """The generated part of a batch: shadows, case functions (number, text) and main."""
    if reset not in RESETS:
        raise ValueError(f"reset {reset!r} is not one of {', '.join(RESETS)}")
    if reset == "fresh" and len(functions) != 1:
        raise ValueError("a fresh reset runs one case per interpreter run")
    parts = ["// Generated by pto-avs (plugins/aslref/program.py) for one batch of cases.\n"]
    if reset == "snapshot":
        parts.append(shadow_functions(globals_))
    parts += [text for _, text in functions]
    main = ["func main() => integer", "begin", "    ResetProfileState();"]
    if reset == "snapshot":
        main.append("    AVSSnapshot();")
    for number, _ in functions:
        if reset == "snapshot":
            main.append("    AVSRestore();")
        main += [f'    println "C {number}";', f"    if AVSCase{number}() then AVSObserveCase{number}(); end;",
                 f'    println "Q {number}";']
    main += ["    return 0;", "end;", ""]
    parts.append("\n".join(main))
    return "\n".join(parts)
