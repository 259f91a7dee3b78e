"""Assembly text -> instruction words.

Two spellings are accepted for every command (docs/assembly.md, vectors/FORMAT.md):

- the spec's canonical syntax, as each instruction contract writes it
  (``B.DATR {NORM, FP32, Zero, EQ, RNE, 0, 0}``, ``B.DIM a0, 16, ->LB0``,
  ``C.B.DIMI 0, ->LB0``, ``B.IOT T#1, mask=1111, <last>, ->U<1>``,
  ``B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0``, GPRs by their ABI names
  ``zero, sp, a0..a7, ra, s0..s8, x0..x3``, tile references ``T#k``/``U#k``/
  ``M#k``/``N#k`` with k = 1..16), for every 16- and 32-bit form of the spec;
- the project's earlier seed syntax (``B.DATR S8, RNE, Sat=1``, ``B.DIM LB0=16``,
  ``C.B.DIMI LB0=5``, ``B.IOT T1, ...`` where ``T1`` is TileIndex 1, i.e. T#2,
  ``R<n>`` GPRs, ``B.FPATR Field=<int>, ...``).

One instruction per line or separated by ``;``; mnemonics and names are
case-insensitive; ``#`` starts a comment unless it follows a tile hand letter
(``T#1``). Branch targets are written as signed even byte displacements from the
instruction (labels are not resolved). Any value that fits a field can be
written, including reserved codes (``DataType=15``, ``CMode=7``, ``R24``, size
code 11): the assembler encodes bits, the decoder decides legality. Bad text
raises ``ValueError`` naming the instruction and the operand.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import dtypes
from ..padding import PAD_CODES
from ..state import PE_MODE_OF_MASK
from .forms import BY_KEY, instruction_length
from .names import (BRANCH_TYPE_NAMES, BSTART_OPERATIONS, BSTART_VARIANTS, CATR_FLAGS, CMODE_NAMES, FPATR_FIELDS,
                    GPR_NAMES, HINT_TEMPERATURES, LAYOUT_CODES, PREQUANT_NAMES, RELU_NAMES,
                    ROUNDING_CODES, TEPL_OPS)

HAND_LETTERS = "TUMN"
_COMMENT = re.compile(r"(?<![TUMNtumn])#")


@dataclass(frozen=True)
class Instruction:
    word: int
    length: int  # 16 or 32
    text: str


def split_operands(text: str) -> list:
    """Split at commas outside braces and brackets."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip() or parts:
        parts.append(current.strip())
    return parts


class _Line:
    """One instruction's text, for error messages."""

    def __init__(self, text: str):
        self.text = text
        head, rest = (text.strip().split(None, 1) + [""])[:2]
        self.mnemonic = head.upper()
        self.operands = split_operands(rest)

    def error(self, operand, why: str) -> ValueError:
        where = f"operand {operand!r}: " if operand is not None else ""
        return ValueError(f"{self.mnemonic}: {where}{why} (in {self.text.strip()!r})")

    def expect(self, counts, usage: str):
        if len(self.operands) not in counts:
            raise self.error(None, f"expected {usage}")


def strip_comment(text: str) -> str:
    return _COMMENT.split(text, 1)[0]


def split_program(text: str) -> list:
    """Instruction texts of a program: split at newlines and ';', comments and blanks dropped."""
    lines = []
    for raw in text.splitlines():
        lines.extend(part.strip() for part in strip_comment(raw).split(";") if part.strip())
    return lines


def parse_int(token: str) -> int:
    """A non-negative integer in decimal, 0x hex or 0b binary."""
    text = token.strip().replace("_", "")
    if not re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)", text):
        raise ValueError(f"{token!r} is not a non-negative integer")
    return int(text, 0)


def parse_signed(token: str) -> int:
    text = token.strip()
    sign = -1 if text.startswith("-") else 1
    return sign * parse_int(text.lstrip("+-").strip())


def parse_tile(text: str) -> int:
    """TileIndex from T#k/U#k/M#k/N#k (k = 1..16: hand*16 + k-1), the seed spelling
    T<k>/U<k>/M<k>/N<k> (k = 0..15: hand*16 + k) or a bare integer 0..63."""
    t = text.strip().upper()
    m = re.fullmatch(r"([TUMN])(#?)([0-9]+)", t)
    if m:
        k = int(m.group(3))
        if m.group(2):
            if not 1 <= k <= 16:
                raise ValueError(f"tile {text!r}: {m.group(1)}#k needs k = 1..16")
            k -= 1
        elif k > 15:
            raise ValueError(f"tile {text!r}: index within a hand must be 0..15")
        return HAND_LETTERS.index(m.group(1)) * 16 + k
    value = parse_int(t)
    if value > 63:
        raise ValueError(f"tile {text!r}: TileIndex must be 0..63")
    return value


def _field_int(line: _Line, operand, text: str, width: int) -> int:
    try:
        value = parse_int(text)
    except ValueError as exc:
        raise line.error(operand, str(exc)) from None
    if value >= 1 << width:
        raise line.error(operand, f"value {value} does not fit the {width}-bit field")
    return value


def _named_or_int(line: _Line, operand: str, names: dict, width: int, what: str) -> int:
    """A value given by one of ``names`` (case-insensitive) or as an integer."""
    upper = {name.upper(): code for name, code in names.items()}
    text = operand.strip()
    if text.upper() in upper:
        return upper[text.upper()]
    if re.fullmatch(r"[0-9].*", text):
        return _field_int(line, operand, text, width)
    raise line.error(operand, f"is not {what} or an integer")


_DTYPES = {t.name: t.code for t in dtypes.ALL}
_DTYPES_OR_NONE = {**_DTYPES, "DTYPE_NONE": dtypes.DTYPE_NONE}


def _dtype_code(line: _Line, operand: str, allow_none: bool) -> int:
    names = _DTYPES_OR_NONE if allow_none else _DTYPES
    return _named_or_int(line, operand, names, 5,
                         "a DataType name" + (" or DTYPE_NONE" if allow_none else ""))


_GPRS = {**{name.upper(): code for code, name in enumerate(GPR_NAMES)}, **{f"R{n}": n for n in range(32)}}


def _register(line: _Line, operand: str, text: str = None) -> int:
    """A GPR selector from an ABI name (zero, sp, a0..a7, ra, s0..s8, x0..x3) or R<n>."""
    code = _GPRS.get((operand if text is None else text).strip().upper())
    if code is None:
        raise line.error(operand, "expected a GPR (zero, sp, a0..a7, ra, s0..s8, x0..x3 or R0..R31)")
    return code


def _mask_mode(line: _Line, operand: str) -> int:
    m = re.fullmatch(r"mask\s*=\s*([01]{4})", operand.strip(), re.IGNORECASE)
    if not m:
        raise line.error(operand, "expected mask=<b3b2b1b0>")
    mask = int(m.group(1), 2)
    if mask not in PE_MODE_OF_MASK:
        encodable = ", ".join(format(k, "04b") for k in sorted(PE_MODE_OF_MASK))
        raise line.error(operand, f"mask {m.group(1)} has no PEMode encoding (encodable: {encodable})")
    return PE_MODE_OF_MASK[mask]


def _displacement(line: _Line, operand: str, bits: int) -> int:
    """Field value of a signed even byte displacement held as a ``bits``-bit half-word count."""
    try:
        value = parse_signed(operand)
    except ValueError as exc:
        raise line.error(operand, str(exc)) from None
    limit = 1 << bits  # bytes: the field counts half-words
    if value % 2 or not -limit <= value < limit:
        raise line.error(operand, f"a displacement must be even and within {-limit}..{limit - 2} bytes")
    return (value >> 1) & ((1 << bits) - 1)


def _braced(line: _Line, opening: str, closing: str) -> list:
    """The items of a single {...} or [...] operand."""
    if len(line.operands) != 1 or not (line.operands[0].startswith(opening)
                                       and line.operands[0].endswith(closing)):
        raise line.error(None, f"expected one {opening}...{closing} operand")
    return split_operands(line.operands[0][1:-1])


def _raw_field(line: _Line, key: str, item: str, values: dict) -> bool:
    """``Field=<int>`` for a field of form ``key``: sets it and returns True."""
    name, sep, text = item.partition("=")
    form = BY_KEY[key]
    field = next((f for f in form.fields if f.lower() == name.strip().lower()), None)
    if not sep or field is None:
        return False
    values[field] = _field_int(line, item, text, form.field_width(field))
    return True


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


def _typed_bstart(key):
    def encode(line: _Line):
        line.expect({1}, "one operand: the DataType")
        return key, {"DataType": _dtype_code(line, line.operands[0], key == "BSTART.TMOV")}
    return encode


_DATR_KEYS = {"datatype": "DataType", "rmode": "RMode", "layout": "Layout", "padvalue": "PadValue",
              "padvalueorbyteid": "PadValue", "pad": "PadValue", "byteid": "PadValue", "cmode": "CMode",
              "sat": "Sat", "canonicalize": "Canonicalize", "canon": "Canonicalize"}
_DATR_WIDTH = {"DataType": 5, "RMode": 3, "Layout": 5, "PadValue": 2, "CMode": 3, "Sat": 1,
               "Canonicalize": 1}
_PADS = {**PAD_CODES, **{f"ByteId{code}": code for code in range(4)}}
_DATR_NAMES = {
    "DataType": _DTYPES_OR_NONE, "Layout": LAYOUT_CODES, "PadValue": _PADS,
    "RMode": {**ROUNDING_CODES, "Default": 0},
    # The B.DATR contract's own example writes None for CMode code 0 (EQ).
    "CMode": {**{name: code for code, name in enumerate(CMODE_NAMES)}, "None": 0},
    "Sat": {}, "Canonicalize": {},
}
_DATR_ORDER = ("Layout", "DataType", "PadValue", "CMode", "RMode", "Sat", "Canonicalize")


def _datr_named(field: str, text: str):
    """Value of a B.DATR field written as a name, or None."""
    return {name.upper(): code for name, code in _DATR_NAMES[field].items()}.get(text.upper())


def _b_datr(line: _Line):
    if line.operands and line.operands[0].startswith("{"):
        items = _braced(line, "{", "}")
        if len(items) != len(_DATR_ORDER):
            raise line.error(line.operands[0], "expected {layout, datatype, padvalue_or_byteid, cmode, "
                                               "rmode, sat, canonicalize}")
        return "B.DATR", {field: _named_or_int(line, item, _DATR_NAMES[field], _DATR_WIDTH[field],
                                               f"a {field} name")
                          for field, item in zip(_DATR_ORDER, items)}
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


def _loop_buffer(line: _Line, operand: str, arrow: bool, limit: int, text: str = None) -> int:
    """LB<n> (or ->LB<n>) in ``text`` (default: the operand), n <= limit."""
    m = re.fullmatch(r"(?i)(->)?\s*LB([0-9]+)", (operand if text is None else text).strip())
    if not m or bool(m.group(1)) != arrow:
        raise line.error(operand, "expected " + ("->LB<n>" if arrow else "LB<n>"))
    index = int(m.group(2))
    if index > limit:
        raise line.error(operand, "B.DIM writes LB0, LB1 or LB2" if limit == 2
                         else "LoopNest is a 2-bit field (LB0..LB2; 3 is reserved)")
    return index


def _dim_value(line: _Line, operand: str, text: str):
    """'R3+5', 'a0+5', 'R3', 'zero' or '5' -> (RegSrc, Imm)."""
    parts = [p.strip() for p in text.split("+")]
    if len(parts) == 2:
        return _register(line, operand, parts[0]), _field_int(line, operand, parts[1], 17)
    if re.fullmatch(r"[0-9].*", parts[0]):
        return 0, _field_int(line, operand, parts[0], 17)
    return _register(line, operand, parts[0]), 0


def _b_dim(line: _Line):
    ops = line.operands
    if len(ops) == 3:  # canonical: RegSrc, uimm17, ->LBn
        index = _loop_buffer(line, ops[2], True, 2)
        reg, imm = _register(line, ops[0]), _field_int(line, ops[1], ops[1], 17)
    elif len(ops) == 2:  # LBn, <value> (the spec's TLOAD/TSTORE examples)
        index = _loop_buffer(line, ops[0], False, 2)
        reg, imm = _dim_value(line, ops[1], ops[1])
    elif len(ops) == 1:  # seed: LBn=<value>
        m = re.fullmatch(r"(?i)(LB[0-9]+)\s*=\s*(.+)", ops[0])
        if not m:
            raise line.error(ops[0], "expected LB<n>=<imm> or LB<n>=<reg>+<imm>")
        index = _loop_buffer(line, ops[0], False, 2, m.group(1))
        reg, imm = _dim_value(line, ops[0], m.group(2))
    else:
        raise line.error(None, "expected '<reg>, <imm>, ->LB<n>', 'LB<n>, <value>' or 'LB<n>=<value>'")
    return f"B.DIM.LB{index}", {"RegSrc": reg, "Imm": imm}


def _c_b_dimi(line: _Line):
    ops = line.operands
    if len(ops) == 2:  # canonical: imm8, ->LBn
        return "C.B.DIMI", {"LoopNest": _loop_buffer(line, ops[1], True, 3),
                            "Imm": _field_int(line, ops[0], ops[0], 8)}
    m = re.fullmatch(r"(?i)(LB[0-9]+)\s*=\s*(.+)", ops[0]) if len(ops) == 1 else None
    if not m:
        raise line.error(None, "expected '<imm8>, ->LB<n>' or 'LB<n>=<imm8>'")
    return "C.B.DIMI", {"LoopNest": _loop_buffer(line, ops[0], False, 3, m.group(1)),
                        "Imm": _field_int(line, ops[0], m.group(2), 8)}


def _b_ior(line: _Line):
    ops = list(line.operands)
    values = {"RegDst": 0, "RegSrc0": 0, "RegSrc1": 0, "RegSrc2": 0}
    if ops and ops[-1].startswith("->"):
        values["RegDst"] = _register(line, ops[-1], ops[-1][2:])
        ops.pop()
    if len(ops) > 3:
        raise line.error(None, "expected at most three source GPRs and an optional ->destination")
    for slot, op in enumerate(ops):
        values[f"RegSrc{slot}"] = _register(line, op)
    return "B.IOR", values


_DESTINATION = re.compile(r"(?i)->\s*([TUMN])#?[0-9]*\s*(?:<\s*([0-9]+)\s*>)?")


def _b_iot(line: _Line):
    sources, pe_mode, last, hand, size = [], None, 0, None, None
    for op in line.operands:
        low = op.strip().lower()
        if low.startswith("mask"):
            if pe_mode is not None:
                raise line.error(op, "mask given twice")
            pe_mode = _mask_mode(line, op)
        elif low in ("<last>", "last", "l"):
            last = 1
        elif low.startswith("size"):
            m = re.fullmatch(r"size\s*=\s*([0-9]+)", low)
            if not m or size is not None:
                raise line.error(op, "expected one size=<SizeCode>")
            size = int(m.group(1))
        elif low.startswith("->"):
            m = _DESTINATION.fullmatch(op.strip())
            if not m or hand is not None or (m.group(2) is not None and size is not None):
                raise line.error(op, "expected one -><Hand><<SizeCode>>, e.g. ->T<2>")
            hand = HAND_LETTERS.index(m.group(1).upper())
            if m.group(2) is not None:
                size = int(m.group(2))
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
    if size is not None and size > 15:
        raise line.error(None, "SizeCode is a 4-bit field")
    if (hand is None) != (size is None):
        raise line.error(None, "a destination needs both a hand and a SizeCode (->T<1>)")
    values = {"L": last, "PEMode": pe_mode}
    for slot, tile in enumerate(sources):
        values[f"SrcTile{slot}"] = tile
    if hand is not None and size == 0 and sources:
        # Size code 0 selects the source-only form; the hand bits are ignored there.
        values["Ignored"] = hand
        hand = None
    if hand is not None:
        values["DstTile"], values["SizeCode"] = hand, size
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
    ops = line.operands
    if ops and not any("=" in op for op in ops):  # canonical: nine positional values
        order = ("PreQuantMode", "ReluMode", "GroupNCode", "RowMaxEn", "GroupMaxEn", "RowMaxInit",
                 "MaxAbsEn", "TransA", "TransB")
        if len(ops) != len(order):
            raise line.error(None, f"expected the nine values {', '.join(order)} or <Field>=<int> items")
        names = {"PreQuantMode": PREQUANT_NAMES, "ReluMode": dict(zip(RELU_NAMES, range(4)))}
        return "B.FPATR", {name: _named_or_int(line, op, names.get(name, {}), form.field_width(name),
                                               f"a {name} name")
                           for name, op in zip(order, ops)}
    values = {}
    for op in ops:
        key, sep, text = op.partition("=")
        name = next((f for f in FPATR_FIELDS if f.lower() == key.strip().lower()), None)
        if not sep or name is None:
            raise line.error(op, f"expected <Field>=<int> with Field one of {', '.join(FPATR_FIELDS)}")
        if name in values:
            raise line.error(op, f"sets {name} a second time")
        values[name] = _field_int(line, op, text, form.field_width(name))
    return "B.FPATR", values


def _b_catr(line: _Line):
    values = {}
    for item in _braced(line, "{", "}"):
        fields = CATR_FLAGS.get(item.lower())
        if fields is not None:
            values.update(dict.fromkeys(fields, 1))
        elif not _raw_field(line, "B.CATR", item, values):
            raise line.error(item, f"expected one of {', '.join(CATR_FLAGS)} or <Field>=<int>")
    return "B.CATR", values


def _b_hint(line: _Line):
    ops = line.operands
    if len(ops) == 1 and ops[0].upper().startswith("TRACE."):
        kind = ops[0].upper()[len("TRACE."):]
        if kind not in ("BEGIN", "END"):
            raise line.error(ops[0], "expected TRACE.begin or TRACE.end")
        return "B.HINT.TRACE", {"B/E": int(kind == "END")}
    values = {}
    for item in _braced(line, "{", "}"):
        low = item.lower()
        if low in ("br.likely", "br.unlikely"):
            values.update({"V": 1, "L/UL": int(low == "br.likely")})
        elif low.startswith("temp.") and low[5:] in HINT_TEMPERATURES:
            values["temp"] = HINT_TEMPERATURES.index(low[5:])
        elif re.fullmatch(r"[0-9].*", item):
            values["prefetch_size"] = _field_int(line, item, item, 12)
        elif not _raw_field(line, "B.HINT", item, values):
            raise line.error(item, "expected BR.likely|unlikely, TEMP.hot|warm|cool|none, a prefetch "
                                   "size or <Field>=<int>")
    return "B.HINT", values


def _bstart(line: _Line):
    line.expect({2}, "'DIRECT, <displacement>' or 'COND, <displacement>'")
    kind = line.operands[0].upper()
    if kind not in ("DIRECT", "COND"):
        raise line.error(line.operands[0], "expected DIRECT or COND")
    return f"BSTART.{kind}", {"simm25": _displacement(line, line.operands[1], 25)}


def _return_displacement(line: _Line, operand: str) -> int:
    """uimm5 of a return target written as its byte displacement 2 + 2*uimm5 (a 32-bit BSTART)."""
    try:
        value = parse_signed(operand)
    except ValueError as exc:
        raise line.error(operand, str(exc)) from None
    if value % 2 or not 2 <= value <= 64:
        raise line.error(operand, "a return displacement must be even and within 2..64 bytes")
    return (value - 2) >> 1


def _link(line: _Line, count: int):
    ops = list(line.operands)
    if len(ops) == count + 1:
        if ops[-1].replace(" ", "").lower() != "->ra":
            raise line.error(ops[-1], "expected ->ra")
        ops.pop()
    if len(ops) != count:
        raise line.error(None, "expected " + ("'<target>, <return>, ->ra'" if count == 2 else "'<return>, ->ra'"))
    return ops


def _bstart_call(line: _Line):
    target, back = _link(line, 2)
    return "BSTART.CALL", {"simm12": _displacement(line, target, 12),
                           "uimm5": _return_displacement(line, back)}


def _bstart_icall(line: _Line):
    (back,) = _link(line, 1)
    return "BSTART.ICALL", {"uimm5": _return_displacement(line, back)}


def _bstart_kind(mnemonic):
    def encode(line: _Line):
        ops = line.operands
        kind = ops[0].upper() if ops else ""
        if mnemonic == "BSTART.SYS" and kind != "FALL":
            raise line.error(None, "expected FALL")
        key = mnemonic if mnemonic == "BSTART.SYS" else f"{mnemonic}.{kind}"
        if key not in BY_KEY:
            raise line.error(ops[0] if ops else None, "expected FALL, DIRECT, COND, IND or RET")
        if "simm17" not in BY_KEY[key].fields:
            line.expect({1}, f"no operand after {kind}")
            return key, {}
        if kind in ("DIRECT", "COND"):
            line.expect({2}, f"'{kind}, <displacement>'")
        else:  # FALL: the payload must be 0; a nonzero one is written for round trips only
            line.expect({1, 2}, "'FALL' (a displacement after it is extension-reserved)")
        return key, {"simm17": _displacement(line, ops[1], 17) if len(ops) == 2 else 0}
    return encode


def _c_bstart(line: _Line):
    line.expect({2}, "'DIRECT, <displacement>' or 'COND, <displacement>'")
    kind = line.operands[0].upper()
    if kind not in ("DIRECT", "COND"):
        raise line.error(line.operands[0], "expected DIRECT or COND")
    return f"C.BSTART.{kind}", {"simm12": _displacement(line, line.operands[1], 12)}


def _c_bstart_kind(key):
    def encode(line: _Line):
        line.expect({1}, "FALL, IND or RET")
        if key == "C.BSTART.SYS":
            if line.operands[0].upper() != "FALL":
                raise line.error(line.operands[0], "expected FALL")
            return key, {}
        names = {name: code for code, name in BRANCH_TYPE_NAMES.items() if code in (1, 5, 7)}
        return key, {"BrType": _named_or_int(line, line.operands[0], names, 3, "FALL, IND or RET")}
    return encode


def _register_triple(key):
    def encode(line: _Line):
        items = _braced(line, "[", "]")
        if len(items) != 3:
            raise line.error(line.operands[0], "expected [<gpr>, <gpr>, <gpr>]")
        return key, {f"RegSrc{slot}": _register(line, item) for slot, item in enumerate(items)}
    return encode


def _frame(key, role):
    def encode(line: _Line):
        ops = line.operands
        m = re.fullmatch(r"\[\s*([^~\]]+?)\s*~\s*([^\]]+?)\s*\]", ops[0].strip()) if len(ops) == 3 else None
        if not m or ops[1].replace(" ", "").lower() != "sp!":
            raise line.error(None, "expected '[<gpr> ~ <gpr>], sp!, <frame bytes>'")
        size = _field_int(line, ops[2], ops[2], 15)
        if size % 8:
            raise line.error(ops[2], "the frame size is a multiple of 8 bytes")
        return key, {f"{role}Begin": _register(line, m.group(1)), f"{role}End": _register(line, m.group(2)),
                     "uimm": size}
    return encode


def _xb(line: _Line):
    line.expect({2}, "'<ACR-ID>, <CROSS-BID>'")
    return "XB", {"ACR-ID": _field_int(line, line.operands[0], line.operands[0], 10),
                  "CROSS-BID": _field_int(line, line.operands[1], line.operands[1], 7)}


def _no_operands(key):
    def encode(line: _Line):
        if line.operands:
            raise line.error(line.operands[0], f"{key} takes no operands")
        return key, {}
    return encode


_ENCODERS = {
    "BSTART.VEC": _bstart_tepl, "BSTART.SFU": _bstart_tepl, "BSTART.TEPL": _bstart_tepl,
    **{key: _typed_bstart(key) for key in (*BSTART_OPERATIONS, *BSTART_VARIANTS)},
    "BSTART": _bstart, "BSTART.CALL": _bstart_call, "BSTART.ICALL": _bstart_icall,
    "BSTART.FP": _bstart_kind("BSTART.FP"), "BSTART.STD": _bstart_kind("BSTART.STD"),
    "BSTART.SYS": _bstart_kind("BSTART.SYS"),
    "B.CATR": _b_catr, "B.DATR": _b_datr, "B.DIM": _b_dim, "C.B.DIMI": _c_b_dimi, "B.HINT": _b_hint,
    "B.IOR": _b_ior, "B.IOT": _b_iot, "B.IOS": _b_ios, "B.FPATR": _b_fpatr,
    "BSTOP": _no_operands("BSTOP"), "C.BSTOP": _no_operands("C.BSTOP"),
    "C.BSTART": _c_bstart, "C.BSTART.FP": _c_bstart_kind("C.BSTART.FP"),
    "C.BSTART.STD": _c_bstart_kind("C.BSTART.STD"), "C.BSTART.SYS": _c_bstart_kind("C.BSTART.SYS"),
    "MCOPY": _register_triple("MCOPY"), "MSET": _register_triple("MSET"),
    "ERCOV": _register_triple("ERCOV"), "ESAVE": _register_triple("ESAVE"),
    "FENTRY": _frame("FENTRY", "Src"), "FEXIT": _frame("FEXIT", "Dst"),
    "FRET.RA": _frame("FRET.RA", "Dst"), "FRET.STK": _frame("FRET.STK", "Dst"), "XB": _xb,
}


def assemble_line(text: str) -> Instruction:
    """Encode one instruction; raises ValueError for text that is not valid syntax."""
    text = strip_comment(text)
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
    return [_assembled_line(part) for part in split_program(text)]


# Programs repeat their lines (B.DIM LB0=16, BSTOP, ...): each text is encoded once per process.
# An Instruction is immutable; text that does not assemble raises every time (not cached).
_assembled_line = lru_cache(maxsize=1 << 16)(assemble_line)


def raw_instruction(word: int) -> Instruction:
    """An integer program item: its length follows ``instruction_length``."""
    if not isinstance(word, int) or isinstance(word, bool) or not 0 <= word <= 0xFFFFFFFF:
        raise ValueError(f"instruction word {word!r} must be an integer 0..0xFFFFFFFF")
    length = instruction_length(word)
    return Instruction(word, length, f".{'half' if length == 16 else 'word'} {word:#x}")
