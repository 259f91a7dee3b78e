"""Exhaustive numeric sweeps of TCVT, TestFloat style: a device against the golden model.

    pto-avs sweep --device NAME[:ARG] [--level 1|2] [--source T ...] [--dest T ...] [--batch N]

Level 1 converts every valid encoding of every source type of 8 bits or fewer;
level 2 adds the 16-bit sources (FP16, BF16, S16, U16). Each source goes to
every destination (E8M0 only from FP16, BF16 and FP32, the only pairs TCVT
accepts), under every B.DATR rounding code (NONE and the seven modes) with
Sat 0 and 1. A case converts a whole tile of encodings (1 x 256; 16 x 256 for
the 16-bit sources, 16 tiles per type), and cases go to both sides through
``execute_batch``. Per pair it counts the cases, the destination elements whose
bits differ, the cases whose flags or fault differ (flags are one sticky status
per case), the cases the device does not support (told before running, or
learnt by trying: an external device's ``unsupported`` answer) and its device
errors. The exit status is 0 when no pair has a difference or a device error,
however many cases are not supported.

The same sweep runs as pytest items, one per pair, for pytest-xdist:
``pytest avs/campaigns/sweep_suite.py --device NAME -n auto -k L1``.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np

from ...contract.case import Case

DESCRIPTION = "exhaustive TCVT sweep (every 8-bit, level 2: 16-bit, source encoding) of a device against the golden model"
ROUNDINGS = ("NONE", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
COLS = 256
ROWS_PER_CASE = 16  # rows of a 16-bit source tile: 4096 encodings per case
E8M0_SOURCES = ("FP16", "BF16", "FP32")
DEFAULT_BATCH = 16


def level_sources(level: int) -> list[str]:
    from ...device_model import dtypes

    widths = (4, 8) if level == 1 else (4, 8, 16)
    return [t.name for t in dtypes.ALL if t.bits in widths]


def destinations(source: str) -> list[str]:
    from ...device_model import dtypes

    return [t.name for t in dtypes.ALL if t.name != "E8M0" or source in E8M0_SOURCES]


def pairs(level: int) -> list[tuple[str, str]]:
    return [(s, d) for s in level_sources(level) for d in destinations(s)]


def encodings(source: str) -> np.ndarray:
    """Every valid encoding of ``source`` (bits its format requires to be zero stay zero)."""
    from ...device_model import dtypes

    t = dtypes.dtype(source)
    every = np.arange(1 << t.bits, dtype=np.uint64)
    return every[(every & np.uint64(t.must_be_zero)) == 0]


def sweep_cases(source: str, destination: str) -> list[Case]:
    """The cases of one pair: every rounding code and Sat value over tiles holding every encoding."""
    from ...device_model import dtypes

    values = encodings(source)
    rows = 1 if values.size <= COLS else ROWS_PER_CASE
    per_case = rows * COLS
    sbits, dbits = dtypes.dtype(source).bits, dtypes.dtype(destination).bits
    size_code = (per_case * dbits // 8).bit_length() - 1 - 6  # TSize = 64 << code bytes
    cases = []
    for start in range(0, values.size, per_case):
        chunk = values[start:start + per_case]
        valid = (rows, COLS) if chunk.size == per_case else (1, int(chunk.size))
        data = chunk.reshape(valid).tolist()
        state = {"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": [{
            "index": 1, "dtype": source, "capacity": per_case * sbits // 8, "cols": COLS, "valid": list(valid),
            "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid", "data": data}]}
        for rounding in ROUNDINGS:
            for sat in (0, 1):
                program = (f"BSTART.VEC TCVT, {source}\nB.DATR {destination}, {rounding}, NORM, Zero, Sat={sat}\n"
                           f"B.DIM LB0={valid[1]}\nB.DIM LB1={valid[0]}\nB.DIM LB2={COLS}\n"
                           f"B.IOT T1, mask=1111, <last>, ->T<{size_code}>\nBSTOP")
                cases.append(Case(vector_id=f"SWEEP-{source}-{destination}", name=f"{rounding}-sat{sat}-{start}",
                                  operation="TCVT", kind="execution", profiles=("pto-v0", "hw-ieee"), adrs=(),
                                  requirements=(), state=state, program=(program,), expect={}))
    return cases


@dataclass
class PairResult:
    source: str
    destination: str
    cases: int = 0
    unsupported: int = 0
    elements: int = 0  # destination elements compared
    element_diffs: int = 0
    flag_diffs: int = 0  # cases
    fault_diffs: int = 0  # cases
    device_errors: int = 0
    first: str = ""  # the first difference, readable
    unsupported_reason: str = ""  # the device's reason for the first case it does not support
    seconds: float = 0.0

    @property
    def disagreements(self) -> int:
        return self.element_diffs + self.flag_diffs + self.fault_diffs + self.device_errors

    def line(self) -> str:
        text = (f"{self.source + '->' + self.destination:<14} {self.cases:5d} {self.elements:9d} "
                f"{self.element_diffs:9d} {self.flag_diffs:6d} {self.fault_diffs:6d} "
                f"{self.unsupported:6d} {self.device_errors:6d} {self.seconds:7.2f}")
        return text + (f"  first: {self.first}" if self.first else "")


HEADER = (f"{'pair':<14} {'cases':>5} {'elements':>9} {'elem-diff':>9} {'flags':>6} {'fault':>6} "
          f"{'unsup':>6} {'errors':>6} {'seconds':>7}")


def _destination_tile(observation, state: dict):
    """The tile the conversion created (the allocated index not in the initial state)."""
    initial = {t["index"] for t in state["tiles"]}
    created = [i for i in observation.tiles if i not in initial]
    return observation.tiles[created[0]] if created else None


def _compare(pair: PairResult, case: Case, golden, observed, aspects: frozenset) -> None:
    rounding, sat = case.name.split("-")[:2]
    where = f"{rounding} {sat}"
    if observed.error is not None:
        pair.device_errors += 1
        pair.first = pair.first or f"{where}: device error {observed.error}"
        return
    if observed.fault != golden.fault:
        pair.fault_diffs += 1
        pair.first = pair.first or f"{where}: fault golden {golden.fault}, device {observed.fault}"
        return
    if "flags" in aspects and observed.flags != golden.flags:
        pair.flag_diffs += 1
        pair.first = pair.first or f"{where}: flags golden {golden.flags:#04x}, device {observed.flags}"
    expected, got = _destination_tile(golden, case.state), _destination_tile(observed, case.state)
    if expected is None:
        return
    rows, cols = expected.valid
    want = np.array(expected.words, dtype=np.uint64)[:rows, :cols]
    pair.elements += want.size
    if got is None or got.words is None:
        pair.element_diffs += want.size
        pair.first = pair.first or f"{where}: no destination tile observed"
        return
    have = np.array(got.words, dtype=np.uint64)[:rows, :cols]
    from ...device_model.dtypes import dtype as lookup

    mask = np.uint64(lookup(expected.dtype).mask)
    differ = (want & mask) != (have & mask)
    if "carrier" in aspects:
        differ |= want != have
    count = int(np.count_nonzero(differ))
    pair.element_diffs += count
    if count and not pair.first:
        r, c = (int(x) for x in np.argwhere(differ)[0])
        source = case.state["tiles"][0]["data"][r][c]
        pair.first = (f"{where}: {case.state['tiles'][0]['dtype']} {source:#x} -> golden {int(want[r, c]):#x}, "
                      f"device {int(have[r, c]):#x}")


def sweep_pair(device, golden, source: str, destination: str, batch: int = DEFAULT_BATCH) -> PairResult:
    """Run one pair on ``device`` and ``golden`` (already opened, same profile)."""
    pair = PairResult(source, destination)
    start = time.perf_counter()

    def not_supported(case: Case) -> bool:
        reason = device.supports(case)
        if reason is not None:
            pair.unsupported += 1
            pair.unsupported_reason = pair.unsupported_reason or reason
        return reason is not None

    runnable = []
    for case in sweep_cases(source, destination):
        pair.cases += 1
        if not not_supported(case):
            runnable.append(case)
    aspects = frozenset(device.capabilities.aspects)
    for first in range(0, len(runnable), batch):
        chunk = runnable[first:first + batch]
        for case, expected, observed in zip(chunk, golden.execute_batch(chunk), device.execute_batch(chunk)):
            if expected.error is not None:  # the sweep's own case is wrong: say so loudly
                raise RuntimeError(f"golden model cannot run sweep case {case.id}: {expected.error}")
            # A device may learn only by trying that it cannot run a case (an external device's
            # `unsupported` answer): its supports() says so now, and the case is not supported.
            if observed.error is not None and not_supported(case):
                continue
            _compare(pair, case, expected, observed, aspects)
    pair.seconds = time.perf_counter() - start
    return pair


def run_sweep(device_spec: str, chosen: Iterable[tuple[str, str]], batch: int = DEFAULT_BATCH, report=print,
              progress=None):
    """Every chosen pair on the device and the golden model; ``report`` gets each pair's row and
    ``progress`` (a ``reports.progress.Progress``) advances by each pair."""
    from ...plugins.base import open_device

    device = open_device(device_spec)
    try:
        golden = open_device(f"golden:{device.capabilities.profile}")
        results = []
        for source, destination in chosen:
            result = sweep_pair(device, golden, source, destination, batch)
            if progress is not None:
                progress.clear()
            report(result.line())
            results.append(result)
            if progress is not None:
                progress.advance()
        return results
    finally:
        device.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", required=True, metavar="NAME[:ARG]",
                        help="device under test (compared with the golden model of its profile)")
    parser.add_argument("--level", type=int, choices=(1, 2), default=1,
                        help="1: sources of 8 bits or fewer; 2: also the 16-bit sources (default 1)")
    parser.add_argument("--source", action="append", default=[], metavar="TYPE",
                        help="only these source types (repeatable)")
    parser.add_argument("--dest", action="append", default=[], metavar="TYPE",
                        help="only these destination types (repeatable)")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, metavar="N",
                        help=f"cases per execute_batch call (default {DEFAULT_BATCH})")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def run(args) -> int:
    from ...device_model import dtypes

    unknown = [t for t in args.source + args.dest if t not in dtypes.NAMES]
    if unknown or args.batch < 1:
        print(f"pto-avs sweep: unknown type {unknown[0]}" if unknown else "pto-avs sweep: --batch must be >= 1",
              file=sys.stderr)
        return 2
    chosen = [(s, d) for s, d in pairs(args.level)
              if (not args.source or s in args.source) and (not args.dest or d in args.dest)]
    if not chosen:
        print("pto-avs sweep: no (source, destination) pair selected", file=sys.stderr)
        return 2
    print(f"pto-avs sweep --device {args.device} --level {args.level}: {len(chosen)} pairs x "
          f"{len(ROUNDINGS)} rounding codes x Sat 0/1")
    print(HEADER)
    from ...reports.progress import Progress

    start = time.perf_counter()
    try:
        with Progress(f"sweep {args.device}", len(chosen), "pairs", quiet=getattr(args, "quiet", False)) as progress:
            results = run_sweep(args.device, chosen, args.batch, report=lambda line: print(line, flush=True),
                                progress=progress)
            progress.finish(f"{sum(bool(r.disagreements) for r in results)} pair(s) with disagreements")
    except ValueError as exc:
        print(f"pto-avs sweep: {exc}", file=sys.stderr)
        return 2
    wall = time.perf_counter() - start
    bad = [r for r in results if r.disagreements]
    print(f"pairs: {len(results)}, with disagreements: {len(bad)}; cases: {sum(r.cases for r in results)} "
          f"(not supported {sum(r.unsupported for r in results)}); elements compared: "
          f"{sum(r.elements for r in results)}, differing: {sum(r.element_diffs for r in results)}; "
          f"cases with different flags: {sum(r.flag_diffs for r in results)}, faults: "
          f"{sum(r.fault_diffs for r in results)}, device errors: {sum(r.device_errors for r in results)}")
    print(f"wall time: {wall:.1f} s")
    return 1 if bad else 0


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs sweep", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
