"""The asl-model import (avs/aslmodel.py): the committed vectors equal the importer's output
from avs/aslmodel-cases.json, the data's golden bytes match asl-model's sha256, and every case
that is not imported names the first instruction the pinned release cannot take."""
import hashlib
import json

from pto_avs.avs import aslmodel

DATA = json.loads(aslmodel.DATA.read_text(encoding="utf-8"))
RESULTS = aslmodel.import_all(DATA)


def test_committed_vectors_equal_the_import():
    imported = [r for r in RESULTS if r.vector]
    assert [r.case_id for r in imported] == ["tile_tadd_stop_pc"]
    for result in imported:
        path = aslmodel.VECTORS / f"{result.vector['id']}.yaml"
        assert path.read_text(encoding="utf-8") == aslmodel.render(result.vector)


def test_golden_bytes_match_asl_models_sha256():
    for case in DATA["cases"]:
        text = case["golden"] + "\n"
        assert hashlib.sha256(text.encode()).hexdigest() == case["golden_sha256"]
        assert len(bytes.fromhex(case["golden"])) == case["result"]["size"]


def test_each_case_not_imported_names_its_first_instruction():
    problems = {r.case_id: r.problem for r in RESULTS if r.vector is None}
    assert set(problems) == {c["case_id"] for c in DATA["cases"]} - {"tile_tadd_stop_pc"}
    assert "64-bit" in problems["block_64_stop_pc"]
    assert "BSTART.TIMG2COL" in problems["bstart_timg2col_feature_map"]
    assert "B.FPATR" in problems["cube_internal_acc_hints"]
    assert "Layout=31" in problems["cube_reduce_expand_layouts"]
    assert "MGATHER.ADD" in problems["gm_atom_red_family"]
    assert "Function 29" in problems["tile_texpdif_order"]


def test_the_rebound_case_changes_only_the_tstore_selector():
    tadd, = [r for r in RESULTS if r.vector]
    assert [(n, new) for n, _, new in tadd.rebound] == [(16, "B.IOT T#2, mask=1111, <last>")]
    verbatim, rebound = tadd.vector["cases"]
    assert verbatim["expect"]["memory"][0]["bytes"] == "19000000"
    assert rebound["expect"]["memory"][0]["bytes"] == DATA["cases"][0]["golden"]


def test_the_translation_to_our_spelling():
    assert aslmodel.ours("B.IOT t#1, u#1, mask=1111, last, ->n<256B>") == "B.IOT T#1, U#1, mask=1111, <last>, ->N<2>"
    assert aslmodel.ours("B.IOR [a0, zero, zero], ->zero") == "B.IOR a0, zero, zero, ->zero"
    assert aslmodel.ours("C.B.DIMI 2, ->lb1") == "C.B.DIMI 2, ->LB1"
