"""`pto-avs compare` (reports/bringup.py) end to end with the example C device.

A second device is the C device behind a proxy that plays faulty silicon: it flips bit 0 of the
first result word and fails the FP32 case with a simulator error. Expected values in the vector
come from the spec test TCVT-INTEGER-001 and hand derivation (comments in the YAML).
"""
from __future__ import annotations

import shlex
import sys
import textwrap

import pytest

from pto_avs.avs.cli import main as cli
from pto_avs.plugins import c_device

pytestmark = pytest.mark.slow  # builds the C device and runs every shipped case on it

VECTOR = textwrap.dedent('''\
    format: pto-avs-vector/1
    id: PTO-AVS-X-DEVICES-BRINGUP-001
    operation: TCVT
    kind: execution
    exercises: [ADR-0044, ADR-0047]
    provenance: Written for the bring-up report test; values from the spec test TCVT-INTEGER-001 and by hand.
    cases:
    - name: u16-300-to-u8-sat1
      source: spec-test
      reference: PTO-AVS-TILE-TCVT-INTEGER-001 (U16 300 -> U8 Sat1 = 255)
      state:
        tiles:
        - {index: 1, dtype: U16, capacity: 256, cols: 8, valid: [1, 1], data: [[300]]}
      program: "BSTART.VEC TCVT, U16; B.DATR U8, Sat=1, Zero; B.DIM LB0=1; B.DIM LB2=8;
        B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"
      expect:
        fault: null
        flags: 0
        tiles:
        - {index: 0, dtype: U8, rows: 16, cols: 8, valid: [1, 1], data: [[0xFF]], padding: {defined: true, value: 0}}
    - name: fp32-65520-to-fp16
      profiles: [hw-ieee]
      source: hand
      reference: 65520 ties between 65504 (0x7BFF, odd) and 2^16; RNE picks 2^16, beyond FP16 -> +Inf, OF|NX (decision 1)
      state:
        tiles:
        - {index: 1, dtype: FP32, capacity: 512, cols: 8, valid: [1, 1], data: [[0x477FF000]]}
      program: "BSTART.VEC TCVT, FP32; B.DATR FP16, RNE; B.DIM LB0=1; B.DIM LB2=8;
        B.IOT T1, mask=1111, <last>, ->T<2>; BSTOP"
      expect:
        fault: null
        flags: 0x14
        tiles:
        - {index: 0, dtype: FP16, valid: [1, 1], data: [[0x7C00]]}
    - name: fp32-1.5-to-s32
      profiles: [hw-ieee]
      source: hand
      reference: FP32 1.5 -> S32 with RMode NONE, i.e. RTZ for float -> integer (digest 2.1) = 1, inexact -> NX (decision 7)
      state:
        tiles:
        - {index: 1, dtype: FP32, capacity: 512, cols: 8, valid: [1, 1], data: [[0x3FC00000]]}
      program: "BSTART.VEC TCVT, FP32; B.DATR S32; B.DIM LB0=1; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->T<3>; BSTOP"
      expect:
        fault: null
        flags: 0x10
        tiles:
        - {index: 0, dtype: S32, valid: [1, 1], data: [[1]]}
    - name: e4m3-one-to-fp32
      profiles: [hw-ieee]
      source: hand
      reference: E4M3 0x38 is exponent field 7 = bias 7, fraction 0 -> 1.0 = FP32 0x3F800000, exact
      state:
        tiles:
        - {index: 1, dtype: E4M3, capacity: 128, cols: 8, valid: [1, 1], data: [[0x38]]}
      program: "BSTART.VEC TCVT, E4M3; B.DATR FP32, RNE; B.DIM LB0=1; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->T<3>; BSTOP"
      expect:
        fault: null
        flags: 0
        tiles:
        - {index: 0, dtype: FP32, valid: [1, 1], data: [[0x3F800000]]}
''')

FAULTY = textwrap.dedent('''
    import json, subprocess, sys
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    hello = json.loads(child.stdout.readline())
    hello["device"] = "faulty silicon"
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        if json.loads(line)["type"] == "shutdown":
            break
        child.stdin.write(line); child.stdin.flush()
        answer = json.loads(child.stdout.readline())
        for entry in answer["results"]:
            if "65520" in entry["id"]:
                entry.pop("observation"); entry["error"] = "simulator assertion at cycle 1200"
            elif "observation" in entry:
                entry["observation"]["tiles"]["0"]["words"][0][0] ^= 1
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    try:
        path, _ = c_device.build(tmp_path_factory.mktemp("c_device"))
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    return path


@pytest.fixture
def setup(binary, tmp_path):
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    (vectors / "PTO-AVS-X-DEVICES-BRINGUP-001.yaml").write_text(VECTOR)
    proxy = tmp_path / "faulty.py"
    proxy.write_text(FAULTY)
    good = f"process:{shlex.quote(str(binary))}"
    faulty = f"process:{shlex.quote(sys.executable)} {shlex.quote(str(proxy))} {shlex.quote(str(binary))}"
    return vectors, good, faulty


def test_compare_two_devices_and_the_golden_model(setup, tmp_path, capsys):
    vectors, good, faulty = setup
    out = tmp_path / "report" / "bringup.md"
    status = cli(["compare", "--device", good, "--device", faulty, "--vectors", str(vectors), "--out", str(out)])
    text = capsys.readouterr().out
    assert status == 1  # the faulty device fails a case and errs on another
    markdown = out.read_text()
    for report in (text, markdown):
        # Summary: the C device passes what it runs; FP32 -> S32 it answers unsupported at run time, E4M3 is
        # outside its hello. The faulty copy fails the payload of the U16 case and errs on the FP32 case.
        assert "ADR-0044 Public integer conversion result subset" in report
        assert "2 pass, 2 not supported" in report
        assert "1 fail (payload 1), 2 not supported, 1 device error" in report
        assert "4 pass" in report  # golden:hw-ieee, run beside the devices, passes the hand-derived case values
        assert "TCVT FP32 -> S32 under hw-ieee" in report
        assert "avs-c-device 1.0 (hw-ieee) does not support E4M3" in report
        assert "simulator assertion at cycle 1200" in report
        assert "PTO-AVS-X-DEVICES-BRINGUP-001::u16-300-to-u8-sat1 on " in report
        # The comparator's account of the flipped bit: first divergence and the XOR of the words.
        assert "payload: 1 of 1 differ; first divergence tile 0 (0,0): expected 0xFF (255), observed 0xFE (254)" \
            in report
        assert "XOR expected^observed: (0,0) 0x01" in report
    assert "| case | " in markdown and "| fail: payload |" in markdown
    assert f"report written to {out}" in text


def test_html_report(setup, tmp_path, capsys):
    vectors, good, faulty = setup
    out = tmp_path / "bringup.html"
    status = cli(["compare", "--device", good, "--device", faulty, "--vectors", str(vectors), "--out", str(out),
                  "--no-golden"])
    capsys.readouterr()
    assert status == 1
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<h2>Failures</h2>" in page and "golden:" not in page
    assert "<td>1 fail (payload 1), 2 not supported, 1 device error</td>" in page


def test_a_clean_device_exits_zero(setup, capsys):
    vectors, good, _ = setup
    assert cli(["compare", "--device", good, "--vectors", str(vectors), "--no-golden"]) == 0
    text = capsys.readouterr().out
    assert "Cases that fail or err on some device\n-------------------------------------\nNone:" in text


def test_the_c_device_passes_every_shipped_vector_case_it_runs(binary, capsys):
    # Both profiles, every vector of the repository: whatever the C device runs must match the spec's
    # expectations (fail or device error would make the exit status 1 and be listed).
    status = cli(["compare", "--device", f"process:{binary}", "--device", f"process:{binary} --profile pto-v0",
                  "--no-golden"])
    text = capsys.readouterr().out
    failures = text.split("Failures\n--------\n", 1)[1].split("\nVector errors", 1)[0]
    assert status == 0, failures
    assert failures.startswith("None.")


def test_setup_problems_exit_2(setup, tmp_path, capsys):
    vectors, good, _ = setup
    assert cli(["compare", "--device", "nosuch", "--vectors", str(vectors)]) == 2
    assert "cannot open device 'nosuch': unknown device 'nosuch'" in capsys.readouterr().err
    assert cli(["compare", "--device", good, "--vectors", str(vectors), "--out", str(tmp_path / "r.txt")]) == 2
    assert "must end in .md or .html" in capsys.readouterr().err
    assert not (tmp_path / "r.txt").exists()
    assert cli(["compare", "--device", good, "--vectors", str(tmp_path / "missing")]) == 2
    assert "no such vector path" in capsys.readouterr().err
