"""TGEMV_MX_ACC: D = postprocess(C + A x B) with MX (E8M0) scales, M fixed to 1.

Facts from asl/tile/matrix-and-matrix-vector/matrix-vector/TGEMV_MX_ACC.asl,
asl/block/model/dispatch/cube-tmatmul.asl and cube-destination.asl (bundle
legality and allocation), asl/tile/model/legality/matrix-*.asl (operand rules),
asl/tile/model/execution/cube.asl and postprocess.asl (arithmetic, reductions,
atomic publication), asl/arch/profile/reference-profile.asl (pto-v0
TileProfileMatrixScaledAccumulate). hw-ieee accumulation (one FP32 FMA per K
step, RNE, decoded E8M0 scales, NaN scale -> canonical NaN) comes from
``device_model.numeric.scaled_fma_fp32``; the B.FPATR post-processing is
``ops.postprocess`` in both profiles.

Operand order in a bundle: sources C, A, [A-scale], B, [B-scale], [RowMaxIn],
[vector QuantParam], [vector PReLU]; destinations D, [RowMaxOut], [GroupMaxOut];
B.IOR RegSrc0/1 carry the scalar QuantParam then the scalar LReLU parameter.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from .. import dtypes
from ..block import BlockState, check_fpatr_fields
from ..encoding.names import FPATR_FIELDS
from ..faults import bundle_control, tile_allocation, tile_legality
from ..layouts import MODEL_TILE_ELEMENTS, derived_rows
from ..numeric import scaled_fma_fp32
from ..state import (MachineState, allocation_bytes, cube_descriptor_legal, cube_shape_legal,
                     info_descriptor_legal, new_cube_tile, new_ordinary_tile, shape_legal)
from . import postprocess as pp
from .common import Publication, cube_result_tile
from .operation import OperationModule
from .registry import REQUIRED, register

NAME = "TGEMV_MX_ACC"
BSTART = "BSTART.TGEMVMX.ACC"
MATRIX = True
DIRECT_ARGUMENTS = {"dst": REQUIRED, "acc": REQUIRED, "a": REQUIRED, "a_scale": None, "b": REQUIRED,
                    "b_scale": None, "atype": None, "btype": None, "fpatr": None, "rounding": "NONE",
                    "sat": 0, "quant_param": None, "relu_param": None}
MX_TYPES = frozenset({"FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2"})
SCALE_BLOCK = 32  # HardwareNumericScaleBlockElements
U64 = np.uint64


def needs_scale(dtype) -> bool:
    """TileMXInputTypeNeedsScale: every MX side but FP16/BF16 carries E8M0 scales."""
    return dtype.name not in ("FP16", "BF16")


def m_layout_legal(layout: str, m: int) -> bool:
    return (layout == "CUBE_M16" and m <= 16) or (layout == "CUBE_M32" and m <= 32)


def scale_blocks(k: int) -> int:
    return -(-k // SCALE_BLOCK)


@dataclass
class Controls:
    """The B.FPATR / B.DATR controls of one TGEMV_MX_ACC."""

    fpatr: dict
    rmode: int = 0
    saturate: bool = False

    @property
    def mode(self) -> int:
        return self.fpatr["PreQuantMode"]

    @property
    def output_type(self):
        return dtypes.dtype(pp.output_type(self.mode))


def _primary_legal(tile, rows: int, cols: int, dtype, layout: str, limit: int) -> bool:
    """TileMatrixLocalPrimaryInfoLegal."""
    return (cube_descriptor_legal(tile, limit) and tile.contents_defined()
            and (tile.valid_rows, tile.valid_cols) == (rows, cols) and tile.dtype == dtype
            and tile.layout == layout)


def _scale_legal(tile, rows: int, cols: int, limit: int) -> bool:
    """A required E8M0 scale: an ordinary, defined RowMajor tile of the given valid shape."""
    return (info_descriptor_legal(tile, limit) and tile.dtype.name == "E8M0"
            and tile.layout == "RowMajor" and (tile.valid_rows, tile.valid_cols) == (rows, cols))


def _auxiliary_legal(tile, rows: int, cols: int, dtype_name: str, limit: int) -> bool:
    """TileMatrixAuxiliarySourceSchemaLegal."""
    return (info_descriptor_legal(tile, limit) and (tile.valid_rows, tile.valid_cols) == (rows, cols)
            and tile.dtype.name == dtype_name and tile.layout == "RowMajor" and tile.location == "Any")


# ----------------------------------------------------------------------------
# Bundle path (ExecuteBundleTMATMULOperation)

def commit_bundle(state: MachineState, block: BlockState, profile: str) -> Publication:
    limit = state.tile_capacity
    if block.fpatr is None:
        raise bundle_control("a Matrix block needs exactly one B.FPATR")
    fpatr = block.fpatr
    left = block.data_type
    # SPEC-CHOICE 3: a present B.DATR with DataType 31 (DTYPE_NONE) reaches an ASL
    # assertion (TileDataTypeFromEncoding(31)) in the cube path (digest §7.5); the
    # model treats it, like every non-MX BType, as Fault_TileLegality. A present
    # B.DATR with DataType 0 selects FP64 (not an MX type): Fault_TileLegality.
    right = block.explicit_type() if block.datr is not None else left
    if right is None or left.name not in MX_TYPES or right.name not in MX_TYPES:
        raise tile_legality("TGEMV_MX_ACC needs MX A and B types (FP16, BF16, E4M3, E5M2, "
                            "E2M1X2, E1M2X2)")
    mode, relu = fpatr["PreQuantMode"], fpatr["ReluMode"]
    math_sources = 3 + needs_scale(left) + needs_scale(right)
    post_sources = ((fpatr["RowMaxEn"] and fpatr["RowMaxInit"]) + pp.uses_vector_parameter(mode)
                    + (relu == 3))
    destinations = block.destinations()
    scalar_inputs = pp.uses_scalar_parameter(mode) + (relu == 2)
    if (block.shared or len(block.sources()) != math_sources + post_sources
            or len(destinations) != 1 + fpatr["RowMaxEn"] + fpatr["GroupMaxEn"]
            or not block.stream_terminated() or not block.scalar_schema_legal(scalar_inputs)):
        raise tile_legality("TGEMV_MX_ACC binding stream does not match the operation and B.FPATR "
                            "(C, A, [A-scale], B, [B-scale], postprocess sources; D and enabled "
                            "reduction outputs; no B.IOS; no surplus B.IOR field)")
    quant_param, relu_param = _scalar_parameters(state, block, mode, relu)
    # SPEC-CHOICE 4: the contract says PreQuantMode 0 requires B.DATR RMode = 0 and Sat = 0
    # (BundleFPATRDATRFieldsLegal), but the executable cube path never applies that rule
    # nor TileOperationDATRFieldsLegal (digest §7.5); only Layout, PadValue, CMode and
    # Canonicalize are checked, as the ASL does.
    if block.datr is not None and any(block.datr[f] for f in ("Layout", "PadValue", "CMode",
                                                                "Canonicalize")):
        raise tile_legality("TGEMV_MX_ACC B.DATR may set only DataType, RMode and Sat")
    m, n, k = (block.dims[i] if block.dims[i] is not None else 1 for i in range(3))
    if not (m and n and k):
        raise tile_legality("TGEMV_MX_ACC M, N and K must be nonzero")
    if not block.masks_equal():
        raise tile_legality("bindings use different PE masks")
    if m != 1:
        raise tile_legality(f"TGEMV_MX_ACC fixes M to 1 (LB0 = {m})")
    if fpatr["TransA"] or fpatr["TransB"]:
        raise tile_legality("TGEMV_MX_ACC requires TransA = TransB = 0")

    sources = [state.tiles[i] for i in block.sources()]
    _check_postprocess_sources(sources[math_sources:], fpatr, m, n, limit)
    accumulator, a = sources[0], sources[1]
    a_scale = sources[2] if needs_scale(left) else None
    b = sources[2 + needs_scale(left)]
    b_scale = sources[3 + needs_scale(left)] if needs_scale(right) else None
    layout = a.layout if a is not None else "RowMajor"  # a released register reads RowMajor
    d_size = destinations[0].size_bytes
    if not (_primary_legal(accumulator, m, n, dtypes.dtype("FP32"), layout, limit)
            and (mode != 0 or accumulator.capacity == d_size)):
        raise tile_legality("C must be a defined FP32 MxN CUBE tile in A's layout"
                            + (" with D's TSize" if mode == 0 else ""))
    if not (m_layout_legal(layout, m) and _primary_legal(a, m, k, left, layout, limit)):
        raise tile_legality("A must be a defined CUBE_M16/M32 MxK tile of the BSTART type")
    if needs_scale(left) and not _scale_legal(a_scale, m, scale_blocks(k), limit):
        raise tile_legality("A-scale must be a defined RowMajor E8M0 tile of M x ceil(K/32)")
    if not _primary_legal(b, k, n, right, "CUBE_N8", limit):
        raise tile_legality("B must be a defined CUBE_N8 KxN tile of the B type")
    if needs_scale(right) and not _scale_legal(b_scale, scale_blocks(k), n, limit):
        raise tile_legality("B-scale must be a defined RowMajor E8M0 tile of ceil(K/32) x N")
    # SPEC-CHOICE 5: the executable bundle rule compares C's encoded 6-bit source
    # index with D's 2-bit DstTile hand (BundleMatrixAccumulatorDestinationIndicesDistinct),
    # so C = tile 2 with D in hand M (2) is rejected; the JSON profile's
    # matrix.destination_aliasing and the cube.asl header say D == C is allowed
    # (digest §7.6). pto-v0 follows the ASL rule.
    if block.sources()[0] == destinations[0].hand:
        raise tile_legality("C's source index equals D's DstTile hand value")
    if not m_layout_legal(layout, m):
        raise tile_legality("A's layout cannot hold M rows")

    # SPEC-CHOICE 16: ADR 0047 says matrix operations ignore the bundle RMode; the executable
    # post-processing takes its rounding and saturation from B.DATR RMode/Sat (digest §7.18).
    controls = Controls(dict(fpatr), block.datr_field("RMode"), block.saturating())
    indices, new_tiles = _allocate(state, block, m, n, layout, controls)
    operands = {"acc": accumulator, "a": a, "a_scale": a_scale, "b": b, "b_scale": b_scale,
                "rowmax_in": sources[math_sources] if fpatr["RowMaxEn"] and fpatr["RowMaxInit"] else None}
    vector = sources[math_sources + bool(fpatr["RowMaxEn"] and fpatr["RowMaxInit"]):]
    if pp.uses_vector_parameter(mode):
        quant_param, vector = vector[0].valid_words()[0], vector[1:]
    if relu == 3:
        relu_param = vector[0].valid_words()[0]
    return _execute(new_tiles, indices, operands, controls, quant_param, relu_param, profile)


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


def _check_postprocess_sources(aux, fpatr, m: int, n: int, limit: int):
    """BundleMatrixPostProcessSourcesLegal for an FP32 accumulator."""
    mode = fpatr["PreQuantMode"]
    if not pp.accumulator_type_legal(mode, "FP32"):
        raise tile_legality(f"PreQuantMode {mode} needs an S32 accumulator; TGEMV_MX_ACC's is FP32")
    position = 0
    if fpatr["RowMaxEn"] and fpatr["RowMaxInit"]:
        if not _auxiliary_legal(aux[position], m, 1, "FP32", limit):
            raise tile_legality("RowMaxIn must be a defined M x 1 FP32 RowMajor tile (location Any)")
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
    reserved, indices, required = set(), [], 0
    for binding in block.destinations():
        required += allocation_bytes(binding.mask, binding.size_bytes)
        hand = binding.hand
        index = next((i for i in range(hand * 16, hand * 16 + 16)
                      if state.tiles[i] is None and i not in reserved), None)
        if index is None:
            raise tile_allocation(f"no free TileIndex in hand {'TUMN'[hand]}")
        reserved.add(index)
        indices.append(index)
    if state.capacity_in_use() + required > limit:
        raise tile_allocation("tile capacity exceeded")
    tiles = []
    output = controls.output_type
    fp32 = dtypes.dtype("FP32")
    for ordinal, binding in enumerate(block.destinations()):
        size = binding.size_bytes
        if ordinal == 0:
            if not (m_layout_legal(layout, m) and cube_shape_legal(size, m, n, output, layout, limit)):
                raise tile_allocation(f"TSize {size} B cannot hold the {m}x{n} {output.name} D in {layout}")
            tiles.append(new_cube_tile(output, layout, size, m, n, binding.mask))
            continue
        row_output = fpatr["RowMaxEn"] and ordinal == 1
        cols = 1 if row_output else -(-n // pp.group_n(fpatr["GroupNCode"]))
        rows = derived_rows(size, cols, 32)
        if not shape_legal(size, cols, m, cols, fp32) or rows * cols > MODEL_TILE_ELEMENTS:
            raise tile_allocation(f"TSize {size} B cannot hold the {m}x{cols} FP32 reduction output")
        tiles.append(new_ordinary_tile(fp32, "RowMajor", "Any", size, cols, m, cols, binding.mask))
    return indices, tiles


# ----------------------------------------------------------------------------
# Arithmetic and publication

def accumulate(acc, a, a_type: str, a_scale, b, b_type: str, b_scale, profile: str):
    """C + A x B over K for one row of M: ``a`` (K,), ``b`` (K, N), ``acc`` (N,) Words;
    scales (K,) and (K, N) E8M0 Words or None. Returns (Words, flags)."""
    if profile == "pto-v0":
        # Raw 64-bit carriers: acc + sum_k (a*sa) * (b*sb), every product and sum
        # modulo 2**64 (MultiplyWord); the order of the sum does not change it.
        left = a * a_scale if a_scale is not None else a
        right = b * b_scale if b_scale is not None else b
        return acc + np.sum(left[:, None] * right, axis=0, dtype=U64), 0
    # SPEC-CHOICE 17: the hardware profile fixes the FMA order and rounding of the MX dot
    # product but states no flag rule for it; each step's IEEE flags are ORed into the
    # status (the reference profile raises none).
    flags = 0
    words = acc & U64(0xFFFFFFFF)
    for step in range(a.shape[0]):  # one FP32 FMA per K step, in increasing K
        words, step_flags = scaled_fma_fp32(words, a[step], a_type,
                                            None if a_scale is None else a_scale[step],
                                            b[step], b_type, None if b_scale is None else b_scale[step])
        flags |= int(np.bitwise_or.reduce(step_flags, axis=None))
    return words, flags


def _execute(new_tiles, indices, operands, controls: Controls, quant_param, relu_param, profile: str):
    acc, a, b = operands["acc"], operands["a"], operands["b"]
    k = a.valid_cols
    scale_a = operands["a_scale"].valid_words()[0, np.arange(k) // SCALE_BLOCK] \
        if operands["a_scale"] is not None else None
    scale_b = operands["b_scale"].valid_words()[np.arange(k) // SCALE_BLOCK, :] \
        if operands["b_scale"] is not None else None
    if profile != "pto-v0":
        scale_a = None if scale_a is None else scale_a & U64(0xFF)
        scale_b = None if scale_b is None else scale_b & U64(0xFF)
    raw, flags = accumulate(acc.valid_words()[0], a.valid_words()[0], a.dtype.name, scale_a,
                            b.valid_words(), b.dtype.name, scale_b, profile)
    raw = np.asarray(raw, dtype=U64)
    fpatr = controls.fpatr
    words, post_flags = pp.postprocess(raw, controls.mode, fpatr["ReluMode"], controls.output_type.name,
                                       quant_param,
                                       relu_param, controls.rmode, controls.saturate)
    flags |= int(np.bitwise_or.reduce(post_flags, axis=None))
    published = {indices[0]: cube_result_tile(new_tiles[0], words[None, :])}
    ordinal = 1
    if fpatr["RowMaxEn"]:
        value, reduce_flags = pp.fold_max(raw[None, :], np.ones((1, raw.size), bool), fpatr["MaxAbsEn"])
        if fpatr["RowMaxInit"]:
            current = operands["rowmax_in"].valid_words()[:, 0]
            if fpatr["MaxAbsEn"]:
                current, value = pp.absolute(current), pp.absolute(value)
            value, init_flags = pp.max_step(current, value)
            reduce_flags = reduce_flags | init_flags
        flags |= int(np.bitwise_or.reduce(reduce_flags, axis=None))
        published[indices[ordinal]] = _ordinary_result(new_tiles[ordinal], value[:, None])
        ordinal += 1
    if fpatr["GroupMaxEn"]:
        width = pp.group_n(fpatr["GroupNCode"])
        groups = -(-raw.size // width)
        padded = np.zeros(groups * width, dtype=U64)
        padded[: raw.size] = raw
        present = np.arange(groups * width) < raw.size
        value, reduce_flags = pp.fold_max(padded.reshape(1, groups, width),
                                          present.reshape(1, groups, width), fpatr["MaxAbsEn"])
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
# Direct call (TileOperandsLegal_TGEMV_MX_ACC, then TGEMV_MX_ACC)

def direct(state: MachineState, call: dict, profile: str) -> Publication:
    limit = state.tile_capacity
    tiles = state.tiles
    d, c, a, b = (tiles[call[name]] for name in ("dst", "acc", "a", "b"))
    a_scale = tiles[call["a_scale"]] if call["a_scale"] is not None else None
    b_scale = tiles[call["b_scale"]] if call["b_scale"] is not None else None
    check_fpatr_fields(call["fpatr"])
    controls = Controls(call["fpatr"], call["rounding"], call["sat"])
    left = call["atype"] or (a.dtype if a is not None else None)
    right = call["btype"] or left
    # SPEC-CHOICE 6: the direct rule requires TileIndex D != C (TileOperandsLegal_TMATMUL_MX_ACC);
    # the JSON profile's destination_aliasing allows D == C (digest §7.6). pto-v0
    # follows the ASL.
    if call["dst"] == call["acc"]:
        raise tile_legality("direct TGEMV_MX_ACC needs D != C")
    if left is None or right is None or left.name not in MX_TYPES or right.name not in MX_TYPES:
        raise tile_legality("TGEMV_MX_ACC needs MX A and B types")
    if a is None or b is None or not (m_layout_legal(a.layout, a.valid_rows)
                                      and _primary_legal(a, a.valid_rows, a.valid_cols, left, a.layout, limit)
                                      and _primary_legal(b, a.valid_cols, b.valid_cols, right, "CUBE_N8", limit)
                                      and a.valid_rows * b.valid_cols <= MODEL_TILE_ELEMENTS):
        raise tile_legality("A must be a defined CUBE_M16/M32 tile of AType and B a defined CUBE_N8 "
                            "tile of BType with A's columns as rows")
    m, k, n = a.valid_rows, a.valid_cols, b.valid_cols
    # A scale operand is read exactly when its side needs one (an unneeded index is ignored).
    if (needs_scale(left) and not _scale_legal(a_scale, m, scale_blocks(k), limit)) or \
            (needs_scale(right) and not _scale_legal(b_scale, scale_blocks(k), n, limit)):
        raise tile_legality("scales must be defined RowMajor E8M0 tiles of M x ceil(K/32) and ceil(K/32) x N")
    a_scale = a_scale if needs_scale(left) else None
    b_scale = b_scale if needs_scale(right) else None
    output = controls.output_type
    if not (cube_descriptor_legal(d, limit) and (d.valid_rows, d.valid_cols) == (m, n)
            and d.dtype == output and d.layout == a.layout):
        raise tile_legality(f"D must be an {m}x{n} {output.name} CUBE tile in A's layout")
    if not (cube_descriptor_legal(c, limit) and c.contents_defined()
            and (c.valid_rows, c.valid_cols) == (m, n) and c.dtype.name == "FP32"
            and c.layout == a.layout and c.layout == d.layout
            and (controls.mode != 0 or c.capacity == d.capacity)):
        raise tile_legality("C must be a defined FP32 MxN CUBE tile in A's and D's layout"
                            + (" with D's capacity" if controls.mode == 0 else ""))
    if m != 1:
        raise tile_legality("TGEMV_MX_ACC needs A with one valid row")
    operands = {"acc": c, "a": a, "a_scale": a_scale, "b": b, "b_scale": b_scale, "rowmax_in": None}
    return _execute([d], [call["dst"]], operands, controls, call["quant_param"], call["relu_param"],
                    profile)


def check_call(call: dict) -> None:
    """A direct call's B.FPATR fields (names matched case-insensitively, omitted ones
    0) must be legal and scalar-only; a scalar parameter the modes use is required."""
    fields = call["fpatr"] or {}
    if not isinstance(fields, dict):
        raise ValueError("direct TGEMV_MX_ACC: fpatr must be a mapping of B.FPATR fields")
    fpatr = {name: 0 for name in FPATR_FIELDS}
    for key, value in fields.items():
        name = next((f for f in FPATR_FIELDS if f.lower() == str(key).lower()), None)
        if name is None or not isinstance(value, int):
            raise ValueError(f"direct TGEMV_MX_ACC: fpatr field {key}={value!r} is not a B.FPATR field")
        fpatr[name] = value
    if fpatr["PreQuantMode"] not in pp.OUTPUT_TYPE or not 0 <= fpatr["ReluMode"] <= 3 or \
            not 0 <= fpatr["GroupNCode"] <= 9:
        raise ValueError(f"direct TGEMV_MX_ACC: fpatr {fields} has a reserved field value")
    if pp.uses_vector_parameter(fpatr["PreQuantMode"]) or fpatr["ReluMode"] == 3 or fpatr["RowMaxEn"] \
            or fpatr["GroupMaxEn"]:
        raise ValueError("direct TGEMV_MX_ACC: vector parameters and RowMax/GroupMax outputs are "
                         "bundle operands; use a bundle")
    call["fpatr"] = fpatr
    for key, needed in (("quant_param", pp.uses_scalar_parameter(fpatr["PreQuantMode"])),
                        ("relu_param", fpatr["ReluMode"] == 2)):
        if needed and call[key] is None:
            raise ValueError(f"direct TGEMV_MX_ACC: B.FPATR needs {key}")
        call[key] = call[key] or 0


register(OperationModule(sys.modules[__name__]))  # the protocol, with its own CUBE commit_bundle
