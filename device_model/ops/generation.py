"""The generation operations TCI and TTRI: destination-only TEPL blocks (no source
tile) whose payload comes from two B.IOR scalars; one operation kind, each operation
module one declaration.

Facts from asl/tile/irregular-and-complex/initialization/TCI.asl and TTRI.asl,
asl/tile/model/execution/generation.asl (TCI, TTRI, TileTCIDataTypeSupported,
TileTTRIDataTypeSupported, TileTTRIOneEncoding), operand-schema.asl
(TileOperandsLegal_TCI, TileOperandsLegal_TTRI), asl/block/model/dispatch/
generation-schema.asl (SelectedBundleClosedGenerationSchemaLegal), scalar-schema.asl
(the B.IOR slot order address, scalar0, scalar1, diagonal, flag0, and
BundleOperationGPRBindingValuesLegal: flag0 exactly 0 or 1, diagonal in
-65535..65535 as a signed Word) and destination-shape.asl (the LB shape):

- TCI: logical column k of the one valid row is ``start + k`` (ascending) or
  ``start - k`` (descending) modulo the element width; B.IOR RegSrc0 is the start
  (bits above the element ignored), RegSrc1 the direction;
- TTRI: element [r, c] is the type's one when ``c <= r + diagonal`` (lower) or
  ``c >= r + diagonal`` (upper), else zero, compared as integers that never wrap;
  B.IOR RegSrc0 is the diagonal, RegSrc1 the orientation;
- an omitted B.IOR selects 0 and ascending (lower); every physical coordinate outside
  the valid region is Null padding; the destination's location is Any.

SOURCES = 0 passes the flow's binding step (a destination-only block) and the shape
is the LB shape (``destination_shape``: the Operation default). SPEC-CHOICE 43: the
contracts offer an optional all-zero B.DATR, but a present B.DATR encodes DataType 0
(FP64), which ``ResolveBundleEffectiveDataType`` makes the destination's type, so the
operand rules reject the block (Fault_TileLegality, or Fault_TileAllocation when the
TSize cannot hold the FP64 shape); the model follows the ASL.
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..state import WORD_MASK, MachineState, descriptor_legal
from .common import Publication, raw_element, result_tile
from .operation import Operation
from .registry import REQUIRED

U64 = np.uint64
DIAGONAL_LIMIT = 65535

# TileTCIDataTypeSupported, TileTTRIDataTypeSupported
TYPE_SETS = {"TCI": frozenset({"S32", "S16", "U32", "U16"}),
             "TTRI": frozenset({"FP32", "FP16", "S32", "S16", "U32", "U16"})}
# TileTTRIOneEncoding (every integer type: 1)
ONE_ENCODING = {"FP32": 0x3F800000, "FP16": 0x3C00, "BF16": 0x3F80}


def signed_word(value: int) -> int:
    """SInt of a 64-bit Word."""
    value &= WORD_MASK
    return value - (1 << 64) if value >> 63 else value


def ascending_sequence(dtype, start: int, count: int, descending: bool) -> np.ndarray:
    """TCI's row: ``start +- k`` for k < count, modulo the element width (raw elements)."""
    offsets = np.arange(count, dtype=U64)
    first = U64(raw_element(start, dtype))
    values = first - offsets if descending else first + offsets  # wraps modulo 2**64
    return values & U64(dtype.mask) if dtype.bits < 64 else values


def triangle(dtype, rows: int, cols: int, upper: bool, diagonal: int) -> np.ndarray:
    """TTRI's valid region: the type's one where the boundary selects, zero elsewhere."""
    row = np.arange(rows, dtype=np.int64)[:, None]
    column = np.arange(cols, dtype=np.int64)[None, :]
    boundary = row + diagonal  # exact integers: |diagonal| <= 65535, rows < 65536
    selected = column >= boundary if upper else column <= boundary
    return np.where(selected, U64(ONE_ENCODING.get(dtype.name, 1)), U64(0))


class TileGenerate(Operation):
    """TCI or TTRI: a new single-destination tile generated from (value, flag) B.IOR
    scalars. ``kind`` names which; ``value`` and ``flag`` its direct-call arguments."""

    SOURCES = 0
    GPR_INPUTS = 2
    DATR_ALLOWED = frozenset()  # the catalog's datr_contract: no nonzero field

    def __init__(self, name: str, value: str, flag: str):
        self.NAME, self.HANDLER, self.LEGALITY = name, name, f"TileOperandsLegal_{name}"
        self.types = TYPE_SETS[name]
        self.value_argument, self.flag_argument = value, flag
        self.DIRECT_ARGUMENTS = {"dst": REQUIRED, value: 0, flag: 0}

    # --- bundle --------------------------------------------------------------
    def scalars(self, state: MachineState, block) -> tuple:
        """(value Word, flag Word) from B.IOR RegSrc0/RegSrc1; (0, 0) when B.IOR is omitted."""
        values = block.gpr_inputs(state)
        return (values[0], values[1]) if values else (0, 0)

    def gpr_values_check(self, state: MachineState, block) -> None:
        """BundleOperationGPRBindingValuesLegal: the flag is exactly 0 or 1; TTRI's diagonal
        lies in -65535..65535 as a signed Word (only a present B.IOR is read)."""
        if block.ior is None:
            return
        value, flag = self.scalars(state, block)
        if flag not in (0, 1):
            raise tile_legality(f"{self.NAME}: B.IOR {self.flag_argument} {flag:#x} is neither 0 nor 1")
        if self.NAME == "TTRI" and abs(signed_word(value)) > DIAGONAL_LIMIT:
            raise tile_legality(f"TTRI: diagonal {signed_word(value)} lies outside -65535..65535")

    def schema_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedGenerationSchemaLegal: one terminating destination-only B.IOT,
        LB0 in 1..65535, a present LB2 at least LB0, a present LB1 equal to 1 (TCI) or in
        1..65535 (TTRI), a BSTART type of the operation's set and a RowMajor layout."""
        if len(block.bindings) != 1 or block.shared:
            return False
        binding = block.bindings[0]
        if not binding.destination or binding.sources or not binding.last:
            return False
        lb0, lb1, lb2 = block.dims
        if not lb0 or lb0 > 65535 or (lb2 is not None and not lb0 <= lb2 <= 65535):
            return False
        if lb1 is not None and not (lb1 == 1 if self.NAME == "TCI" else 1 <= lb1 <= 65535):
            return False
        return block.data_type.name in self.types

    def schema_summary(self) -> str:
        rows = "LB1 absent or 1" if self.NAME == "TCI" else "LB1 absent or 1..65535"
        return (f"one destination-only B.IOT with L=1, LB0 1..65535, LB2 absent or >= LB0, {rows}, "
                f"a BSTART type of {sorted(self.types)}")

    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        value, flag = self.scalars(state, block)
        tiles = list(state.tiles)
        tiles[index] = destination
        return self.generate(tiles, index, value, bool(flag), state.tile_capacity)

    # --- direct call -----------------------------------------------------------
    def check_call(self, call: dict) -> None:
        if self.NAME == "TTRI" and abs(signed_word(call[self.value_argument])) > DIAGONAL_LIMIT:
            raise ValueError("direct TTRI: diagonal must lie in -65535..65535")

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        return self.generate(state.tiles, call["dst"], call[self.value_argument], bool(call[self.flag_argument]),
                             state.tile_capacity)

    # --- shared ----------------------------------------------------------------
    def operands_check(self, tiles, dst: int, limit: int) -> None:
        """TileOperandsLegal_TCI / TileOperandsLegal_TTRI."""
        tile = tiles[dst]
        if not descriptor_legal(tile, limit):
            raise tile_legality(f"{self.NAME}: the destination descriptor is not legal")
        rows_legal = tile.valid_rows == 1 if self.NAME == "TCI" else tile.valid_rows >= 1
        if (tile.dtype.name not in self.types or tile.predicate or tile.layout != "RowMajor" or not rows_legal
                or tile.valid_cols < 1):
            raise tile_legality(f"{self.NAME} writes a RowMajor numeric tile of {sorted(self.types)}"
                                + (" with one valid row" if self.NAME == "TCI" else ""))

    def generate(self, tiles, dst: int, value: int, flag: bool, limit: int) -> Publication:
        self.operands_check(tiles, dst, limit)
        tile = tiles[dst]
        if self.NAME == "TCI":
            words = ascending_sequence(tile.dtype, value, tile.valid_cols, flag)[None, :]
        else:
            words = triangle(tile.dtype, tile.valid_rows, tile.valid_cols, flag, signed_word(value))
        return Publication({dst: result_tile(tile, words, "Null", location="Any")})
