"""Raw instruction words -> decoded command forms.

A word that matches no form, that belongs to a form the spec reserves in PTO
(ERCOV, ESAVE, XB), or whose field violates the catalog's constraint (a
reserved DataType, CMode, Layout, PreQuantMode, ReluMode, GroupNCode, SizeCode,
BrType, frame endpoint, a GPR selector >= 24, LoopNest 3, a nonzero FALL
payload), is Fault_IllegalInstruction.

``Decoded.operation`` names the Tile operation a BSTART selects (``TADD``,
``TLOAD``, ``TMATMUL_ACC``, ... as in spec/catalog/tile-operations.json), so
that the block machine can tell an operation it does not execute from an
illegal word; it is None for every other command and for a TEPL selector that
names no operation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..faults import illegal_instruction
from .forms import Form, match_form
from .names import BSTART_OPERATIONS, TEPL_BY_SELECTOR


@dataclass(frozen=True)
class Decoded:
    form: Form
    fields: dict
    word: int
    length: int
    operation: Optional[str] = None


def selected_operation(form: Form, fields: dict) -> Optional[str]:
    """The Tile operation a BSTART form and its fields select, or None."""
    if form.key == "BSTART.TEPL":
        return TEPL_BY_SELECTOR.get((fields["Mode"] << 5) | fields["Function"])
    return BSTART_OPERATIONS.get(form.key)


def decode(word: int, length: int) -> Decoded:
    """Decode one word; raises ``faults.Fault`` (Fault_IllegalInstruction)."""
    form = match_form(word, length)
    if form is None:
        raise illegal_instruction(f"{length}-bit word {word:#0{length // 4 + 2}x} matches no command form")
    if form.reserved:
        raise illegal_instruction(f"{form.mnemonic} word {word:#010x} is reserved in PTO")
    fields = form.extract(word)
    bad = form.violations(fields)
    if bad:
        detail = ", ".join(f"{name}={fields[name]}" for name in bad)
        raise illegal_instruction(f"{form.mnemonic} word {word:#0{length // 4 + 2}x} has reserved field value {detail}")
    return Decoded(form, fields, word, length, selected_operation(form, fields))
