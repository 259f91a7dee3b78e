"""Architectural fault classes and the exception that carries one inside the model.

A ``Fault`` never leaves ``Machine.run``: the machine catches it, keeps the
state from before the rejected instruction or block, and reports the class.
"""
from __future__ import annotations

ILLEGAL_INSTRUCTION = "Fault_IllegalInstruction"
BUNDLE_CONTROL = "Fault_BundleControl"
TILE_LEGALITY = "Fault_TileLegality"
TILE_ALLOCATION = "Fault_TileAllocation"

FAULT_CLASSES = (ILLEGAL_INSTRUCTION, BUNDLE_CONTROL, TILE_LEGALITY, TILE_ALLOCATION)


class Fault(Exception):
    """An architectural fault: ``kind`` is one of FAULT_CLASSES, ``reason`` says which rule."""

    def __init__(self, kind: str, reason: str):
        assert kind in FAULT_CLASSES, kind
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


def illegal_instruction(reason: str) -> Fault:
    return Fault(ILLEGAL_INSTRUCTION, reason)


def bundle_control(reason: str) -> Fault:
    return Fault(BUNDLE_CONTROL, reason)


def tile_legality(reason: str) -> Fault:
    return Fault(TILE_LEGALITY, reason)


def tile_allocation(reason: str) -> Fault:
    return Fault(TILE_ALLOCATION, reason)
