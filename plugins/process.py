"""The process device: an external program speaking the pto-avs device protocol.

``--device process:<command line>`` starts the program and exchanges JSON lines
with it over stdin/stdout (``plugins/protocol.md``, version 1.2): the program
announces its capabilities in a ``hello``, gets cases in ``execute`` requests of
up to ``max_batch`` cases (program text already assembled into words) and
answers each request with one ``results`` line.

Version 1.1 adds the state of issue 23: the case's global memory, per-PE GPR files and
shared tiles, and in the answer the memory image, the memory-event log, the data-fault
address and the shared tiles, each capability announced in the hello. A device that
announces 1.0 keeps working: a case that needs memory, events, per-PE GPRs or shared
tiles is not sent to it and is reported not supported (never passed).
Version 1.2 adds a state tile's feature-map descriptor (``feature_map``, which TIMG2COL
reads) under the ``feature_maps`` capability; a case with one is not sent to a device of
version 1.0 or 1.1, nor to one that does not announce the capability.

A device that crashes, hangs past the timeout or answers garbage never stops or
hangs the run: the cases that got no valid answer become device-error
observations, the process is killed and restarted for the remaining cases, and
a request of several cases that failed as a whole is rerun one case per request
so that the case that broke the device is told apart from its batch mates.
``execute``/``execute_batch`` never raise.

Settings (environment): ``PTO_AVS_PROCESS_TIMEOUT`` (seconds per request,
default 60), ``PTO_AVS_PROCESS_START_TIMEOUT`` (seconds to the hello, default
60), ``PTO_AVS_PROCESS_MAX_BATCH`` (an upper bound on cases per request),
``PTO_AVS_PROCESS_MAX_FAILURES`` (consecutive failed requests, each followed by
a restart, after which the device is given up for the rest of the run; default 3).
"""
from __future__ import annotations

import collections
import functools
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import weakref
from typing import Iterable, Optional

from ..contract import spec_data
from ..contract.case import ASPECTS, PROFILES, Case, Observation, TileObservation, tile_meaning_problem
from ..device_model.dtypes import NAMES as DTYPE_NAMES
from ..device_model.encoding import assemble, raw_instruction
from .base import NEEDS, Capabilities, Device, case_needs, memory_answer_problem

PROTOCOL = "pto-avs-device"
PROTOCOL_MAJOR = 1
PROTOCOL_VERSION = "1.2"
MEMORY_MINOR = 1  # the first minor version that carries memory, events, per-PE GPRs and shared tiles
# The first minor version that carries each state member a case may need (base.NEEDS).
NEED_MINOR = {"memory": MEMORY_MINOR, "events": MEMORY_MINOR, "shared_tiles": MEMORY_MINOR, "feature_maps": 2}
DEFAULT_TIMEOUT = 60.0
DEFAULT_START_TIMEOUT = 60.0
DEFAULT_MAX_BATCH = 64
MAX_CONSECUTIVE_FAILURES = 3
SHUTDOWN_GRACE = 5.0
STDERR_KEPT = 4096  # bytes of the device's stderr quoted in device-error messages
UNSUPPORTED = "not supported"  # prefix of the error of a case the device answered `unsupported`


class ProtocolError(Exception):
    """The device process broke the protocol (or died); it is no longer trusted."""


class VersionError(ProtocolError):
    """The device speaks another major version of the protocol."""


_RUNNING: "weakref.WeakSet[_Process]" = weakref.WeakSet()


def kill_all_devices() -> None:
    """SIGKILL every device process group this process started, without waiting: for a
    runner that must stop at once (the signals are sent before this returns)."""
    for process in list(_RUNNING):
        if process.popen.poll() is None:
            try:
                os.killpg(process.popen.pid, signal.SIGKILL)
            except OSError:
                pass


class _Process:
    """One running device program: JSON lines in and out, the tail of its stderr kept."""

    def __init__(self, argv: list[str]):
        try:
            self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise ProtocolError(f"cannot start {shlex.join(argv)!r}: {exc}") from None
        self.lines: queue.Queue = queue.Queue()
        self.stderr: collections.deque = collections.deque()
        self.stderr_size = 0
        self.lock = threading.Lock()
        self.line_number = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()
        self._finalizer = weakref.finalize(self, _kill_group, self.popen)
        _RUNNING.add(self)

    def _read_stdout(self) -> None:
        try:
            for raw in self.popen.stdout:
                self.lines.put(raw)
        except (OSError, ValueError):
            pass
        self.lines.put(None)  # end of output

    def _read_stderr(self) -> None:
        try:
            while chunk := self.popen.stderr.read1(4096):
                with self.lock:
                    self.stderr.append(chunk)
                    self.stderr_size += len(chunk)
                    while self.stderr_size - len(self.stderr[0]) >= STDERR_KEPT:
                        self.stderr_size -= len(self.stderr.popleft())
        except (OSError, ValueError):
            pass

    def stderr_tail(self) -> str:
        if self.popen.poll() is not None:
            self._stderr_reader.join(timeout=1.0)  # let the last words of a dead device arrive
        with self.lock:
            text = b"".join(self.stderr)[-STDERR_KEPT:].decode("utf-8", "replace").strip()
        return text

    def send(self, message: dict) -> None:
        data = (json.dumps(message, separators=(",", ":"), default=_json_default) + "\n").encode()
        try:
            self.popen.stdin.write(data)
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ProtocolError(self._gone("closed its input")) from None

    def receive(self, timeout: float, waiting_for: str) -> dict:
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(f"no {waiting_for} within {timeout:g} s (device hung; killed)") from None
        if raw is None:
            raise ProtocolError(self._gone(f"closed its output before the {waiting_for}"))
        self.line_number += 1
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ProtocolError(f"output line {self.line_number} is not JSON: {_clip(raw)} "
                                f"(devices write only protocol messages to stdout, logs to stderr)") from None
        if not isinstance(message, dict):
            raise ProtocolError(f"output line {self.line_number} is not a JSON object: {_clip(raw)}")
        return message

    def _gone(self, what: str) -> str:
        try:
            status = self.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return f"device {what}"
        return f"device {what}: it {_exit_status(status)}"

    def last_words(self) -> str:
        """Stop the process (if it still runs) and return the tail of its stderr, all of it read."""
        _end_group(self.popen)
        return self.stderr_tail()

    def kill(self) -> None:
        self._finalizer()

    def shutdown(self) -> None:
        try:
            self.send({"type": "shutdown"})
            self.popen.stdin.close()
            self.popen.wait(timeout=SHUTDOWN_GRACE)
        except (ProtocolError, OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def _exit_status(status: int) -> str:
    if status >= 0:
        return f"exited with status {status}"
    try:
        name = f" ({signal.Signals(-status).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-status}{name}"


def _end_group(popen: subprocess.Popen) -> None:
    """Kill the device's process group, if the device still runs, and reap it."""
    if popen.poll() is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            popen.kill()
    try:
        popen.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass


def _kill_group(popen: subprocess.Popen) -> None:
    _end_group(popen)
    for stream in (popen.stdin, popen.stdout, popen.stderr):
        try:
            stream.close()
        except OSError:
            pass


def _json_default(value):
    if hasattr(value, "__index__"):  # numpy integers
        return int(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _clip(raw, limit: int = 120) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    text = text.rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


# ---------------------------------------------------------------------------
# hello


def parse_hello(message: dict) -> tuple[str, Capabilities, int]:
    """(device name, capabilities, max batch) from a hello; ProtocolError names what is wrong."""
    if message.get("type") != "hello":
        raise ProtocolError(f"first message is not a hello: {_clip(json.dumps(message))}")
    if message.get("protocol") != PROTOCOL:
        raise ProtocolError(f"hello names protocol {message.get('protocol')!r}, not {PROTOCOL!r}")
    version = message.get("version")
    major, _, minor = str(version).partition(".")
    if not (isinstance(version, str) and major.isdigit() and minor.isdigit()):
        raise ProtocolError(f"hello version {version!r} is not 'MAJOR.MINOR'")
    if int(major) != PROTOCOL_MAJOR:
        raise VersionError(f"device speaks {PROTOCOL} version {version}; this adapter speaks version "
                           f"{PROTOCOL_MAJOR}.x ({PROTOCOL_VERSION}) and refuses it")
    name = message.get("device")
    if not isinstance(name, str) or not name:
        raise ProtocolError("hello has no 'device' name")
    caps = message.get("capabilities")
    if not isinstance(caps, dict):
        raise ProtocolError("hello has no 'capabilities' object")

    def names(key: str, known: tuple, default):
        value = caps.get(key, default)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProtocolError(f"hello capabilities.{key} must be a list of names")
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ProtocolError(f"hello capabilities.{key} names unknown {', '.join(unknown)}")
        return frozenset(value)

    profile = caps.get("profile")
    if profile not in PROFILES:
        raise ProtocolError(f"hello capabilities.profile must be one of {', '.join(PROFILES)}, not {profile!r}")
    if "operations" not in caps:
        raise ProtocolError("hello capabilities.operations is missing")
    operations = names("operations", spec_data.operation_names(), [])
    dtypes = names("dtypes", DTYPE_NAMES, None)
    aspects = names("aspects", ASPECTS, list(ASPECTS))
    direct_calls = caps.get("direct_calls", False)
    max_batch = caps.get("max_batch", DEFAULT_MAX_BATCH)
    extras = caps.get("extras", {})
    if not isinstance(direct_calls, bool):
        raise ProtocolError("hello capabilities.direct_calls must be true or false")
    state = {}
    for need in NEEDS:  # absent is false; a device of an older minor version has none it cannot carry
        value = caps.get(need, False)
        if not isinstance(value, bool):
            raise ProtocolError(f"hello capabilities.{need} must be true or false")
        state[need] = value and int(minor) >= NEED_MINOR[need]
    if aspects is not None:  # an aspect of state the device does not model is not one it observes
        aspects = frozenset(a for a in aspects if a not in NEEDS or state[a])
    if not isinstance(max_batch, int) or isinstance(max_batch, bool) or max_batch < 1:
        raise ProtocolError("hello capabilities.max_batch must be a positive integer")
    if not isinstance(extras, dict):
        raise ProtocolError("hello capabilities.extras must be an object")
    capabilities = Capabilities(profile=profile, operations=operations or frozenset(), dtypes=dtypes,
                                aspects=aspects, direct_calls=direct_calls,
                                extras={**extras, "device": name, "protocol_version": version}, **state)
    return name, capabilities, max_batch


# ---------------------------------------------------------------------------
# cases -> requests


@functools.lru_cache(maxsize=4096)
def _assembled(text: str) -> tuple:
    return tuple((ins.word, ins.length) for ins in assemble(text))


def program_items(case: Case) -> list[dict]:
    """The case's program as protocol items; ValueError when its text does not assemble."""
    items = []
    for item in case.program:
        if isinstance(item, str):
            items += [{"word": word, "bits": length} for word, length in _assembled(item)]
        elif isinstance(item, dict):
            items.append(dict(item))
        else:
            ins = raw_instruction(item)
            items.append({"word": ins.word, "bits": ins.length})
    return items


def _hex(data) -> str:
    """Bytes of a memory region as the protocol's hex string (two lowercase digits a byte)."""
    if isinstance(data, str):
        return "".join(data.split()).lower()
    return bytes(data).hex()


def memory_json(memory: dict) -> dict:
    """``state.memory`` in the protocol's shape: the size and the regions, each an integer address
    and its bytes as a hex string."""
    out = {k: v for k, v in memory.items() if v is not None and k != "regions"}
    out["regions"] = [{**{k: v for k, v in region.items() if v is not None and k != "bytes"},
                       "bytes": _hex(region.get("bytes", ""))} for region in memory.get("regions") or ()]
    return out


def state_json(state: dict) -> dict:
    """The case's initial state in the protocol's shape (absent members left out, not null)."""
    out = {k: v for k, v in state.items() if v is not None and k not in ("tiles", "shared_tiles")}
    if "gprs" in out:
        out["gprs"] = {str(k): v for k, v in out["gprs"].items()}
    if "tiles" in state:
        out["tiles"] = [{k: v for k, v in tile.items() if v is not None} for tile in state["tiles"]]
    if "memory" in out:
        out["memory"] = memory_json(out["memory"])
    if "pe_gprs" in out:
        out["pe_gprs"] = {str(pe): {str(k): v for k, v in gprs.items()} for pe, gprs in out["pe_gprs"].items()}
    if state.get("shared_tiles") is not None:
        out["shared_tiles"] = [{k: v for k, v in tile.items() if v is not None} for tile in state["shared_tiles"]]
    return out


def request_case(case: Case, profile: str) -> dict:
    return {"id": case.id, "operation": case.operation, "profile": profile,
            "state": state_json(case.state), "program": program_items(case)}


# ---------------------------------------------------------------------------
# the device


def _env_number(name: str, default, kind=float):
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise ValueError(f"{name}={text!r} must be a positive {'integer' if kind is int else 'number'}")
    return value


class ProcessDevice(Device):
    """A device program run as a child process (see the module docstring)."""

    def __init__(self, argv: list[str], *, timeout: Optional[float] = None,
                 start_timeout: Optional[float] = None, max_batch: Optional[int] = None,
                 max_failures: Optional[int] = None):
        if not argv:
            raise ValueError("process device needs a command line: --device process:<command>")
        self.argv = list(argv)
        self.timeout = timeout or _env_number("PTO_AVS_PROCESS_TIMEOUT", DEFAULT_TIMEOUT)
        self.start_timeout = start_timeout or _env_number("PTO_AVS_PROCESS_START_TIMEOUT", DEFAULT_START_TIMEOUT)
        batch_limit = max_batch or _env_number("PTO_AVS_PROCESS_MAX_BATCH", None, int)
        self.max_failures = max_failures or _env_number("PTO_AVS_PROCESS_MAX_FAILURES", MAX_CONSECUTIVE_FAILURES, int)
        self._process: Optional[_Process] = None
        self._batch_number = 0
        self._failures = 0  # consecutive failed requests
        self._given_up: Optional[str] = None
        self._unsupported: dict[str, str] = {}  # case id -> the device's own reason
        self.restarts = 0
        try:
            self.name, self.capabilities, device_batch = parse_hello(self._start())
        except ProtocolError as exc:
            message = self._with_stderr(str(exc))
            self._stop()
            raise ValueError(f"process device {shlex.join(self.argv)!r} cannot be opened: {message}") from None
        self.batch_size = min(device_batch, batch_limit or device_batch)

    # -- process lifetime

    def _start(self) -> dict:
        self._process = _Process(self.argv)
        return self._process.receive(self.start_timeout, "hello")

    def _ensure_process(self) -> _Process:
        if self._process is None:
            self.restarts += 1
            _, capabilities, _ = parse_hello(self._start())
            if capabilities != self.capabilities:
                raise ProtocolError("the restarted device announced different capabilities")
        return self._process

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def close(self) -> None:
        if self._process is not None:
            self._process.shutdown()
            self._process = None

    def _with_stderr(self, message: str) -> str:
        """``message`` and the device's last words on stderr (the process is stopped first)."""
        tail = self._process.last_words() if self._process is not None else ""
        return f"{message}; device stderr: {tail}" if tail else message

    # -- Device interface

    def supports(self, case: Case) -> Optional[str]:
        """The base rules, then a program that does not assemble, then what the device
        itself answered ``unsupported`` for this case in an earlier execution."""
        reason = self._static_reason(case)
        if reason is None:
            try:
                program_items(case)
            except ValueError as exc:
                return f"cannot assemble the program: {exc}"
        return reason

    def _static_reason(self, case: Case) -> Optional[str]:
        return self._version_reason(case) or super().supports(case) or self._unsupported.get(case.id)

    def _version_reason(self, case: Case) -> Optional[str]:
        """A device of an older minor version gets no state its version does not carry (1.0: none of
        issue 23's; 1.1: no feature maps): the reason a case that has some is not sent."""
        version = str(self.capabilities.extras.get("protocol_version", PROTOCOL_VERSION))
        minor = int(version.partition(".")[2])
        lacking = [(need.replace("_", " "), NEED_MINOR[need]) for need in case_needs(case) if minor < NEED_MINOR[need]]
        if case.state.get("pe_gprs") and minor < MEMORY_MINOR:
            lacking.append(("per-PE GPR files", MEMORY_MINOR))
        if not lacking:
            return None
        return (f"{self.name} speaks {PROTOCOL} version {version}, which carries no "
                f"{', '.join(name for name, _ in lacking)} (version {PROTOCOL_MAJOR}.{max(m for _, m in lacking)} does)")

    def execute(self, case: Case) -> Observation:
        return self.execute_batch([case])[0]

    def execute_batch(self, cases: Iterable[Case]) -> list[Observation]:
        cases = list(cases)
        results: list[Optional[Observation]] = [None] * len(cases)
        try:
            pending = []
            for i, case in enumerate(cases):
                reason = self._static_reason(case)
                if reason is None:
                    try:
                        pending.append((i, case.id, request_case(case, self.capabilities.profile)))
                        continue
                    except ValueError as exc:
                        reason = f"cannot assemble the program: {exc}"
                results[i] = Observation.device_error(f"{UNSUPPORTED}: {reason}")
            for chunk in self._chunks(pending):
                self._run(chunk, results)
        except Exception as exc:  # a bug here must not stop the run either
            for i, result in enumerate(results):
                if result is None:
                    results[i] = Observation.device_error(f"process adapter failed: {type(exc).__name__}: {exc}")
        return results

    def _chunks(self, pending: list) -> Iterable[list]:
        chunk, ids = [], set()
        for entry in pending:
            if len(chunk) == self.batch_size or entry[1] in ids:
                yield chunk
                chunk, ids = [], set()
            chunk.append(entry)
            ids.add(entry[1])
        if chunk:
            yield chunk

    def _run(self, chunk: list, results: list) -> None:
        """Run one request; on a failure of the whole request, rerun its cases one by one."""
        if self._given_up is not None:
            for i, _, _ in chunk:
                results[i] = Observation.device_error(self._given_up)
            return
        try:
            answers = self._request(chunk)
        except ProtocolError as exc:
            message = self._with_stderr(str(exc))
            self._stop()
            self._failures += 1
            if self._failures >= self.max_failures:
                self._given_up = (f"device given up after {self._failures} consecutive failed requests; "
                                  f"last: {message}")
            if len(chunk) > 1:
                for entry in chunk:
                    self._run([entry], results)
            else:
                results[chunk[0][0]] = Observation.device_error(message)
            return
        self._failures = 0
        for i, case_id, _ in chunk:
            results[i] = answers[case_id]

    def _request(self, chunk: list) -> dict[str, Observation]:
        process = self._ensure_process()
        self._batch_number += 1
        number = self._batch_number
        what = f"results of batch {number} ({len(chunk)} case{'s' if len(chunk) != 1 else ''})"
        process.send({"type": "execute", "batch": number, "cases": [request for _, _, request in chunk]})
        message = process.receive(self.timeout, what)
        kind = message.get("type")
        if kind == "error" and message.get("batch", number) == number:
            reason = f"device could not process batch {number}: {message.get('message')!r}"
            return {case_id: Observation.device_error(reason) for _, case_id, _ in chunk}
        if kind != "results":
            raise ProtocolError(f"expected the {what}, got a message of type {kind!r}")
        if message.get("batch") != number:
            raise ProtocolError(f"expected the {what}, got results of batch {message.get('batch')!r}")
        entries = message.get("results")
        if not isinstance(entries, list):
            raise ProtocolError(f"'results' of batch {number} is not a list")
        return self._answers(entries, [case_id for _, case_id, _ in chunk])

    def _answers(self, entries: list, ids: list) -> dict[str, Observation]:
        wanted = set(ids)
        answers: dict[str, Observation] = {}
        seen: set = set()
        for entry in entries:
            case_id = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(case_id, str) or case_id not in wanted:
                continue  # unattributable (no id, or not one of this request's): its case counts as missing
            if case_id in seen:
                answers[case_id] = Observation.device_error("device returned more than one result for this case")
                continue
            seen.add(case_id)
            answers[case_id] = self._answer(case_id, entry)
        for case_id in ids:
            answers.setdefault(case_id, Observation.device_error("device returned no result for this case"))
        return answers

    def _answer(self, case_id: str, entry: dict) -> Observation:
        kinds = [k for k in ("observation", "unsupported", "error") if k in entry]
        if len(kinds) != 1:
            return Observation.device_error(
                "device result must hold exactly one of observation, unsupported, error; it holds "
                + (", ".join(kinds) or "none"))
        kind, value = kinds[0], entry[kinds[0]]
        if kind in ("unsupported", "error") and not isinstance(value, str):
            return Observation.device_error(f"device result '{kind}' must be a string, not {_clip(json.dumps(value))}")
        if kind == "unsupported":
            self._unsupported[case_id] = f"{self.name}: {value}"
            return Observation.device_error(f"{UNSUPPORTED}: {self.name}: {value}")
        if kind == "error":
            return Observation.device_error(f"the device reported: {value}")
        try:
            problem = memory_answer_problem(value) or _shared_tiles_problem(value)
            if problem:
                raise ValueError(problem)
            if isinstance(value, dict) and isinstance(value.get("memory"), dict):
                value = {**value, "memory": {**value["memory"], "hex": value["memory"]["hex"].lower()}}
            observation = Observation.from_json(value)
            _check_observation(observation)
        except (ValueError, TypeError, AttributeError) as exc:
            return Observation.device_error(f"malformed observation from the device: {exc}")
        return observation


def _is_int(value) -> bool:
    return type(value) is int


def _grid_problem(grid, name: str, rows: Optional[int], cols: Optional[int]) -> Optional[str]:
    """What is wrong with a words (unsigned 64-bit integers) or defined (booleans) grid, if anything."""
    if not isinstance(grid, list) or not all(isinstance(row, list) for row in grid):
        return "is not a list of rows"
    if rows is not None and cols is not None and (len(grid) != rows or any(len(row) != cols for row in grid)):
        return f"is not {rows} rows of {cols}"
    kinds: set = set()
    for row in grid:
        kinds.update(map(type, row))  # type checks at C speed, no per-element Python code
    if name == "defined":
        return None if kinds <= {bool} else "holds values that are not booleans"
    rows_with_values = [row for row in grid if row]
    if not kinds <= {int} or (rows_with_values and (min(map(min, rows_with_values)) < 0
                                                    or max(map(max, rows_with_values)) >= 1 << 64)):
        return "holds values that are not unsigned 64-bit integers"
    return None


def _check_observation(obs: Observation) -> None:
    """Ranges and shapes beyond the JSON types ``Observation.from_json`` checks; ValueError names
    the member and the first problem."""
    if obs.flags is not None and not 0 <= obs.flags <= 0x1F:
        raise ValueError(f"member 'flags': {obs.flags!r} is not a 5-bit NumericStatus value")
    if obs.encoding is not None and not all(map(_is_int, obs.encoding)):
        raise ValueError("member 'encoding' is not a list of integers")
    for index, tile in obs.tiles.items():
        if not 0 <= index < 64:
            raise ValueError(f"member 'tiles' key {index} is not a TileIndex 0..63")
        _check_tile(f"tiles.{index}", tile)


SHARED_TILE_COUNT = 256  # S0..S255


def _shared_tiles_problem(data) -> Optional[str]:
    """What is wrong with an answer's ``shared_tiles`` (an object of S-register index -> tile), if anything."""
    shared = data.get("shared_tiles") if isinstance(data, dict) else None
    if shared is None:
        return None
    if not isinstance(shared, dict):
        return f"member 'shared_tiles' must be an object of tiles by S index, not {type(shared).__name__}"
    for key, tile in shared.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and int(key) < SHARED_TILE_COUNT):
            return f"member 'shared_tiles' key {key!r} is not a shared tile index 0..{SHARED_TILE_COUNT - 1}"
        try:
            parsed = TileObservation.from_json(tile, f"shared_tiles.{key}")
            _check_tile(f"shared_tiles.{key}", parsed)
            problem = tile_meaning_problem(f"shared_tiles.{key}", parsed)
            if problem:
                return problem
        except ValueError as exc:
            return str(exc)
    return None


def _check_tile(where: str, tile: TileObservation) -> None:
    """Ranges and shapes of one observed tile (``where`` names it); ValueError names the first problem."""
    for name in ("rows", "cols", "capacity"):
        value = getattr(tile, name)
        if value is not None and value < 0:
            raise ValueError(f"member '{where}.{name}': {value!r} is not a non-negative integer")
    if tile.valid is not None and not (len(tile.valid) == 2 and all(map(_is_int, tile.valid))):
        raise ValueError(f"member '{where}.valid': {list(tile.valid)!r} is not [rows, cols]")
    for name in ("words", "defined"):
        grid = getattr(tile, name)
        if grid is not None:
            problem = _grid_problem(grid, name, tile.rows, tile.cols)
            if problem:
                raise ValueError(f"member '{where}.{name}' {problem}")
    if tile.storage is not None and not all(map(_is_int, tile.storage)):
        raise ValueError(f"member '{where}.storage' is not a list of integers")
    if tile.bytes is not None and not all(_is_int(b) and 0 <= b <= 255 for b in tile.bytes):
        raise ValueError(f"member '{where}.bytes' is not a list of bytes 0..255")


def open_device(arg: Optional[str]) -> ProcessDevice:
    """``process:<command line>`` (split like a POSIX shell, no shell involved)."""
    argv = shlex.split(arg or "")
    if not argv:
        raise ValueError("process device needs a command line: --device 'process:./my_device --flag'")
    return ProcessDevice(argv)
