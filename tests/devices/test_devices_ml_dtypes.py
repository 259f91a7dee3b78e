"""The ml_dtypes device: third-party numerics inside the golden tile machine.

Expected values here come from IEEE 754 (exact conversions) and from the
hardware profile's E8M0 rule, never from the golden model's own conversion.
"""
import numpy as np
import pytest

from pto_avs.contract.compare import compare
from pto_avs.contract.loader import VECTORS_DIR, load_paths
from pto_avs.plugins.ml_dtypes_device import MlDtypesDevice, ml_convert


@pytest.fixture(scope="module")
def device():
    return MlDtypesDevice()


@pytest.fixture(scope="module")
def hw_cases():
    files = load_paths([VECTORS_DIR / "PTO-AVS-X-TCVT-HW-FP32-001.yaml"])
    return {case.name: case for vector in files for case in vector.cases}


def test_exact_conversions_match_ieee():
    # 1.0, -2.0, 65504 (FP16 max) and 2^-24 (FP16 smallest subnormal) are exact in FP16.
    words, flags = ml_convert([0x3F800000, 0xC0000000, 0x477FE000, 0x33800000], "FP32", "FP16")
    assert words.tolist() == [0x3C00, 0xC000, 0x7BFF, 0x0001]
    assert not flags.any()  # ml_dtypes raises no exceptions: flags are not observable


def test_e8m0_rounds_linearly_unlike_the_spec():
    # 1.5 = 2^0 * 1.5 lies above the exponent-domain midpoint sqrt(2) and rounds up in both;
    # 1.40625 (BF16 0x3FB4) is below sqrt(2): the spec gives 2^0 (0x7F), linear rounding gives 2^0 too;
    # 1.46875 (0x3FBC) is above sqrt(2) (spec: 0x80) but below the linear midpoint 1.5 (ml_dtypes: 0x7F).
    words, _ = ml_convert([0x3FC0, 0x3FB4, 0x3FBC], "BF16", "E8M0")
    assert words.tolist() == [0x80, 0x7F, 0x7F]


@pytest.mark.parametrize("request_kw, reason", [
    (dict(src="FP32", dst="FP16", rounding="RTZ"), "nearest even"),
    (dict(src="FP32", dst="FP16", saturate=True), "Sat=1"),
    (dict(src="FP32", dst="HiF8"), "no HiF8"),
])
def test_requests_outside_ml_dtypes_are_refused(request_kw, reason):
    from pto_avs.plugins.ml_dtypes_device import _NotByMlDtypes
    with pytest.raises(_NotByMlDtypes, match=reason):
        ml_convert(np.array([0x3F800000]), **request_kw)


def test_vectors_show_real_divergences_and_capabilities(device, hw_cases):
    unsupported = device.supports(hw_cases["fp32-to-fp16-rtz-sat0"])
    assert unsupported and "nearest even" in unsupported
    assert device.supports(hw_cases["fp32-to-fp16-rne-sat1"]) == "ml_dtypes has no saturating conversion (Sat=1)"

    fp16 = hw_cases["fp32-to-fp16-rne-sat0"]
    assert device.supports(fp16) is None
    verdict = compare(fp16, device.execute(fp16), device.capabilities.aspects)
    assert verdict.aspects["flags"].status == "not observable"
    assert verdict.aspects["descriptor"].status == "pass"

    # E8M0: the spec rounds in the exponent domain, ml_dtypes linearly: a real divergence on payload.
    e8m0 = hw_cases["fp32-to-e8m0-rne-sat0"]
    verdict = compare(e8m0, device.execute(e8m0), device.capabilities.aspects)
    assert "payload" in verdict.failed
