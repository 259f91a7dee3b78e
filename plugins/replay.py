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
state, program). A case whose state or program changed since it was recorded is
*not supported* by the replay device; it is never a pass. A case missing from a
recording that says it is complete (``"complete": true``, as ``--record`` writes) is a
device error of that recording; missing from a partial replay or from a hand-written
file without ``complete``, it is not supported. Hand-written observation files may
leave the case digests out; such an answer is taken for the case of that ID as it is.

The recording as a whole carries ``"digest"``: SHA-256 over its canonical JSON
(``recording_digest``: every member but ``digest``, keys sorted, no spaces): the header,
each device's label and capabilities, and every answer. Replay recomputes it and refuses
a recording whose content no longer matches (an answer or a label edited after it was
written). The replay device shows the digest and the device line the answers came from
(its label and what the device said of itself) in ``Capabilities.extras``, which the
bring-up report and the Allure environment print. A digest detects edits made after the
recording was written; it does not prove that the device that made it told the truth,
and whoever can run pto-avs can write a new recording with a new digest: compare the
digest a report shows with the one published with the recording. A file without a digest
(hand-written) replays, shown as ``unsigned``.

An observation carries the memory members of protocol 1.1 as the device gave them (the
memory image, the event log, the fault address, the shared tiles); a recorded device's
``memory``/``events``/``shared_tiles`` capabilities come back with it, so a case needing one it
lacked is not supported on replay. A recording written before these existed reads as before:
its devices had none of them, and its case digests are unchanged (an empty memory, per-PE GPR
or shared tile member of a case's state is left out of the digest).

Bounds: a recording is read as a stream, at most ``MAX_RECORDING_BYTES`` of JSON text
(after decompression); past that it is refused.

File format (JSON)::

    {"format": "pto-avs-recording/1",
     "complete": true,               (false, with "incomplete": "<why>", for a run cut short;
                                      absent: complete)
     "digest": "<sha256>",           (over everything else; absent: a hand-written file)
     "devices": {"<label>": {"capabilities": {...},          (profile, operations, dtypes,
                                                              aspects, direct_calls, device;
                                                              memory, events, shared_tiles
                                                              when true)
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

from ..contract.case import ASPECTS, PROFILES, Case, Observation
from .base import NEEDS, Capabilities, Device

RECORDING_FORMAT = "pto-avs-recording/1"
PARTIAL = "partial:"  # replay:partial:FILE replays an incomplete recording
MAX_RECORDING_BYTES = 512 * 1024 * 1024  # JSON text of one recording (the committed one: about 50 MB)
UNSIGNED = "unsigned (no digest: a hand-written recording)"


def recording_digest(data: dict) -> str:
    """SHA-256 of a recording's JSON without its ``digest`` member: keys sorted, no spaces, ASCII."""
    body = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def device_line(label: str, capabilities: dict) -> str:
    """The device a recorded device entry came from: its label and what it said of itself."""
    said = capabilities.get("device") if isinstance(capabilities.get("device"), dict) else {}
    return label + (f" ({', '.join(f'{k}={v}' for k, v in sorted(said.items()))})" if said else "")


# State members of protocol 1.1 (issue 23); left out of a case's digest when empty, so that a case
# without them keeps the digest it was recorded under before they existed.
STATE_MEMBERS_1_1 = ("memory", "pe_gprs", "shared_tiles")


def case_digest(case: Case) -> str:
    """What a case runs (not what it expects), as a stable hash: its operation, initial state and
    program (an empty memory, per-PE GPR or shared tile member of the state counts as absent)."""
    data = case.to_json()
    state = data["state"]
    if any(state.get(k) in (None, {}, [], ()) for k in STATE_MEMBERS_1_1 if k in state):
        data = {**data, "state": {k: v for k, v in state.items()
                                  if not (k in STATE_MEMBERS_1_1 and v in (None, {}, [], ()))}}
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def capabilities_to_json(caps: Capabilities) -> dict:
    out = {
        "profile": caps.profile,
        "operations": sorted(caps.operations),
        "dtypes": None if caps.dtypes is None else sorted(caps.dtypes),
        "aspects": sorted(caps.aspects),
        "direct_calls": caps.direct_calls,
    }
    for need in NEEDS:  # written only when true: a recording of a device without them reads as before
        if getattr(caps, need):
            out[need] = True
    said = {str(k): str(v) for k, v in caps.extras.items() if v is not None and not str(k).startswith("recording")}
    if said:
        out["device"] = said  # what the device said of itself (the spec device: checkout, interpreter, commit)
    return out


def _names(data: dict, member: str, known=None) -> frozenset:
    value = data.get(member)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{member}' must be a list of names, not {type(value).__name__} {json.dumps(value)[:60]}")
    unknown = sorted(set(value) - set(known)) if known is not None else []
    if unknown:
        raise ValueError(f"'{member}': {unknown[0]!r} is not one of {', '.join(known)}")
    return frozenset(value)


def capabilities_from_json(data: dict) -> Capabilities:
    """Capabilities read back; ValueError names a member of the wrong JSON type or meaning."""
    if not isinstance(data, dict):
        raise ValueError(f"capabilities must be an object, not {type(data).__name__}")
    profile = data.get("profile")
    if profile not in PROFILES:
        raise ValueError(f"'profile' must be one of {', '.join(PROFILES)}, not {json.dumps(profile)[:60]}")
    if data.get("dtypes") is not None:
        dtypes = _names(data, "dtypes")
    else:
        dtypes = None
    direct_calls = data.get("direct_calls", False)
    if not isinstance(direct_calls, bool):
        raise ValueError(f"'direct_calls' must be true or false, not {json.dumps(direct_calls)[:60]}")
    state = {}
    for need in NEEDS:
        value = data.get(need, False)
        if not isinstance(value, bool):
            raise ValueError(f"'{need}' must be true or false, not {json.dumps(value)[:60]}")
        state[need] = value
    if "device" in data and not (isinstance(data["device"], dict)
                                 and all(isinstance(v, str) for v in data["device"].values())):
        raise ValueError("'device' must map names to text")
    return Capabilities(profile=profile, operations=_names(data, "operations"), dtypes=dtypes,
                        aspects=_names(data, "aspects", ASPECTS), direct_calls=direct_calls, **state)


def _plain(value):
    """JSON default for what a device may leave in an observation (numpy scalars and arrays)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


class Recording:
    """Answers of devices, by device label and case ID; ``incomplete`` says why the run
    that made it was cut short (empty: it was not)."""

    def __init__(self, devices: Optional[dict] = None, incomplete: str = "", digest: Optional[str] = None,
                 says_complete: bool = False):
        self.devices: dict[str, dict] = devices or {}
        self.incomplete = incomplete
        self.digest = digest  # as read back and checked (None: the file had none)
        self.says_complete = says_complete  # the file read back said "complete": true

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
        data = {**header, "devices": devices}
        return {**data, "digest": recording_digest(data)}

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
        digest = data.get("digest")
        if digest is not None:
            content = recording_digest(data)
            if digest != content:
                raise ValueError(f"its digest does not match its content: it was edited after it was written "
                                 f"(recorded digest {str(digest)[:64]}, content {content})")
        for label, entry in devices.items():
            try:
                capabilities_from_json(entry["capabilities"])
            except ValueError as exc:
                raise ValueError(f"capabilities of {label}: {exc}") from None
        reason = data.get("incomplete")
        if not complete and not (isinstance(reason, str) and reason):
            reason = "the recording says it is incomplete"
        return cls(devices, "" if complete else reason, digest, data.get("complete") is True)

    def write(self, path: Path) -> None:
        """Write the whole file or nothing: a temporary file beside it, then an atomic rename.
        A name ending in ``.gz`` is written gzip-compressed."""
        path = Path(path)
        data = json.dumps(self.to_json(), separators=(",", ":")).encode()
        if len(data) > MAX_RECORDING_BYTES:
            raise ValueError(f"recording {path}: {len(data)} bytes of JSON, more than {MAX_RECORDING_BYTES}, "
                             f"the bound replay reads")
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
        try:
            data = json.loads(_read_bounded(path).decode("utf-8"))
        except (OSError, EOFError, gzip.BadGzipFile, json.JSONDecodeError, UnicodeDecodeError, RecursionError,
                ValueError) as exc:
            raise ValueError(f"cannot read recording {path}: {exc}") from None
        try:
            return cls.from_json(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None


def _read_bounded(path: Path) -> bytes:
    """The recording's JSON text, read (and decompressed) in pieces; ValueError past MAX_RECORDING_BYTES."""
    opener = gzip.open if path.suffix == ".gz" else open
    text = bytearray()
    with opener(path, "rb") as stream:
        while True:
            piece = stream.read(1 << 20)
            if not piece:
                return bytes(text)
            text += piece
            if len(text) > MAX_RECORDING_BYTES:
                raise ValueError(f"more than {MAX_RECORDING_BYTES} bytes of JSON"
                                 + (" after decompression" if opener is gzip.open else "")
                                 + ", the bound of a recording")


class ReplayDevice(Device):
    """Plays back one device's answers from a recording."""

    name = "replay"

    def __init__(self, path: Path, label: str, entry: dict, digest: Optional[str] = None,
                 missing_is_error: bool = False):
        self.path = path
        self.label = label
        self.digest = digest
        self.missing_is_error = missing_is_error  # a complete recording: a case it lacks is its error
        caps = capabilities_from_json(entry["capabilities"])
        self.capabilities = Capabilities(
            caps.profile, caps.operations, caps.dtypes, caps.aspects, caps.direct_calls,
            extras={"recording": str(path), "recording.digest": digest or UNSIGNED,
                    "recording.device": device_line(label, entry["capabilities"])},
            memory=caps.memory, events=caps.events, shared_tiles=caps.shared_tiles, feature_maps=caps.feature_maps)
        self.cases = entry["cases"]

    def evidence(self) -> str:
        """One line: which recording, its digest, the device line its answers came from."""
        extras = self.capabilities.extras
        return (f"{extras['recording']}: digest {extras['recording.digest']}; "
                f"recorded from {extras['recording.device']}")

    def supports(self, case: Case) -> Optional[str]:
        recorded = self.cases.get(case.id)
        if recorded is None:
            if self.missing_is_error:
                return super().supports(case)  # (then execute says the recording lacks it)
            return f"{case.id} is not in recording {self.path} ({self.label})"
        if not isinstance(recorded, dict):
            return None  # (execute says what is wrong with it)
        if "digest" in recorded and recorded["digest"] != case_digest(case):
            return f"recording {self.path} ran a different state or program for {case.id} (the vector changed)"
        if "unsupported" in recorded:
            return f"{recorded['unsupported']} (recorded from {self.label})"
        return None

    def execute(self, case: Case) -> Observation:
        reason = self.supports(case)
        if reason is not None:
            return Observation.device_error(reason)
        recorded = self.cases.get(case.id)
        if recorded is None:
            return Observation.device_error(
                f"{case.id} is missing from recording {self.path} ({self.label}), which says it is complete: "
                f"an error of that recording (replay:{PARTIAL}FILE treats a missing case as not supported)")
        if not isinstance(recorded, dict):
            return Observation.device_error(f"malformed recorded answer for {case.id}: not an object")
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
        return ReplayDevice(Path(path), label, recording.devices[label], recording.digest,
                            missing_is_error=recording.says_complete and not partial)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"recording {path}: malformed capabilities of {label}: {exc!r}") from None
