"""Timed exhaustive sweep: every FP16 and BF16 encoding to every destination
DataType, all seven rounding modes, Sat 0 and 1, under hw-ieee.

Run: ``.venv/bin/python tests/benchmarks/sweep_numeric.py``. Prints the wall
time, the number of element conversions, per-flag counts and a CRC32 checksum
of all result words and flags (a fingerprint to compare runs/revisions).
"""
from __future__ import annotations

import sys
import time
import zlib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.device_model import dtypes  # noqa: E402
from pto_avs.device_model.numeric import FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF, UnsupportedConversion, convert  # noqa: E402

MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")


def main() -> None:
    source_bits = np.arange(1 << 16, dtype=np.uint16)
    crc = 0
    elements = calls = 0
    counts = {"NV": 0, "OF": 0, "UF": 0, "NX": 0}
    start = time.perf_counter()
    for src in ("FP16", "BF16"):
        for dst in dtypes.NAMES:
            for mode in MODES:
                for sat in (False, True):
                    try:
                        words, flags = convert(source_bits, src, dst, mode, sat, profile="hw-ieee")
                    except UnsupportedConversion:
                        continue
                    calls += 1
                    elements += words.size
                    crc = zlib.crc32(words.tobytes(), crc)
                    crc = zlib.crc32(flags.tobytes(), crc)
                    for name, bit in (("NV", FLAG_NV), ("OF", FLAG_OF), ("UF", FLAG_UF), ("NX", FLAG_NX)):
                        counts[name] += int(np.count_nonzero(flags & bit))
    wall = time.perf_counter() - start
    print(f"sweep: 2 sources x {len(dtypes.NAMES)} destinations x {len(MODES)} modes x 2 Sat, hw-ieee")
    print(f"conversion calls: {calls}, element conversions: {elements}")
    print("flag counts: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    print(f"checksum (crc32 of words and flags): 0x{crc:08X}")
    print(f"wall time: {wall:.2f} s ({elements / wall / 1e6:.2f} M elements/s)")


if __name__ == "__main__":
    main()
