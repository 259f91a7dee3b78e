"""Padding values written outside a tile's valid region.

Facts from asl/tile/model/definedness/elements.asl (TilePadValueForDataType):
Zero and Null store 0 (Null leaves the coordinate undefined); Max and Min store
the Word tabulated per DataType. SPEC-CHOICE 11: types without an entry in the
table take the spec's "otherwise" value: the all-ones Word for Max,
0x8000000000000000 for Min (so S4X2 Max pads -1 and S4X2 Min pads 0 once packed;
E8M0 Max pads the NaN code). The signed Min values are not sign-extended. Writes
to a packed carrier keep only the element bits of these Words.
"""
from __future__ import annotations

PAD_NAMES = ("Zero", "Max", "Min", "Null")  # B.DATR PadValue codes 00, 01, 10, 11
PAD_CODES = {name: code for code, name in enumerate(PAD_NAMES)}

ALL_ONES = (1 << 64) - 1

_MAX = {
    "FP64": 0x7FEFFFFFFFFFFFFF, "FP32": 0x7F7FFFFF, "TF32": 0x7F7FE000, "HF32": 0x7F7FF000,
    "FP16": 0x7BFF, "BF16": 0x7F7F, "E4M3": 0x7E, "E5M2": 0x7B,
    "U8": 0xFF, "U16": 0xFFFF, "U32": 0xFFFFFFFF, "U64": ALL_ONES,
    "S8": 0x7F, "S16": 0x7FFF, "S32": 0x7FFFFFFF, "S64": 0x7FFFFFFFFFFFFFFF,
}
_MAX_OTHERWISE = ALL_ONES

_MIN = {
    "FP64": 0xFFEFFFFFFFFFFFFF, "FP32": 0xFF7FFFFF, "TF32": 0xFF7FE000, "HF32": 0xFF7FF000,
    "FP16": 0xFBFF, "BF16": 0xFF7F, "E4M3": 0xFE, "E5M2": 0xFB,
    "U8": 0, "U16": 0, "U32": 0, "U64": 0, "U4X2": 0,
    "S8": 0x80, "S16": 0x8000, "S32": 0x80000000, "S64": 0x8000000000000000,
}
_MIN_OTHERWISE = 0x8000000000000000


def pad_name(pad) -> str:
    """Canonical pad name from a name (case-insensitive) or a 2-bit code."""
    if isinstance(pad, int) and not isinstance(pad, bool):
        if 0 <= pad <= 3:
            return PAD_NAMES[pad]
        raise ValueError(f"PadValue code {pad} is outside 0..3")
    for name in PAD_NAMES:
        if name.lower() == str(pad).strip().lower():
            return name
    raise ValueError(f"unknown pad value {pad!r}; expected one of {', '.join(PAD_NAMES)}")


def pad_word(pad: str, dtype) -> int:
    """The Word written at padding coordinates for ``pad`` and DataType ``dtype``."""
    if pad in ("Zero", "Null"):
        return 0
    if pad == "Max":
        return _MAX.get(dtype.name, _MAX_OTHERWISE)
    if pad == "Min":
        return _MIN.get(dtype.name, _MIN_OTHERWISE)
    raise ValueError(f"unknown pad value {pad!r}")


def pad_defines(pad: str) -> bool:
    """Every pad value but Null defines the padding coordinates."""
    return pad != "Null"
