"""Check the post-processing vectors against the spec's executable ASL, element by element.

    .venv/bin/python -m pto_avs.vectors.reference.aslref_postprocess_check \\
        --spec /work/pto-spec --aslref /work/aslref/bin/aslref [--vector FILE] [--chunk N]

For every element of the TGEMV_MX_ACC post-processing vectors (default: the shipped
``PTO-AVS-X-TGEMV-MX-ACC-PP-MODES-001``) it writes an ASL ``main`` that calls the spec's
``TileProfileMatrixPostProcessWithFlags`` (asl/arch/profile/matrix-postprocess.asl) with the
element's accumulator Word, B.FPATR modes, parameters and B.DATR control, and compares the
Word and flags with the vector's expectation (``data``/``words`` and, per element, the
reference's flags, which OR to the case's ``flags``). It prints every disagreement and a
summary; exit status 1 when any element disagrees. It needs the spec's built
``build/pto-spec.asl`` and the ``aslref`` interpreter, so it is a tool, not a test: the
vectors' expectations are the reference's, and this is the evidence that the reference
computes what the ASL computes.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from . import generate_postprocess
from . import postprocess as pp

VECTOR = Path(__file__).resolve().parent.parent / "PTO-AVS-X-TGEMV-MX-ACC-PP-MODES-001.yaml"
ROUNDING = {**{mode: mode for mode in pp.RMODES}, "NONE": "RNE"}  # RMode NONE: the default RNE
EMPTY_SHARD = "// Generated validation shard. Do not edit.\n// Entrypoint: none\n"


def elements(case: dict) -> list[tuple]:
    """(C Word, Config with this column's parameters, expected Word) per element of a case."""
    expected = case["expect"]["tiles"][0]
    words = expected.get("words", expected["data"])[0]
    return [(c, config, word) for (c, config), word in zip(generate_postprocess.read_case(case), words)]


def asl_call(index: int, c: int, config: pp.Config, word: int, flags: int) -> str:
    return (f"    (result, flags) = TileProfileMatrixPostProcessWithFlags(Zeros{{PTO_XLEN}} + 0x{c:x}, "
            f"'{config.mode:06b}', '{config.relu:03b}', Zeros{{4}}, TileDataType_{config.output}, "
            f"Zeros{{PTO_XLEN}} + 0x{config.quant[0]:x}, Zeros{{PTO_XLEN}} + 0x{config.relu_param[0]:x}, "
            f"NumericExecutionControl {{ rounding_mode = NumericRound_{ROUNDING[config.rmode]}, "
            f"saturating = {'TRUE' if config.sat else 'FALSE'} }});\n"
            f"    if result != Zeros{{PTO_XLEN}} + 0x{word:x} || flags != Zeros{{5}} + 0x{flags:x} then\n"
            f"        println(\"MISMATCH {index}\");\n"
            f"        failures = failures + 1;\n"
            f"    end;\n")


def program(checks: list[tuple]) -> str:
    body = "".join(asl_call(*check) for check in checks)
    return ("func main() => integer\nbegin\n    var failures: integer = 0;\n"
            "    var result: Word = Zeros{PTO_XLEN};\n    var flags: bits(5) = Zeros{5};\n"
            f"{body}    print(\"FAILURES \");\n    println(failures);\n    return 0;\nend;\n")


def run_chunk(spec: Path, aslref: str, checks: list[tuple], work: Path) -> tuple[int, list[int]]:
    (work / "shard.asl").write_text(EMPTY_SHARD)
    (work / "test.asl").write_text(program(checks))
    joined = work / "joined.asl"
    subprocess.run([str(spec / "scripts/assemble-asl"), str(joined), str(spec / "build/pto-spec.asl"),
                    str(work / "shard.asl"), str(work / "test.asl")], cwd=spec, check=True)
    run = subprocess.run([aslref, "--type-check-strict", str(joined)], cwd=spec, capture_output=True, text=True)
    failures = re.search(r"FAILURES (\d+)", run.stdout)
    if run.returncode != 0 or failures is None:
        raise RuntimeError(f"aslref failed ({run.returncode}): {run.stdout[-2000:]}{run.stderr[-2000:]}")
    return int(failures.group(1)), [int(m) for m in re.findall(r"MISMATCH (\d+)", run.stdout)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, required=True, help="the pto-spec work tree (build/pto-spec.asl built)")
    parser.add_argument("--aslref", required=True, help="the aslref interpreter")
    parser.add_argument("--vector", type=Path, default=VECTOR)
    parser.add_argument("--chunk", type=int, default=400, help="elements per aslref run")
    args = parser.parse_args(argv)
    doc = yaml.safe_load(args.vector.read_text())
    checks, origin = [], []
    for case in doc["cases"]:
        for c, config, word in elements(case):
            _, flags = pp.postprocess(c, config)  # per-element flags; their OR is the case's flags
            checks.append((len(checks), c, config, word, flags))
            origin.append(f"{case['name']} C=0x{c:08X}")
    unique = list({check[1:]: check for check in checks}.values())
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, len(unique), args.chunk):
            _, mismatches = run_chunk(args.spec, args.aslref, unique[start:start + args.chunk], Path(tmp))
            bad += mismatches
            print(f"checked {min(start + args.chunk, len(unique))}/{len(unique)} distinct elements, "
                  f"{len(bad)} disagree", flush=True)
    for index in bad:
        print(f"disagrees with the ASL: {origin[index]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
