"""Comparator: a Case, a device's Observation and its Capabilities -> a Verdict.

Every aspect the case expects (``pto_avs.contract.case.ASPECTS``; table in vectors/FORMAT.md) gets
its own verdict: ``pass``, ``fail`` or ``not observable`` (the device declares it
cannot see that aspect). A failing aspect carries its first divergence and a
compact bit-level diff of the tile. Knows nothing of pytest, YAML or devices.

Payload, padding and storage compare *element bits*: the observed Word reduced to
the element width of the tile's type (expected values are taken as written, so a
value wider than the element never matches). ``carrier`` compares whole Words: the
valid region's ``words`` and the padding's ``word``.

A case may give ``expect.ulp_tolerance: N`` (TEXP/TLOG under hw-ieee only, see the
loader): a payload element whose bits differ from the expected finite value by at
most N representable values (``device_model.numeric.transcendental.ulp_distance``;
never a NaN, an infinity or the other zero) passes, and the payload verdict says
"within N ULP".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

import numpy as np

from .case import ASPECTS, Case, Observation, TileObservation, observation_problem
from .tile_state import element_bits, initial_arrays, parse_coordinate

PASS, FAIL, NOT_OBSERVABLE = "pass", "fail", "not observable"
DESCRIPTOR_FIELDS = ("storage_kind", "dtype", "layout", "location", "rows", "cols", "valid", "capacity", "mask")
GRID_ROWS, GRID_COLS = 16, 32  # largest window of a tile drawn in a diff
XOR_SHOWN = 4  # differing words whose XOR a diff lists


class MalformedObservation(ValueError):
    """The device returned something that is not an observation of this case."""


@dataclass
class Divergence:
    """One place where the observation differs from the expectation."""

    where: str  # "tile 0 (0,1)", "tile 0 dtype", "flags", "encoding[2]"
    expected: str
    observed: str
    coordinate: Optional[tuple] = None  # (row, col) of a tile element, when the divergence is one

    def __str__(self) -> str:
        return f"{self.where}: expected {self.expected}, observed {self.observed}"


@dataclass
class AspectVerdict:
    aspect: str
    status: str  # PASS | FAIL | NOT_OBSERVABLE
    checked: int = 0  # number of individual comparisons
    mismatches: int = 0
    first: Optional[Divergence] = None
    diff: list[str] = field(default_factory=list)  # extra lines: summary, grid, XOR
    note: str = ""  # how a passing aspect passed, when not bit for bit ("within 1 ULP ...")

    def report(self) -> list[str]:
        lines = [f"{self.aspect}: {self.mismatches} of {self.checked} differ; first divergence {self.first}"]
        return lines + ["  " + line for line in self.diff]


@dataclass
class Verdict:
    case_id: str
    error: Optional[str] = None  # the device failed (Observation.error or a malformed observation)
    aspects: dict[str, AspectVerdict] = field(default_factory=dict)
    # (case, profile) of a failure, whose inputs ``inputs`` describes when first asked (``report`` asks)
    failure_source: Optional[tuple] = field(default=None, repr=False, compare=False)
    _inputs: Optional[list] = field(default=None, repr=False, compare=False)

    @property
    def inputs(self) -> list[str]:
        """A failure's inputs at its first divergence (``block_inputs``): a heading and its lines;
        empty unless the verdict fails. Computed on first use: a campaign that only counts pays nothing."""
        if self._inputs is None:
            self._inputs = failure_inputs(*self.failure_source, self) if self.failure_source and self.failed else []
        return self._inputs

    @property
    def failed(self) -> list[str]:
        return [a for a, v in self.aspects.items() if v.status == FAIL]

    @property
    def unobserved(self) -> list[str]:
        return [a for a, v in self.aspects.items() if v.status == NOT_OBSERVABLE]

    @property
    def passed(self) -> list[str]:
        return [a for a, v in self.aspects.items() if v.status == PASS]

    @property
    def notes(self) -> dict[str, str]:
        """How passing aspects passed when not bit for bit (``{"payload": "within 1 ULP ..."}``)."""
        return {a: v.note for a, v in self.aspects.items() if v.status == PASS and v.note}

    @property
    def outcome(self) -> str:
        """``device error`` | ``fail`` | ``not observable`` (nothing checkable) | ``pass``."""
        if self.error is not None:
            return "device error"
        if self.failed:
            return FAIL
        if not self.passed:
            return NOT_OBSERVABLE
        return PASS

    def report(self) -> str:
        """Readable account of a failure: every failing aspect, then what passed and what was not seen."""
        if self.error is not None:
            return f"device error: {self.error}"
        lines = []
        for aspect in self.failed:
            lines += self.aspects[aspect].report()
        if self.passed:
            lines.append("passed: " + ", ".join(
                f"{a} ({self.aspects[a].note})" if self.aspects[a].note else a for a in self.passed))
        if self.unobserved:
            lines.append("not observable on this device: " + ", ".join(self.unobserved))
        if self.inputs:
            lines += [self.inputs[0]] + ["  " + line for line in self.inputs[1:]]
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# entry point


def expected_aspects(case: Case, observation: Optional[Observation] = None) -> list[str]:
    """The aspects a case has expectations for, in ASPECTS order.

    An ``elements`` entry belongs to ``payload`` inside the valid region and to the
    padding aspects outside it; the valid region is the expected one, else the
    observed one (without either, the entry counts as payload).
    """
    expect = case.expect
    wanted = {"fault"}
    if "flags" in expect:
        wanted.add("flags")
    if "encoding" in expect:
        wanted.add("encoding")
    outcomes = expect.get("one_of", [])
    if "memory" in expect or expect.get("memory_unchanged") or any("memory" in o for o in outcomes):
        wanted.add("memory")
    if "events" in expect or any("events" in o for o in outcomes):
        wanted.add("events")
    if any("tiles" in o for o in outcomes):
        observed_tiles = expected_aspects(replace(case, expect={"tiles": [t for o in outcomes for t in o.get("tiles", [])]}),
                                          observation)
        wanted.update(a for a in observed_tiles if a != "fault")
    if expect.get("unchanged"):
        wanted.add("sources")
    if "allocated" in expect:
        wanted.add("descriptor")
    for tile in expect.get("tiles", []):
        if any(f in tile for f in DESCRIPTOR_FIELDS):
            wanted.add("descriptor")
        if "data" in tile or "fill" in tile:
            wanted.add("payload")
        if "words" in tile or "word" in (tile.get("padding") or {}):
            wanted.add("carrier")
        if "storage" in tile or "bytes" in tile:
            wanted.add("storage")
        padding = tile.get("padding")
        if padding is not None:
            wanted.add("padding_defined")
            if "value" in padding:
                wanted.add("padding_value")
        valid = tile.get("valid")
        if valid is None and observation is not None and tile["index"] in observation.tiles:
            valid = observation.tiles[tile["index"]].valid
        for key, element in tile.get("elements", {}).items():
            r, c = parse_coordinate(key)
            if valid is None or (r < valid[0] and c < valid[1]):
                wanted.add("payload")
            else:
                wanted.update(a for a, k in (("padding_defined", "defined"), ("padding_value", "value")) if k in element)
    return [a for a in ASPECTS if a in wanted]


def compare(case: Case, observation: Observation, observable, profile: Optional[str] = None) -> Verdict:
    """Judge one observation; ``observable`` is the set of aspects the device can see
    (``Capabilities.aspects``), ``profile`` the one it ran under (shown with a failure's inputs).
    A failing verdict names the case's inputs at its first divergence (``Verdict.inputs``)."""
    verdict = Verdict(case.id)
    if observation.error is not None:
        verdict.error = str(observation.error)
        return verdict
    if case.expect.get("one_of"):
        return _compare_outcomes(case, observation, observable, profile)
    try:
        _check_structure(observation)
        checks = _Checks(case, observation)
        for aspect in expected_aspects(case, observation):
            if aspect not in observable:
                verdict.aspects[aspect] = AspectVerdict(aspect, NOT_OBSERVABLE)
            else:
                verdict.aspects[aspect] = getattr(checks, aspect)()
    except MalformedObservation as exc:
        verdict.error = f"malformed observation: {exc}"
        verdict.aspects.clear()
    verdict.failure_source = (case, profile)
    return verdict


def outcome_cases(case: Case) -> list[Case]:
    """The case once for each ``one_of`` entry: its memory regions join the case's, its events
    replace the case's, its tiles join the case's tiles."""
    base = {k: v for k, v in case.expect.items() if k != "one_of"}
    cases = []
    for outcome in case.expect["one_of"]:
        expect = dict(base)
        if "memory" in outcome:
            expect["memory"] = list(base.get("memory", [])) + list(outcome["memory"])
        if "events" in outcome:
            expect["events"] = list(outcome["events"])
        if "tiles" in outcome:
            expect["tiles"] = list(base.get("tiles", [])) + list(outcome["tiles"])
        cases.append(replace(case, expect=expect))
    return cases


def _compare_outcomes(case: Case, observation: Observation, observable, profile: Optional[str]) -> Verdict:
    """A case with an outcome set: the verdict of the first entry whose aspects all pass, else of
    the closest entry (fewest failing aspects, then fewest differing comparisons), named."""
    verdicts = [compare(entry, observation, observable, profile) for entry in outcome_cases(case)]
    for number, verdict in enumerate(verdicts):
        if verdict.error is None and not verdict.failed:
            _name_outcome(verdict, number, len(verdicts), "matches")
            return verdict
    closest = min(range(len(verdicts)), key=lambda i: (verdicts[i].error is not None, len(verdicts[i].failed),
                                                       sum(verdicts[i].aspects[a].mismatches for a in verdicts[i].failed)))
    verdict = verdicts[closest]
    _name_outcome(verdict, closest, len(verdicts), "is the closest")
    verdict.case_id = case.id
    return verdict


def _name_outcome(verdict: Verdict, number: int, count: int, how: str) -> None:
    for aspect in ("memory", "events", "payload", "descriptor", "carrier", "storage"):
        if aspect in verdict.aspects:
            entry = verdict.aspects[aspect]
            text = f"one_of[{number}] of {count} {how}"
            if entry.status == FAIL:
                entry.diff.insert(0, f"no entry of one_of matches; {text}")
            elif entry.status == PASS:
                entry.note = f"{text}" + (f"; {entry.note}" if entry.note else "")


def failure_inputs(case: Case, profile: Optional[str], verdict: Verdict) -> list[str]:
    """The heading and lines of the inputs at the first divergence that has a tile coordinate
    (else at none: the scalars, controls and words alone)."""
    from .block_inputs import describe_inputs

    firsts = [verdict.aspects[a].first for a in verdict.failed if verdict.aspects[a].first is not None]
    at = next((d for d in firsts if d.coordinate is not None), None)
    heading = f"inputs at the first divergence ({at.where}):" if at is not None else "inputs of the case:"
    return [heading, *describe_inputs(case, at.coordinate if at is not None else None, profile, describe_bits)]


def _check_structure(observation: Observation) -> None:
    """The types the comparator relies on; anything else is a malformed observation."""
    if observation.fault is not None and not isinstance(observation.fault, str):
        raise MalformedObservation(f"fault {observation.fault!r} is not a fault class name")
    if observation.flags is not None and (isinstance(observation.flags, bool) or not isinstance(observation.flags, int)):
        raise MalformedObservation(f"flags {observation.flags!r} is not an integer")
    if observation.encoding is not None and not isinstance(observation.encoding, (list, tuple)):
        raise MalformedObservation("encoding is not a list of words")
    if not isinstance(observation.tiles, dict):
        raise MalformedObservation("tiles is not a mapping of TileIndex to tiles")
    for index, tile in observation.tiles.items():
        if isinstance(index, bool) or not isinstance(index, int) or not isinstance(tile, TileObservation):
            raise MalformedObservation(f"tile entry {index!r} is not a TileIndex with a TileObservation")
    problem = observation_problem(observation)  # a member of the wrong type is never judged
    if problem:
        raise MalformedObservation(problem)


# ---------------------------------------------------------------------------
# memory


def initial_memory_size(state: dict) -> int:
    """The memory size a case runs with (its ``state.memory.size``, else the spec's 4096)."""
    return (state.get("memory") or {}).get("size", 4096)


def initial_memory(state: dict) -> bytes:
    """The whole initial memory image of a case: its regions over zero bytes."""
    image = bytearray(initial_memory_size(state))
    for region in (state.get("memory") or {}).get("regions", []):
        data = bytes.fromhex(region["bytes"])
        image[region["address"]:region["address"] + len(data)] = data
    return bytes(image)


def _event_matches(expected: dict, observed) -> bool:
    return isinstance(observed, dict) and all(observed.get(k) == v for k, v in expected.items())


def _event_text(event) -> str:
    if not isinstance(event, dict):
        return repr(event)
    parts = [f"{k}={v:#x}" if k in ("address", "read", "write") and isinstance(v, int) else f"{k}={v}"
             for k, v in event.items()]
    return "{" + ", ".join(parts) + "}"


def _unmatched_events(expected: list, observed: list) -> Optional[int]:
    """The first expected event no observed event can be matched to when each observed event
    matches at most one expected event (a maximum bipartite matching: the lists hold at most
    16 events), or None when every expected event is matched."""
    partner: dict = {}  # observed index -> expected index

    def assign(want: int, seen: set) -> bool:
        for got, event in enumerate(observed):
            if got not in seen and _event_matches(expected[want], event):
                seen.add(got)
                if got not in partner or assign(partner[got], seen):
                    partner[got] = want
                    return True
        return False

    for want in range(len(expected)):
        if not assign(want, set()):
            return want
    return None


# ---------------------------------------------------------------------------
# value display


@lru_cache(maxsize=None)
def _numeric():
    """The golden model's numeric decoding, used for display only; None when it cannot be
    imported (values are then shown in hex alone)."""
    try:
        from ..device_model.numeric import flags, formats
    except ImportError:
        return None
    return flags, formats


def describe_bits(value: int, dtype: Optional[str]) -> str:
    """``0x3FC0 (1.5)``: the bits in hex at the element width, and the value they encode."""
    if dtype is None:
        return f"0x{value:X}"
    bits = element_bits(dtype)
    text = f"0x{value:0{max(1, (bits + 3) // 4)}X}"
    if value >> bits:
        return text + " (wider than the element)"
    numeric = _numeric()
    if numeric is None:
        return text
    formats = numeric[1]
    decoded = formats.decode(np.array([value], dtype=np.uint64), dtype)
    cls, negative = formats.ValueClass(int(decoded.cls[0])), bool(decoded.negative[0])
    if cls == formats.ValueClass.INVALID_ENCODING:
        return text + " (invalid encoding)"
    if cls in (formats.ValueClass.QUIET_NAN, formats.ValueClass.SIGNALING_NAN):
        return text + (" (qNaN)" if cls == formats.ValueClass.QUIET_NAN else " (sNaN)")
    if cls in (formats.ValueClass.POSITIVE_INFINITY, formats.ValueClass.NEGATIVE_INFINITY):
        return text + (" (-Inf)" if negative else " (+Inf)")
    sig, exp = int(decoded.sig[0]), int(decoded.exp[0])
    magnitude = sig << exp if exp >= 0 else math.ldexp(sig, exp)  # display only
    return f"{text} ({'-' if negative else ''}{magnitude})"


def describe_flags(value: Optional[int]) -> str:
    if value is None:
        return "nothing (not reported)"
    numeric = _numeric()
    if numeric is None:
        return f"0x{value:02X}"
    names = numeric[0].flag_names(value)
    return f"0x{value:02X} ({' '.join(names) if names else 'none'})"


# ---------------------------------------------------------------------------
# checks


@dataclass
class _TileArrays:
    """An observed tile as arrays, validated against its own shape."""

    obs: TileObservation
    words: Optional[np.ndarray]  # uint64 rows x cols
    defined: Optional[np.ndarray]  # bool rows x cols
    rows: int
    cols: int


class _Checks:
    """One method per aspect; each returns that aspect's AspectVerdict."""

    def __init__(self, case: Case, observation: Observation):
        self.case = case
        self.obs = observation
        self._arrays: dict[int, _TileArrays] = {}
        self._element_results: Optional[dict[str, _Tally]] = None

    # -- simple aspects

    def fault(self) -> AspectVerdict:
        expected, observed = self.case.expect.get("fault"), self.obs.fault
        tally = _Tally("fault")
        tally.check(expected == observed, "fault", expected or "no fault", observed or "no fault")
        if "fault_address" in self.case.expect:
            want, got = self.case.expect["fault_address"], self.obs.fault_address
            tally.check(want == got, "fault address", f"{want:#x}",
                        "nothing (not reported)" if got is None else f"{got:#x}")
        verdict = tally.verdict()
        if verdict.status == FAIL and self.obs.detail:
            verdict.diff.append(f"device says: {self.obs.detail}")
        return verdict

    def flags(self) -> AspectVerdict:
        expected, observed = self.case.expect["flags"], self.obs.flags
        tally = _Tally("flags")
        if expected == observed:  # (the values are described only for a mismatch)
            tally.checked += 1
        else:
            tally.check(False, "NumericStatus", describe_flags(expected), describe_flags(observed))
        return tally.verdict()

    def encoding(self) -> AspectVerdict:
        expected, observed = list(self.case.expect["encoding"]), self.obs.encoding
        tally = _Tally("encoding")
        if observed is None:
            tally.check(False, "encoding", f"{len(expected)} words", "nothing (not reported)")
            return tally.verdict()
        observed = list(observed)
        for i in range(max(len(expected), len(observed))):
            exp = f"0x{expected[i]:08X}" if i < len(expected) else "no word"
            got = f"0x{observed[i]:08X}" if i < len(observed) and isinstance(observed[i], int) else (
                "no word" if i >= len(observed) else repr(observed[i]))
            tally.check(exp == got, f"encoding[{i}]", exp, got)
        return tally.verdict()

    def memory(self) -> AspectVerdict:
        """Expected regions (and ``memory_unchanged``: the whole initial image) against the
        observed image; the first divergence is the first differing byte address."""
        tally = _Tally("memory")
        observed = self.obs.memory_bytes()
        size = initial_memory_size(self.case.state)
        if observed is None:
            tally.check(False, "memory", f"a {size}-byte image", "nothing (not reported)")
            return tally.verdict()
        if len(observed) != size:
            tally.check(False, "memory size", f"{size} bytes", f"{len(observed)} bytes")
            return tally.verdict()
        wanted = []
        if self.case.expect.get("memory_unchanged"):
            wanted.append((0, initial_memory(self.case.state), "the initial image"))
        wanted += [(r["address"], bytes.fromhex(r["bytes"]), f"region {r['address']:#x}")
                   for r in self.case.expect.get("memory", [])]
        for address, expected, what in wanted:
            got = observed[address:address + len(expected)]
            tally.checked += len(expected)
            differ = np.flatnonzero(np.frombuffer(expected, np.uint8) != np.frombuffer(got, np.uint8))
            if differ.size:
                tally.mismatches += int(differ.size)
                first = int(differ[0])
                if tally.first is None:
                    at = address + first
                    tally.first = Divergence(f"memory byte {at:#x} ({what})", f"{expected[first]:#04x}",
                                             f"{got[first]:#04x}")
                    start = max(0, first - 4)
                    tally.diff += [f"expected {address + start:#06x}: {expected[start:start + 12].hex(' ')}",
                                   f"observed {address + start:#06x}: {got[start:start + 12].hex(' ')}"]
        return tally.verdict()

    def events(self) -> AspectVerdict:
        """The expected memory events against the observed log: in order (``events_order:
        exact``, the default) or as a multiset (``any``); omitted keys are not compared."""
        expected = list(self.case.expect.get("events", []))
        observed = self.obs.events
        tally = _Tally("events")
        if observed is None:
            tally.check(False, "events", f"{len(expected)} events", "nothing (not reported)")
            return tally.verdict()
        observed = list(observed)
        if self.case.expect.get("events_order", "exact") == "any":
            unmatched = _unmatched_events(expected, observed)
            tally.checked = max(len(expected), len(observed))
            if unmatched is not None or len(expected) != len(observed):
                tally.mismatches = max(1, abs(len(expected) - len(observed)))
                where = (f"events (expected event {unmatched} of any order)" if unmatched is not None
                         else "events count")
                tally.first = Divergence(where, _event_text(expected[unmatched]) if unmatched is not None
                                         else f"{len(expected)} events", f"{len(observed)} events observed")
            return tally.verdict()
        for i in range(max(len(expected), len(observed))):
            want = expected[i] if i < len(expected) else None
            got = observed[i] if i < len(observed) else None
            equal = want is not None and got is not None and _event_matches(want, got)
            tally.check(equal, f"events[{i}]", "no event" if want is None else _event_text(want),
                        "no event" if got is None else _event_text(got))
        return tally.verdict()

    def descriptor(self) -> AspectVerdict:
        tally = _Tally("descriptor")
        if "allocated" in self.case.expect:
            expected = sorted(self.case.expect["allocated"])
            observed = sorted(self.obs.tiles)
            tally.check(expected == observed, "allocated tiles", str(expected), str(observed))
        for tile in self.case.expect.get("tiles", []):
            index = tile["index"]
            fields = [f for f in DESCRIPTOR_FIELDS if f in tile]
            if not fields:
                continue
            got = self.obs.tiles.get(index)
            if got is None:
                tally.check(False, f"tile {index}", "an allocated tile", "no tile")
                continue
            if "storage_kind" not in fields and got.kind != "numeric":  # expected without one: numeric
                tally.check(False, f"tile {index} storage_kind", "numeric", got.kind)
            for name in fields:
                expected, observed = tile[name], getattr(got, name)
                if name == "valid" and observed is not None:
                    observed = list(observed)
                elif name == "storage_kind":
                    observed = got.kind
                if expected == observed:  # (named and described only for a mismatch)
                    tally.checked += 1
                    continue
                tally.check(False, f"tile {index} {name}", str(expected),
                            "nothing (not reported)" if observed is None else str(observed))
        return tally.verdict()

    def carrier(self) -> AspectVerdict:
        """Whole Words: ``words`` over the valid region, ``padding.word`` at every padded
        coordinate the device reports defined (an undefined element has no Word to check;
        ``padding_defined`` judges definedness)."""
        tally = _Tally("carrier")
        for tile in self.case.expect.get("tiles", []):
            pad_word = (tile.get("padding") or {}).get("word")
            if "words" not in tile and pad_word is None:
                continue
            arrays = self._tile(tile["index"], tally)
            if arrays is None:
                continue
            if "words" in tile:
                expected = np.array(tile["words"], dtype=np.uint64).reshape(len(tile["words"]), -1)
                _compare_grid(tally, tile["index"], arrays, expected, np.ones(expected.shape, bool), None,
                              None, mask_bits=None, dtype=None)
            if pad_word is None:
                continue
            valid = tile.get("valid") or (list(arrays.obs.valid) if arrays.obs.valid is not None else None)
            if valid is None:
                tally.check(False, f"tile {tile['index']} valid region", "a valid region", "nothing (not reported)")
                continue
            outside = np.ones((arrays.rows, arrays.cols), bool)
            outside[:valid[0], :valid[1]] = False
            expected = np.full(outside.shape, np.uint64(pad_word), dtype=np.uint64)
            _compare_grid(tally, tile["index"], arrays, expected, outside, None, None, mask_bits=None,
                          dtype=None, only_defined=True)
        return tally.verdict()

    def storage(self) -> AspectVerdict:
        tally = _Tally("storage")
        for tile in self.case.expect.get("tiles", []):
            if "storage" not in tile and "bytes" not in tile:
                continue
            arrays = self._tile(tile["index"], tally)
            if arrays is None:
                continue
            if "bytes" in tile:
                _compare_bytes(tally, tile, arrays)
                continue
            observed = arrays.obs.storage
            dtype = tile.get("dtype") or arrays.obs.dtype
            if observed is None:
                tally.check(False, f"tile {tile['index']} storage", "storage contents", "nothing (not reported)")
                continue
            mask = (1 << element_bits(dtype)) - 1 if dtype else (1 << 64) - 1
            if isinstance(observed, np.ndarray):  # (an in-process device's array: its values as Python ints)
                observed = observed.tolist()
            for index, expected in sorted(tile["storage"].items()):
                got = observed[index] & mask if index < len(observed) else None
                equal = got == expected  # (values are described only for a mismatch)
                tally.check(equal, f"tile {tile['index']} storage[{index}]", "" if equal else describe_bits(expected, dtype),
                            "" if equal else "no such index" if got is None else describe_bits(got, dtype))
        return tally.verdict()

    def sources(self) -> AspectVerdict:
        tally = _Tally("sources")
        unchanged = self.case.expect["unchanged"]
        tiles = self.case.state.get("tiles", [])
        chosen = tiles if unchanged == "all" else [t for t in tiles if t["index"] in unchanged]
        for tile in chosen:
            index = tile["index"]
            arrays = self._tile(index, tally)
            if arrays is None:
                continue
            kind = tile.get("storage_kind", "numeric")
            if "numeric" != kind or arrays.obs.kind != kind:
                tally.check(arrays.obs.kind == kind, f"tile {index} storage_kind", kind, arrays.obs.kind)
            for name in ("dtype", "layout", "location", "rows", "cols", "valid", "capacity", "mask"):
                if tile.get(name) is None:
                    continue
                observed = getattr(arrays.obs, name)
                observed = list(observed) if name == "valid" and observed is not None else observed
                if observed == tile[name]:  # (named and described only for a mismatch)
                    tally.checked += 1
                    continue
                tally.check(False, f"tile {index} {name}", str(tile[name]), str(observed))
            if arrays.words is None:
                tally.check(False, f"tile {index} words", "the initial contents", "nothing (not reported)")
                continue
            try:
                words, defined = initial_arrays(tile, arrays.rows, arrays.cols)
            except ValueError as exc:
                tally.check(False, f"tile {index} shape", "room for the initial contents", str(exc))
                continue
            bits = element_bits(tile["dtype"])
            words &= np.uint64((1 << bits) - 1)  # element bits: a sign-extended S8 Word reads back as written
            # Values only where the tile was defined: an undefined element's bits are not architectural.
            _compare_grid(tally, index, arrays, words, defined, defined,
                          np.ones(words.shape, bool), mask_bits=bits, dtype=tile["dtype"])
            packed = _packed_arrays(index, arrays)
            if packed is not None:
                _compare_grid(tally, f"{index} packed bits", packed, words, defined, None, None, mask_bits=1,
                              dtype=None)
        return tally.verdict()

    # -- element aspects (one pass over each expected tile fills all four tallies)

    def payload(self) -> AspectVerdict:
        return self._elements()["payload"].verdict()

    def padding_defined(self) -> AspectVerdict:
        return self._elements()["padding_defined"].verdict()

    def padding_value(self) -> AspectVerdict:
        return self._elements()["padding_value"].verdict()

    def _elements(self) -> dict:
        if self._element_results is not None:
            return self._element_results
        tallies = {a: _Tally(a) for a in ("payload", "padding_defined", "padding_value")}
        for tile in self.case.expect.get("tiles", []):
            if not ("data" in tile or "fill" in tile or tile.get("elements") or "padding" in tile):
                continue
            arrays = self._tile(tile["index"], tallies["payload"])
            if arrays is None:  # missing: every element aspect of this tile fails
                for aspect in ("padding_defined", "padding_value"):
                    tallies[aspect].check(False, f"tile {tile['index']}", "an allocated tile", "no tile")
                continue
            self._tile_elements(tile, arrays, tallies)
        self._element_results = tallies
        return tallies

    def _tile_elements(self, tile: dict, arrays: _TileArrays, tallies: dict) -> None:
        index, rows, cols = tile["index"], arrays.rows, arrays.cols
        valid = tile.get("valid") or (list(arrays.obs.valid) if arrays.obs.valid is not None else None)
        if valid is None:
            tallies["payload"].check(False, f"tile {index} valid region", "a valid region", "nothing (not reported)")
            return
        vr, vc = min(valid[0], rows), min(valid[1], cols)
        dtype = tile.get("dtype") or arrays.obs.dtype
        bits = element_bits(dtype) if dtype else None
        value = np.zeros((rows, cols), np.uint64)
        has_value = np.zeros((rows, cols), bool)
        want_defined = np.zeros((rows, cols), bool)
        has_defined = np.zeros((rows, cols), bool)
        inside = np.zeros((rows, cols), bool)
        inside[:vr, :vc] = True
        outside = ~inside
        if "data" in tile:
            data = tile["data"]
            shape = (len(data), len(data[0]) if data else 0)
            if shape[0] > rows or shape[1] > cols:
                tallies["payload"].check(False, f"tile {index} shape", f"room for {shape[0]}x{shape[1]} data",
                                         f"a {rows}x{cols} tile")
                return
            value[: shape[0], : shape[1]] = np.array(data, dtype=np.uint64).reshape(shape)
            has_value[: shape[0], : shape[1]] = True
        elif "fill" in tile:
            value[:vr, :vc] = np.uint64(tile["fill"])
            has_value[:vr, :vc] = True
        padding = tile.get("padding")
        if padding is not None:
            has_defined[outside] = True
            want_defined[outside] = padding["defined"]
            if "value" in padding:
                value[outside] = np.uint64(padding["value"])
                has_value[outside] = True
        for key, element in tile.get("elements", {}).items():
            r, c = parse_coordinate(key)
            if r >= rows or c >= cols:
                tallies["payload"].check(False, f"tile {index} ({r},{c})", "an element", f"a {rows}x{cols} tile")
                continue
            if "value" in element:
                value[r, c] = np.uint64(element["value"])
                has_value[r, c] = True
            if "defined" in element:
                has_defined[r, c] = True
                want_defined[r, c] = element["defined"]
        # Inside the valid region a value to check means the element must be defined.
        implied = inside & has_value & ~has_defined
        has_defined |= implied
        want_defined |= implied
        _compare_grid(tallies["payload"], index, arrays, value, has_value & inside, want_defined,
                      has_defined & inside, mask_bits=bits, dtype=dtype,
                      ulp_tolerance=self.case.expect.get("ulp_tolerance"))
        packed = _packed_arrays(index, arrays)
        if packed is not None:  # the bits as packed: bit i % 8 of byte i // 8 must hold logical element i
            _compare_grid(tallies["payload"], f"{index} packed bits", packed, value, has_value & inside, None,
                          None, mask_bits=1, dtype=None)
        padding_defined = has_defined & outside
        if np.count_nonzero(padding_defined):
            _compare_grid(tallies["padding_defined"], index, arrays, value, np.zeros_like(inside), want_defined,
                          padding_defined, mask_bits=bits, dtype=dtype)
        padding_value = has_value & outside
        if np.count_nonzero(padding_value):
            _compare_grid(tallies["padding_value"], index, arrays, value, padding_value, None,
                          None, mask_bits=bits, dtype=dtype, only_defined=True)
            if packed is not None:
                _compare_grid(tallies["padding_value"], f"{index} packed bits", packed, value, padding_value,
                              None, None, mask_bits=1, dtype=None, only_defined=True)

    # -- observed tiles

    def _tile(self, index: int, tally: "_Tally") -> Optional[_TileArrays]:
        """The observed tile as arrays; a missing tile is a mismatch of ``tally``."""
        if index in self._arrays:
            return self._arrays[index]
        obs = self.obs.tiles.get(index)
        if obs is None:
            tally.check(False, f"tile {index}", "an allocated tile", "no tile")
            return None
        arrays = _tile_arrays(index, obs)
        self._arrays[index] = arrays
        return arrays


def _observed_bytes(index: int, obs: TileObservation, rows: int, cols: int) -> Optional[np.ndarray]:
    """A predicate tile's observed ``bytes`` as uint8, checked for count and range (None when not reported)."""
    if obs.kind != "predicate" or obs.bytes is None:
        return None
    try:
        data = np.array(obs.bytes, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise MalformedObservation(f"tile {index} bytes: {exc}") from None
    wanted = (rows * cols + 7) // 8
    if data.ndim != 1 or data.size != wanted or (data.size and (data.min() < 0 or data.max() > 255)):
        raise MalformedObservation(f"tile {index} bytes: expected {wanted} bytes 0..255 for {rows}x{cols} bits")
    return data.astype(np.uint8)


def _packed_arrays(index: int, arrays: _TileArrays) -> Optional[_TileArrays]:
    """The observed predicate bytes unpacked low bit first (logical element i = bit i % 8 of byte
    i // 8) as a tile of bits with the observed definedness; None without bytes."""
    data = _observed_bytes(index, arrays.obs, arrays.rows, arrays.cols)
    if data is None:
        return None
    bits = np.unpackbits(data, bitorder="little")[: arrays.rows * arrays.cols]
    words = bits.astype(np.uint64).reshape(arrays.rows, arrays.cols)
    return _TileArrays(arrays.obs, words, arrays.defined, arrays.rows, arrays.cols)


def _compare_bytes(tally: "_Tally", tile: dict, arrays: _TileArrays) -> None:
    """``bytes``: the whole packed payload; bits past the last logical element are not compared."""
    index, expected = tile["index"], tile["bytes"]
    observed = _observed_bytes(index, arrays.obs, arrays.rows, arrays.cols)
    if observed is None:
        tally.check(False, f"tile {index} bytes", "packed predicate bytes", "nothing (not reported)")
        return
    if len(expected) != observed.size:
        tally.check(False, f"tile {index} bytes", f"{len(expected)} bytes", f"{observed.size} bytes")
        return
    elements = arrays.rows * arrays.cols
    for i, (want, got) in enumerate(zip(expected, observed.tolist())):
        used = (1 << min(8, elements - 8 * i)) - 1  # the bits of logical elements in byte i
        tally.check(want & used == got & used, f"tile {index} bytes[{i}]", f"0x{want & used:02X}",
                    f"0x{got & used:02X}")


def _grid(name: str, index: int, data, dtype, rows, cols) -> Optional[np.ndarray]:
    if data is None:
        return None
    if isinstance(data, np.ndarray) and data.dtype.kind != np.dtype(dtype).kind:
        data = data.tolist()  # (signed, float, object ...: judged value by value, as a list is)
    try:
        array = np.array(data, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise MalformedObservation(f"tile {index} {name}: {exc}") from None
    _check_grid_shape(name, index, array, rows, cols)
    return array


def _check_grid_shape(name: str, index: int, array: np.ndarray, rows, cols) -> None:
    if array.ndim != 2 or (rows is not None and array.shape[0] != rows) or (cols is not None and array.shape[1] != cols):
        raise MalformedObservation(
            f"tile {index} {name}: expected a {rows}x{cols} grid, got shape {array.shape}")


def _all_booleans(grid) -> bool:
    """Every element of a grid is a bool (numpy's too), without a Python step per element."""
    try:
        array = np.asarray(grid)
    except (TypeError, ValueError):  # ragged: judged element by element, the shape check says the rest
        return all(isinstance(v, (bool, np.bool_)) for row in grid for v in row)
    return array.size == 0 or array.dtype == np.bool_


def _defined_grid(index: int, obs: TileObservation) -> Optional[np.ndarray]:
    """The observed definedness as a bool grid (``_all_booleans`` then ``_grid``); a list of
    lists of bools, what a device answers, is converted once (its inferred type says it is bool)."""
    data = obs.defined
    if type(data) is list:
        try:
            array = np.asarray(data)
        except (TypeError, ValueError):
            array = None
        if array is not None and array.dtype == np.bool_ and array.size:
            _check_grid_shape("defined", index, array, obs.rows, obs.cols)
            return array
    if data is not None and not _all_booleans(data):
        raise MalformedObservation(f"tile {index} defined: expected booleans")
    return _grid("defined", index, data, bool, obs.rows, obs.cols)


def _tile_arrays(index: int, obs: TileObservation) -> _TileArrays:
    words = _grid("words", index, obs.words, np.uint64, obs.rows, obs.cols)
    defined = _defined_grid(index, obs)
    shape = words.shape if words is not None else (defined.shape if defined is not None else None)
    if words is not None and defined is not None and words.shape != defined.shape:
        raise MalformedObservation(f"tile {index}: words {words.shape} and defined {defined.shape} differ in shape")
    rows = obs.rows if obs.rows is not None else (shape[0] if shape else 0)
    cols = obs.cols if obs.cols is not None else (shape[1] if shape else 0)
    return _TileArrays(obs, words, defined, rows, cols)


# ---------------------------------------------------------------------------
# tallies and grids


class _Tally:
    """Counts the comparisons of one aspect and keeps the first divergence and the diff lines."""

    def __init__(self, aspect: str):
        self.aspect = aspect
        self.checked = 0
        self.mismatches = 0
        self.first: Optional[Divergence] = None
        self.diff: list[str] = []
        self.tolerance: Optional[int] = None  # the ULP tolerance applied, if any
        self.tolerated = 0  # elements that passed within it without being bit-exact
        self.worst = 0  # their largest distance in ULP

    def check(self, equal: bool, where: str, expected, observed) -> None:
        self.checked += 1
        if not equal:
            self.mismatches += 1
            if self.first is None:
                self.first = Divergence(where, str(expected), str(observed))
            elif len(self.diff) < 8:
                self.diff.append(f"also {where}: expected {expected}, observed {observed}")

    def verdict(self) -> AspectVerdict:
        status = FAIL if self.mismatches else PASS
        note = (f"within {self.tolerance} ULP: {self.tolerated} element(s) not bit-exact, at most {self.worst} ULP"
                if self.tolerated else "")
        return AspectVerdict(self.aspect, status, self.checked, self.mismatches, self.first, self.diff, note)


def _compare_grid(tally: _Tally, index: int, arrays: _TileArrays, value: np.ndarray, check_value: np.ndarray,
                  want_defined: Optional[np.ndarray], check_defined: Optional[np.ndarray], *, mask_bits, dtype,
                  only_defined: bool = False, ulp_tolerance: Optional[int] = None) -> None:
    """Compare the coordinates selected by ``check_value`` / ``check_defined`` and add a diff;
    values within ``ulp_tolerance`` ULP of finite expectations pass (counted in the tally)."""
    rows, cols = value.shape
    observed_defined = arrays.defined
    if check_defined is not None and observed_defined is None and np.count_nonzero(check_defined):
        tally.check(False, f"tile {index} definedness", "definedness", "nothing (not reported)")
        check_defined = None
    if arrays.words is None and np.count_nonzero(check_value):
        tally.check(False, f"tile {index} words", "element values", "nothing (not reported)")
        check_value = np.zeros_like(check_value)
    if arrays.words is not None and arrays.words.shape[:2] != (rows, cols):
        sub = np.zeros((rows, cols), np.uint64)
        r, c = min(rows, arrays.words.shape[0]), min(cols, arrays.words.shape[1])
        sub[:r, :c] = arrays.words[:r, :c]
        observed = sub
    else:
        observed = arrays.words if arrays.words is not None else np.zeros((rows, cols), np.uint64)
    if mask_bits is not None and mask_bits < 64:
        observed = observed & np.uint64((1 << mask_bits) - 1)

    bad_defined = None  # (None: nothing to judge there, all False)
    if check_defined is not None and observed_defined is not None:
        bad_defined = check_defined & (observed_defined[:rows, :cols] != want_defined)
    value_checked = check_value  # (never written in place: the arrays below are new ones)
    if observed_defined is not None:
        # An undefined element has no value to compare: where it should be defined it is
        # reported as undefined; in the padding values are compared only where defined.
        if bad_defined is not None:
            value_checked = value_checked > bad_defined  # (and not: one pass)
        if only_defined:
            value_checked = value_checked & observed_defined[:rows, :cols]
    bad_value = value_checked & (observed != value)
    if ulp_tolerance and dtype and np.count_nonzero(bad_value):
        near = _within_ulp(value, observed, dtype, ulp_tolerance) & bad_value
        if near.any():
            tally.tolerance = ulp_tolerance
            tally.tolerated += int(np.count_nonzero(near))
            tally.worst = max(tally.worst, int(_ulp_distance(value[near], observed[near], dtype).max()))
            bad_value &= ~near
    checked = value_checked | check_defined if check_defined is not None else value_checked
    tally.checked += int(np.count_nonzero(checked))
    # (bad_value lies where values were checked, which leaves out bad_defined: the two are disjoint)
    count = int(np.count_nonzero(bad_value)) + (int(np.count_nonzero(bad_defined)) if bad_defined is not None else 0)
    if not count:
        return
    bad = bad_value | bad_defined if bad_defined is not None else bad_value
    if bad_defined is None:
        bad_defined = np.zeros((rows, cols), bool)
    tally.mismatches += count
    coords = np.argwhere(bad)  # row-major order
    r0, c0 = (int(v) for v in coords[0])
    if bad_defined[r0, c0]:
        want = "defined" if want_defined[r0, c0] else "undefined"
        got = "defined" if observed_defined[r0, c0] else "undefined"
        divergence = Divergence(f"tile {index} ({r0},{c0})", want, got, (r0, c0))
    else:
        divergence = Divergence(f"tile {index} ({r0},{c0})", describe_bits(int(value[r0, c0]), dtype),
                                describe_bits(int(observed[r0, c0]), dtype), (r0, c0))
    if tally.first is None:
        tally.first = divergence
    else:
        tally.diff.append(f"also {divergence}")
    tally.diff += _draw(index, bad_value, bad_defined, checked, want_defined, r0, c0, dtype)
    xors = [(int(r), int(c)) for r, c in np.argwhere(bad_value)[:XOR_SHOWN]]
    if xors:
        width = max(1, ((mask_bits or 64) + 3) // 4)
        tally.diff.append("XOR expected^observed: " + ", ".join(
            f"({r},{c}) 0x{int(value[r, c]) ^ int(observed[r, c]):0{width}X}" for r, c in xors))


def _ulp_distance(expected: np.ndarray, observed: np.ndarray, dtype: str) -> np.ndarray:
    from ..device_model.numeric.transcendental import ulp_distance

    return ulp_distance(expected.astype(np.uint64), observed.astype(np.uint64), dtype)


def _within_ulp(expected: np.ndarray, observed: np.ndarray, dtype: str, tolerance: int) -> np.ndarray:
    """Elements of a floating type whose values are both finite and 1..``tolerance`` ULP apart
    (0 ULP with different bits is the other zero: not within)."""
    if element_bits(dtype) > 64 or dtype not in _FLOATING_TOLERANCE_TYPES:
        return np.zeros(expected.shape, bool)
    distance = _ulp_distance(expected, observed, dtype).reshape(expected.shape)
    return (distance >= 1) & (distance <= tolerance)


_FLOATING_TOLERANCE_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")


def _draw(index, bad_value, bad_defined, checked, want_defined, r0, c0, dtype) -> list[str]:
    """A window of the tile around the first divergence: '.' equal, 'X' value differs,
    'u' undefined but expected defined, 'd' defined but expected undefined, ' ' not checked;
    runs of rows without differences are folded into one line."""
    rows, cols = bad_value.shape
    top = 0 if rows <= GRID_ROWS else min(max(0, r0 - r0 % 8), rows - GRID_ROWS)
    left = 0 if cols <= GRID_COLS else min(max(0, c0 - c0 % 8), cols - GRID_COLS)
    bottom, right = min(rows, top + GRID_ROWS), min(cols, left + GRID_COLS)
    header = f"tile {index} rows {top}..{bottom - 1} x cols {left}..{right - 1} of {rows}x{cols}"
    lines = [header + (f" [{dtype}]" if dtype else "") + ": '.' equal  X value  u undefined  d defined  ' ' unchecked"]
    lines.append("      " + "".join(str(c % 10) for c in range(left, right)))
    quiet_from = None  # first of a run of rows without differences, folded into one line
    for r in range(top, bottom + 1):
        differs = r < bottom and (bad_value[r, left:right].any() or bad_defined[r, left:right].any())
        if r < bottom and not differs:
            quiet_from = r if quiet_from is None else quiet_from
            continue
        if quiet_from is not None:
            span = f"{quiet_from}" if quiet_from == r - 1 else f"{quiet_from}-{r - 1}"
            lines.append(f"{span:>5} (no differences)")
            quiet_from = None
        if r == bottom:
            break
        row = []
        for c in range(left, right):
            if bad_defined[r, c]:
                row.append("u" if want_defined[r, c] else "d")
            elif bad_value[r, c]:
                row.append("X")
            else:
                row.append("." if checked[r, c] else " ")
        lines.append(f"{r:5d} " + "".join(row).rstrip())
    return lines
