"""TMULS: every valid element times one GPR scalar
(asl/tile/tile-scalar-and-immediate/arithmetic/TMULS.asl; the tile-scalar kind of
``ops.elementwise``). Products come from ``device_model.numeric.multiply``
(integers wrap at the element width; pto-v0 floating types multiply the raw 64-bit
carriers; hw-ieee multiplies IEEE values).

SPEC-CHOICE 2: only PadValue may be nonzero in a TMULS B.DATR, but a present B.DATR
always carries DataType and 0 encodes FP64, which ResolveBundleEffectiveDataType
makes the destination type; so a PadValue-carrying TMULS bundle completes only for
an FP64 source (digest §7.4, likely a spec bug). The executable rule is followed:
other sources fail the destination/source type match after allocation
(Fault_TileLegality, rolled back); DTYPE_NONE (31) counts as a nonzero DataType.

SPEC-CHOICE 1: the TMULS contract text and seed say the type set is exactly S32, U32,
FP32, S16, U16, FP16, BF16 (TileA7DataTypeSupported), but the executable spec checks
TileBinaryDataTypeSupported(MUL), i.e. the 16 types of
TileVecArithmeticDataTypeSupported, and the spec test TMULS-TYPES-001 asserts U8
legal (digest §7.3). The executable 16-type set is used.
"""
from ..numeric import multiply
from .elementwise import TileScalar
from .registry import register


def product(dtype, profile, values, scalar):
    return multiply(values, scalar, dtype.name, profile=profile)


register(TileScalar("TMULS", product, "TileVecArithmeticDataTypeSupported"))
