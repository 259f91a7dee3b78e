"""Malformed ``state.tiles[i].feature_map`` fields (vectors/FORMAT.md "feature_map"): each bad
field is one vector error naming the file, the case and the field; the file's other cases
still load. Also the memory-region fields' table (loader.MEMORY_REGION_FIELDS) for an
outcome set's memory."""
from __future__ import annotations

import pytest

from pto_avs.contract import loader

HEAD = """\
format: pto-avs-vector/1
id: PTO-AVS-X-TIMG2COL-LOADER-001
operation: TIMG2COL
kind: execution
exercises: [ADR-0080]
provenance: loader tests of the feature-map descriptor
cases:
"""
FEATURE_MAP = ("batches: 1, channel_groups: 1, height: 2, width: 2, channels_per_group: 1, filter_height: 2, "
               "filter_width: 2")
DESTINATION = "{index: 2, dtype: FP32, capacity: 128, cols: 4, valid: [1, 4], location: Matrix}"


def case(name: str, feature_map: str) -> str:
    return f"""\
  - name: {name}
    source: hand
    reference: r
    state:
      tiles:
        - {{index: 1, dtype: FP32, capacity: 128, cols: 4, valid: [1, 4], data: [[11, 12, 13, 14]], location: Matrix,
           feature_map: {{{feature_map}}}}}
        - {DESTINATION}
    program: [{{call: TIMG2COL, dst: 2, src: 1}}]
    expect: {{fault: null}}
"""


# (case name, the feature_map text, the field named and its problem as the message states it)
BAD_FIELDS = [
    ("stride-zero", FEATURE_MAP + ", stride_height: 0", "stride_height", "expected an integer 1..65535, got 0"),
    ("dilation-too-big", FEATURE_MAP + ", dilation_width: 65536", "dilation_width",
     "expected an integer 1..65535, got 0x10000"),
    ("pad-negative", FEATURE_MAP + ", pad_left: -1", "pad_left", "expected an integer 0..65535, got -1"),
    ("logical-channels-zero", FEATURE_MAP + ", logical_channels: 0", "logical_channels",
     "expected an integer 1..65535, got 0"),
    ("batches-missing", FEATURE_MAP.replace("batches: 1, ", ""), "batches", "missing (required)"),
    ("misspelt-field", FEATURE_MAP + ", stride_hieght: 2", "stride_hieght",
     "unknown field (did you mean 'stride_height'?)"),
    ("layout-unknown", FEATURE_MAP + ", layout: NHWC", "layout", 'expected one of NC1HWC0, NDC1HWC0; got "NHWC"'),
    ("padding-above-a-word", FEATURE_MAP + ", padding: 0x10000000000000000", "padding",
     "expected an unsigned 64-bit integer, got 0x10000000000000000"),
    ("transposed-not-boolean", FEATURE_MAP + ", transposed: 2", "transposed", "expected boolean, got 2"),
    ("valid-a-string", FEATURE_MAP + ", valid: yes-please", "valid", 'expected boolean, got "yes-please"'),
    ("height-a-string", FEATURE_MAP.replace("height: 2", "height: two", 1), "height",
     'expected an integer 1..65535, got "two"'),
]


def write(tmp_path, bodies: list[str]):
    path = tmp_path / "PTO-AVS-X-TIMG2COL-LOADER-001.yaml"
    path.write_text(HEAD + "".join(bodies))
    return path


def test_the_good_feature_map_loads_normalized(tmp_path):
    loaded = loader.load_file(write(tmp_path, [case("good", FEATURE_MAP + ", padding: 99, stride_width: 2")]),
                              cache=None)
    assert loaded.error is None
    (good,) = loaded.entries
    assert not isinstance(good, loader.VectorError), good.message
    assert good.state["tiles"][0]["feature_map"]["padding"] == 99


def test_each_malformed_feature_map_field_is_named_and_the_rest_of_the_file_loads(tmp_path):
    bodies = [case("good-first", FEATURE_MAP)] + [case(name, text) for name, text, _, _ in BAD_FIELDS]
    bodies.append(case("good-last", FEATURE_MAP + ", logical_channels: 1, transposed: true, valid: false"))
    path = write(tmp_path, bodies)
    loaded = loader.load_file(path, cache=None)
    assert loaded.error is None
    by_name = {entry.label if isinstance(entry, loader.VectorError) else entry.name: entry for entry in loaded.entries}
    assert len(by_name) == len(BAD_FIELDS) + 2
    for name in ("good-first", "good-last"):
        assert not isinstance(by_name[name], loader.VectorError), by_name[name].message
    for name, _, field, words in BAD_FIELDS:
        entry = by_name[name]
        assert isinstance(entry, loader.VectorError), f"{name} loaded"
        where = f"{loader.display_path(path)}: case '{name}': state.tiles[0].feature_map"
        assert entry.message == f"{where}.{field}: {words}", entry.message


@pytest.mark.parametrize("name, text, field, words", BAD_FIELDS, ids=[b[0] for b in BAD_FIELDS])
def test_the_model_refuses_what_the_loader_refuses(name, text, field, words):
    """The loader's check and the model's ``describe`` agree: no malformed descriptor reaches a device."""
    import yaml

    from pto_avs.device_model.feature_map import FeatureMapError, describe

    spec = yaml.safe_load("{" + text.replace("0x10000000000000000", str(1 << 64)) + "}")
    with pytest.raises(FeatureMapError):
        describe(spec)


def test_an_outcome_sets_memory_regions_are_bounded_like_expect_memory(tmp_path):
    text = case("one-of", FEATURE_MAP).replace(
        "expect: {fault: null}",
        "expect: {fault: null, one_of: [{memory: [{address: 0, bytes: '01'}]}, "
        "{memory: [{address: 4095, bytes: '0102'}]}, {memory: [{address: 0, bytes: '01'}, {address: 0, bytes: '02'}]}]}")
    path = write(tmp_path, [text])
    (entry,) = loader.load_file(path, cache=None).entries
    assert isinstance(entry, loader.VectorError)
    assert entry.message.startswith(f"{loader.display_path(path)}: case 'one-of': expect.one_of[1].memory[0]: 2 bytes "
                                    "at 0xfff run past the end of the 4096-byte memory"), entry.message
    regions = dict(loader.MEMORY_REGION_FIELDS)
    assert set(regions) == {"state.memory.regions", "expect.memory", "expect.one_of[{}].memory"}
