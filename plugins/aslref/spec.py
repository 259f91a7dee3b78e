"""The spec checkout and its interpreter: finding them, assembling a program, mapping errors back.

A checkout is a work tree of PTO-ISA/pto-spec after ``make build`` (which writes
``build/pto-spec.asl``). A program for ``aslref`` is that file, the empty
validation shard and our batch file, joined by the checkout's own
``scripts/assemble-asl`` (the way the spec's test runner does it).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ASLREF_ENV = "PTO_AVS_ASLREF"  # the interpreter (aslref executable or a wrapper)
SPEC_ENV = "PTO_AVS_SPEC"  # the spec checkout
BUILT_SPEC = Path("build") / "pto-spec.asl"
ASSEMBLER = Path("scripts") / "assemble-asl"
VERSION_FILE = ".aslref-version"  # the herdtools7 commit the spec pins
# The empty validation shard, byte for byte as the spec's test runner writes it.
EMPTY_SHARD = "// Generated validation shard. Do not edit.\n// Entrypoint: none\n"
# Model-size bounds of the spec that the golden model copies (device_model/layouts.py).
CONFIG_BOUNDS = ("PTO_MODEL_TILE_ELEMENTS", "PTO_MODEL_MEMORY_BYTES")

_VAR = re.compile(r"^var\s+(\w+)\s*:\s*([^;=]+?)\s*;", re.M | re.S)
_CONFIG = re.compile(r"^config\s+(\w+)\s*:[^=;]*=\s*(\d+)\s*;", re.M)
_CONTRACT = re.compile(r"^(?:readonly )?func InstructionContract(Execute|OperandsLegal)_(\w+)\(([^)]*)\)", re.M)
_SOURCE = re.compile(r"^// Source: (.+)$")
_LOCATION = re.compile(r"^File (?P<file>.+?), line (?P<line>\d+)")


class SetupError(ValueError):
    """The spec checkout or the interpreter cannot be used."""


@dataclass(frozen=True)
class Spec:
    """A built spec checkout and the interpreter that runs it."""

    root: Path
    aslref: str
    text: str  # build/pto-spec.asl

    @property
    def pinned_commit(self) -> Optional[str]:
        path = self.root / VERSION_FILE
        return path.read_text().strip() if path.is_file() else None

    def globals(self) -> list[tuple[str, str]]:
        """Every global ``var`` of the spec: (name, type text), in declaration order."""
        return [(name, " ".join(kind.split())) for name, kind in _VAR.findall(self.text)]

    def config(self) -> dict[str, int]:
        """The spec's ``config`` constants with their default values."""
        return {name: int(value) for name, value in _CONFIG.findall(self.text)}

    def direct_contracts(self) -> dict[str, tuple[str, ...]]:
        """Operations whose direct-call contract (InstructionContractExecute_<op>, with an
        InstructionContractOperandsLegal_<op> of the same parameters) takes only TileIndex, Word,
        TileComparison and integer {0..65535} (TEXTRACT's and TINSERT's offsets) operands: operation ->
        parameter types in order."""
        found: dict[tuple[str, str], tuple[str, ...]] = {}
        for role, name, parameters in _CONTRACT.findall(self.text):
            found[role, name] = tuple(p.split(":", 1)[1].strip() for p in parameters.split(",") if ":" in p)
        return {name: kinds for (role, name), kinds in found.items()
                if role == "Execute" and found.get(("OperandsLegal", name)) == kinds
                and kinds and set(kinds) <= {"TileIndex", "Word", "TileComparison", "integer {0..65535}"}}

    def assemble(self, output: Path, *sources: Path) -> None:
        """Write ``output``: the built spec, the empty validation shard and ``sources``."""
        shard = output.with_name("validation.asl")
        shard.write_text(EMPTY_SHARD)
        done = subprocess.run([str(self.root / ASSEMBLER), str(output), str(BUILT_SPEC), str(shard),
                               *(str(s) for s in sources)],
                              cwd=self.root, capture_output=True, text=True)
        if done.returncode != 0:
            raise SetupError(f"{self.root / ASSEMBLER} failed ({done.returncode}): {done.stderr.strip()}")

    def command(self, program: Path) -> list[str]:
        return [self.aslref, "--type-check-strict", str(program)]


def locate(spec_dir: Optional[str], aslref: Optional[str]) -> Spec:
    """The checkout (argument, else $PTO_AVS_SPEC) and interpreter (argument, else $PTO_AVS_ASLREF)."""
    spec_dir = spec_dir or os.environ.get(SPEC_ENV)
    aslref = aslref or os.environ.get(ASLREF_ENV)
    if not spec_dir:
        raise SetupError(f"no spec checkout: give aslref:<checkout> or set {SPEC_ENV}")
    if not aslref:
        raise SetupError(f"no interpreter: set {ASLREF_ENV} to the aslref executable or give aslref=PATH")
    root = Path(spec_dir).expanduser().resolve()
    built = root / BUILT_SPEC
    if not built.is_file():
        raise SetupError(f"{built} does not exist: run 'make build' in the spec checkout {root}")
    if not (root / ASSEMBLER).is_file():
        raise SetupError(f"{root / ASSEMBLER} does not exist: {root} is not a pto-spec checkout")
    resolved = shutil.which(aslref)
    if resolved is None:
        raise SetupError(f"interpreter {aslref!r} is not an executable file")
    return Spec(root, resolved, built.read_text())


def source_lines(assembled: str) -> list[Optional[tuple[str, int]]]:
    """For each line of an assembled program (1-based, index 0 unused): the source file and line
    it came from, following the ``// Source:`` markers of assemble-asl and of build/pto-spec.asl."""
    out: list[Optional[tuple[str, int]]] = [None]
    current, start = None, 0
    for number, line in enumerate(assembled.split("\n"), 1):
        marker = _SOURCE.match(line)
        if marker:
            current, start = marker.group(1), number
            out.append(None)
        else:
            out.append((current, number - start) if current else None)
    return out


def describe_error(stderr: str, assembled_lines: list) -> str:
    """The interpreter's error as one line: the message and where it is in the spec's sources."""
    lines = [line for line in stderr.splitlines() if not line.startswith("ASL Warning")]
    message = next((i for i, line in enumerate(lines) if line.startswith("ASL ") and "rror" in line), None)
    if message is None:
        tail = " ".join(line.strip() for line in lines[-3:])
        return tail or "the interpreter stopped without a message"
    text = " ".join(part.strip() for part in lines[message:])
    where = None
    for line in reversed(lines[:message]):
        found = _LOCATION.match(line)
        if found:
            number = int(found.group("line"))
            origin = assembled_lines[number] if number < len(assembled_lines) else None
            where = f"{Path(origin[0]).name if origin[0].startswith('/') else origin[0]}:{origin[1]}" \
                if origin else f"line {number} of the assembled program"
            break
    return f"{text} (at {where})" if where else text
