"""Instruction words -> project assembly text.

Total over every word: a word of a modelled form disassembles to text that
assembles back to the same word (reserved field values are written in the raw
``Field=value`` or numeric spelling); a word of a form this model does not
execute, or of no form, becomes ``.word``/``.half`` with a comment.
"""
from __future__ import annotations

from .. import dtypes
from ..padding import PAD_NAMES
from ..state import PE_MASK_OF_MODE, mask_text, tile_name
from .forms import match_form
from .names import (CMODE_NAMES, FPATR_FIELDS, LAYOUT_TRANSFORMS, ROUNDING_NAMES, TEPL_BY_SELECTOR,
                    TEPL_OPS)


def _dtype(code: int, allow_none: bool = False) -> str:
    if allow_none and code == dtypes.DTYPE_NONE:
        return "DTYPE_NONE"
    return dtypes.BY_CODE[code].name if code in dtypes.BY_CODE else str(code)


def _reg(index: int) -> str:
    return "zero" if index == 0 else f"R{index}"


def _bstart_tepl(f):
    selector = (f["Mode"] << 5) | f["Function"]
    name = TEPL_BY_SELECTOR.get(selector)
    if name is None:
        return f"BSTART.TEPL {f['Mode']}, {f['Function']}, {_dtype(f['DataType'])}"
    return f"BSTART.{TEPL_OPS[name][2]} {name}, {_dtype(f['DataType'])}"


def _b_datr(f):
    code = f["DataType"]
    ops = [_dtype(code, allow_none=True) if code in dtypes.BY_CODE or code == dtypes.DTYPE_NONE
           else f"DataType={code}"]
    if f["RMode"]:
        ops.append(ROUNDING_NAMES[f["RMode"]])
    if f["Layout"]:
        ops.append(LAYOUT_TRANSFORMS.get(f["Layout"], f"Layout={f['Layout']}"))
    if f["PadValue"]:
        ops.append(PAD_NAMES[f["PadValue"]])
    if f["Sat"]:
        ops.append("Sat=1")
    if f["Canonicalize"]:
        ops.append("Canon=1")
    if f["CMode"]:
        ops.append(f"CMode={CMODE_NAMES[f['CMode']]}" if f["CMode"] < len(CMODE_NAMES)
                   else f"CMode={f['CMode']}")
    return "B.DATR " + ", ".join(ops)


def _b_dim(index):
    def text(f):
        if f["RegSrc"] == 0:
            return f"B.DIM LB{index}={f['Imm']}"
        suffix = f"+{f['Imm']}" if f["Imm"] else ""
        return f"B.DIM LB{index}=R{f['RegSrc']}{suffix}"
    return text


def _b_ior(f):
    sources = [f["RegSrc0"], f["RegSrc1"], f["RegSrc2"]]
    while len(sources) > 1 and sources[-1] == 0:
        sources.pop()
    ops = [_reg(s) for s in sources]
    if f["RegDst"]:
        ops.append(f"->{_reg(f['RegDst'])}")
    return "B.IOR " + ", ".join(ops)


def _b_iot(f):
    ops = [tile_name(f[name]) for name in ("SrcTile0", "SrcTile1") if name in f]
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
    ops = [f"{name}={f[name]}" for name in FPATR_FIELDS if f[name]]
    return "B.FPATR" + (" " + ", ".join(ops) if ops else "")


_TEXT = {
    "BSTART.TEPL": _bstart_tepl,
    "BSTART.TGEMVMX.ACC": lambda f: f"BSTART.TGEMVMX.ACC {_dtype(f['DataType'])}",
    "B.DATR": _b_datr, "B.DIM.LB0": _b_dim(0), "B.DIM.LB1": _b_dim(1), "B.DIM.LB2": _b_dim(2),
    "C.B.DIMI": lambda f: f"C.B.DIMI LB{f['LoopNest']}={f['Imm']}",
    "B.IOR": _b_ior, "B.IOT.S_D": _b_iot, "B.IOT.SS": _b_iot, "B.IOT.SS_D": _b_iot,
    "B.IOT.S": _b_iot, "B.IOT.D": _b_iot, "B.IOS": _b_ios, "B.FPATR": _b_fpatr,
    "BSTOP": lambda f: "BSTOP", "C.BSTOP": lambda f: "C.BSTOP",
}


def disassemble(word: int, length: int) -> str:
    """Assembly text of one instruction word of ``length`` bits (16 or 32)."""
    form = match_form(word, length)
    raw = f".half {word:#06x}" if length == 16 else f".word {word:#010x}"
    if form is None:
        return f"{raw}  # matches no command form"
    if not form.modelled:
        return f"{raw}  # {form.mnemonic} (not modelled)"
    return _TEXT[form.key](form.extract(word))
