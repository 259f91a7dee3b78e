"""Import of PTO-ISA/asl-model's ``pto-avs-case-v1`` cases of the assembly lane into our
vectors (issue 23, "Whole kernels").

    python -m pto_avs.avs.aslmodel            # write vectors/PTO-AVS-X-ASLMODEL-*.yaml, print the report
    python -m pto_avs.avs.aslmodel --check    # only compare the committed files with the import

The repository cannot be fetched at CI time, so its facts are committed as data,
``avs/aslmodel-cases.json``: each case's instructions in order, the initial bytes of its
result and input sections, the result region and the golden bytes, with the source path and
commit of each file (the data's ``about`` says how it was read). No code of asl-model is here.

A case becomes one vector file when every instruction is one of

- a register set-up the importer folds into the initial GPRs (``addi rs, imm, ->rd``,
  ``ADDI``, ``C.MOVI imm, ->rd``, ``LD [rs, zero], ->rd`` from the initial memory image),
  evaluated in order; one after a block is folded only when no earlier block read its
  destination (the value is then the same when hoisted);
- a block command that our assembler (``device_model/encoding``) encodes and the decoder
  accepts as an encoding of the pinned release, with a catalog operation where it is a BSTART
  (a TEPL selector the catalog does not name, a reserved field value, a 48- or 64-bit form,
  a word no command form matches: not importable).

Otherwise the report names the first instruction that is not, and why. The case's state is
its initial memory (4096 bytes, the spec build's bound: every address of every case lies
below it, while asl-model runs with 64 KiB) and the folded GPRs (``sp`` is the case's
``stack_top``); the program is our canonical spelling of each instruction, whose words
``expect.encoding`` pins to the case's bytes; the expectation is the golden bytes over the
result region (asl-model compares nothing else).

SPEC-CHOICE 85: asl-model's programs read a B.IOT source selector ``T#k`` as the k-th newest
destination of hand T; the pinned ASL decodes the field as the TileIndex itself
(``CommandDecodedTile``), and renames each new destination to the first free index of its
hand. Where the two readings select different tiles, the import writes two cases: ``verbatim``
(the case's own words, expected as the pinned release reads them: the data's hand-derived
``pinned_reading``) and ``rebound`` (each such selector rewritten to the TileIndex the
newest-destination reading means, expected to give the golden bytes).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import yaml

from ..contract.spec_data import load as load_spec_data
from ..device_model.encoding import assemble_line, decode, disassemble
from ..device_model.encoding.disassembler import gpr
from ..device_model.encoding.names import LAYOUT_TRANSFORMS
from ..device_model.faults import Fault

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).with_name("aslmodel-cases.json")
VECTORS = ROOT / "vectors"
PREFIX = "PTO-AVS-X-ASLMODEL-"
MEMORY = 4096  # the spec build's PTO_MODEL_MEMORY_BYTES
GPRS = {**{f"r{i}": i for i in range(24)}, **{gpr(i): i for i in range(24)}}
MEMORY_OPERATIONS = ("TLOAD", "TSTORE")

_ADDI = re.compile(r"(?i)^addi\s+(\w+)\s*,\s*(-?\w+)\s*,\s*->\s*(\w+)$")
_MOVI = re.compile(r"(?i)^c\.movi\s+(-?\w+)\s*,\s*->\s*(\w+)$")
_LD = re.compile(r"(?i)^ld\s+\[\s*(\w+)\s*,\s*zero\s*\]\s*,\s*->\s*(\w+)$")
_SIZE = re.compile(r"(?i)->\s*([tumns])(\d*)<(\d+)B>")
_TILE = re.compile(r"\b([TUMN])#(\d+)")


class NotImportable(Exception):
    """The first instruction the pinned release cannot take, and why."""


@dataclass
class Imported:
    case_id: str
    vector: Optional[dict] = None
    problem: Optional[str] = None
    rebound: list = field(default_factory=list)  # (instruction number, old text, new text)


def _register(name: str) -> int:
    key = name.lower()
    if key not in GPRS:
        raise NotImportable(f"{name!r} is not a GPR name")
    return GPRS[key]


def _number(text: str) -> int:
    return int(text, 0)


def ours(line: str) -> str:
    """asl-model's spelling of a block command -> our assembler's (the same instruction):
    ``->lb0`` is ``->LB0``, ``last`` is ``<last>``, a size in bytes ``<128B>`` is its size code,
    hands are upper case, and ``B.IOR [a, b, c]`` loses its brackets."""
    text = re.sub(r"->\s*lb(\d)", r"->LB\1", line)
    text = re.sub(r",\s*last\b", ", <last>", text)
    text = _SIZE.sub(lambda m: f"->{m.group(1).upper()}{m.group(2)}<{int(m.group(3)).bit_length() - 7}>", text)
    text = re.sub(r"\b([tumn])#(\d+)", lambda m: f"{m.group(1).upper()}#{m.group(2)}", text)
    return re.sub(r"^(B\.IOR\s+)\[([^\]]*)\]", r"\1\2", text)


def _check_encoding(word: int, length: int, text: str):
    """The decoded instruction, or NotImportable when the pinned release has no such encoding."""
    if length not in (16, 32):
        raise NotImportable(f"{text}: a {length}-bit instruction; our assembler and vectors hold 16- and 32-bit "
                            f"instructions only")
    try:
        decoded = decode(word, length)
    except Fault as fault:
        raise NotImportable(f"{text}: {fault.reason}") from None
    if decoded.form.key == "BSTART.TEPL" and decoded.operation is None:
        raise NotImportable(f"{text}: TEPL Mode {decoded.fields['Mode']} Function {decoded.fields['Function']} "
                            f"selects no operation of the pinned catalog")
    if decoded.form.key == "B.DATR" and decoded.fields.get("Layout") not in LAYOUT_TRANSFORMS:
        raise NotImportable(f"{text}: B.DATR Layout {decoded.fields['Layout']} is not assigned in the pinned release")
    return decoded


def _fold(item: dict, registers: dict, read: set, memory: bytes) -> bool:
    """Fold a register set-up into ``registers``; False when the item is no set-up."""
    text = item.get("asm") or item.get("says") or ""
    for pattern, kind in ((_ADDI, "addi"), (_MOVI, "movi"), (_LD, "ld")):
        match = pattern.match(text.strip())
        if not match:
            continue
        if kind == "addi":
            source, value, target = _register(match.group(1)), _number(match.group(2)), match.group(3)
        elif kind == "movi":
            source, value, target = 0, _number(match.group(1)), match.group(2)
        else:
            source, value, target = _register(match.group(1)), None, match.group(2)
        destination = _register(target)
        if source not in registers:
            raise NotImportable(f"{text}: reads {gpr(source)}, whose value the set-up does not know")
        if destination in read:
            raise NotImportable(f"{text}: rewrites {gpr(destination)} after a block read it (a scalar program, "
                                f"which our vectors cannot hold)")
        if kind == "ld":
            address = registers[source]
            if address + 8 > len(memory):
                raise NotImportable(f"{text}: loads past the initial memory image")
            result = int.from_bytes(memory[address:address + 8], "little")
        else:
            result = (registers[source] + value) & (1 << 64) - 1
        if destination:
            registers[destination] = result
        return True
    return False


def _image(case: dict) -> bytes:
    image = bytearray(MEMORY)
    for region in case["memory"]:
        data = bytes.fromhex(region["bytes"])
        image[region["address"]:region["address"] + len(data)] = data
    return bytes(image)


def _instructions(case: dict):
    """(registers, [(word, length, text, decoded)]) of a case, or NotImportable."""
    if case["start_acr"] != 0 or case["host_request"] is not None:
        raise NotImportable(f"starts at ACR {case['start_acr']} with a host request; our vectors start every "
                            f"program at ACR 0 with no host")
    if case["result"]["address"] is None:
        raise NotImportable("its result address is not known (case.ld is not in the index)")
    memory = _image(case)
    registers = {0: 0, 1: case["stack_top"]}
    read, out = set(), []
    for number, item in enumerate(case["program"]):
        if _fold(item, registers, read, memory):
            continue
        if "bytes" in item:
            raw = bytes.fromhex(item["bytes"])
            word, length = int.from_bytes(raw, "little"), 8 * len(raw)
            text = f"instruction {number} ({item['bytes']}{', ' + item['says'] if 'says' in item else ''})"
        else:
            try:
                assembled = assemble_line(ours(item["asm"]))
            except ValueError as error:
                raise NotImportable(f"instruction {number} ({item['asm']}): our assembler: {error}") from None
            word, length, text = assembled.word, assembled.length, f"instruction {number} ({item['asm']})"
        decoded = _check_encoding(word, length, text)
        if decoded.form.key.startswith("B.IOR"):
            read |= {decoded.fields[key] for key in ("RegSrc0", "RegSrc1", "RegSrc2")}
        out.append((word, length, disassemble(word, length), decoded))
    if not case["program_complete"]:
        raise NotImportable("the data carries the program only up to here")
    return registers, out


def _rebound(instructions):
    """The newest-destination reading as TileIndex values: each B.IOT source ``H#k`` becomes
    the k-th newest destination of hand H (destinations renamed to the first free index of
    their hand, none freed); [(number, old, new)] for each selector that changes."""
    allocated = {hand: 0 for hand in "TUMN"}
    changed, out = [], []
    for number, (word, length, text, decoded) in enumerate(instructions):
        new = text
        if decoded.form.key.startswith("B.IOT"):
            def absolute(match):
                hand, k = match.group(1), int(match.group(2))
                return f"{hand}#{allocated[hand] - k + 1}" if 1 <= k <= allocated[hand] else match.group(0)
            head, arrow, tail = text.partition("->")
            new = _TILE.sub(absolute, head) + arrow + tail
            if arrow:
                allocated[tail.strip()[0]] += 1
        if new != text:
            changed.append((number, text, new))
            assembled = assemble_line(new)
            out.append((assembled.word, assembled.length, new, decode(assembled.word, assembled.length)))
        else:
            out.append((word, length, text, decoded))
    return out, changed


class _Hex(int):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Hex, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:int", hex(value)))
_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None))


def vector_id(case_id: str) -> str:
    return PREFIX + case_id.upper().replace("_", "-") + "-001"


def _operations(instructions) -> list:
    seen = []
    for _, _, _, decoded in instructions:
        if decoded.operation and decoded.operation not in seen:
            seen.append(decoded.operation)
    return seen


def _adrs(operations) -> list:
    units = {unit["mnemonic"]: unit for unit in load_spec_data("tile-avs-catalog")["units"]}
    return sorted({s for op in operations for s in units[op]["readiness_subjects"] if s.startswith("ADR-")})


def _case(name, description, reference, registers, case, instructions, memory_hex, tiles=None):
    result = case["result"]
    state = {"gprs": {index: _Hex(value) for index, value in sorted(registers.items()) if index},
             "memory": {"size": MEMORY, "regions": [{"address": _Hex(r["address"]), "bytes": r["bytes"]}
                                                    for r in case["memory"]]}}
    expect = {"fault": None, "encoding": [_Hex(word) for word, _, _, _ in instructions],
              "memory": [{"address": _Hex(result["address"]), "bytes": memory_hex}]}
    if tiles:
        expect["tiles"] = tiles
    return {"name": name, "description": description, "profiles": ["pto-v0"], "source": "hand",
            "reference": reference, "state": state, "program": "\n".join(text for _, _, text, _ in instructions),
            "expect": expect}


def import_case(case: dict) -> Imported:
    """One case of the data -> its vector (a dict in our format), or the reason it is not importable."""
    try:
        registers, instructions = _instructions(case)
    except NotImportable as why:
        return Imported(case["case_id"], problem=str(why))
    where = (f"PTO-ISA/asl-model avs/cases/{case['case_id']}/ (source.S {case['files']['source.S'][:8]}, golden "
             f"sha256 {case['golden_sha256'][:12]}: \"{case['golden_rationale']}\")")
    region = f"{case['result']['size']} bytes at {case['result']['address']:#x}"
    rebound, changed = _rebound(instructions)
    if not changed:
        cases = [_case("verbatim", f"asl-model's program as it is; the result region ({region}) holds the golden "
                                   f"bytes.", where, registers, case, instructions, case["golden"])]
    else:
        reading = case.get("pinned_reading")
        if reading is None:
            return Imported(case["case_id"], problem="its B.IOT selectors read differently in the pinned release "
                                                     "and the data gives no pinned_reading")
        edits = "; ".join(f"instruction {n}: {old} -> {new}" for n, old, new in changed)
        cases = [_case("verbatim", f"asl-model's program as it is, read as the pinned release reads it "
                                   f"(SPEC-CHOICE 85): {reading['why']}", where + "; the expectation: by hand "
                                   "from the pinned ASL", registers, case, instructions, reading["memory"],
                       reading.get("tiles")),
                 _case("rebound", f"asl-model's program with each B.IOT source selector rewritten to the TileIndex "
                                  f"its newest-destination reading means (SPEC-CHOICE 85; {edits}); the result "
                                  f"region ({region}) holds the golden bytes.", where, registers, case, rebound,
                       case["golden"])]
    operations = _operations(instructions)
    computing = [op for op in operations if op not in MEMORY_OPERATIONS] or ["TSTORE"]
    vector = {"format": "pto-avs-vector/1", "id": vector_id(case["case_id"]), "operation": computing[0],
              "kind": "execution",
              "summary": f"asl-model case {case['case_id']} ({' -> '.join(operations)}): its golden result region",
              "exercises": _adrs(operations), "also_exercises": [op for op in operations if op != computing[0]],
              "provenance": ("Imported from PTO-ISA/asl-model's pto-avs-case-v1 case "
                             f"avs/cases/{case['case_id']}/ by `python -m pto_avs.avs.aslmodel` from the facts in "
                             "avs/aslmodel-cases.json: its instructions, register set-up, initial memory, result "
                             "region and golden bytes (asl-model's provenance: model_generated false). Nothing here "
                             "was produced by running the golden model."),
              "cases": cases}
    return Imported(case["case_id"], vector=vector, rebound=changed)


def render(vector: dict) -> str:
    head = (f"# Vectors for {vector['id']} (pto-avs-vector/1), written by python -m pto_avs.avs.aslmodel from\n"
            "# avs/aslmodel-cases.json (facts of PTO-ISA/asl-model); do not edit by hand.\n")
    return head + yaml.dump(vector, Dumper=_Dumper, sort_keys=False, width=110, allow_unicode=False,
                            default_flow_style=None)


def import_all(data: Optional[dict] = None) -> list:
    data = data if data is not None else json.loads(DATA.read_text(encoding="utf-8"))
    return [import_case(case) for case in data["cases"]]


def report(results, data: Optional[dict] = None) -> str:
    data = data if data is not None else json.loads(DATA.read_text(encoding="utf-8"))
    lines = []
    for result in results:
        if result.vector:
            names = ", ".join(c["name"] for c in result.vector["cases"])
            lines.append(f"{result.case_id}: imported as {result.vector['id']} ({names})")
        else:
            lines.append(f"{result.case_id}: not importable: {result.problem}")
    lines += [f"{other['case_id']}: lane {other['lane']}, not the assembly lane" for other in data["other_lanes"]]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pto_avs.avs.aslmodel", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare the committed vectors, write nothing")
    args = parser.parse_args(argv)
    results = import_all()
    stale = []
    for result in results:
        if result.vector is None:
            continue
        path = VECTORS / f"{result.vector['id']}.yaml"
        text = render(result.vector)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    print(report(results))
    if stale:
        print(f"stale: {', '.join(stale)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
