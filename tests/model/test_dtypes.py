"""The DataType table agrees with the spec's hardware profile catalog."""
import pytest

from pto_avs.contract.spec_data import load
from pto_avs.device_model import dtypes

PROFILE_TYPES = {t["name"]: t for t in load("hardware-conformance-profile")["data_types"]}


def test_all_25_assigned_types_present():
    assert len(dtypes.ALL) == 25
    assert set(PROFILE_TYPES) == set(dtypes.NAMES)


def test_reserved_codes_match_spec():
    reserved = load("hardware-conformance-profile")["reserved_data_type_codes"]
    # The profile omits 31, which is the B.DATR DTYPE_NONE sentinel (digest §7.9).
    assert set(reserved) | {dtypes.DTYPE_NONE} == set(dtypes.RESERVED_CODES)
    assert not set(dtypes.BY_CODE) & set(dtypes.RESERVED_CODES)


@pytest.mark.parametrize("name", sorted(PROFILE_TYPES))
def test_codes_widths_and_classes(name):
    spec = PROFILE_TYPES[name]
    t = dtypes.dtype(name)
    assert t.code == spec["code"]
    assert t.bits * spec["lanes_per_storage"] == spec["storage_bits"]
    assert t.packed == (spec["lanes_per_storage"] == 2)
    expected_kind = {"floating": "float", "scale": "float", "packed-floating": "float",
                     "signed-integer": "signed", "packed-signed-integer": "signed",
                     "unsigned-integer": "unsigned", "packed-unsigned-integer": "unsigned"}[spec["class"]]
    assert t.kind == expected_kind
    if "canonical_qnan" in spec:
        assert t.canonical_nan == int(spec["canonical_qnan"], 16)
    else:
        assert t.canonical_nan is None
    if "maximum" in spec:
        assert t.int_max == int(spec["maximum"]) and t.int_min == int(spec["minimum"])
    if "payload_bits" in spec:
        assert t.payload_bits == spec["payload_bits"]


def test_lookup_by_code_name_and_errors():
    assert dtypes.dtype(27) is dtypes.dtype("u8") is dtypes.BY_NAME["U8"]
    with pytest.raises(ValueError):
        dtypes.dtype(15)
    with pytest.raises(ValueError):
        dtypes.dtype("FP8")
