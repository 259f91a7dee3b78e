"""Element values of the arithmetic Tile operations as the spec's interpreter computes them (pto-v0).

    .venv/bin/python -m pto_avs.vectors.reference.aslref_arith_probe [--spec DIR] [--aslref BIN] [--out FILE]

Writes one ASL program that calls the executable spec's element functions --
TileProfileBinaryWithFlags (ADD SUB MUL DIV REM), TileFixedFusedMultiplyAddValue,
and TileSFUUnarySpecialValue followed by TileProfileUnary as ExecuteTileUnary
does -- on chosen element words, runs it once under aslref with the reference
profile (pto-v0) and records every (inputs, result word, flags) in a JSON file
(default ``tests/data/aslref-arith-elements.json``). ``tests/numeric/test_numeric_tile_arithmetic.py``
checks the golden model's element functions against that record, so the
expectations come from the spec's own interpreter, not from the model.

Inputs avoid what the ASL asserts away (integer zero divisors, invalid floating
encodings). Needs the built spec work tree and the aslref binary; no project code.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

SPEC = Path("/work/pto-spec")
ASLREF = Path("/work/aslref/bin/aslref")
OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "aslref-arith-elements.json"
M64 = (1 << 64) - 1

INTEGER = {"S8": 8, "S16": 16, "S32": 32, "S64": 64, "U8": 8, "U16": 16, "U32": 32, "U64": 64}
FLOAT_WORDS = {  # +0, -0, 1, 3, -1.5, +inf, -inf, qNaN, sNaN, min subnormal, max
    "FP64": [0, 1 << 63, 0x3FF0000000000000, 0x4008000000000000, 0xBFF8000000000000, 0x7FF0000000000000,
             0xFFF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001, 1, 0x7FEFFFFFFFFFFFFF],
    "FP32": [0, 0x80000000, 0x3F800000, 0x40400000, 0xBFC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
             1, 0x7F7FFFFF],
    "TF32": [0, 0x80000000, 0x3F800000, 0x40400000, 0xBFC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F802000,
             0x2000, 0x7F7FE000],
    "HF32": [0, 0x80000000, 0x3F800000, 0x40400000, 0xBFC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F801000,
             0x1000, 0x7F7FF000],
    "FP16": [0, 0x8000, 0x3C00, 0x4200, 0xBE00, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 1, 0x7BFF],
    "BF16": [0, 0x8000, 0x3F80, 0x4040, 0xBFC0, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 1, 0x7F7F],
    "E4M3": [0, 0x80, 0x38, 0x44, 0xBC, 0x7F, 1, 0x7E, 0xFE],
    "E5M2": [0, 0x80, 0x3C, 0x42, 0xBE, 0x7C, 0xFC, 0x7E, 0x7D, 1, 0x7B],
}
TYPE_NAMES = {**{n: f"TileDataType_{n}" for n in INTEGER}, **{n: f"TileDataType_{n}" for n in FLOAT_WORDS}}


def integer_words(name: str) -> list[int]:
    bits = INTEGER[name]
    signed = name.startswith("S")
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    values = [7, 3, low, high, 1] + ([-7, -3, -1] if signed else [0, 2, high - 1])
    # element lanes (low bits), plus one word with nonzero bits above the lane
    words = [v & ((1 << bits) - 1) for v in values]
    if bits < 64:
        words.append((0xABCD << 48) | 5)
    return words


def cases() -> list[dict]:
    out = []
    for name in INTEGER:
        w = integer_words(name)
        pairs = [(a, b) for a in w for b in w if b & ((1 << INTEGER[name]) - 1)]
        for op in ("ADD", "SUB", "MUL", "DIV", "REM"):
            out += [{"kind": "binary", "op": op, "type": name, "inputs": [a, b]} for a, b in pairs[::3]]
        out += [{"kind": "fma", "type": name, "inputs": [a, b, c]} for a, b, c in zip(w, w[2:] + w[:2], w[1:] + w[:1])]
    for name, w in FLOAT_WORDS.items():
        pairs = [(a, b) for a in w for b in w]
        for op in ("ADD", "SUB", "MUL", "DIV", "REM"):
            out += [{"kind": "binary", "op": op, "type": name, "inputs": [a, b]} for a, b in pairs[::4]]
        triples = [(a, b, c) for a in w[:8] for b in w[:8] for c in (w[0], w[2], w[6], w[7], w[8])]
        out += [{"kind": "fma", "type": name, "inputs": list(t)} for t in triples[::5]]
        for op in ("SQRT", "RSQRT", "RECIP", "EXP", "LOG"):
            out += [{"kind": "unary", "op": op, "type": name, "inputs": [v]} for v in w]
    return out


def _word(v: int) -> str:
    return f"(Zeros{{PTO_XLEN}} + 0x{v & M64:x})"


def program(all_cases: list[dict]) -> str:
    lines = ["func main() => integer", "begin"]
    for i, c in enumerate(all_cases):
        t = TYPE_NAMES[c["type"]]
        args = [_word(v) for v in c["inputs"]]
        if c["kind"] == "binary":
            lines.append(f"    let (r{i}, f{i}) = TileProfileBinaryWithFlags(TileBinary_{c['op']}, {t}, {args[0]}, {args[1]});")
        elif c["kind"] == "fma":
            lines.append(f"    let (r{i}, f{i}) = TileFixedFusedMultiplyAddValue({t}, {args[0]}, {args[1]}, {args[2]});")
        else:
            lines += [f"    var r{i}: Word; var f{i}: bits(5);",
                      f"    let (h{i}, s{i}, sf{i}) = TileSFUUnarySpecialValue(TileUnary_{c['op']}, {t}, {args[0]});",
                      f"    if h{i} then r{i} = s{i}; f{i} = sf{i};",
                      f"    else (r{i}, f{i}) = TileProfileUnary(TileUnary_{c['op']}, {t}, {args[0]}); end;"]
        lines += [f"    println(r{i});", f"    println(f{i});"]
    lines += ["    return 0;", "end;", ""]
    return "\n".join(lines)


def run(spec: Path, aslref: Path) -> list[dict]:
    all_cases = cases()
    with tempfile.TemporaryDirectory() as tmp:
        shard = Path(tmp, "validation.asl")
        shard.write_text("// Generated validation shard. Do not edit.\n// Entrypoint: none\n")
        test = Path(tmp, "probe.asl")
        test.write_text(program(all_cases))
        joined = Path(tmp, "all.asl")
        subprocess.run([str(spec / "scripts" / "assemble-asl"), str(joined), str(spec / "build" / "pto-spec.asl"),
                        str(shard), str(test)], check=True, cwd=spec)
        done = subprocess.run([str(aslref), "--type-check-strict", str(joined)], cwd=spec, check=True,
                              capture_output=True, text=True)
    values = [int(line, 16) for line in done.stdout.split()]
    assert len(values) == 2 * len(all_cases), (len(values), len(all_cases))
    for i, c in enumerate(all_cases):
        c["result"], c["flags"] = values[2 * i], values[2 * i + 1]
    return all_cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=SPEC)
    parser.add_argument("--aslref", type=Path, default=ASLREF)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    records = run(args.spec, args.aslref)
    document = {"source": "PTO-ISA/pto-spec 0.58.3 (e599a3d3) executable ASL under aslref, reference profile (pto-v0)",
                "generator": "vectors/reference/aslref_arith_probe.py", "cases": records}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(document, indent=0) + "\n")
    os.replace(tmp, args.out)
    print(f"{len(records)} element cases -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
