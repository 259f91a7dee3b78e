"""Recordings of device runs, and the replay device that plays them back.

``pytest avs/ --record FILE`` (``FILE.gz``: compressed) writes, for every device of the run, its capabilities
and, per case, what it answered: the observation, or the reason it did not
support the case. ``pytest avs/ --device replay:FILE`` later judges those answers
against the current vectors without the device. A recording of several devices
needs the device's label: ``--device replay:FILE@golden:hw-ieee``.

A run that was cut short (interrupted, stopped early, a worker lost) writes its
recording marked incomplete (``"complete": false`` and the reason in
``"incomplete"``). Replay refuses such a file, since every case the run never
reached would be reported not supported, unless asked for a partial replay:
``--device replay:partial:FILE``.

Every recorded answer carries a digest of what the case ran (operation, initial
state, program). A case that is missing from the recording, or whose state or
program changed since it was recorded, is *not supported* by the replay device;
it is never a pass. Hand-written observation files may leave the digest out; such
an answer is taken for the case of that ID as it is.

File format (JSON)::

    {"format": "pto-avs-recording/1",
     "complete": true,               (false, with "incomplete": "<why>", for a run cut short;
                                      absent: complete)
     "devices": {"<label>": {"capabilities": {...},
                             "cases": {"<vector id>::<case>": {"digest": "<sha256>",
                                                               "observation": {...}}
                                       | {"digest": ..., "unsupported": "<reason>"}}}}}
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

from ..contract.case import Case, Observation
from .base import Capabilities, Device

RECORDING_FORMAT = "pto-avs-recording/1"
PARTIAL = "partial:"  # replay:partial:FILE replays an incomplete recording


def case_digest(case: Case) -> str:
    """What a case runs (not what it expects), as a stable hash."""
    text = json.dumps(case.to_json(), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def capabilities_to_json(caps: Capabilities) -> dict:
    return {
        "profile": caps.profile,
        "operations": sorted(caps.operations),
        "dtypes": None if caps.dtypes is None else sorted(caps.dtypes),
        "aspects": sorted(caps.aspects),
        "direct_calls": caps.direct_calls,
    }


def capabilities_from_json(data: dict) -> Capabilities:
    return Capabilities(
        profile=data["profile"],
        operations=frozenset(data["operations"]),
        dtypes=None if data.get("dtypes") is None else frozenset(data["dtypes"]),
        aspects=frozenset(data["aspects"]),
        direct_calls=bool(data.get("direct_calls", False)),
    )


def _plain(value):
    """JSON default for what a device may leave in an observation (numpy scalars and arrays)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


class Recording:
    """Answers of devices, by device label and case ID; ``incomplete`` says why the run
    that made it was cut short (empty: it was not)."""

    def __init__(self, devices: Optional[dict] = None, incomplete: str = ""):
        self.devices: dict[str, dict] = devices or {}
        self.incomplete = incomplete

    @property
    def complete(self) -> bool:
        return not self.incomplete

    def mark_incomplete(self, reason: str) -> None:
        if reason and reason not in self.incomplete.split("; "):
            self.incomplete = f"{self.incomplete}; {reason}" if self.incomplete else reason

    def _device(self, label: str, caps: Capabilities) -> dict:
        return self.devices.setdefault(label, {"capabilities": capabilities_to_json(caps), "cases": {}})

    def add_observation(self, label: str, caps: Capabilities, case: Case, observation: Observation) -> None:
        # Through JSON now, so a recording never holds a device's live objects.
        data = json.loads(json.dumps(observation.to_json(), default=_plain))
        self._device(label, caps)["cases"][case.id] = {"digest": case_digest(case), "observation": data}

    def add_unsupported(self, label: str, caps: Capabilities, case: Case, reason: str) -> None:
        self._device(label, caps)["cases"][case.id] = {"digest": case_digest(case), "unsupported": reason}

    def merge(self, other: "Recording") -> None:
        for label, entry in other.devices.items():
            mine = self.devices.setdefault(label, {"capabilities": entry["capabilities"], "cases": {}})
            mine["cases"].update(entry["cases"])
        for reason in filter(None, other.incomplete.split("; ")):
            self.mark_incomplete(reason)

    def to_json(self) -> dict:
        devices = {label: {"capabilities": e["capabilities"], "cases": dict(sorted(e["cases"].items()))}
                   for label, e in sorted(self.devices.items())}
        header = {"format": RECORDING_FORMAT, "complete": self.complete}
        if self.incomplete:
            header["incomplete"] = self.incomplete
        return {**header, "devices": devices}

    @classmethod
    def from_json(cls, data) -> "Recording":
        if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
            raise ValueError(f"not a {RECORDING_FORMAT} recording")
        devices = data.get("devices")
        if not isinstance(devices, dict) or not all(
                isinstance(e, dict) and isinstance(e.get("capabilities"), dict) and isinstance(e.get("cases"), dict)
                for e in devices.values()):
            raise ValueError("'devices' must map labels to {capabilities, cases}")
        complete = data.get("complete", True)
        if not isinstance(complete, bool):
            raise ValueError("'complete' must be true or false")
        reason = data.get("incomplete")
        if not complete and not (isinstance(reason, str) and reason):
            reason = "the recording says it is incomplete"
        return cls(devices, "" if complete else reason)

    def write(self, path: Path) -> None:
        """Write the whole file or nothing: a temporary file beside it, then an atomic rename.
        A name ending in ``.gz`` is written gzip-compressed."""
        path = Path(path)
        data = json.dumps(self.to_json(), separators=(",", ":")).encode()
        if path.suffix == ".gz":
            data = gzip.compress(data)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a recording is an ordinary file
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    @classmethod
    def read(cls, path: Path) -> "Recording":
        path = Path(path)
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8") as text:
                data = json.load(text)
        except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read recording {path}: {exc}") from None
        try:
            return cls.from_json(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None


class ReplayDevice(Device):
    """Plays back one device's answers from a recording."""

    name = "replay"

    def __init__(self, path: Path, label: str, entry: dict):
        self.path = path
        self.label = label
        self.capabilities = capabilities_from_json(entry["capabilities"])
        self.cases = entry["cases"]

    def supports(self, case: Case) -> Optional[str]:
        recorded = self.cases.get(case.id)
        if recorded is None:
            return f"{case.id} is not in recording {self.path} ({self.label})"
        if "digest" in recorded and recorded["digest"] != case_digest(case):
            return f"recording {self.path} ran a different state or program for {case.id} (the vector changed)"
        if "unsupported" in recorded:
            return f"{recorded['unsupported']} (recorded from {self.label})"
        return None

    def execute(self, case: Case) -> Observation:
        reason = self.supports(case)
        if reason is not None:
            return Observation.device_error(reason)
        try:
            return Observation.from_json(self.cases[case.id]["observation"])
        except (ValueError, KeyError, TypeError) as exc:
            return Observation.device_error(f"malformed recorded observation: {exc}")


def open_device(arg: Optional[str]) -> ReplayDevice:
    """``FILE`` (a recording of one device) or ``FILE@LABEL`` (one of several), each
    optionally after ``partial:`` to replay a recording marked incomplete."""
    if not arg:
        raise ValueError("replay needs a recording: --device replay:[partial:]FILE[@DEVICE]")
    partial = arg.startswith(PARTIAL) and not Path(arg).is_file()
    if partial:
        arg = arg[len(PARTIAL):]
    path, label = arg, None
    if not Path(arg).is_file():  # FILE@LABEL; a label may itself contain '@' (a replayed replay)
        splits = [i for i, ch in enumerate(arg) if ch == "@" and Path(arg[:i]).is_file()]
        if splits:
            path, label = arg[:splits[0]], arg[splits[0] + 1:]
    recording = Recording.read(Path(path))
    if not recording.complete and not partial:
        raise ValueError(f"recording {path} is incomplete ({recording.incomplete}): cases its run never reached "
                         f"would all be reported not supported. To replay the answers it holds anyway: "
                         f"--device replay:{PARTIAL}{arg}")
    labels = sorted(recording.devices)
    if label is None:
        if len(labels) != 1:
            choices = ", ".join(f"replay:{path}@{lab}" for lab in labels) or "none: the recording is empty"
            raise ValueError(f"recording {path} holds {len(labels)} devices; choose one: {choices}")
        label = labels[0]
    if label not in recording.devices:
        raise ValueError(f"recording {path} holds no device {label!r} (it holds {', '.join(labels) or 'none'})")
    try:
        return ReplayDevice(Path(path), label, recording.devices[label])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"recording {path}: malformed capabilities of {label}: {exc!r}") from None
