"""The operation registry: every modelled operation joins it; the block state
machine and the machine find operations here and know none by name.

An entry is an ``ops.operation.Operation`` (its docstring states the protocol: what an
operation declares and what the TEPL bundle flow does). What the block and the machine
read of it:

- ``NAME``: the spec mnemonic (``TCVT``, ``TAND``, ``TGEMV_MX_ACC``)
- ``BSTART``: the decoded BSTART form key that opens its block
  (``BSTART.TEPL``, whose Mode/Function selector names the operation, or a
  form of its own such as ``BSTART.TGEMVMX.ACC``)
- ``MATRIX``: whether its block is a Matrix (CUBE) block (B.FPATR allowed)
- ``DATR_ALLOWED``: the B.DATR fields that may be nonzero
- ``commit_bundle(state, block, profile) -> Publication``: the whole commit of
  its block after the block-level steps (zero participation, transport routing)
- ``direct(state, call, profile) -> Publication``: a direct call
- ``DIRECT_ARGUMENTS``: direct-call argument -> default (``REQUIRED`` when the
  call must give it); ``check_call(call)`` may refuse a normalized call
  (``ValueError``)

Members are looked up on the entry at call time, so a mutant can replace one
module attribute (or one registry entry) for the length of a case. This module
imports nothing from the model: the block imports it, operations import both.
"""
from __future__ import annotations

from typing import Optional

REQUIRED = object()  # DIRECT_ARGUMENTS default of an argument the call must give

OPERATIONS: dict = {}  # NAME -> entry, in registration order


def register(entry):
    """Add ``entry`` (see the module docstring); returns it. A name joins once."""
    if entry.NAME in OPERATIONS:
        raise ValueError(f"operation {entry.NAME} is already registered")
    OPERATIONS[entry.NAME] = entry
    return entry


def find(name: Optional[str]):
    """The registered entry of ``name``, or None when the model does not execute it."""
    return OPERATIONS.get(name)


def operation_of_form(form_key: str) -> Optional[str]:
    """The name of the operation a BSTART form of its own opens (not BSTART.TEPL)."""
    return next((name for name, entry in OPERATIONS.items() if entry.BSTART == form_key), None)


def names() -> tuple:
    return tuple(OPERATIONS)
