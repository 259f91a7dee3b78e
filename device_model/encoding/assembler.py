"""Project assembly syntax -> instruction words.

Syntax (README "Project assembly syntax"): one instruction per line or
separated by ``;``; mnemonics and names are case-insensitive; ``#`` starts a
comment. Any value that fits a field can be written, including reserved codes
(``DataType=15``, ``CMode=7``, ``R24``, size code 11): the assembler encodes
bits, the decoder decides legality. Bad text raises ``ValueError`` naming the
instruction and the operand.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .. import dtypes
from ..padding import PAD_CODES
from ..state import PE_MODE_OF_MASK
from .forms import BY_KEY, instruction_length
from .names import (CMODE_NAMES, FPATR_FIELDS, LAYOUT_CODES, ROUNDING_CODES, TEPL_OPS)

HAND_LETTERS = "TUMN"


@dataclass(frozen=True)
class Instruction:
    word: int
    length: int  # 16 or 32
    text: str


class _Line:
    """One instruction's text, for error messages."""

    def __init__(self, text: str):
        self.text = text
        head, rest = (text.strip().split(None, 1) + [""])[:2]
        self.mnemonic = head.upper()
        self.operands = [op.strip() for op in rest.split(",")] if rest.strip() else []

    def error(self, operand, why: str) -> ValueError:
        where = f"operand {operand!r}: " if operand is not None else ""
        return ValueError(f"{self.mnemonic}: {where}{why} (in {self.text.strip()!r})")


def split_program(text: str) -> list:
    """Instruction texts of a program: split at newlines and ';', comments and blanks dropped."""
    lines = []
    for raw in text.splitlines():
        code = raw.split("#", 1)[0]
        lines.extend(part.strip() for part in code.split(";") if part.strip())
    return lines


def parse_int(token: str) -> int:
    """A non-negative integer in decimal, 0x hex or 0b binary."""
    text = token.strip().replace("_", "")
    if not re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)", text):
        raise ValueError(f"{token!r} is not a non-negative integer")
    return int(text, 0)


def _field_int(line: _Line, operand, text: str, width: int) -> int:
    try:
        value = parse_int(text)
    except ValueError as exc:
        raise line.error(operand, str(exc)) from None
    if value >= 1 << width:
        raise line.error(operand, f"value {value} does not fit the {width}-bit field")
    return value


def _dtype_code(line: _Line, operand: str, allow_none: bool) -> int:
    text = operand.strip()
    if allow_none and text.upper() == "DTYPE_NONE":
        return dtypes.DTYPE_NONE
    for t in dtypes.ALL:
        if t.name.upper() == text.upper():
            return t.code
    if re.fullmatch(r"[0-9]+|0[xX][0-9a-fA-F]+", text):
        return _field_int(line, operand, text, 5)
    raise line.error(operand, "is not a DataType name" + (" or DTYPE_NONE" if allow_none else ""))


def _register(line: _Line, operand: str, text: str) -> int:
    t = text.strip().upper()
    if t == "ZERO":
        return 0
    m = re.fullmatch(r"R([0-9]+)", t)
    if not m or int(m.group(1)) > 31:
        raise line.error(operand, "expected a GPR R0..R23 or zero")
    return int(m.group(1))


def parse_tile(text: str) -> int:
    """TileIndex from T<k>/U<k>/M<k>/N<k> (hand*16 + k) or a bare integer 0..63."""
    t = text.strip().upper()
    m = re.fullmatch(r"([TUMN])([0-9]+)", t)
    if m:
        k = int(m.group(2))
        if k > 15:
            raise ValueError(f"tile {text!r}: index within a hand must be 0..15")
        return HAND_LETTERS.index(m.group(1)) * 16 + k
    value = parse_int(t)
    if value > 63:
        raise ValueError(f"tile {text!r}: TileIndex must be 0..63")
    return value


def _mask_mode(line: _Line, operand: str) -> int:
    m = re.fullmatch(r"mask\s*=\s*([01]{4})", operand.strip(), re.IGNORECASE)
    if not m:
        raise line.error(operand, "expected mask=<b3b2b1b0>")
    mask = int(m.group(1), 2)
    if mask not in PE_MODE_OF_MASK:
        encodable = ", ".join(format(k, "04b") for k in sorted(PE_MODE_OF_MASK))
        raise line.error(operand, f"mask {m.group(1)} has no PEMode encoding (encodable: {encodable})")
    return PE_MODE_OF_MASK[mask]


# ---------------------------------------------------------------------------
# Per-mnemonic encoders; each returns (form key, field values).

def _bstart_tepl(line: _Line):
    ops = line.operands
    if len(ops) == 2:
        name = ops[0].upper()
        if name not in TEPL_OPS:
            raise line.error(ops[0], "is not a TEPL operation name")
        mode, function, engine = TEPL_OPS[name]
        if line.mnemonic != "BSTART.TEPL" and line.mnemonic != f"BSTART.{engine}":
            raise line.error(ops[0], f"{name} runs on {engine}: spell it BSTART.{engine} or BSTART.TEPL")
        dtype_op = ops[1]
    elif len(ops) == 3:
        mode = _field_int(line, ops[0], ops[0], 2)
        function = _field_int(line, ops[1], ops[1], 5)
        dtype_op = ops[2]
    else:
        raise line.error(None, "expected '<OP>, <DType>' or '<Mode>, <Function>, <DType>'")
    return "BSTART.TEPL", {"DataType": _dtype_code(line, dtype_op, False), "Mode": mode,
                           "Function": function}


def _bstart_tgemv(line: _Line):
    if len(line.operands) != 1:
        raise line.error(None, "expected one operand: the A DataType")
    return "BSTART.TGEMVMX.ACC", {"DataType": _dtype_code(line, line.operands[0], False)}


_DATR_KEYS = {"datatype": "DataType", "rmode": "RMode", "layout": "Layout", "padvalue": "PadValue",
              "padvalueorbyteid": "PadValue", "pad": "PadValue", "cmode": "CMode", "sat": "Sat",
              "canonicalize": "Canonicalize", "canon": "Canonicalize"}
_DATR_WIDTH = {"DataType": 5, "RMode": 3, "Layout": 5, "PadValue": 2, "CMode": 3, "Sat": 1,
               "Canonicalize": 1}


def _datr_named(field: str, text: str):
    """Value of a B.DATR field written as a name, or None."""
    upper = text.upper()
    if field == "RMode":
        return ROUNDING_CODES.get(upper)
    if field == "Layout":
        return LAYOUT_CODES.get(upper)
    if field == "PadValue":
        return {name.upper(): code for name, code in PAD_CODES.items()}.get(upper)
    if field == "CMode":
        return CMODE_NAMES.index(upper) if upper in CMODE_NAMES else None
    if field == "DataType":
        if upper == "DTYPE_NONE":
            return dtypes.DTYPE_NONE
        return next((t.code for t in dtypes.ALL if t.name.upper() == upper), None)
    return None


def _b_datr(line: _Line):
    values = {}
    for op in line.operands:
        if "=" in op:
            key, _, text = op.partition("=")
            field = _DATR_KEYS.get(key.strip().lower())
            if field is None:
                raise line.error(op, f"unknown B.DATR field {key.strip()!r}")
            named = _datr_named(field, text.strip())
            value = named if named is not None else _field_int(line, op, text, _DATR_WIDTH[field])
        else:
            for field in ("DataType", "RMode", "Layout", "PadValue"):
                value = _datr_named(field, op)
                if value is not None:
                    break
            else:
                raise line.error(op, "is not a DataType, rounding, layout or pad name")
        if field in values:
            raise line.error(op, f"sets {field} a second time")
        values[field] = value
    return "B.DATR", values


def _dim_value(line: _Line, operand: str, text: str):
    """'R3+5', 'R3', 'zero+5' or '5' -> (RegSrc, Imm)."""
    parts = [p.strip() for p in text.split("+")]
    if len(parts) == 2:
        return _register(line, operand, parts[0]), _field_int(line, operand, parts[1], 17)
    if re.fullmatch(r"(?i)r[0-9]+|zero", parts[0]):
        return _register(line, operand, parts[0]), 0
    return 0, _field_int(line, operand, parts[0], 17)


def _b_dim(line: _Line):
    ops = line.operands
    if len(ops) == 1:
        m = re.fullmatch(r"(?i)LB([0-9]+)\s*=\s*(.+)", ops[0])
        if not m:
            raise line.error(ops[0], "expected LB<n>=<imm> or LB<n>=R<m>+<imm>")
        index, (reg, imm) = int(m.group(1)), _dim_value(line, ops[0], m.group(2))
    elif len(ops) == 3:
        m = re.fullmatch(r"(?i)->\s*LB([0-9]+)", ops[2])
        if not m:
            raise line.error(ops[2], "expected ->LB<n>")
        index = int(m.group(1))
        reg, imm = _register(line, ops[0], ops[0]), _field_int(line, ops[1], ops[1], 17)
    else:
        raise line.error(None, "expected 'LB<n>=<value>' or '<reg>, <imm>, ->LB<n>'")
    if index > 2:
        raise line.error(ops[0], "B.DIM writes LB0, LB1 or LB2")
    return f"B.DIM.LB{index}", {"RegSrc": reg, "Imm": imm}


def _c_b_dimi(line: _Line):
    m = re.fullmatch(r"(?i)LB([0-9]+)\s*=\s*(.+)", line.operands[0]) if len(line.operands) == 1 else None
    if not m:
        raise line.error(None, "expected LB<n>=<imm8>")
    index = int(m.group(1))
    if index > 3:
        raise line.error(line.operands[0], "LoopNest is a 2-bit field (LB0..LB2; 3 is reserved)")
    return "C.B.DIMI", {"LoopNest": index, "Imm": _field_int(line, line.operands[0], m.group(2), 8)}


def _b_ior(line: _Line):
    ops = list(line.operands)
    values = {"RegDst": 0, "RegSrc0": 0, "RegSrc1": 0, "RegSrc2": 0}
    if ops and ops[-1].startswith("->"):
        values["RegDst"] = _register(line, ops[-1], ops[-1][2:])
        ops.pop()
    if not 1 <= len(ops) <= 3:
        raise line.error(None, "expected one to three source GPRs and an optional ->destination")
    for slot, op in enumerate(ops):
        values[f"RegSrc{slot}"] = _register(line, op, op)
    return "B.IOR", values


_DESTINATION = re.compile(r"(?i)->\s*([TUMN])([0-9]+)?\s*<\s*([0-9]+)\s*>")


def _b_iot(line: _Line):
    sources, pe_mode, last, destination = [], None, 0, None
    for op in line.operands:
        low = op.strip().lower()
        if low.startswith("mask"):
            if pe_mode is not None:
                raise line.error(op, "mask given twice")
            pe_mode = _mask_mode(line, op)
        elif low in ("<last>", "last", "l"):
            last = 1
        elif low.startswith("->"):
            m = _DESTINATION.fullmatch(op.strip())
            if not m:
                raise line.error(op, "expected -><Hand>[<k>]<<SizeCode>>, e.g. ->T<2>")
            size = int(m.group(3))
            if size > 15:
                raise line.error(op, "SizeCode is a 4-bit field")
            destination = (HAND_LETTERS.index(m.group(1).upper()), size)
        elif pe_mode is None:
            try:
                sources.append(parse_tile(op))
            except ValueError as exc:
                raise line.error(op, str(exc)) from None
        else:
            raise line.error(op, "unexpected operand after mask=")
    if pe_mode is None:
        raise line.error(None, "mask=<b3b2b1b0> is required")
    if len(sources) > 2:
        raise line.error(None, "at most two source tiles")
    values = {"L": last, "PEMode": pe_mode}
    for slot, tile in enumerate(sources):
        values[f"SrcTile{slot}"] = tile
    if destination is not None and destination[1] == 0 and sources:
        # Size code 0 selects the source-only form; the hand bits are ignored there.
        values["Ignored"] = destination[0]
        destination = None
    if destination is not None:
        values["DstTile"], values["SizeCode"] = destination
        key = {0: "B.IOT.D", 1: "B.IOT.S_D", 2: "B.IOT.SS_D"}[len(sources)]
    elif sources:
        key = "B.IOT.S" if len(sources) == 1 else "B.IOT.SS"
    else:
        raise line.error(None, "a B.IOT needs a source tile or a ->destination")
    return key, values


def _b_ios(line: _Line):
    ops = line.operands
    if len(ops) == 2 and ops[0].lower().startswith("mask"):
        m = re.fullmatch(r"(?i)->\s*S([0-9]+)\s*<\s*([0-9]+)\s*>", ops[1].strip())
        if not m:
            raise line.error(ops[1], "expected ->S<n><<SizeCode>>")
        shared, size = int(m.group(1)), int(m.group(2))
        pe_mode = _mask_mode(line, ops[0])
        if size == 0 or size > 15:
            raise line.error(ops[1], "a Shared destination needs SizeCode 1..15")
    elif len(ops) == 2:
        m = re.fullmatch(r"(?i)S([0-9]+)", ops[0].strip())
        if not m:
            raise line.error(ops[0], "expected S<n>")
        shared, size, pe_mode = int(m.group(1)), 0, _mask_mode(line, ops[1])
    else:
        raise line.error(None, "expected 'S<n>, mask=<m>' or 'mask=<m>, ->S<n><<SizeCode>>'")
    if shared > 255:
        raise line.error(None, "Shared register index must be 0..255")
    return "B.IOS", {"SharedTID": shared, "SizeCode": size, "PEMode": pe_mode}


def _b_fpatr(line: _Line):
    form = BY_KEY["B.FPATR"]
    values = {}
    for op in line.operands:
        key, sep, text = op.partition("=")
        name = next((f for f in FPATR_FIELDS if f.lower() == key.strip().lower()), None)
        if not sep or name is None:
            raise line.error(op, f"expected <Field>=<int> with Field one of {', '.join(FPATR_FIELDS)}")
        if name in values:
            raise line.error(op, f"sets {name} a second time")
        values[name] = _field_int(line, op, text, form.field_width(name))
    return "B.FPATR", values


def _no_operands(key):
    def encode(line: _Line):
        if line.operands:
            raise line.error(line.operands[0], f"{key} takes no operands")
        return key, {}
    return encode


_ENCODERS = {
    "BSTART.VEC": _bstart_tepl, "BSTART.SFU": _bstart_tepl, "BSTART.TEPL": _bstart_tepl,
    "BSTART.TGEMVMX.ACC": _bstart_tgemv, "B.DATR": _b_datr, "B.DIM": _b_dim,
    "C.B.DIMI": _c_b_dimi, "B.IOR": _b_ior, "B.IOT": _b_iot, "B.IOS": _b_ios,
    "B.FPATR": _b_fpatr, "BSTOP": _no_operands("BSTOP"), "C.BSTOP": _no_operands("C.BSTOP"),
}


def assemble_line(text: str) -> Instruction:
    """Encode one instruction; raises ValueError for text that is not valid syntax."""
    text = text.split("#", 1)[0]
    line = _Line(text)
    if "(" in text or "|" in text:
        raise line.error(None, "is template text (a '(' note or '|' alternatives), not an instruction")
    if line.mnemonic in (".WORD", ".HALF"):
        width = 32 if line.mnemonic == ".WORD" else 16
        if len(line.operands) != 1:
            raise line.error(None, "expects one integer")
        return Instruction(_field_int(line, line.operands[0], line.operands[0], width), width, text.strip())
    encoder = _ENCODERS.get(line.mnemonic)
    if encoder is None:
        raise line.error(None, "unknown mnemonic")
    key, values = encoder(line)
    form = BY_KEY[key]
    return Instruction(form.insert(values), form.length, text.strip())


def assemble(text: str) -> list:
    """Encode a whole program text (instructions separated by newlines or ';')."""
    return [assemble_line(part) for part in split_program(text)]


def raw_instruction(word: int) -> Instruction:
    """An integer program item: its length follows ``instruction_length``."""
    if not isinstance(word, int) or isinstance(word, bool) or not 0 <= word <= 0xFFFFFFFF:
        raise ValueError(f"instruction word {word!r} must be an integer 0..0xFFFFFFFF")
    length = instruction_length(word)
    return Instruction(word, length, f".{'half' if length == 16 else 'word'} {word:#x}")
