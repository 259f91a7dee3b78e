"""Architectural fault classes and the exception that carries one inside the model.

A ``Fault`` never leaves ``Machine.run``: the machine catches it, keeps the
state from before the rejected instruction or block, and reports the class.
"""
from __future__ import annotations

ILLEGAL_INSTRUCTION = "Fault_IllegalInstruction"
BUNDLE_CONTROL = "Fault_BundleControl"
TILE_LEGALITY = "Fault_TileLegality"
TILE_ALLOCATION = "Fault_TileAllocation"
DATA_ALIGNMENT = "Fault_DataAlignment"  # a data access not a multiple of its size (ProbeDataAccess)
DATA_PAGE = "Fault_DataPage"  # a data access not ending inside memory

FAULT_CLASSES = (ILLEGAL_INSTRUCTION, BUNDLE_CONTROL, TILE_LEGALITY, TILE_ALLOCATION, DATA_ALIGNMENT, DATA_PAGE)
DATA_FAULTS = (DATA_ALIGNMENT, DATA_PAGE)


class Fault(Exception):
    """An architectural fault: ``kind`` is one of FAULT_CLASSES, ``reason`` says which rule;
    ``address`` is the faulting data address of a data fault (SetFault's address), else None."""

    def __init__(self, kind: str, reason: str, address=None):
        assert kind in FAULT_CLASSES, kind
        assert (address is not None) == (kind in DATA_FAULTS), (kind, address)
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason
        self.address = address


def illegal_instruction(reason: str) -> Fault:
    return Fault(ILLEGAL_INSTRUCTION, reason)


def bundle_control(reason: str) -> Fault:
    return Fault(BUNDLE_CONTROL, reason)


def tile_legality(reason: str) -> Fault:
    return Fault(TILE_LEGALITY, reason)


def tile_allocation(reason: str) -> Fault:
    return Fault(TILE_ALLOCATION, reason)


def data_alignment(reason: str, address: int) -> Fault:
    return Fault(DATA_ALIGNMENT, reason, address)


def data_page(reason: str, address: int) -> Fault:
    return Fault(DATA_PAGE, reason, address)
