"""Raw instruction words -> decoded command forms.

A word that matches no form, or whose field violates the catalog's constraint
(a reserved DataType, CMode, Layout, PreQuantMode, ReluMode, GroupNCode,
SizeCode, a GPR selector >= 24, LoopNest 3), is Fault_IllegalInstruction.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..faults import illegal_instruction
from .forms import Form, match_form


@dataclass(frozen=True)
class Decoded:
    form: Form
    fields: dict
    word: int
    length: int


def decode(word: int, length: int) -> Decoded:
    """Decode one word; raises ``faults.Fault`` (Fault_IllegalInstruction)."""
    form = match_form(word, length)
    if form is None:
        raise illegal_instruction(f"{length}-bit word {word:#0{length // 4 + 2}x} matches no command form")
    fields = form.extract(word)
    bad = form.violations(fields)
    if bad:
        detail = ", ".join(f"{name}={fields[name]}" for name in bad)
        raise illegal_instruction(f"{form.mnemonic} word {word:#010x} has reserved field value {detail}")
    return Decoded(form, fields, word, length)
