"""What went into a failing case, shown beside its first divergence.

The source tiles' elements at the diverging coordinate (bits and decoded value), the
scalar operands (the GPRs a B.IOR selects, a direct call's scalar arguments), the
rounding mode and Sat the block asks for, the profile the device ran and the instruction
words. Read from the case alone (its ``state`` and ``program``) with the golden model's
encoding tables; display only: nothing here judges, and nothing here raises (a program
that does not decode is said so).
"""
from __future__ import annotations

from typing import Callable, Optional

from ..device_model.encoding import assemble, decode, disassemble, raw_instruction
from ..device_model.encoding.disassembler import gpr
from ..device_model.encoding.names import ROUNDING_NAMES
from ..device_model.dtypes import BY_CODE
from .tile_state import element_bits, parse_coordinate

WORDS_SHOWN = 24  # instruction words listed; a longer program says how many more
# Direct-call arguments naming source tiles, and those carrying scalar operands or controls.
CALL_SOURCES = ("src", "src1", "src2", "acc", "a", "a_scale", "b", "b_scale")
CALL_SCALARS = ("scalar", "multiplier", "zero_point", "cmode", "dtype", "atype", "btype", "pad")


def describe_inputs(case, coordinate: Optional[tuple], profile: Optional[str],
                    describe_bits: Callable[[int, Optional[str]], str]) -> list[str]:
    """Lines naming the inputs of ``case``; ``coordinate`` is the diverging (row, col) or None."""
    try:
        return _describe(case, coordinate, profile, describe_bits)
    except Exception as exc:  # display only: a case this cannot read still gets its verdict
        return [f"inputs not shown ({type(exc).__name__}: {exc})"]


def _describe(case, coordinate, profile, describe_bits) -> list[str]:
    lines = [f"profile: {profile}" if profile else
             f"profile: not given (the case holds under {', '.join(case.profiles)})"]
    steps, problem = _steps(case.program)
    sources, scalars, controls = [], [], []
    gprs = case.state.get("gprs") or {}
    block_type = None  # the BSTART DataType name: a B.IOR scalar's raw element is shown in it
    for step in steps:
        if isinstance(step, dict):
            sources += [(case_key, step[case_key]) for case_key in CALL_SOURCES if step.get(case_key) is not None]
            scalars += [f"{key}={_scalar_text(step[key])}" for key in CALL_SCALARS if step.get(key) is not None]
            rounding = step.get("rounding")
            controls.append(f"{step.get('call', '?')} call: rounding "
                            f"{rounding if rounding is not None else 'the operation default'}, "
                            f"Sat {step.get('sat', 0)}")
            continue
        decoded = step[1]
        if decoded is None:
            continue
        key, fields = decoded.form.key, decoded.fields
        if key.startswith("BSTART") and "DataType" in fields:
            block_type = getattr(BY_CODE.get(fields["DataType"]), "name", None)
        elif key.startswith("B.IOT"):
            sources += [("B.IOT", fields[name]) for name in ("SrcTile0", "SrcTile1") if name in fields]
        elif key == "B.IOR":
            selectors = [fields[f"RegSrc{slot}"] for slot in range(3)]
            while len(selectors) > 1 and selectors[-1] == 0:
                selectors.pop()
            scalars += [f"B.IOR {gpr(reg)} (R{reg})={_gpr_text(gprs.get(reg, 0), block_type, describe_bits)}"
                        for reg in selectors]
        elif key == "B.DATR":
            mode = fields["RMode"]
            name = ROUNDING_NAMES[mode] if mode < len(ROUNDING_NAMES) else str(mode)
            rounding = "the operation default (RMode 0)" if mode == 0 else f"{name} (RMode {mode})"
            controls.append(f"B.DATR: rounding {rounding}, Sat {fields['Sat']}")
    if not controls and any(not isinstance(s, dict) for s in steps):
        controls.append("no B.DATR: rounding the operation default, Sat 0")
    tiles = {t.get("index"): t for t in case.state.get("tiles") or []}
    where = f"({coordinate[0]},{coordinate[1]})" if coordinate else None
    seen = set()
    for role, index in sources:
        if index in seen:
            continue
        seen.add(index)
        label = f"source T[{index}] ({role})"
        tile = tiles.get(index)
        if tile is None:
            lines.append(f"{label}: not configured in the initial state")
        elif where is None:
            lines.append(f"{label}: {tile.get('dtype', '?')}, valid {tile.get('valid')}")
        else:
            lines.append(f"{label} {tile.get('dtype', '?')} at {where}: "
                         f"{_element_text(tile, coordinate, describe_bits)}")
    if not sources:
        lines.append("source tiles: none named by the program")
    lines.append("scalars: " + (", ".join(scalars) if scalars else "none"))
    lines += controls
    lines += _word_lines(steps, problem)
    return lines


def _steps(program) -> tuple[list, Optional[str]]:
    """Program items as (Instruction, Decoded or None) pairs and direct-call dicts, and the
    reason the rest could not be read (None when all of it was)."""
    steps = []
    for item in program:
        try:
            if isinstance(item, str):
                instructions = assemble(item)
            elif isinstance(item, int) and not isinstance(item, bool):
                instructions = [raw_instruction(item)]
            elif isinstance(item, dict):
                steps.append(item)
                continue
            else:
                return steps, f"program item {item!r} is neither assembly, a word nor a direct call"
        except ValueError as exc:
            return steps, f"the program does not assemble: {exc}"
        for instruction in instructions:
            try:
                decoded = decode(instruction.word, instruction.length)
            except Exception:  # an illegal word: listed, not read
                decoded = None
            steps.append((instruction, decoded))
    return steps, None


def _word_lines(steps: list, problem: Optional[str]) -> list[str]:
    words = [step[0] for step in steps if not isinstance(step, dict)]
    calls = [step for step in steps if isinstance(step, dict)]
    lines = []
    if words:
        lines.append(f"instruction words ({len(words)}):")
        width = {16: 4, 32: 8}
        lines += [f"  0x{ins.word:0{width.get(ins.length, 8)}X}  {disassemble(ins.word, ins.length)}"
                  for ins in words[:WORDS_SHOWN]]
        if len(words) > WORDS_SHOWN:
            lines.append(f"  ... {len(words) - WORDS_SHOWN} more")
    if calls:
        lines.append("direct calls (no instruction words): " + "; ".join(
            f"{c.get('call', '?')}(" + ", ".join(f"{k}={v}" for k, v in c.items() if k != "call") + ")"
            for c in calls))
    if problem:
        lines.append(problem)
    return lines


def _scalar_text(value) -> str:
    return f"0x{value:X}" if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else str(value)


def _gpr_text(value: int, dtype: Optional[str], describe_bits) -> str:
    """A GPR's value, and its low element bits decoded in the block's type (the raw element an
    operation takes from it)."""
    if dtype is None:
        return f"0x{value:X}"
    bits = element_bits(dtype)
    return f"0x{value:X} (low {bits} bits as {dtype}: {describe_bits(value & ((1 << bits) - 1), dtype)})"


def _element_text(tile: dict, coordinate: tuple, describe_bits) -> str:
    """The initial element of a state tile at ``coordinate``, as the loader describes it."""
    row, col = coordinate
    dtype = tile.get("dtype")
    for key, value in (tile.get("elements") or {}).items():
        if parse_coordinate(key) == (row, col):
            return describe_bits(int(value), dtype)
    valid = tile.get("valid") or (1, 1)
    if row >= valid[0] or col >= valid[1]:
        return f"outside its valid region {valid[0]}x{valid[1]}"
    if "data" in tile:
        data = tile["data"]
        flat = len(data) == valid[0] * valid[1] and not isinstance(data[0], (list, tuple))
        value = data[row * valid[1] + col] if flat else data[row][col]
        return describe_bits(int(value), dtype)
    if "fill" in tile:
        return describe_bits(int(tile["fill"]), dtype)
    return "not given (zero in the initial state)"
