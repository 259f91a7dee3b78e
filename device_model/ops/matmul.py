"""The twelve CUBE Matrix functions, one declaration each (the flow is ``ops.cube``):
name, the BSTART form that opens its block, and its function number (selector[4:0]),
from which the BIAS/ACC/MX/GEMV roles follow (asl/tile/model/legality/matrix-functions.asl)."""
from .cube import CubeOperation
from .registry import register

register(CubeOperation("TMATMUL", "BSTART.TMATMUL", 0))
register(CubeOperation("TMATMUL_BIAS", "BSTART.TMATMUL.BIAS", 1))
register(CubeOperation("TMATMUL_ACC", "BSTART.TMATMUL.ACC", 2))
register(CubeOperation("TMATMUL_MX", "BSTART.TMATMULMX", 4))
register(CubeOperation("TMATMUL_MX_BIAS", "BSTART.TMATMULMX.BIAS", 5))
register(CubeOperation("TMATMUL_MX_ACC", "BSTART.TMATMULMX.ACC", 6))
register(CubeOperation("TGEMV", "BSTART.TGEMV", 16))
register(CubeOperation("TGEMV_BIAS", "BSTART.TGEMV.BIAS", 17))
register(CubeOperation("TGEMV_ACC", "BSTART.TGEMV.ACC", 18))
register(CubeOperation("TGEMV_MX", "BSTART.TGEMVMX", 20))
register(CubeOperation("TGEMV_MX_BIAS", "BSTART.TGEMVMX.BIAS", 21))
register(CubeOperation("TGEMV_MX_ACC", "BSTART.TGEMVMX.ACC", 22))
