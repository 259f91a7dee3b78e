"""The run-level files of an Allure results directory: environment.properties and categories.json."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Optional

from . import atomic, traceability

ENVIRONMENT_FILE = "environment.properties"
CATEGORIES_FILE = "categories.json"

# Allure 2 matches messageRegex against the whole message, Allure 3 searches it:
# [\s\S]* on both sides (JavaScript has no inline DOTALL flag) means the same to both.
# A mismatch is the comparator's line "<aspect>: <n> of <m> differ" (contract/compare.py), so
# an aspect named in "passed: fault, flags" does not count. The first category that
# matches wins in Allure 3: a wrong fault class explains the rest, so it comes first.
_ANYWHERE = r"[\s\S]*{}[\s\S]*"


def _differ(aspects: str) -> str:
    return _ANYWHERE.format(rf"\b({aspects}): \d+ of \d+ differ")


_MISMATCH = ["failed", "broken"]

CATEGORIES = [
    {"name": "Vector error", "matchedStatuses": ["failed", "broken"],
     "messageRegex": _ANYWHERE.format(r"(VectorLoadFailure|vector error)")},
    {"name": "Device error", "matchedStatuses": ["failed", "broken"],
     "messageRegex": _ANYWHERE.format(r"(DeviceFailure|device error)")},
    {"name": "Not supported", "matchedStatuses": ["skipped"],
     "messageRegex": _ANYWHERE.format(r"not supported")},
    {"name": "Not observable", "matchedStatuses": ["skipped"],
     "messageRegex": _ANYWHERE.format(r"not observable")},
    {"name": "Fault-class mismatch", "matchedStatuses": _MISMATCH, "messageRegex": _differ("fault")},
    {"name": "Flag mismatch", "matchedStatuses": _MISMATCH, "messageRegex": _differ("flags")},
    {"name": "Payload mismatch", "matchedStatuses": _MISMATCH,
     "messageRegex": _differ("payload|carrier|padding_defined|padding_value|storage")},
    {"name": "Other mismatch (descriptor, sources, encoding)", "matchedStatuses": _MISMATCH,
     "messageRegex": _differ("descriptor|sources|encoding")},
]


def environment(devices: Iterable[str], profiles: Iterable[str],
                vectors: Optional[str] = None, recordings: Optional[dict] = None) -> dict[str, str]:
    """What the run was: devices and profiles, the spec release and commit, the model version,
    and for each replayed recording (``recordings``: device label -> evidence) its digest and
    the device line its answers came from."""
    env = {
        "device": ", ".join(sorted(set(devices))) or "none",
        "profile": ", ".join(sorted(set(profiles))) or "none",
        "spec.release": traceability.spec_release(),
        "spec.commit": traceability.spec_commit(),
        "spec.repository": traceability.SPEC_REPOSITORY,
        "model.version": traceability.model_version(),
    }
    if vectors:
        env["vectors"] = vectors
    for label, evidence in sorted((recordings or {}).items()):
        env[f"recording {label}"] = evidence
    return env


def write_run_files(alluredir: Path, env: dict[str, str]) -> None:
    """Write environment.properties and categories.json into ``alluredir``, both or neither."""
    atomic.write_files(Path(alluredir), {
        ENVIRONMENT_FILE: format_properties(env),
        CATEGORIES_FILE: json.dumps(CATEGORIES, indent=2) + "\n",
    })


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "=": "\\=", ":": "\\:",
            "#": "\\#", "!": "\\!"}
_UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


def _escape(text: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == " " and (key or i == 0):
            out.append("\\ ")
        elif ord(ch) > 0x7E:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else ch)
        else:
            out.append(ch)
    return "".join(out)


def format_properties(values: dict[str, str]) -> str:
    """Java .properties text (what Allure reads), one ``key=value`` line each."""
    return "".join(f"{_escape(k, True)}={_escape(v, False)}\n" for k, v in values.items())


def parse_properties(text: str) -> dict[str, str]:
    """The ``key=value`` lines of a .properties file written by ``format_properties``
    (comments, ``:`` separators and backslash escapes; no line continuations)."""
    values = {}
    for line in text.splitlines():
        stripped = line.lstrip()
        if not stripped or stripped[0] in "#!":
            continue
        key, value, in_key, i = [], [], True, 0
        while i < len(stripped):
            ch = stripped[i]
            if ch == "\\" and i + 1 < len(stripped):
                nxt = stripped[i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", stripped[i + 2:i + 6]):
                    ch, i = chr(int(stripped[i + 2:i + 6], 16)), i + 6
                else:
                    ch, i = _UNESCAPES.get(nxt, nxt), i + 2
                (key if in_key else value).append(ch)
                continue
            if in_key and ch in "=:":
                in_key = False
                i += 1
                while i < len(stripped) and stripped[i] in " \t":
                    i += 1
                continue
            (key if in_key else value).append(ch)
            i += 1
        values["".join(key).rstrip()] = "".join(value)
    return values
