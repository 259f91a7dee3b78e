"""Independent exact reference for the CUBE matrix operations (TMATMUL, TGEMV and their
BIAS, ACC and MX forms): D = postprocess([C +] A x B [+ bias]) per output element.

Written from the executable ASL and the hardware profile, sharing no code with
device_model: values are exact rationals (``numeric.decode``) and integers; a rounding is
decided only by ``numeric.encode_value`` on an exact value.

- Types (asl/tile/model/legality/matrix-shape.asl, matrix-functions.asl): the ordinary
  inputs in three classes, each with its accumulator (floating -> FP32, signed -> S32,
  unsigned -> U32; both inputs of one class); the MX inputs with an FP32 accumulator and
  an E8M0 scale on every side but FP16/BF16, one scale per 32 K elements.
- pto-v0 (asl/arch/profile/reference-profile.asl, cube.asl): raw 64-bit Words,
  ``acc + MultiplyWord(a*sa, b*sb)`` per K step and ``value + bias``, modulo 2**64.
- hw-ieee (the hardware profile's ``matrix`` section): per K in increasing order one
  fused multiply-add rounded to FP32 (RNE), the status the OR of the IEEE flags of every
  step; the bias one FP32 RNE addition after the complete dot product; integer
  accumulation exact modulo 2**32 with the S32/U32 Word normalized (sign- or
  zero-extended), no flag (vectors/SPEC-CHOICES.md rows 17 and 51-53).
"""
from __future__ import annotations

from fractions import Fraction

from . import numeric as ref

WORD = (1 << 64) - 1
FLOATING = ("FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2",
            "E1M2X2")
SIGNED = ("S16", "S8", "S4X2")
UNSIGNED = ("U16", "U8", "U4X2")
ACCUMULATOR = {**{t: "FP32" for t in FLOATING}, **{t: "S32" for t in SIGNED}, **{t: "U32" for t in UNSIGNED}}
ORDINARY = FLOATING + SIGNED + UNSIGNED
MX = ref.MX_TYPES
SCALE_BLOCK = ref.MX_BLOCK
ONE = ref.Value("finite", False, Fraction(1))

# The twelve functions: name -> (function number, MX, BIAS, ACC, GEMV).
FUNCTIONS = {
    "TMATMUL": 0, "TMATMUL_BIAS": 1, "TMATMUL_ACC": 2, "TMATMUL_MX": 4, "TMATMUL_MX_BIAS": 5,
    "TMATMUL_MX_ACC": 6, "TGEMV": 16, "TGEMV_BIAS": 17, "TGEMV_ACC": 18, "TGEMV_MX": 20,
    "TGEMV_MX_BIAS": 21, "TGEMV_MX_ACC": 22,
}
BSTART = {
    "TMATMUL": "BSTART.TMATMUL", "TMATMUL_BIAS": "BSTART.TMATMUL.BIAS", "TMATMUL_ACC": "BSTART.TMATMUL.ACC",
    "TMATMUL_MX": "BSTART.TMATMULMX", "TMATMUL_MX_BIAS": "BSTART.TMATMULMX.BIAS",
    "TMATMUL_MX_ACC": "BSTART.TMATMULMX.ACC", "TGEMV": "BSTART.TGEMV", "TGEMV_BIAS": "BSTART.TGEMV.BIAS",
    "TGEMV_ACC": "BSTART.TGEMV.ACC", "TGEMV_MX": "BSTART.TGEMVMX", "TGEMV_MX_BIAS": "BSTART.TGEMVMX.BIAS",
    "TGEMV_MX_ACC": "BSTART.TGEMVMX.ACC",
}


def is_mx(op: str) -> bool:
    return FUNCTIONS[op] in (4, 5, 6, 20, 21, 22)


def has_bias(op: str) -> bool:
    return FUNCTIONS[op] in (1, 5, 17, 21)


def has_acc(op: str) -> bool:
    return FUNCTIONS[op] in (2, 6, 18, 22)


def is_gemv(op: str) -> bool:
    return FUNCTIONS[op] >= 16


def scaled(op: str, t: str) -> bool:
    """Whether side type ``t`` carries an E8M0 scale operand in ``op``."""
    return is_mx(op) and t not in ref.MX_UNSCALED


def accumulator(op: str, a_type: str, b_type: str):
    """The accumulator type of a legal (AType, BType) pair of ``op``, else None."""
    if is_mx(op):
        return "FP32" if a_type in MX and b_type in MX else None
    if a_type in ORDINARY and b_type in ORDINARY and ACCUMULATOR[a_type] == ACCUMULATOR[b_type]:
        return ACCUMULATOR[a_type]
    return None


# --------------------------------------------------------------------------------------
# pto-v0: raw Words


def raw_product(a, b, c=None, sa=None, sb=None, bias=None):
    """pto-v0 D Words before post-processing: a (M x K), b (K x N), c (M x N) or None,
    sa (M x blocks) / sb (blocks x N) E8M0 Words or None, bias (N) or None."""
    m, k, n = len(a), len(b), len(b[0])
    out = []
    for i in range(m):
        row = []
        for j in range(n):
            total = c[i][j] if c is not None else 0
            for p in range(k):
                left = a[i][p] * (sa[i][p // SCALE_BLOCK] if sa is not None else 1)
                right = b[p][j] * (sb[p // SCALE_BLOCK][j] if sb is not None else 1)
                total += (left & WORD) * (right & WORD)
            if bias is not None:
                total += bias[j]
            row.append(total & WORD)
        out.append(row)
    return out


# --------------------------------------------------------------------------------------
# hw-ieee


def _integer_value(word: int, t: str) -> int:
    """NormalizeTileInteger's value of the low ``width`` bits of ``word``."""
    return ref.decode(t, word & ((1 << ref.fmt(t).width) - 1)).exact.numerator


def _integer_word(value: int, t: str) -> int:
    """The S32/U32 Word of ``value`` modulo 2**32 (S32 sign-extended to 64 bits)."""
    low = value % (1 << 32)
    return (low - (1 << 32)) & WORD if t == "S32" and low >> 31 else low


def _side(t: str, word: int, scale):
    return ref._scaled(t, word & ((1 << ref.fmt(t).width) - 1), scale)


def hw_product(acc_type: str, a_type: str, b_type: str, a, b, c=None, sa=None, sb=None, bias=None):
    """hw-ieee D Words before post-processing and the OR of the step flags."""
    m, k, n = len(a), len(b), len(b[0])
    out, flags = [], 0
    for i in range(m):
        row = []
        for j in range(n):
            if acc_type != "FP32":
                total = _integer_value(c[i][j], acc_type) if c is not None else 0
                total += sum(_integer_value(a[i][p], a_type) * _integer_value(b[p][j], b_type) for p in range(k))
                if bias is not None:
                    total += _integer_value(bias[j], acc_type)
                row.append(_integer_word(total, acc_type))
                continue
            value = ref.decode("FP32", c[i][j] & 0xFFFFFFFF) if c is not None else ref.Value("finite")
            if value.cls == "nan":
                value = ref.Value("nan", signalling=value.signalling)
            for p in range(k):
                left = _side(a_type, a[i][p], sa[i][p // SCALE_BLOCK] & 0xFF if sa is not None else None)
                right = _side(b_type, b[p][j], sb[p // SCALE_BLOCK][j] & 0xFF if sb is not None else None)
                value, step = ref.fma_fp32(value, left, right)
                flags |= step
            if bias is not None:
                value, step = ref.fma_fp32(value, ref.decode("FP32", bias[j] & 0xFFFFFFFF), ONE)
                flags |= step
            row.append(ref.value_bits_fp32(value))
        out.append(row)
    return out, flags


def product(profile: str, op: str, a_type: str, b_type: str, a, b, c=None, sa=None, sb=None, bias=None):
    """(D Words before post-processing, flags) of ``op`` in ``profile``."""
    if profile == "pto-v0":
        return raw_product(a, b, c, sa, sb, bias), 0
    return hw_product(accumulator(op, a_type, b_type), a_type, b_type, a, b, c, sa, sb, bias)


# --------------------------------------------------------------------------------------
# CUBE storage geometry (asl/tile/model/layout/cube-cell.asl: one cell is 128 bytes)


def cell_shape(layout: str, t: str) -> tuple[int, int]:
    elements = 1024 // ref.fmt(t).width
    if layout == "CUBE_M16":
        return 16, elements // 16
    if layout == "CUBE_M32":
        return 32, elements // 32
    return elements // 8, 8


def _aligned(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def cube_shape(layout: str, t: str, rows: int, cols: int) -> tuple[int, int, int]:
    """(storage rows, storage cols, capacity bytes) of the smallest CUBE tile holding
    rows x cols (capacity a power of two, at least 128)."""
    cell_rows, cell_cols = cell_shape(layout, t)
    if layout == "CUBE_N8":
        storage_rows, storage_cols = _aligned(rows, cell_rows), _aligned(cols, 8)
        cells = (storage_rows // cell_rows) * (storage_cols // 8)
    else:
        storage_rows, storage_cols = cell_rows, _aligned(cols, cell_cols)
        cells = storage_cols // cell_cols
    capacity = 128
    while capacity < cells * 128:
        capacity *= 2
    return storage_rows, storage_cols, capacity


# --------------------------------------------------------------------------------------
# Shared operands (asl/block/model/dispatch/shared-cube-matrix.asl, cube-tmatmul.asl)


def shared_primary(stored, rows: int, cols: int, transpose: bool):
    """MaterializeBundleSharedMatrixPrimary: the logical ``rows`` x ``cols`` operand of a Shared
    register whose RowMajor rows are ``stored``: element (r, c) is stored[c][r] under
    TransA/TransB (the register holds cols x rows), else stored[r][c]. SPEC-CHOICE 92: hw-ieee
    multiplies this logical operand by the Local rules (the hardware profile names no Shared rule)."""
    return [[stored[c][r] if transpose else stored[r][c] for c in range(cols)] for r in range(rows)]


def shared_groups(op: str, a_type: str, b_type: str, both: bool) -> list:
    """The B.IOS operand groups in binding order (TileMatrixSharedSourceCountLegal): the left
    group (A, its scale when it has one) only when ``both``, then the right group (B, its scale)."""
    left = ["A"] + (["A-scale"] if scaled(op, a_type) else []) if both else []
    return left + ["B"] + (["B-scale"] if scaled(op, b_type) else [])


def shared_layout(m: int, c_layout=None):
    """BundleMatrixCooperativeMLayout when A is Shared: C's layout (ACC), else the CUBE_M16/CUBE_M32
    layout that holds M rows; None when M passes 32."""
    if c_layout is not None:
        return c_layout
    return "CUBE_M16" if m <= 16 else "CUBE_M32" if m <= 32 else None


def power_of_two(x: int) -> bool:
    """IsNonzeroPowerOfTwo: a Shared block's M, N and K (BundleTMATMULDimensionsLegal)."""
    return x > 0 and x & (x - 1) == 0
