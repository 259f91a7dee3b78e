"""The CUBE matrix engine: one flow (ExecuteBundleTMATMULOperation) for the twelve
Matrix functions, each operation a ``CubeOperation`` declaration (``ops/matrix.py``).

Facts from asl/block/model/dispatch/cube-tmatmul.asl and cube-destination.asl (bundle
legality, binding order, allocation), asl/tile/model/legality/matrix-functions.asl
(the function table, source counts, MX side types), matrix-shape.asl (ordinary input
classes, accumulator type, the direct TileOperandsLegal_* rules), matrix-operands.asl
and matrix-cube-primary.asl (Local operand schemas), matrix-postprocess.asl,
asl/tile/model/execution/cube.asl (MatrixProductResultFromTiles, MatrixBiasResult:
bias after the complete dot product) and postprocess.asl (CommitMatrixResult), and
asl/arch/profile/reference-profile.asl (pto-v0: raw ``acc + MultiplyWord`` and
``value + bias`` on 64-bit Words). The hardware profile's ``matrix`` section gives
hw-ieee: one fused multiply-add rounded to the accumulator type per K term, in
increasing K; bias added in the accumulator type after the dot product.

Functions (selector[4:0]): 0/1/2 TMATMUL base/BIAS/ACC, 4/5/6 TMATMUL_MX, 16/17/18
TGEMV, 20/21/22 TGEMV_MX. Bundle sources in order: [C], A, [A-scale], B, [B-scale],
[bias], then the B.FPATR post-processing sources [RowMaxIn], [vector QuantParam],
[vector PReLU]; destinations D, [RowMaxOut], [GroupMaxOut]; B.IOR RegSrc0/1 carry
the scalar QuantParam then the scalar LReLU parameter.

Shared (B.IOS) operands (asl/block/model/dispatch/shared-cube-matrix.asl): the TMATMUL forms
take the right operand group (B, [B-scale]) or both groups from shared tile registers
(device_model/shared.py), with M, N and K powers of two and B.FPATR TransA/TransB transposing
a Shared primary; the operand source is the one parameter of the flow (``_shared_operands``);
TGEMV is Local-only (Fault_TileLegality).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .. import dtypes
from .. import shared as registers
from ..block import BlockState, check_fpatr_fields, rename_destinations
from ..encoding.names import FPATR_FIELDS
from ..faults import bundle_control, tile_allocation, tile_legality
from ..layouts import MODEL_TILE_ELEMENTS, derived_rows
from ..numeric import scaled_fma_fp32
from ..numeric.ieee_float import add as ieee_add
from ..state import (MachineState, cube_descriptor_legal, cube_shape_legal,
                     info_descriptor_legal, new_cube_tile, new_ordinary_tile, shape_legal)
from . import postprocess as pp
from .common import Publication, cube_result_tile, normalize_integer
from .operation import Operation
from .registry import REQUIRED

MX_TYPES = frozenset({"FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2"})
# TileOrdinaryMatrixInputTypeSupported, by numeric class, with the class's accumulator
# (TileMatrixAccumulatorDataType; the hardware profile's matrix.ordinary.accumulator_by_class).
ORDINARY_CLASSES = {
    "FP32": frozenset({"FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3",
                       "E2M1X2", "E1M2X2"}),
    "S32": frozenset({"S16", "S8", "S4X2"}),
    "U32": frozenset({"U16", "U8", "U4X2"}),
}
SCALE_BLOCK = 32  # HardwareNumericScaleBlockElements
U64 = np.uint64
LOW32 = U64(0xFFFFFFFF)


def ordinary_accumulator(left: str, right: str) -> Optional[str]:
    """TileOrdinaryMatrixAccumulatorType of two input types of one class, else None
    (TileOrdinaryMatrixInputTypesSameClass fails)."""
    return next((acc for acc, names in ORDINARY_CLASSES.items() if left in names and right in names), None)


def needs_scale(dtype) -> bool:
    """TileMXInputTypeNeedsScale: every MX side but FP16/BF16 carries E8M0 scales."""
    return dtype.name not in ("FP16", "BF16")


def m_layout_legal(layout: str, m: int) -> bool:
    """TileMatrixMLayoutLegal."""
    return (layout == "CUBE_M16" and m <= 16) or (layout == "CUBE_M32" and m <= 32)


def scale_blocks(k: int) -> int:
    return -(-k // SCALE_BLOCK)


@dataclass
class Controls:
    """The B.FPATR / B.DATR controls of one CUBE operation and its accumulator type."""

    fpatr: dict
    rmode: int = 0
    saturate: bool = False
    accumulator: str = "FP32"

    @property
    def mode(self) -> int:
        return self.fpatr["PreQuantMode"]

    @property
    def output_type(self):
        """D's type: the accumulator type under PreQuantMode 0, else the mode's output."""
        return dtypes.dtype(self.accumulator if self.mode == 0 else pp.output_type(self.mode))


def _primary_legal(tile, rows: int, cols: int, dtype, layout: str, limit: int) -> bool:
    """TileMatrixLocalPrimaryInfoLegal."""
    return (cube_descriptor_legal(tile, limit) and tile.contents_defined()
            and (tile.valid_rows, tile.valid_cols) == (rows, cols) and tile.dtype == dtype
            and tile.layout == layout)


def _scale_legal(tile, rows: int, cols: int, limit: int) -> bool:
    """A required E8M0 scale: an ordinary, defined RowMajor tile of the given valid shape."""
    return (info_descriptor_legal(tile, limit) and tile.dtype.name == "E8M0"
            and tile.layout == "RowMajor" and (tile.valid_rows, tile.valid_cols) == (rows, cols))


def _bias_legal(tile, n: int, accumulator: str, limit: int) -> bool:
    """TileMatrixLocalBiasSchemaLegal / TileMatrixBiasShapeLegal: a defined 1 x N RowMajor
    tile of the accumulator type."""
    return (info_descriptor_legal(tile, limit) and (tile.valid_rows, tile.valid_cols) == (1, n)
            and tile.dtype.name == accumulator and tile.layout == "RowMajor")


def _auxiliary_legal(tile, rows: int, cols: int, dtype_name: str, limit: int) -> bool:
    """TileMatrixAuxiliarySourceSchemaLegal."""
    return (info_descriptor_legal(tile, limit) and (tile.valid_rows, tile.valid_cols) == (rows, cols)
            and tile.dtype.name == dtype_name and tile.layout == "RowMajor" and tile.location == "Any")


class CubeOperation(Operation):
    """One CUBE Matrix function: a declaration states its name, BSTART form and
    function number; the flags (MX, BIAS, ACC, GEMV) follow from the number
    (TileMatrixFunctionUses*/IsGEMV) and the flow is this module's."""

    MATRIX = True
    DATR_ALLOWED = frozenset({"DataType", "RMode", "Sat"})

    def __init__(self, name: str, bstart: str, function: int):
        self.NAME, self.BSTART, self.FUNCTION = name, bstart, function
        self.mx = function in (4, 5, 6, 20, 21, 22)
        self.bias = function in (1, 5, 17, 21)
        self.acc = function in (2, 6, 18, 22)
        self.gemv = function >= 16
        self.DIRECT_ARGUMENTS = {"dst": REQUIRED, **({"acc": REQUIRED} if self.acc else {}), "a": REQUIRED,
                                 **({"a_scale": None} if self.mx else {}), "b": REQUIRED,
                                 **({"b_scale": None} if self.mx else {}),
                                 **({"bias": REQUIRED} if self.bias else {}),
                                 "atype": None, "btype": None, "fpatr": None, "rounding": "NONE", "sat": 0,
                                 "quant_param": None, "relu_param": None}

    def input_accumulator(self, left, right) -> Optional[str]:
        """The accumulator type of a legal (AType, BType) pair, else None."""
        if left is None or right is None:
            return None
        if self.mx:
            return "FP32" if left.name in MX_TYPES and right.name in MX_TYPES else None
        return ordinary_accumulator(left.name, right.name)

    def type_rule(self) -> str:
        return ("MX A and B types (FP16, BF16, E4M3, E5M2, E2M1X2, E1M2X2)" if self.mx else
                "ordinary A and B types of one class (floating, signed or unsigned integer)")

    def scales(self, left, right):
        """Which sides carry an E8M0 scale operand."""
        return (self.mx and needs_scale(left)), (self.mx and needs_scale(right))

    def commit_bundle(self, state: MachineState, block: BlockState, profile: str) -> Publication:
        return bundle_flow(self, state, block, profile)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        return direct_flow(self, state, call, profile)

    def check_call(self, call: dict) -> None:
        check_direct_call(self, call)


# ----------------------------------------------------------------------------
# Bundle path (ExecuteBundleTMATMULOperation)

def bundle_flow(op: CubeOperation, state: MachineState, block: BlockState, profile: str) -> Publication:
    limit = state.tile_capacity
    if block.fpatr is None:
        raise bundle_control("a Matrix block needs exactly one B.FPATR")
    fpatr = block.fpatr
    left = block.data_type
    # SPEC-CHOICE 3: a present B.DATR with DataType 31 (DTYPE_NONE) reaches an ASL
    # assertion (TileDataTypeFromEncoding(31)) in the cube path (digest §7.5); the
    # model treats it, like every BType outside the function's type rule, as
    # Fault_TileLegality. A present B.DATR with DataType 0 selects FP64: Fault_TileLegality.
    right = block.explicit_type() if block.datr is not None else left
    accumulator = op.input_accumulator(left, right)
    if accumulator is None:
        raise tile_legality(f"{op.NAME} needs {op.type_rule()}")
    a_scaled, b_scaled = op.scales(left, right)
    # TileMatrixSharedSourceCountLegal: B.IOS carries whole operand groups, the right group
    # (B, [B-scale]) alone or the left group then the right; TGEMV is Local-only.
    shared = len(block.shared)
    right_group = 1 + b_scaled
    if shared and (op.gemv or shared not in (right_group, right_group + 1 + a_scaled)):
        raise tile_legality(f"{op.NAME} takes no Shared (B.IOS) operand" if op.gemv else
                            f"{op.NAME}: {shared} B.IOS bindings are neither the right operand group nor both")
    local_left, local_right = shared in (0, right_group), shared == 0
    mode, relu = fpatr["PreQuantMode"], fpatr["ReluMode"]
    math_sources = op.acc + op.bias + local_left * (1 + a_scaled) + local_right * (1 + b_scaled)
    post_sources = ((fpatr["RowMaxEn"] and fpatr["RowMaxInit"]) + pp.uses_vector_parameter(mode)
                    + (relu == 3))
    destinations = block.destinations()
    scalar_inputs = pp.uses_scalar_parameter(mode) + (relu == 2)
    if (len(block.sources()) != math_sources + post_sources
            or len(destinations) != 1 + fpatr["RowMaxEn"] + fpatr["GroupMaxEn"]
            or not block.stream_terminated() or not block.scalar_schema_legal(scalar_inputs)):
        raise tile_legality(f"{op.NAME} binding stream does not match the operation and B.FPATR "
                            "([C], A, [A-scale], B, [B-scale], [bias] less the Shared groups, postprocess "
                            "sources; D and enabled reduction outputs; no surplus B.IOR field)")
    quant_param, relu_param = _scalar_parameters(state, block, mode, relu)
    # SPEC-CHOICE 4: the contract says PreQuantMode 0 requires B.DATR RMode = 0 and Sat = 0
    # (BundleFPATRDATRFieldsLegal), but the executable cube path never applies that rule
    # nor TileOperationDATRFieldsLegal (digest §7.5); only Layout, PadValue, CMode and
    # Canonicalize are checked, as the ASL does.
    if block.datr is not None and any(block.datr[f] for f in ("Layout", "PadValue", "CMode", "Canonicalize")):
        raise tile_legality(f"{op.NAME} B.DATR may set only DataType, RMode and Sat")
    m, n, k = (block.dims[i] if block.dims[i] is not None else 1 for i in range(3))
    if not (m and n and k) or (shared and any(x & (x - 1) for x in (m, n, k))):
        raise tile_legality(f"{op.NAME} M, N and K must be nonzero" + (" powers of two with a Shared operand"
                                                                      if shared else ""))
    if not block.masks_equal():
        raise tile_legality("bindings use different PE masks")
    if op.gemv and m != 1:
        raise tile_legality(f"{op.NAME} fixes M to 1 (LB0 = {m})")
    shared_operands = _shared_operands(state, block, m, n, k, left, right, (a_scaled, b_scaled), local_left)

    sources = [state.tiles[i] for i in block.sources()]
    _check_postprocess_sources(sources[math_sources:], fpatr, m, n, accumulator, limit)
    position = iter(range(math_sources))
    c = sources[next(position)] if op.acc else None
    a = sources[next(position)] if local_left else shared_operands["a"]
    a_scale = (sources[next(position)] if local_left else shared_operands["a_scale"]) if a_scaled else None
    b = sources[next(position)] if local_right else shared_operands["b"]
    b_scale = (sources[next(position)] if local_right else shared_operands["b_scale"]) if b_scaled else None
    bias = sources[next(position)] if op.bias else None
    # BundleMatrixCooperativeMLayout: a Local A's layout, else C's, else the least CUBE_M layout of M
    # (a released register reads RowMajor).
    owner = a if local_left else c
    layout = (owner.layout if owner is not None else "RowMajor") if local_left or op.acc else \
        "CUBE_M16" if m <= 16 else "CUBE_M32" if m <= 32 else "RowMajor"
    d_size = destinations[0].size_bytes
    acc_type = dtypes.dtype(accumulator)
    if op.acc and not (_primary_legal(c, m, n, acc_type, layout, limit) and (mode != 0 or c.capacity == d_size)):
        raise tile_legality(f"C must be a defined {accumulator} MxN CUBE tile in A's layout"
                            + (" with D's TSize" if mode == 0 else ""))
    if local_left and not (m_layout_legal(layout, m) and _primary_legal(a, m, k, left, layout, limit)):
        raise tile_legality("A must be a defined CUBE_M16/M32 MxK tile of the BSTART type")
    if local_left and a_scaled and not _scale_legal(a_scale, m, scale_blocks(k), limit):
        raise tile_legality("A-scale must be a defined RowMajor E8M0 tile of M x ceil(K/32)")
    if local_right and not _primary_legal(b, k, n, right, "CUBE_N8", limit):
        raise tile_legality("B must be a defined CUBE_N8 KxN tile of the B type")
    if local_right and b_scaled and not _scale_legal(b_scale, scale_blocks(k), n, limit):
        raise tile_legality("B-scale must be a defined RowMajor E8M0 tile of ceil(K/32) x N")
    if op.bias and not _bias_legal(bias, n, accumulator, limit):
        raise tile_legality(f"the bias must be a defined 1 x N RowMajor {accumulator} tile")
    # SPEC-CHOICE 5: the executable bundle rule compares C's encoded 6-bit source
    # index with D's 2-bit DstTile hand (BundleMatrixAccumulatorDestinationIndicesDistinct),
    # so C = tile 2 with D in hand M (2) is rejected; the JSON profile's
    # matrix.destination_aliasing and the cube.asl header say D == C is allowed
    # (digest §7.6). pto-v0 follows the ASL rule.
    if op.acc and block.sources()[0] == destinations[0].hand:
        raise tile_legality("C's source index equals D's DstTile hand value")
    if not m_layout_legal(layout, m):
        raise tile_legality(f"{layout} cannot hold M = {m} rows")

    # SPEC-CHOICE 16: ADR 0047 says matrix operations ignore the bundle RMode; the executable
    # post-processing takes its rounding and saturation from B.DATR RMode/Sat (digest §7.18).
    controls = Controls(dict(fpatr), block.datr_field("RMode"), block.saturating(), accumulator)
    indices, new_tiles = _allocate(state, block, m, n, layout, controls)
    operands = {"acc": c, "a": a, "a_scale": a_scale, "b": b, "b_scale": b_scale, "bias": bias,
                "rowmax_in": sources[math_sources] if fpatr["RowMaxEn"] and fpatr["RowMaxInit"] else None}
    vector = sources[math_sources + bool(fpatr["RowMaxEn"] and fpatr["RowMaxInit"]):]
    if pp.uses_vector_parameter(mode):
        quant_param, vector = vector[0].valid_words()[0], vector[1:]
    if relu == 3:
        relu_param = vector[0].valid_words()[0]
    return execute(new_tiles, indices, operands, controls, quant_param, relu_param, profile)


@dataclass(frozen=True)
class SharedOperand:
    """A Shared operand materialized for one block (MaterializeBundleSharedMatrixPrimary/Source):
    its logical valid Words and type, RowMajor in location Any."""

    words: np.ndarray
    dtype: object
    layout = "RowMajor"

    def valid_words(self) -> np.ndarray:
        return self.words

    @property
    def valid_rows(self) -> int:
        return self.words.shape[0]

    @property
    def valid_cols(self) -> int:
        return self.words.shape[1]


def shared_primary(register, shared_id: int, rows: int, cols: int, transpose: bool, side: str) -> np.ndarray:
    """The logical ``rows`` x ``cols`` Words of a Shared primary (``side`` A or B): element (r, c) is
    the register's (c, r) under TransA/TransB, else its (r, c) (MaterializeBundleSharedMatrixPrimary)."""
    if transpose:
        return registers.read_block(register, shared_id, cols, rows).T
    return registers.read_block(register, shared_id, rows, cols)


def _shared_operands(state, block, m: int, n: int, k: int, left, right, scaled, local_left: bool) -> dict:
    """BundleMatrixSharedSchemasLegal, then the Shared operands in B.IOS order: the left group
    (A, [A-scale]) unless A is Local, then the right (B, [B-scale]). Each binding is a source
    (SizeCode 0) of a register cooperative-matrix ready (all four PEs, published, defined) and
    readable as RowMajor of its type with exactly the stored columns (a transposed primary is
    stored N x K or K x M). TransA needs a Shared A; without B.IOS neither may be set.

    SPEC-CHOICE 92: the hardware profile says nothing of Shared operands or TransA/TransB; in
    hw-ieee a Shared operand is the logical (transposed) matrix read exactly, and the matrix
    section's rules (one FP32 fused step per K, integer modulo 2**32, the bias after) apply as
    to a Local one."""
    fpatr, limit = block.fpatr, state.tile_capacity
    if not block.shared:
        if fpatr["TransA"] or fpatr["TransB"]:
            raise tile_legality("TransA/TransB apply only to Shared primaries")
        return {}
    if fpatr["TransA"] and local_left:
        raise tile_legality("TransA applies only to a Shared A")
    e8m0, blocks = dtypes.dtype("E8M0"), scale_blocks(k)
    groups = [] if local_left else [("A", m, k, left, fpatr["TransA"])] + \
        ([("a_scale", m, blocks, e8m0, False)] if scaled[0] else [])
    groups += [("B", k, n, right, fpatr["TransB"])] + ([("b_scale", blocks, n, e8m0, False)] if scaled[1] else [])
    out = {}
    for (name, rows, cols, dtype, transpose), (shared_id, size_code, _) in zip(groups, block.shared):
        stored_rows, stored_cols = (cols, rows) if transpose else (rows, cols)
        register = state.shared_tiles[shared_id]
        if (size_code or not registers.cooperative_matrix_ready(register, limit, shared_id not in state.unpublished_shared)
                or not registers.read_schema_legal(register, stored_rows, stored_cols, stored_cols, dtype,
                                                   "RowMajor", limit)):
            raise tile_legality(f"S{shared_id} is not a Shared {name} source: a register ready on all four PEs, "
                                f"read as {stored_rows}x{stored_cols} RowMajor {dtype.name} of {stored_cols} columns")
        words = shared_primary(register, shared_id, rows, cols, transpose, name) if name in ("A", "B") \
            else registers.read_block(register, shared_id, rows, cols)
        out[name.lower()] = SharedOperand(words, dtype)
    return out


def _scalar_parameters(state, block, mode: int, relu: int):
    """Scalar QuantParam then LReLU parameter from the dense B.IOR slots, with
    their word legality (BundleOperationGPRBindingValuesLegal)."""
    values = block.gpr_inputs(state)
    quant = relu_word = 0
    slot = 0
    if pp.uses_scalar_parameter(mode):
        quant = values[slot] if values else 0
        slot += 1
        if values and not pp.quant_parameter_legal(mode, [quant])[0]:
            raise tile_legality(f"scalar QuantParam {quant:#x} is not a legal mode-{mode} parameter word")
    if relu == 2:
        relu_word = values[slot] if values else 0
        if values and not pp.relu_parameter_legal([relu_word])[0]:
            raise tile_legality(f"LReLU parameter {relu_word:#x} is not +0 or a positive normal FP19")
    return quant, relu_word


def _check_postprocess_sources(aux, fpatr, m: int, n: int, accumulator: str, limit: int):
    """BundleMatrixPostProcessSourcesLegal for the operation's accumulator type."""
    mode = fpatr["PreQuantMode"]
    if not pp.accumulator_type_legal(mode, accumulator):
        raise tile_legality(f"PreQuantMode {mode} does not take a {accumulator} accumulator")
    position = 0
    if fpatr["RowMaxEn"] and fpatr["RowMaxInit"]:
        if not _auxiliary_legal(aux[position], m, 1, accumulator, limit):
            raise tile_legality(f"RowMaxIn must be a defined M x 1 {accumulator} RowMajor tile (location Any)")
        position += 1
    if pp.uses_vector_parameter(mode):
        tile = aux[position]
        if not (_auxiliary_legal(tile, 1, n, "U64", limit)
                and pp.quant_parameter_legal(mode, tile.valid_words()[0]).all()):
            raise tile_legality("vector QuantParam must be a defined 1 x N U64 tile of legal words")
        position += 1
    if fpatr["ReluMode"] == 3:
        tile = aux[position]
        if not (_auxiliary_legal(tile, 1, n, "U64", limit)
                and pp.relu_parameter_legal(tile.valid_words()[0]).all()):
            raise tile_legality("vector PReLU parameters must be a defined 1 x N U64 tile of legal words")


def _allocate(state: MachineState, block: BlockState, m: int, n: int, layout: str, controls: Controls):
    """ResolveBundleTMATMULCubeDestinationGroup: rename D, RowMaxOut, GroupMaxOut;
    check capacity and shapes; build the descriptors (not yet published)."""
    fpatr = controls.fpatr
    limit = state.tile_capacity
    indices = rename_destinations(state, block)
    tiles = []
    output = controls.output_type
    intermediate = dtypes.dtype(controls.accumulator)
    for ordinal, binding in enumerate(block.destinations()):
        size = binding.size_bytes
        if ordinal == 0:
            if not (m_layout_legal(layout, m) and cube_shape_legal(size, m, n, output, layout, limit)):
                raise tile_allocation(f"TSize {size} B cannot hold the {m}x{n} {output.name} D in {layout}")
            tiles.append(new_cube_tile(output, layout, size, m, n, binding.mask))
            continue
        row_output = fpatr["RowMaxEn"] and ordinal == 1
        cols = 1 if row_output else -(-n // pp.group_n(fpatr["GroupNCode"]))
        rows = derived_rows(size, cols, intermediate.bits)
        if not shape_legal(size, cols, m, cols, intermediate) or rows * cols > MODEL_TILE_ELEMENTS:
            raise tile_allocation(f"TSize {size} B cannot hold the {m}x{cols} {intermediate.name} "
                                  "reduction output")
        tiles.append(new_ordinary_tile(intermediate, "RowMajor", "Any", size, cols, m, cols, binding.mask))
    return indices, tiles


# ----------------------------------------------------------------------------
# Arithmetic and publication

def accumulate(acc, a, a_type: str, a_scale, b, b_type: str, b_scale, profile: str, accumulator: str = "FP32"):
    """C + A x B: ``a`` (M, K), ``b`` (K, N), ``acc`` (M, N) Words (zeros for the base and
    BIAS forms); scales (M, K) and (K, N) E8M0 Words (already expanded per K) or None.
    Returns (Words (M, N), flags)."""
    if profile == "pto-v0":
        # Raw 64-bit carriers: acc + sum_k (a*sa) * (b*sb), every product and sum
        # modulo 2**64 (MultiplyWord); the order of the sum does not change it.
        left = a * a_scale if a_scale is not None else a
        right = b * b_scale if b_scale is not None else b
        return acc + np.matmul(left, right), 0
    if accumulator != "FP32":
        # SPEC-CHOICE 51: the hardware profile states no integer overflow rule for the S32/U32
        # accumulator; every product and sum is exact modulo 2**32 (the physical accumulator
        # width, so the order does not matter), no flag, and the Word is the normalized S32/U32.
        result = dtypes.dtype(accumulator)
        left, right = normalize_integer(a, dtypes.dtype(a_type)), normalize_integer(b, dtypes.dtype(b_type))
        total = normalize_integer(acc, result) + np.matmul(left, right)
        return normalize_integer(total & LOW32, result), 0
    # SPEC-CHOICE 17: the hardware profile fixes the FMA order and rounding of the dot
    # product but states no flag rule for it; each step's IEEE flags are ORed into the
    # status. SPEC-CHOICE 52: the non-MX floating inputs take the same fused step as the
    # MX ones, with no scale (the exact product of the two decoded inputs).
    flags = 0
    words = acc & LOW32
    for step in range(a.shape[1]):  # one FP32 FMA per K step, in increasing K
        words, step_flags = scaled_fma_fp32(words, a[:, step:step + 1], a_type,
                                            None if a_scale is None else a_scale[:, step:step + 1],
                                            b[step:step + 1, :], b_type,
                                            None if b_scale is None else b_scale[step:step + 1, :])
        flags |= int(np.bitwise_or.reduce(step_flags, axis=None))
    return words, flags


def add_bias(value, bias, profile: str, accumulator: str):
    """MatrixBiasResult: the 1 x N bias added to every row after the complete dot product.
    Returns (Words, flags)."""
    if profile == "pto-v0":
        return value + bias, 0  # TileProfileMatrixBias: raw Word addition
    if accumulator != "FP32":
        result = dtypes.dtype(accumulator)  # SPEC-CHOICE 51: modulo 2**32
        return normalize_integer((normalize_integer(value, result) + normalize_integer(bias, result)) & LOW32,
                                 result), 0
    # SPEC-CHOICE 53: one FP32 addition rounded to nearest even, IEEE flags ORed.
    words, flags = ieee_add(value & LOW32, np.broadcast_to(bias & LOW32, value.shape), "FP32", "RNE")
    return words.astype(U64), int(np.bitwise_or.reduce(flags, axis=None))


def scale_block_of(k: int):
    """The scale column (A) / row (B) of each K index: one E8M0 scale per SCALE_BLOCK elements."""
    return np.arange(k) // SCALE_BLOCK


def product(acc, bias, a, a_type, a_scale, b, b_type, b_scale, profile: str, accumulator: str):
    """The intermediate result before post-processing: the dot product (``accumulate``), then
    the bias when the operation has one (TMATMULShared: MatrixBiasResult after the product).
    Returns (Words, flags)."""
    raw, flags = accumulate(acc, a, a_type, a_scale, b, b_type, b_scale, profile, accumulator)
    raw = np.asarray(raw, dtype=U64)
    if bias is not None:
        raw, bias_flags = add_bias(raw, bias, profile, accumulator)
        raw = np.asarray(raw, dtype=U64)
        flags |= bias_flags
    return raw, flags


def execute(new_tiles, indices, operands, controls: Controls, quant_param, relu_param, profile: str):
    a, b = operands["a"], operands["b"]
    m, k = a.valid_rows, a.valid_cols
    accumulator = controls.accumulator
    block = scale_block_of(k)
    scale_a = operands["a_scale"].valid_words()[:, block] if operands["a_scale"] is not None else None
    scale_b = operands["b_scale"].valid_words()[block, :] if operands["b_scale"] is not None else None
    if profile != "pto-v0":
        scale_a = None if scale_a is None else scale_a & U64(0xFF)
        scale_b = None if scale_b is None else scale_b & U64(0xFF)
    acc = operands["acc"].valid_words() if operands["acc"] is not None \
        else np.zeros((m, b.valid_cols), dtype=U64)
    bias = operands["bias"].valid_words()[0][None, :] if operands["bias"] is not None else None
    raw, flags = product(acc, bias, a.valid_words(), a.dtype.name, scale_a, b.valid_words(), b.dtype.name,
                         scale_b, profile, accumulator)
    fpatr = controls.fpatr
    words, post_flags = pp.postprocess(raw, controls.mode, fpatr["ReluMode"], controls.output_type.name,
                                       quant_param, relu_param, controls.rmode, controls.saturate,
                                       source=accumulator)
    flags |= int(np.bitwise_or.reduce(post_flags, axis=None))
    published = {indices[0]: cube_result_tile(new_tiles[0], words)}
    ordinal = 1
    if fpatr["RowMaxEn"]:
        value, reduce_flags = pp.fold_max(raw, np.ones(raw.shape, bool), fpatr["MaxAbsEn"], accumulator)
        if fpatr["RowMaxInit"]:
            current = operands["rowmax_in"].valid_words()[:, 0]
            if fpatr["MaxAbsEn"]:
                current, current_flags = pp.absolute_with_flags(current, accumulator)
                reduce_flags = reduce_flags | current_flags
            value, init_flags = pp.max_step(current, value, accumulator)
            reduce_flags = reduce_flags | init_flags
        flags |= int(np.bitwise_or.reduce(reduce_flags, axis=None))
        published[indices[ordinal]] = _ordinary_result(new_tiles[ordinal], value[:, None])
        ordinal += 1
    if fpatr["GroupMaxEn"]:
        width = pp.group_n(fpatr["GroupNCode"])
        groups = -(-raw.shape[1] // width)
        padded = np.zeros((raw.shape[0], groups * width), dtype=U64)
        padded[:, : raw.shape[1]] = raw
        present = np.broadcast_to(np.arange(groups * width) < raw.shape[1], padded.shape)
        value, reduce_flags = pp.fold_max(padded.reshape(raw.shape[0], groups, width),
                                          present.reshape(raw.shape[0], groups, width), fpatr["MaxAbsEn"],
                                          accumulator)
        flags |= int(np.bitwise_or.reduce(reduce_flags, axis=None))
        published[indices[ordinal]] = _ordinary_result(new_tiles[ordinal], value)
    return Publication(published, flags)


def _ordinary_result(tile, valid_words):
    """MarkLocalTileValidRegionDefined on an ordinary auxiliary output (no padding)."""
    payload = tile.payload.copy()
    defined = np.zeros(tile.defined.shape, dtype=bool)
    payload[tile.valid_index] = valid_words
    defined[tile.valid_index] = True
    return tile.with_contents(payload, defined)


# ----------------------------------------------------------------------------
# Direct call (TileOperandsLegal_<operation>, then the semantic handler)

def direct_flow(op: CubeOperation, state: MachineState, call: dict, profile: str) -> Publication:
    limit = state.tile_capacity
    tiles = state.tiles
    d, a, b = (tiles[call[name]] for name in ("dst", "a", "b"))
    c = tiles[call["acc"]] if op.acc else None
    check_fpatr_fields(call["fpatr"])
    left = call["atype"] or (a.dtype if a is not None else None)
    right = call["btype"] or left
    # SPEC-CHOICE 6: the direct rule requires TileIndex D != C (TileOperandsLegal_*_ACC);
    # the JSON profile's destination_aliasing allows D == C (digest §7.6). pto-v0
    # follows the ASL.
    if op.acc and call["dst"] == call["acc"]:
        raise tile_legality(f"direct {op.NAME} needs D != C")
    accumulator = op.input_accumulator(left, right)
    if accumulator is None:
        raise tile_legality(f"{op.NAME} needs {op.type_rule()}")
    controls = Controls(call["fpatr"], call["rounding"], call["sat"], accumulator)
    if a is None or b is None or not (m_layout_legal(a.layout, a.valid_rows)
                                      and _primary_legal(a, a.valid_rows, a.valid_cols, left, a.layout, limit)
                                      and _primary_legal(b, a.valid_cols, b.valid_cols, right, "CUBE_N8", limit)
                                      and a.valid_rows * b.valid_cols <= MODEL_TILE_ELEMENTS):
        raise tile_legality("A must be a defined CUBE_M16/M32 tile of AType and B a defined CUBE_N8 "
                            "tile of BType with A's columns as rows")
    m, k, n = a.valid_rows, a.valid_cols, b.valid_cols
    a_scaled, b_scaled = op.scales(left, right)
    # A scale operand is read exactly when its side needs one (an unneeded index is ignored).
    a_scale = tiles[call["a_scale"]] if a_scaled and call["a_scale"] is not None else None
    b_scale = tiles[call["b_scale"]] if b_scaled and call["b_scale"] is not None else None
    if (a_scaled and not _scale_legal(a_scale, m, scale_blocks(k), limit)) or \
            (b_scaled and not _scale_legal(b_scale, scale_blocks(k), n, limit)):
        raise tile_legality("scales must be defined RowMajor E8M0 tiles of M x ceil(K/32) and ceil(K/32) x N")
    output = controls.output_type
    if not (cube_descriptor_legal(d, limit) and (d.valid_rows, d.valid_cols) == (m, n)
            and d.dtype == output and d.layout == a.layout):
        raise tile_legality(f"D must be an {m}x{n} {output.name} CUBE tile in A's layout")
    if op.acc and not (cube_descriptor_legal(c, limit) and c.contents_defined()
                       and (c.valid_rows, c.valid_cols) == (m, n) and c.dtype.name == accumulator
                       and c.layout == a.layout and c.layout == d.layout
                       and (controls.mode != 0 or c.capacity == d.capacity)):
        raise tile_legality(f"C must be a defined {accumulator} MxN CUBE tile in A's and D's layout"
                            + (" with D's capacity" if controls.mode == 0 else ""))
    bias = tiles[call["bias"]] if op.bias else None
    if op.bias and not _bias_legal(bias, n, accumulator, limit):
        raise tile_legality(f"the bias must be a defined 1 x N RowMajor {accumulator} tile")
    if op.gemv and m != 1:
        raise tile_legality(f"{op.NAME} needs A with one valid row")
    operands = {"acc": c, "a": a, "a_scale": a_scale, "b": b, "b_scale": b_scale, "bias": bias,
                "rowmax_in": None}
    return execute([d], [call["dst"]], operands, controls, call["quant_param"], call["relu_param"], profile)


def check_direct_call(op: CubeOperation, call: dict) -> None:
    """A direct call's B.FPATR fields (names matched case-insensitively, omitted ones
    0) must be legal and scalar-only; a scalar parameter the modes use is required."""
    fields = call["fpatr"] or {}
    if not isinstance(fields, dict):
        raise ValueError(f"direct {op.NAME}: fpatr must be a mapping of B.FPATR fields")
    fpatr = {name: 0 for name in FPATR_FIELDS}
    for key, value in fields.items():
        name = next((f for f in FPATR_FIELDS if f.lower() == str(key).lower()), None)
        if name is None or not isinstance(value, int):
            raise ValueError(f"direct {op.NAME}: fpatr field {key}={value!r} is not a B.FPATR field")
        fpatr[name] = value
    if fpatr["PreQuantMode"] not in pp.OUTPUT_TYPE or not 0 <= fpatr["ReluMode"] <= 3 or \
            not 0 <= fpatr["GroupNCode"] <= 9:
        raise ValueError(f"direct {op.NAME}: fpatr {fields} has a reserved field value")
    if pp.uses_vector_parameter(fpatr["PreQuantMode"]) or fpatr["ReluMode"] == 3 or fpatr["RowMaxEn"] \
            or fpatr["GroupMaxEn"]:
        raise ValueError(f"direct {op.NAME}: vector parameters and RowMax/GroupMax outputs are "
                         "bundle operands; use a bundle")
    call["fpatr"] = fpatr
    for key, needed in (("quant_param", pp.uses_scalar_parameter(fpatr["PreQuantMode"])),
                        ("relu_param", fpatr["ReluMode"] == 2)):
        if needed and call[key] is None:
            raise ValueError(f"direct {op.NAME}: B.FPATR needs {key}")
        call[key] = call[key] or 0
