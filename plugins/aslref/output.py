"""What the interpreter printed for a batch, read back as one Observation per case.

``harness.asl`` prints, per case, between ``C <n>`` and ``Q <n>``::

    Z <why>                          the spec refused the initial state (no observation follows)
    X <step> <fault> [note]          step <step> was not executed; the program stopped there
    F <fault>                        _LastFault after the program
    N <flags>                        NumericStatus (5 bits, decimal)
    U <bytes>                        tile capacity in use
    T <index> <storage kind> <type> <layout> <location> <rows> <cols> <valid rows> <valid cols> <capacity> <mask>
    R <e>:<d>:<w> ...                one line per row of the tile above: storage index, defined 0/1,
                                     Word (decimal) of each coordinate (a predicate tile: logical
                                     index, defined 0/1, bit)
    B <byte> ...                     after a predicate tile's rows: its payload bytes (decimal)
    A <address>                      _FaultAddress (decimal; kept for a data fault only)
    M <size> <byte> ...              the whole memory image, address 0 first (decimal bytes)
    V <count>                        the number of captured memory events, then per event
    E <kind> <agent> <address> <size> <read> <write> <order>
    G                                the shared tiles follow (to the end of the case), each
    S <index> ... <allocation mask> <initialized mask>
                                     a shared tile register with a valid descriptor (the fields
                                     of a T line, then its initialized quarters), R lines follow
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ...contract.case import FAULT_CLASSES, Observation, TileObservation
from ...contract.tile_state import element_bits


class OutputError(ValueError):
    """The interpreter's output does not have the harness's shape."""


@dataclass
class CaseOutput:
    """The lines printed for one case (``complete`` once its ``Q`` line was read)."""

    number: int
    lines: list = field(default_factory=list)
    complete: bool = False


def split_cases(stdout: str) -> dict[int, CaseOutput]:
    """Group the printed lines by case number."""
    cases: dict[int, CaseOutput] = {}
    current: Optional[CaseOutput] = None
    for line in stdout.splitlines():
        if line.startswith("C "):
            current = cases.setdefault(int(line[2:]), CaseOutput(int(line[2:])))
        elif line.startswith("Q ") and current is not None:
            current.complete = True
            current = None
        elif current is not None:
            current.lines.append(line)
    return cases


class CaseStream:
    """The interpreter's stdout read as it arrives (``feed``), one case at a time: a case's
    lines are kept only until its ``Q`` line, then turned into its Observation (``answers``),
    so memory is bounded by the largest case, not the whole output. ``max_case_bytes``
    bounds what one case (or the text outside any case, or one line) may print; past it
    ``feed`` returns the problem and the run is to be stopped."""

    def __init__(self, steps: dict, max_case_bytes: int):
        self.steps = steps  # case number -> its step descriptions; only these numbers are read
        self.max_case_bytes = max_case_bytes
        self.answers: dict[int, Observation] = {}
        self.started: set[int] = set()  # cases whose C line was read
        self.current: Optional[int] = None
        self.lines: list[str] = []
        self.size = 0  # bytes of the current case (or of the text outside any case)
        self.pending = bytearray()  # an unfinished line

    def feed(self, data: bytes) -> Optional[str]:
        """Read a chunk; the problem when a bound is exceeded (else None)."""
        if b"\n" not in data:
            self.pending += data
            return self._over(len(self.pending))
        self.pending += data
        *complete, rest = bytes(self.pending).split(b"\n")
        self.pending = bytearray(rest)
        for raw in complete:
            problem = self._line(raw.decode(errors="replace"))
            if problem:
                return problem
        return self._over(self.size + len(self.pending))

    def finish(self) -> None:
        """The output ended: an unfinished last line is read as a line."""
        if self.pending:
            self._line(bytes(self.pending).decode(errors="replace"))
            self.pending = bytearray()

    def _over(self, size: int) -> Optional[str]:
        if size <= self.max_case_bytes:
            return None
        where = f"case {self.current}" if self.current is not None else "the text outside any case"
        return (f"{where} printed more than {self.max_case_bytes} bytes, the bound of one case's output; "
                f"the interpreter run was stopped")

    def _line(self, line: str) -> Optional[str]:
        number = _case_number(line, "C ")
        if number is not None and number in self.steps:
            self.current, self.lines, self.size = number, [], 0
            self.started.add(number)
            return None
        if self.current is not None and _case_number(line, "Q ") == self.current:
            self.answers[self.current] = observation(CaseOutput(self.current, self.lines, True),
                                                     self.steps[self.current])
            self.current, self.lines, self.size = None, [], 0
            return None
        self.size += len(line) + 1
        if self.current is not None:
            self.lines.append(line)
        return self._over(self.size)


def _case_number(line: str, prefix: str) -> Optional[int]:
    text = line[len(prefix):]
    return int(text) if line.startswith(prefix) and text.isascii() and text.isdigit() else None


def _name(text: str, prefix: str) -> str:
    if not text.startswith(prefix):
        raise OutputError(f"expected a {prefix}* name, got {text!r}")
    return text[len(prefix):]


def _tile(header: list[str], rows: list[str], packed: Optional[str] = None) -> tuple[int, TileObservation]:
    index, kind, dtype, layout, location = header[0], header[1], header[2], header[3], header[4]
    n_rows, n_cols, valid_rows, valid_cols, capacity, mask = (int(v) for v in header[5:11])
    dtype = _name(dtype, "TileDataType_")
    if len(rows) != n_rows:
        raise OutputError(f"tile {index}: {len(rows)} rows printed for {n_rows}")
    element_mask = (1 << element_bits(dtype)) - 1
    words, defined, placed = [], [], {}
    for r, row in enumerate(rows):
        cells = row.split()[1:]
        if len(cells) != n_cols:
            raise OutputError(f"tile {index} row {r}: {len(cells)} coordinates printed for {n_cols}")
        word_row, defined_row = [], []
        for cell in cells:
            storage, flag, word = cell.split(":")
            word_row.append(int(word))
            defined_row.append(flag == "1")
            placed[int(storage)] = int(word) & element_mask
        words.append(word_row)
        defined.append(defined_row)
    storage = [0] * max(n_rows * n_cols, max(placed, default=-1) + 1)
    for position, bits in placed.items():
        storage[position] = bits
    predicate = {}
    if _name(kind, "TileStorage_") == "Predicate":
        if packed is None or not packed.startswith("B"):
            raise OutputError(f"tile {index}: a predicate tile without its B line")
        predicate = {"storage_kind": "predicate", "bytes": [int(v) for v in packed.split()[1:]]}
    return int(index), TileObservation(
        dtype=dtype, layout=_name(layout, "TileLayout_"), location=_name(location, "TileLocation_"),
        rows=n_rows, cols=n_cols, valid=(valid_rows, valid_cols), capacity=capacity, mask=format(mask, "04b"),
        words=words, defined=defined, storage=storage, **predicate)


def observation(case: CaseOutput, steps: list[str]) -> Observation:
    """The Observation of one complete case; ``steps`` describes its program steps."""
    lines = case.lines
    refused = [line[2:] for line in lines if line.startswith("Z ")]
    if refused:
        return Observation.device_error(f"initial state rejected by the spec: {'; '.join(refused)}")
    try:
        return _observation(lines, steps)
    except (OutputError, ValueError, IndexError) as exc:
        return Observation.device_error(f"unreadable interpreter output for this case: {exc}")


DATA_FAULTS = ("Fault_DataAlignment", "Fault_DataPage")


def _memory_members(lines: list[str], fault: Optional[str]) -> dict:
    """The observation's memory members (their JSON shape) from the A, M, V/E and S lines."""
    members: dict = {}
    address = next((line[2:] for line in lines if line.startswith("A ")), None)
    if address is not None and fault in DATA_FAULTS:
        members["fault_address"] = int(address)
    image = next((line.split()[1:] for line in lines if line.startswith("M ")), None)
    if image is not None:
        size, data = int(image[0]), image[1:]
        if len(data) != size:
            raise OutputError(f"memory: {len(data)} bytes printed for {size}")
        members["memory"] = {"size": size, "hex": bytes(int(b) for b in data).hex()}
    count = next((int(line[2:]) for line in lines if line.startswith("V ")), None)
    if count is not None:
        events = [line.split()[1:] for line in lines if line.startswith("E ")]
        if len(events) != count:
            raise OutputError(f"events: {len(events)} printed for {count}")
        members["events"] = [{"kind": _name(kind, "MemoryEvent_"), "agent": int(agent), "address": int(address),
                              "size": int(size), "read": int(read), "write": int(write),
                              "order": _name(order, "MemoryOrder_")}
                             for kind, agent, address, size, read, write, order in events]
    return members


def _shared_tiles(lines: list[str]) -> dict:
    """Shared tiles (S header + R rows) as observation JSON, by S index."""
    shared = {}
    position = 0
    while position < len(lines):
        header = lines[position].split()[1:]
        if not lines[position].startswith("S ") or len(header) != 12:
            raise OutputError(f"expected a shared tile header, got {lines[position][:80]!r}")
        count = int(header[5])
        index, tile = _tile(header[:11], lines[position + 1: position + 1 + count])
        shared[str(index)] = tile.to_json()
        position += 1 + count
    return shared


def _with_memory_members(observation: Observation, members: dict) -> Observation:
    """``observation`` with the memory members, parsed by the contract's own Observation.from_json."""
    if not members:
        return observation
    parsed = Observation.from_json({"fault": observation.fault, **members})
    for name in members:
        setattr(observation, name, getattr(parsed, name, members[name]))
    return observation


def _observation(lines: list[str], steps: list[str]) -> Observation:
    rejected = next((line.split(maxsplit=3) for line in lines if line.startswith("X ")), None)
    values = {line[0]: line[2:] for line in lines if line[:2] in ("F ", "N ", "U ")}
    if set(values) != {"F", "N", "U"}:
        raise OutputError(f"missing {', '.join(sorted({'F', 'N', 'U'} - set(values)))} line(s)")
    last_fault = values["F"]
    detail = None
    if rejected is not None:
        step = int(rejected[1])
        fault = rejected[2]
        note = f" ({rejected[3]})" if len(rejected) > 3 else ""
        text = steps[step] if step < len(steps) else "?"
        detail = f"step {step} ({text}) not executed: {fault}{note}; capacity in use {values['U']} B"
    else:
        fault = last_fault
    fault = None if fault == "Fault_None" else fault
    if fault is not None and fault not in FAULT_CLASSES:
        return Observation.device_error(
            f"the spec raised {fault}, a fault class outside the pto-avs observation contract"
            + (f" ({detail})" if detail else ""))
    marker = next((i for i, line in enumerate(lines) if line == "G"), None)  # shared tiles follow
    shared_lines = [] if marker is None else lines[marker + 1:]
    lines = lines if marker is None else lines[:marker]
    members = _memory_members(lines, fault)
    if marker is not None:
        members["shared_tiles"] = _shared_tiles([line for line in shared_lines if line[:2] in ("S ", "R ")
                                                 or line == "R"])
    tiles = {}
    position = 0
    tile_lines = [line for line in lines if line[:2] in ("T ", "R ", "B ") or line in ("R", "B")]
    while position < len(tile_lines):
        header = tile_lines[position].split()[1:]
        if tile_lines[position][0] != "T" or len(header) != 11:
            raise OutputError(f"expected a tile header, got {tile_lines[position][:80]!r}")
        count = int(header[5])
        packed = header[1] == "TileStorage_Predicate"
        after = position + 1 + count
        index, tile = _tile(header, tile_lines[position + 1: after],
                            tile_lines[after] if packed and after < len(tile_lines) else None)
        tiles[index] = tile
        position = after + packed
    return _with_memory_members(Observation(fault=fault, flags=int(values["N"]), tiles=tiles, detail=detail),
                                members)
