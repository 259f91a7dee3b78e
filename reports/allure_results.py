"""Read an Allure results directory back: one record per case run, from the labels we wrote."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import case_report as cr
from .allure_files import ENVIRONMENT_FILE, parse_properties


@dataclass(frozen=True)
class CaseRun:
    """One case on one device, as recorded in one ``*-result.json``."""

    spec_test: str
    case: str
    device: str
    profile: str
    adrs: tuple[str, ...]
    verdict: str

    @property
    def device_key(self) -> str:
        return device_key(self.device, self.profile)


def device_key(device: str, profile: str) -> str:
    """How a device column is named: the device and the profile it ran under."""
    return f"{device} ({profile})" if profile else device


@dataclass(frozen=True)
class Results:
    runs: tuple[CaseRun, ...]
    environment: dict[str, str]
    foreign: int  # results without our labels (other tests written to the same directory)
    unlabelled: int = 0  # results with no labels at all (left by a killed run): skipped


class ResultsError(ValueError):
    """The results directory cannot be read; the message names the file and what is wrong."""


def verdict_from_status(status: str, message: str) -> str:
    """The verdict of a result that carries no verdict label (a run interrupted before it was set)."""
    if status == "passed":
        return cr.PASS
    if status == "skipped":
        return cr.NOT_OBSERVABLE if "not observable" in message else cr.NOT_SUPPORTED
    if status == "failed" and "device error" not in message:
        return cr.FAIL
    return cr.DEVICE_ERROR


def read(results_dir: Path) -> Results:
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise ResultsError(f"{results_dir}: not a directory of Allure results")
    latest: dict[tuple, tuple[int, CaseRun]] = {}
    foreign = unlabelled = 0
    for path in sorted(results_dir.glob("*-result.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ResultsError(f"{path}: not a readable Allure result ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("labels", []), list):
            raise ResultsError(f"{path}: an Allure result must be an object with a 'labels' list")
        if "labels" not in data:
            unlabelled += 1
            continue
        run = _case_run(data, path)
        if run is None:
            foreign += 1
            continue
        # A retried test leaves one result per attempt: keep the last.
        key = (run.spec_test, run.case, run.device_key)
        stop = data.get("stop") if isinstance(data.get("stop"), int) else 0
        if key not in latest or stop >= latest[key][0]:
            latest[key] = (stop, run)
    env_path = results_dir / ENVIRONMENT_FILE
    env = parse_properties(env_path.read_text(encoding="utf-8")) if env_path.is_file() else {}
    runs = tuple(sorted((run for _, run in latest.values()),
                        key=lambda r: (r.spec_test, r.case, r.device_key)))
    return Results(runs, env, foreign, unlabelled)


def _case_run(data: dict, path: Path):
    labels: dict[str, list[str]] = {}
    for label in data["labels"]:
        if not isinstance(label, dict) or not isinstance(label.get("name"), str):
            raise ResultsError(f"{path}: label {label!r} has no name")
        labels.setdefault(label["name"], []).append(str(label.get("value", "")))
    if cr.SPEC_TEST not in labels:
        return None
    missing = [n for n in (cr.CASE, cr.DEVICE) if n not in labels]
    if missing:
        raise ResultsError(f"{path}: result labelled {cr.SPEC_TEST} lacks label(s) {', '.join(missing)}")

    def one(name: str) -> str:
        return labels.get(name, [""])[0]

    status = str(data.get("status") or "unknown")
    message = str((data.get("statusDetails") or {}).get("message") or "")
    verdict = one(cr.VERDICT) or verdict_from_status(status, message)
    if verdict not in cr.VERDICTS:
        raise ResultsError(f"{path}: unknown verdict {verdict!r} (known: {', '.join(cr.VERDICTS)})")
    return CaseRun(spec_test=one(cr.SPEC_TEST), case=one(cr.CASE), device=one(cr.DEVICE),
                   profile=one(cr.PROFILE), adrs=tuple(sorted(set(labels.get(cr.ADR, [])))),
                   verdict=verdict)
