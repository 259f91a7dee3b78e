"""The indexed TLSU kind: MGATHER, MGATHER_MASK, MGATHER_CAS, MSCATTER, MSCATTER_MASK.

Facts from asl/block/model/dispatch/tlsu-mgather.asl, tlsu-mgather-mask.asl,
tlsu-mgather-cas.asl, tlsu-mscatter.asl, tlsu-mscatter-mask.asl (the block order),
asl/tile/model/memory/gather-scatter.asl and atomics.asl (the lanes),
asl/tile/model/memory/addressing.asl (TileIndexByteDisplacement),
asl/tile/model/definedness/elements.asl (IndexedTLSUIndexDataTypeLegal,
IndexedTLSUTransferDataTypeLegal, MarkTilePhysicalRegionDefined) and
asl/tile/model/legality/memory-schema.asl (TileOperandsLegal_M*).

A declaration is its name, its BSTART form and its B.IOT schema: one tuple of operand
roles per binding, in binding order, the catalog's roles (``indices``, ``mask``,
``expected``, ``replacement``, ``source``) and ``->dst`` for a new destination. The schema
says everything that differs: a destination makes a gather, ``source`` a scatter,
``mask`` a predicate-masked form, ``expected`` the atomic compare-and-swap.

The block flow (``commit_bundle``), in the spec's order:

1. a zero PE mask is a strict no-op (``block.commit``, before this flow);
2. Fault_TileLegality (one fault for all of them, so their order is not observable): a
   B.IOS binding, a missing B.IOR, bindings other than the schema (counts, sources,
   destination, L only on the last), a nonzero B.IOR RegSrc1/RegSrc2/RegDst, different
   masks, LB0 missing, an encoded zero LB, ValidCol > Col, Col not a power of two,
   ValidRow x ValidCol past the model's tile elements; then the B.DATR fields other than
   PadValue/Layout (gathers) or Layout (scatters);
3. Fault_TileLegality: each operand defined (a mask: a defined predicate tile), an integer
   index tile (every integer type, the ASL's rule; the contracts list only S32/U32/S64/U64),
   a transfer DataType that
   is not 4-bit, the data operands (``source``, ``expected``, ``replacement``) of the BSTART
   type, every operand of the LB valid shape, a scatter source of LB Col, and, for the
   masked forms and the scatters, every operand in the block's layout;
4. a destination: renamed and allocated (Fault_TileAllocation), then its descriptor legal
   (Fault_TileLegality, nothing allocated);
5. the base is PE 0's B.IOR RegSrc0; lane (row, col) accesses base plus the byte
   displacement of the index Word it reads (``lane_index_words``: a packed 4-bit index tile
   gives lane i logical element 16 * i, SPEC-CHOICE 90) (sign-extended for a signed index type, zero-extended
   otherwise; Word arithmetic), every valid lane (masked forms: every lane whose
   predicate bit is one) probed in row-major order before the first event, then the
   loads, stores or compare-and-swaps and their events.

Where the spec leaves the lane order ``ARBITRARY`` (which of duplicate scatter lanes lands
last, the order of MGATHER_CAS's read-modify-writes) the model takes ``lane_order``:
row-major. A gather's destination is wholly defined afterwards (valid lanes loaded,
disabled lanes and the rest of the physical tile the pad value, Null reading as zero).
"""
from __future__ import annotations

import numpy as np

from .. import block as blocks
from .. import memory
from ..faults import tile_legality
from ..layouts import MODEL_TILE_ELEMENTS
from ..padding import pad_word
from ..state import descriptor_legal, predicate_values_legal, source_contents_defined
from .common import Publication, result_tile
from .memory_flow import ORDER, MemoryFlow, decode_loaded, element_bytes

U64 = np.uint64
DESTINATION = "->dst"
INDEX_TYPES = frozenset({"S4X2", "S8", "S16", "S32", "S64", "U4X2", "U8", "U16", "U32", "U64"})
SIGNED_INDEX = frozenset({"S4X2", "S8", "S16", "S32", "S64"})
DATA_ROLES = ("source", "expected", "replacement")  # operands of the transfer DataType


def lane_order(count: int) -> np.ndarray:
    """The order the lanes commit in, where the spec leaves it ARBITRARY: row-major."""
    return np.arange(count)


def byte_displacements(index_words: np.ndarray, dtype) -> np.ndarray:
    """TileIndexByteDisplacement: the index element's bits, sign-extended (a signed type)
    or zero-extended to the Word."""
    bits = dtype.bits
    words = np.asarray(index_words, dtype=np.uint64) & U64((1 << bits) - 1)
    if dtype.name in SIGNED_INDEX and bits < 64:
        shift = np.int64(64 - bits)
        return ((words << U64(64 - bits)).view(np.int64) >> shift).view(np.uint64)
    return words


def lane_index_words(indices) -> np.ndarray:
    """The index Word each valid lane reads: ``index_payload[[TileLinearIndex(tile, row, col)]]``
    (gather-scatter.asl, atomics.asl), the payload slot at the lane's linear index. SPEC-CHOICE 90:
    in the packed-carrier representation (TileUsesPackedCarrierRepresentation: a 4-bit type, or
    more than MODEL_TILE_ELEMENTS elements) that slot is a carrier of 64/bits logical elements and
    the displacement takes its low element, logical storage index linear * 64/bits (zero past
    the tile's elements: a carrier slot the tile does not use); otherwise it is the lane's own
    element."""
    linear = indices.valid_index.astype(np.int64)
    if not (indices.dtype.bits == 4 or indices.rows * indices.cols > MODEL_TILE_ELEMENTS):
        return indices.payload[linear]
    slot = linear * (64 // indices.dtype.bits)
    inside = slot < indices.payload.size
    return np.where(inside, indices.payload[np.where(inside, slot, 0)], U64(0))


def occurrence_ranks(addresses: np.ndarray) -> np.ndarray:
    """For each access, how many earlier accesses (in the given order) share its address."""
    if addresses.size == 0:
        return np.zeros(0, dtype=np.int64)
    by_address = np.argsort(addresses, kind="stable")
    ordered = addresses[by_address]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    group_start = starts[np.searchsorted(starts, np.arange(addresses.size), side="right") - 1]
    rank = np.empty(addresses.size, dtype=np.int64)
    rank[by_address] = np.arange(addresses.size) - group_start
    return rank


class IndexedMemoryFlow(MemoryFlow):
    """One indexed TLSU operation: its B.IOT schema decides gather or scatter, mask, CAS."""

    GPR_INPUTS = 1  # the base address: B.IOR RegSrc0

    def __init__(self, name: str, bstart: str, schema: tuple):
        super().__init__(name, bstart)
        self.schema = tuple(tuple(binding) for binding in schema)
        roles = [role for binding in self.schema for role in binding]
        self.roles = tuple(role for role in roles if role != DESTINATION)
        self.DESTINATIONS = roles.count(DESTINATION)
        self.SOURCES = len(self.roles)
        self.masked = "mask" in self.roles
        self.atomic = "expected" in self.roles
        self.scatter = "source" in self.roles
        self.DATR_ALLOWED = frozenset({"Layout"} if self.scatter else {"PadValue", "Layout"})

    # --- the block flow ------------------------------------------------------
    def commit_bundle(self, state, block, profile: str):
        """ExecuteBundleM*Operation; each step raises its fault, nothing is written before the end."""
        if not self.block_schema_legal(block):
            raise tile_legality(f"{self.NAME} needs B.IOR (RegSrc0 only), the bindings {self.schema_summary()} "
                                f"on one PE mask, no B.IOS, and LB0 (LB0 <= LB2, a power of two)")
        blocks._check_datr_applicability(block, self)
        valid_rows, valid_cols, cols = self.lb_shape(block)
        operands = dict(zip(self.roles, (state.tiles[index] for index in block.sources())))
        self.operands_check(state, block, operands, (valid_rows, valid_cols, cols))
        index = None
        if self.DESTINATIONS:
            index, tile = blocks.resolve_destination(state, block, (valid_rows, valid_cols, cols), block.data_type)
            if not descriptor_legal(tile, state.tile_capacity):  # TileOperandsLegal_M*: rolled back
                raise tile_legality(f"{self.NAME}: the destination descriptor is not legal")
            operands["destination"] = tile
        operands["base"] = state.read_pe_gpr(0, block.ior["RegSrc0"])
        footprint = self.memory_footprint(state, operands)
        fault = memory.probe(footprint, state.memory_size)
        if fault is not None:
            raise fault
        return self.transfer(state, block, operands, footprint, index)

    def schema_summary(self) -> str:
        return " | ".join(", ".join(binding) for binding in self.schema)

    def block_schema_legal(self, block) -> bool:
        """The TileLegality disjunction before B.DATR: B.IOR, bindings, masks, dimensions."""
        if block.shared or block.ior is None or len(block.bindings) != len(self.schema):
            return False
        for position, (binding, roles) in enumerate(zip(block.bindings, self.schema)):
            sources = [role for role in roles if role != DESTINATION]
            if (binding.destination != (DESTINATION in roles) or len(binding.sources) != len(sources)
                    or binding.last != (position == len(self.schema) - 1)):
                return False
        if not block.scalar_schema_legal(self.GPR_INPUTS) or not block.masks_equal():
            return False
        if block.dims[0] is None or any(d == 0 for d in block.dims if d is not None):
            return False
        valid_rows, valid_cols, cols = self.lb_shape(block)
        return valid_cols <= cols and cols & (cols - 1) == 0 and valid_rows * valid_cols <= MODEL_TILE_ELEMENTS

    @staticmethod
    def lb_shape(block) -> tuple:
        """(ValidRow, ValidCol, Col): LB1 (default 1), LB0, LB2 (default ValidCol)."""
        valid_cols = block.dims[0]
        return block.dims[1] or 1, valid_cols, block.dims[2] or valid_cols

    def operands_check(self, state, block, operands: dict, shape: tuple) -> None:
        """The operand rules of the block (all Fault_TileLegality)."""
        limit = state.tile_capacity
        valid_rows, valid_cols, cols = shape
        dtype = block.data_type
        layout = blocks.layout_transform(block.datr_field("Layout"))[1]
        for role, tile in operands.items():
            defined = predicate_values_legal(tile, limit) if role == "mask" else source_contents_defined(tile, limit)
            if not defined or (tile.valid_rows, tile.valid_cols) != (valid_rows, valid_cols):
                raise tile_legality(f"{self.NAME}: {role} is not a defined tile of valid {valid_rows}x{valid_cols}")
            if role in DATA_ROLES and tile.dtype.name != dtype.name:
                raise tile_legality(f"{self.NAME}: {role} is {tile.dtype.name}, not the transfer type {dtype.name}")
            if (self.masked or self.scatter) and tile.layout != layout:
                raise tile_legality(f"{self.NAME}: {role} is {tile.layout}, not the block's {layout}")
        # The contracts list only S32, U32, S64 and U64 indices; the executable
        # IndexedTLSUIndexDataTypeLegal is TileDataTypeIsInteger (every integer type).
        if operands["indices"].dtype.name not in INDEX_TYPES:
            raise tile_legality(f"{self.NAME}: an index tile of {operands['indices'].dtype.name} is not an integer")
        if dtype.bits == 4:  # IndexedTLSUTransferDataTypeLegal: no nibble selector in the block
            raise tile_legality(f"{self.NAME}: the 4-bit transfer type {dtype.name} is reserved")
        if self.scatter and operands["source"].cols != cols:
            raise tile_legality(f"{self.NAME}: the source has {operands['source'].cols} columns, not LB Col {cols}")

    # --- the memory hooks ----------------------------------------------------
    def active_lanes(self, operands: dict) -> np.ndarray:
        """Row-major positions of the lanes that access memory (masked forms: predicate bit 1)."""
        indices = operands["indices"]
        count = indices.valid_rows * indices.valid_cols
        if not self.masked:
            return np.arange(count)
        return np.flatnonzero((operands["mask"].valid_words().ravel() & U64(1)) == U64(1))

    def memory_footprint(self, state, operands) -> memory.Footprint:
        """Every active lane in row-major order: base plus its byte displacement."""
        indices = operands["indices"]
        lanes = self.active_lanes(operands)
        displacement = byte_displacements(lane_index_words(indices).ravel()[lanes], indices.dtype)
        operands["lanes"] = lanes
        dtype = (operands.get("source") or operands["destination"]).dtype
        return memory.Footprint(U64(operands["base"]) + displacement, element_bytes(dtype), self.scatter or self.atomic)

    def transfer(self, state, block, operands, footprint, index):
        room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
        if self.scatter:
            return self.scatter_lanes(state, operands, footprint, room)
        if self.atomic:
            return self.compare_and_swap_lanes(state, block, operands, footprint, index, room)
        raw = memory.read(state.memory, footprint)
        destination = operands["destination"]
        values = self.gathered(destination, operands["lanes"], decode_loaded(raw, destination.dtype, None),
                               block.pad())
        return Publication(tiles={index: self.defined_result(destination, values, block.pad())},
                           events=tuple(memory.load_events(footprint, raw, ORDER, room)))

    @staticmethod
    def gathered(destination, lanes, values, pad: str) -> np.ndarray:
        """The valid region: each active lane its value, a disabled lane the pad Word."""
        words = np.full(destination.valid_rows * destination.valid_cols, U64(pad_word(pad, destination.dtype)),
                        dtype=np.uint64)
        words[lanes] = values
        return words.reshape(destination.valid_rows, destination.valid_cols)

    @staticmethod
    def defined_result(destination, values, pad: str):
        """The pad over the physical tile, the lanes over the valid region, every coordinate
        defined (MarkTilePhysicalRegionDefined: a Null pad reads zero and is defined too)."""
        tile = result_tile(destination, values, pad)
        return tile.with_contents(tile.payload, np.ones(tile.defined.shape, dtype=bool))

    def commit_order(self, footprint) -> np.ndarray:
        return np.asarray(lane_order(footprint.count), dtype=np.int64)

    def scatter_lanes(self, state, operands, footprint, room):
        """CommitScatterLanes: each lane stores its source element in commit order (the last
        of duplicate lanes holds the address), one Store event each."""
        order = self.commit_order(footprint)
        values = operands["source"].valid_words().ravel()[operands["lanes"]][order]
        ordered = memory.Footprint(footprint.addresses[order], footprint.size, True)
        return Publication(memory=memory.write(state.memory, ordered, values),
                           events=tuple(memory.store_events(state.memory, ordered, values, ORDER, room)))

    def compare_and_swap_lanes(self, state, block, operands, footprint, index, room):
        """MGATHER_CAS: in commit order, each lane reads its element, stores the replacement
        when the low bytes equal the expected element's, and observes the old value; one
        Atomic event (read: old bytes, write: the replacement's bytes) per lane. Lanes at one
        address depend on each other, so the lanes go in rounds: round k takes the k-th lane
        (in commit order) of every address, all of a round at once."""
        order = self.commit_order(footprint)
        size = footprint.size
        low = U64((1 << (8 * size)) - 1) if size < 8 else U64((1 << 64) - 1)
        addresses = footprint.addresses[order]
        lanes = operands["lanes"][order]
        expected = operands["expected"].valid_words().ravel()[lanes] & low
        replacement = operands["replacement"].valid_words().ravel()[lanes] & low
        rank = occurrence_ranks(addresses)
        image, old = state.memory, np.zeros(addresses.size, dtype=np.uint64)
        for k in range(int(rank.max()) + 1 if rank.size else 0):  # one round per duplicate depth
            take = np.flatnonzero(rank == k)
            part = memory.Footprint(addresses[take], size, True)
            old[take] = memory.read(image, part)
            swap = take[old[take] == expected[take]]
            image = memory.write(image, memory.Footprint(addresses[swap], size, True), replacement[swap])
        destination = operands["destination"]
        decoded = decode_loaded(old, destination.dtype, None)
        values = np.zeros(destination.valid_rows * destination.valid_cols, dtype=np.uint64)
        values[lanes] = decoded
        events = [memory.MemoryEvent("Atomic", 0, int(addresses[i]), size, read=int(old[i]),
                                     write=int(replacement[i]), order=ORDER)
                  for i in range(min(addresses.size, room + 1))]
        tile = self.defined_result(destination, values.reshape(destination.valid_rows, destination.valid_cols),
                                   block.pad())
        return Publication(tiles={index: tile}, memory=image, events=tuple(events))
