"""Progress of a long command: done/total, rate and time left, on stderr.

    with Progress("compare golden:pto-v0", total=len(cases), unit="cases", quiet=args.quiet) as progress:
        for chunk in chunks:
            ...
            progress.advance(len(chunk))

On a terminal one line rewrites itself (at most ``TTY_INTERVAL`` apart); elsewhere (a CI
log, a pipe) plain lines come at most one every ``PLAIN_INTERVAL`` seconds; under quiet
nothing. Leaving the block (or ``finish``) writes the closing line: how many in how long,
at what rate (a terminal's line is ended; an interrupted block says where it stopped).
Writes to stderr, so a command's report on stdout stays what it was. ``clock`` and
``stream`` are for tests.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Optional, TextIO

TTY_INTERVAL = 0.2  # seconds between rewrites of a terminal's line
PLAIN_INTERVAL = 5.0  # seconds between plain lines


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``2h07m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """One long piece of work of ``total`` steps (``None``: unknown; then no time left is shown)."""

    def __init__(self, label: str, total: Optional[int], unit: str = "cases", *, quiet: bool = False,
                 stream: Optional[TextIO] = None, clock: Callable[[], float] = time.monotonic,
                 tty: Optional[bool] = None, interval: Optional[float] = None):
        self.label, self.total, self.unit, self.quiet = label, total, unit, quiet
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.tty = tty if tty is not None else bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (TTY_INTERVAL if self.tty else PLAIN_INTERVAL)
        self.done = 0
        self.start = clock()
        self._first: Optional[tuple] = None  # (steps done, time) at the first advance: the start-up is behind it
        self._last_shown: Optional[float] = None
        self._width = 0  # length of the terminal line last written
        self.finished = False

    # -- the work

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        now = self.clock()
        if self._first is None:
            self._first = (self.done, now)
        if self.quiet:
            return
        since = now - (self._last_shown if self._last_shown is not None else self.start)
        if since >= self.interval or (self.tty and not self._width):
            self._show(self.line(now))
            self._last_shown = now

    def line(self, now: Optional[float] = None) -> str:
        """``compare golden:pto-v0: 120/7163 cases (1.7%), 34.5 cases/s, 3m24s left``."""
        elapsed = (self.clock() if now is None else now) - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if self.total:
            text = f"{self.label}: {self.done}/{self.total} {self.unit} ({100 * self.done / self.total:.1f}%)"
        elif self.total is None and not self.done:  # work that cannot count its steps: how long so far
            return f"{self.label}: {duration(elapsed)} so far"
        else:
            text = f"{self.label}: {self.done} {self.unit}"
        text += f", {rate:.3g} {self.unit}/s" if rate else ""
        # Time left at the rate since the first step: a slow start (a device that loads for
        # minutes before its first answer) would otherwise predict hours for a run of seconds.
        if self.total and self._first is not None and self.done < self.total:
            steps, since = self.done - self._first[0], (self.clock() if now is None else now) - self._first[1]
            if steps > 0 and since > 0:
                text += f", {duration((self.total - self.done) * since / steps)} left"
        return text

    def finish(self, summary: str = "") -> None:
        """The closing line: ``label: N units in T (R units/s)``, and ``summary`` when given."""
        if self.finished:
            return
        self.finished = True
        if self.quiet:
            return
        elapsed = self.clock() - self.start
        rate = f" ({self.done / elapsed:.3g} {self.unit}/s)" if elapsed > 0 and self.done else ""
        of = f" of {self.total}" if self.total is not None and self.done != self.total else ""
        text = f"{self.label}: {self.done}{of} {self.unit} in {duration(elapsed)}{rate}"
        if self.total is None and not self.done:  # work that cannot count its steps
            text = f"{self.label}: done in {duration(elapsed)}"
        self._show(text + (f"; {summary}" if summary else ""), final=True)

    def tick(self) -> None:
        """Show the line again if it is due, without a step done (waiting on a subprocess)."""
        self.advance(0)

    def clear(self) -> None:
        """Before a command prints a line of its own: a terminal's progress line is wiped (and
        drawn again at the next step); plain output needs nothing."""
        if self.tty and self._width and not self.quiet:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
            self._last_shown = None

    # -- output

    def _show(self, text: str, final: bool = False) -> None:
        if self.tty:
            pad = " " * max(0, self._width - len(text))
            self.stream.write("\r" + text + pad + ("\n" if final else ""))
            self._width = 0 if final else len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None and not self.finished:
            self.finish(f"stopped ({kind.__name__})")
        else:
            self.finish()
