"""The one TEPL bundle commit flow (ExecuteBundleTileOperationLocally after the
block-level steps), shared by every TEPL operation.

Facts from asl/block/model/dispatch/tile-execution.asl (step order),
descriptor-legality.asl (BundleOperationBindingsComplete), scalar-schema.asl
and tile-schema.asl (SelectedBundleTileDataAttributesLegal). An operation
supplies only what differs:

- ``NAME``, ``SOURCES``, ``GPR_INPUTS``: its Local source and B.IOR input counts
- ``DATR_ALLOWED``: the B.DATR fields that may be nonzero
- ``gpr_values_check(state, block)``: BundleOperationGPRBindingValuesLegal
- ``closed_schema_check(state, block)``: its SelectedBundleClosed*SchemaLegal
- ``destination_shape(state, block)``: (valid_rows, valid_cols, cols) of the
  new destination (ResolveBundleTileDestinationsForOperation), or
  ``resolve_destination(state, block) -> (index, tile)`` for a destination of its
  own kind (a predicate tile)
- ``execute_bundle(state, block, index, destination, profile) -> Publication``:
  operand legality and execution against the allocated destination
"""
from __future__ import annotations

from .. import block as blocks
from ..faults import bundle_control, tile_legality
from ..state import MachineState
from .common import Publication


def commit_bundle(state: MachineState, block, profile: str, op) -> Publication:
    if block.shared:
        raise tile_legality("TEPL operations take no Shared (B.IOS) binding")
    # SPEC-CHOICE 9: the operation documents list a bad B.IOR among the closed-schema
    # (Fault_TileLegality) failures; the executable order checks binding completeness
    # first, so a nonzero surplus B.IOR field (or a wrong binding count) is
    # Fault_BundleControl (digest §7.8). The executable order is used.
    if (len(block.destinations()) != 1 or len(block.sources()) != op.SOURCES
            or not block.stream_terminated() or not block.scalar_schema_legal(op.GPR_INPUTS)):
        raise bundle_control(f"{op.NAME} needs exactly one destination and {op.SOURCES} "
                             f"source(s) in one terminated B.IOT stream, and no surplus B.IOR field")
    op.gpr_values_check(state, block)
    blocks._check_datr_applicability(block, op)
    op.closed_schema_check(state, block)
    if not block.masks_equal():
        raise tile_legality("bindings use different PE masks")
    resolve = getattr(op, "resolve_destination", None)
    index, destination = (resolve(state, block) if resolve is not None else
                          blocks.resolve_destination(state, block, op.destination_shape(state, block)))
    return op.execute_bundle(state, block, index, destination, profile)


class TeplModule:
    """The registry entry of an operation module that follows the TEPL flow with a
    closed schema. Every other member is read from the module at call time."""

    BSTART = "BSTART.TEPL"
    MATRIX = False

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name)

    def commit_bundle(self, state: MachineState, block, profile: str) -> Publication:
        return commit_bundle(state, block, profile, self)

    def destination_shape(self, state: MachineState, block):
        return block.shape()

    def check_call(self, call: dict) -> None:
        """Direct calls of these operations need no check beyond their arguments."""
