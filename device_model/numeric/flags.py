"""Numeric status flags (CORE_STATE[36:32] order: NV is bit 0, NX is bit 4)."""
from __future__ import annotations

FLAG_NV = 0x01  # invalid operation
FLAG_DZ = 0x02  # divide by zero
FLAG_OF = 0x04  # overflow
FLAG_UF = 0x08  # underflow
FLAG_NX = 0x10  # inexact

_NAMES = ((FLAG_NV, "NV"), (FLAG_DZ, "DZ"), (FLAG_OF, "OF"), (FLAG_UF, "UF"), (FLAG_NX, "NX"))


def flag_names(value: int) -> list[str]:
    """``0x14`` -> ``["OF", "NX"]``."""
    return [name for bit, name in _NAMES if int(value) & bit]


def flags_from_names(names) -> int:
    """``["OF", "NX"]`` -> ``0x14``."""
    table = dict((name, bit) for bit, name in _NAMES)
    value = 0
    for name in names:
        try:
            value |= table[str(name).upper()]
        except KeyError:
            raise ValueError(f"unknown numeric flag {name!r}; expected one of NV DZ OF UF NX") from None
    return value
