"""Write contract/spec_data/instruction-contracts.json from a PTO spec checkout.

Usage: python tests/extract_instruction_contracts.py <pto-spec git dir> [output]

The spec is read from a git repository (bare or not) at its HEAD, so the
recorded commit is exactly the one the data came from.

Every instruction contract of the spec (asl/block/**/<MNEMONIC>.asl and
asl/tile/**/<OPERATION>.asl) opens with one line ``// PTO-INSTRUCTION: <json>``.
This script parses that JSON and keeps, per contract, only data: its id,
mnemonic, path and surface; the assembly, canonical_assembly and examples
lists of its contract; for a block contract the command forms it owns (catalog
index, mnemonic, asm, length, mask/match, field pieces, constraints, status),
checked against spec/catalog/command-forms.json; for a tile contract the
operation record's name, BSTART mnemonic, family, engine and TEPL selector;
and any field domains. No ASL code is copied.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

HEADER = "// PTO-INSTRUCTION: "
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "contract" / "spec_data" / "instruction-contracts.json"
FORM_KEYS = ("form_id", "mnemonic", "asm", "length_bits", "status")
OPERATION_KEYS = ("name", "command_mnemonic", "family", "engine", "mode", "function", "selector")


def _form(index: int, record: dict) -> dict:
    form = {"catalog_index": index, **{key: record[key] for key in FORM_KEYS}}
    form["encoding"] = [{"mask": e["mask"], "match": e["match"], "width_bits": e["width_bits"]}
                        for e in record["encoding"]]
    form["fields"] = [{"name": f["name"], "signedness": f["signedness"],
                       "pieces": [[p["instruction_lsb"], p["width"], p["value_lsb"]] for p in f["pieces"]]}
                      for f in record["fields"]]
    form["constraints"] = record["constraints"]
    return form


class _Snapshot:
    """Files of one commit of a git repository."""

    def __init__(self, git_dir: Path):
        self.git_dir = str(git_dir)
        self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args) -> str:
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True,
                              capture_output=True, text=True).stdout

    def paths(self, folder: str) -> list:
        return sorted(self._git("ls-tree", "-r", "--name-only", self.commit, folder).splitlines())

    def read(self, path: str) -> str:
        return self._git("show", f"{self.commit}:{path}")


def _contract(path: str, text: str, catalog: list) -> dict:
    header = json.loads(text.splitlines()[0][len(HEADER):])
    contract = header["contract"]
    entry = {"id": header["id"], "mnemonic": header["mnemonic"], "path": path,
             "surface": header["surface"], "assembly": header["assembly"],
             "canonical_assembly": contract["canonical_assembly"], "examples": contract["examples"]}
    if header["surface"] == "block":
        indices, records = header["catalog_indices"], header["catalog_records"]
        assert len(indices) == len(records), path
        forms = []
        for index, record in zip(indices, records):
            assert catalog[index]["form_id"] == record["form_id"], (path, index)
            forms.append(_form(index, catalog[index]))
        entry["forms"] = forms
    else:
        (record,) = header["catalog_records"]
        entry["operation"] = {key: record[key] for key in OPERATION_KEYS if key in record}
    if header.get("field_domains"):
        entry["field_domains"] = header["field_domains"]
    return entry


def extract(git_dir: Path) -> dict:
    spec = _Snapshot(git_dir)
    catalog = json.loads(spec.read("spec/catalog/command-forms.json"))["forms"]
    contracts = []
    for surface in ("block", "tile"):
        for path in spec.paths(f"asl/{surface}"):
            if not path.endswith(".asl") or "model" in PurePosixPath(path).parts:
                continue
            text = spec.read(path)
            if text.startswith(HEADER):
                contracts.append(_contract(path, text, catalog))
    return {"source": {"repository": "PTO-ISA/pto-spec", "release": "0.58.3", "commit": spec.commit,
                       "extracted_by": "tests/extract_instruction_contracts.py"},
            "contract_count": len(contracts), "contracts": contracts}


def main(argv) -> int:
    output = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUTPUT
    data = extract(Path(argv[1]))
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    tmp = output.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
    print(f"{data['contract_count']} contracts -> {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
