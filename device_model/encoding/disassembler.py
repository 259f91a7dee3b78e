"""Instruction words -> canonical assembly text.

Total over every word: a word of any 16/32-bit form of the spec disassembles to
the spec's canonical syntax (docs/assembly.md), which assembles back to the
same word; reserved field values are written as numbers (``BSTART.TLOAD 15``,
``B.DATR {NORM, FP32, Zero, 7, Default, 0, 0}``, ``R24``), bits a form neither
fixes nor defines as ``->U<0>`` on a source-only B.IOT, and branch targets as
signed byte displacements. A word of no form becomes ``.word``/``.half`` with a
comment.
"""
from __future__ import annotations

from .. import dtypes
from ..padding import PAD_NAMES
from ..state import PE_MASK_OF_MODE, mask_text
from .forms import match_form
from .names import (BRANCH_TYPE_NAMES, BSTART_OPERATIONS, BSTART_VARIANTS, CMODE_NAMES, GPR_NAMES, HINT_TEMPERATURES,
                    LAYOUT_TRANSFORMS, RELU_NAMES, ROUNDING_NAMES, TEPL_BY_SELECTOR, TEPL_OPS)


def tile_ref(index: int) -> str:
    """Canonical spelling of a TileIndex: hand letter, '#', index within the hand + 1 (T#1..N#16)."""
    return f"{'TUMN'[index // 16]}#{index % 16 + 1}"


def gpr(index: int) -> str:
    return GPR_NAMES[index] if index < len(GPR_NAMES) else f"R{index}"


def _dtype(code: int, allow_none: bool = False) -> str:
    if allow_none and code == dtypes.DTYPE_NONE:
        return "DTYPE_NONE"
    return dtypes.BY_CODE[code].name if code in dtypes.BY_CODE else str(code)


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _displacement(value: int, bits: int) -> str:
    """A half-word count field as its signed byte displacement."""
    return str(2 * _signed(value, bits))


def _bstart_tepl(f):
    name = TEPL_BY_SELECTOR.get((f["Mode"] << 5) | f["Function"])
    if name is None:
        return f"BSTART.TEPL {f['Mode']}, {f['Function']}, {_dtype(f['DataType'])}"
    return f"BSTART.{TEPL_OPS[name][2]} {name}, {_dtype(f['DataType'])}"


def _typed_bstart(key):
    return lambda f: f"{key} {_dtype(f['DataType'], allow_none=key == 'BSTART.TMOV')}"


def _cmode(code: int):
    """B.DATR CMode as the B.DATR contract's canonical examples write it: code 0 (the zero
    meaning, which TCMP and TCMPS read as EQ) is ``None``, 1..5 NE LT GT LE GE, and a reserved
    code its number. The assembler takes ``EQ`` and ``None`` for code 0 alike."""
    if code == 0:
        return "None"
    return CMODE_NAMES[code] if code < len(CMODE_NAMES) else code


def _b_datr(f):
    items = (LAYOUT_TRANSFORMS.get(f["Layout"], f["Layout"]), _dtype(f["DataType"], allow_none=True),
             PAD_NAMES[f["PadValue"]], _cmode(f["CMode"]),
             "Default" if f["RMode"] == 0 else ROUNDING_NAMES[f["RMode"]], f["Sat"], f["Canonicalize"])
    return "B.DATR {" + ", ".join(str(item) for item in items) + "}"


def _b_dim(index):
    return lambda f: f"B.DIM {gpr(f['RegSrc'])}, {f['Imm']}, ->LB{index}"


def _b_ior(f):
    sources = [f["RegSrc0"], f["RegSrc1"], f["RegSrc2"]]
    while len(sources) > 1 and sources[-1] == 0:
        sources.pop()
    ops = [gpr(s) for s in sources]
    if f["RegDst"]:
        ops.append(f"->{gpr(f['RegDst'])}")
    return "B.IOR " + ", ".join(ops)


def _b_iot(f):
    ops = [tile_ref(f[name]) for name in ("SrcTile0", "SrcTile1") if name in f]
    ops.append(f"mask={mask_text(PE_MASK_OF_MODE[f['PEMode']])}")
    if f["L"]:
        ops.append("<last>")
    if "DstTile" in f:
        ops.append(f"->{'TUMN'[f['DstTile']]}<{f['SizeCode']}>")
    elif f.get("Ignored"):
        ops.append(f"->{'TUMN'[f['Ignored']]}<0>")  # hand bits a source-only form ignores
    return "B.IOT " + ", ".join(ops)


def _b_ios(f):
    mask = f"mask={mask_text(PE_MASK_OF_MODE[f['PEMode']])}"
    if f["SizeCode"] == 0:
        return f"B.IOS S{f['SharedTID']}, {mask}"
    return f"B.IOS {mask}, ->S{f['SharedTID']}<{f['SizeCode']}>"


def _b_fpatr(f):
    mode = "None" if f["PreQuantMode"] == 0 else f["PreQuantMode"]
    relu = RELU_NAMES[f["ReluMode"]] if f["ReluMode"] < len(RELU_NAMES) else f["ReluMode"]
    rest = [f[name] for name in ("GroupNCode", "RowMaxEn", "GroupMaxEn", "RowMaxInit", "MaxAbsEn",
                                 "TransA", "TransB")]
    return "B.FPATR " + ", ".join(str(item) for item in (mode, relu, *rest))



def _b_catr(f):
    ordering = "aqrl" if f["aq"] and f["rl"] else "aq" if f["aq"] else "rl" if f["rl"] else None
    flags = [name for name, present in (("trap", f["trap"]), ("atomic", f["atom"]), (ordering, ordering),
                                        ("far", f["far"]), ("dr", f["DR"])) if present]
    return "B.CATR {" + ", ".join(flags) + "}"


def _b_hint(f):
    items = []
    if f["V"]:
        items.append("BR.likely" if f["L/UL"] else "BR.unlikely")
    items += [f"TEMP.{HINT_TEMPERATURES[f['temp']]}", str(f["prefetch_size"])]
    if f["L/UL"] and not f["V"]:
        items.append("L/UL=1")  # a direction bit without a valid hint
    return "B.HINT {" + ", ".join(items) + "}"


def _bstart_kind(mnemonic, kind):
    def text(f):
        if kind in ("DIRECT", "COND"):
            return f"{mnemonic} {kind}, {_displacement(f['simm17'], 17)}"
        if kind == "FALL" and f["simm17"]:
            return f"{mnemonic} FALL, {_displacement(f['simm17'], 17)}"  # extension-reserved payload
        return f"{mnemonic} {kind}"
    return text


def _c_bstart_kind(mnemonic):
    """FALL, IND or RET; the other BrType codes (reserved here) as numbers."""
    return lambda f: f"{mnemonic} {BRANCH_TYPE_NAMES[f['BrType']] if f['BrType'] in (1, 5, 7) else f['BrType']}"


def _register_triple(mnemonic):
    return lambda f: f"{mnemonic} [{gpr(f['RegSrc0'])}, {gpr(f['RegSrc1'])}, {gpr(f['RegSrc2'])}]"


def _frame(mnemonic, role):
    return lambda f: f"{mnemonic} [{gpr(f[role + 'Begin'])} ~ {gpr(f[role + 'End'])}], sp!, {f['uimm']}"


_TEXT = {
    "BSTART.TEPL": _bstart_tepl,
    **{key: _typed_bstart(key) for key in (*BSTART_OPERATIONS, *BSTART_VARIANTS)},
    "BSTART.DIRECT": lambda f: f"BSTART DIRECT, {_displacement(f['simm25'], 25)}",
    "BSTART.COND": lambda f: f"BSTART COND, {_displacement(f['simm25'], 25)}",
    "BSTART.CALL": lambda f: f"BSTART.CALL {_displacement(f['simm12'], 12)}, {2 + 2 * f['uimm5']}, ->ra",
    "BSTART.ICALL": lambda f: f"BSTART.ICALL {2 + 2 * f['uimm5']}, ->ra",
    **{f"{m}.{kind}": _bstart_kind(m, kind) for m in ("BSTART.FP", "BSTART.STD")
       for kind in ("FALL", "DIRECT", "COND", "IND", "RET")},
    "BSTART.SYS": _bstart_kind("BSTART.SYS", "FALL"),
    "B.CATR": _b_catr, "B.DATR": _b_datr,
    "B.DIM.LB0": _b_dim(0), "B.DIM.LB1": _b_dim(1), "B.DIM.LB2": _b_dim(2),
    "C.B.DIMI": lambda f: f"C.B.DIMI {f['Imm']}, ->LB{f['LoopNest']}",
    "B.HINT": _b_hint, "B.HINT.TRACE": lambda f: f"B.HINT TRACE.{'end' if f['B/E'] else 'begin'}",
    "B.IOR": _b_ior, "B.IOT.S_D": _b_iot, "B.IOT.SS": _b_iot, "B.IOT.SS_D": _b_iot,
    "B.IOT.S": _b_iot, "B.IOT.D": _b_iot, "B.IOS": _b_ios, "B.FPATR": _b_fpatr,
    "BSTOP": lambda f: "BSTOP", "C.BSTOP": lambda f: "C.BSTOP",
    "C.BSTART.DIRECT": lambda f: f"C.BSTART DIRECT, {_displacement(f['simm12'], 12)}",
    "C.BSTART.COND": lambda f: f"C.BSTART COND, {_displacement(f['simm12'], 12)}",
    "C.BSTART.FP": _c_bstart_kind("C.BSTART.FP"), "C.BSTART.STD": _c_bstart_kind("C.BSTART.STD"),
    "C.BSTART.SYS": lambda f: "C.BSTART.SYS FALL",
    "MCOPY": _register_triple("MCOPY"), "MSET": _register_triple("MSET"),
    "ERCOV": _register_triple("ERCOV"), "ESAVE": _register_triple("ESAVE"),
    "FENTRY": _frame("FENTRY", "Src"), "FEXIT": _frame("FEXIT", "Dst"),
    "FRET.RA": _frame("FRET.RA", "Dst"), "FRET.STK": _frame("FRET.STK", "Dst"),
    "XB": lambda f: f"XB {f['ACR-ID']}, {f['CROSS-BID']}",
}


def disassemble(word: int, length: int) -> str:
    """Canonical assembly text of one instruction word of ``length`` bits (16 or 32)."""
    form = match_form(word, length)
    if form is None:
        raw = f".half {word:#06x}" if length == 16 else f".word {word:#010x}"
        return f"{raw}  # matches no command form"
    return _TEXT[form.key](form.extract(word))
