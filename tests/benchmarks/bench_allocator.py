"""The allocator tuning (``device_model/numeric/allocator.py``) on and off, alternating, in
fresh interpreters: a few ``convert`` calls whose blocks make 2 MiB temporaries, and one
whose peer is a single cast, each beside numpy's cast.

Run: ``.venv/bin/python tests/benchmarks/bench_allocator.py [--rounds R]``. Each round
starts two child processes, ``PTO_AVS_MALLOC_TUNING=1`` then ``=0``; each prints the best
of 7 calls (CPU time, one thread) on 262,144 elements: FP32 -> S32 (RTZ) on normal values
x100, FP64 -> FP32 on normal values and on random encodings, FP64 -> FP16 on normal values.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def child() -> None:
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from pto_avs.device_model.numeric import allocator, convert

    rng = np.random.default_rng(1)
    n = 1 << 18
    scaled = (rng.standard_normal(n).astype(np.float32) * 100).view(np.uint32)
    normal = rng.standard_normal(n).view(np.uint64)
    random = rng.integers(0, 2**64, n, dtype=np.uint64)

    def best(fn, repeat=7):
        least = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            fn()
            least = min(least, time.process_time() - start)
        return least * 1e3

    with np.errstate(all="ignore"):
        cells = [
            f"{best(lambda: convert(scaled, 'FP32', 'S32', rounding='RTZ', profile='hw-ieee')):6.2f}",
            f"{best(lambda: scaled.view(np.float32).astype(np.int32)):6.3f}",
            f"{best(lambda: convert(normal, 'FP64', 'FP32', profile='hw-ieee')):6.2f}",
            f"{best(lambda: convert(random, 'FP64', 'FP32', profile='hw-ieee')):6.2f}",
            f"{best(lambda: normal.view(np.float64).astype(np.float32)):6.3f}",
            f"{best(lambda: convert(normal, 'FP64', 'FP16', profile='hw-ieee')):6.2f}",
        ]
    print(f"{'on' if allocator.TUNED else 'off':<7}" + "  ".join(f"{c:>12}" for c in cells))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child()
        return
    print("ms, best of 7, 262,144 elements, one thread, CPU time")
    heads = ("FP32->S32", "numpy cast", "FP64->FP32 n", "FP64->FP32 r", "numpy cast", "FP64->FP16 n")
    print(f"{'tuning':<7}" + "  ".join(f"{h:>12}" for h in heads))
    for _ in range(args.rounds):
        for switch in ("1", "0"):
            env = dict(os.environ, PTO_AVS_MALLOC_TUNING=switch, PTO_AVS_CONVERT_THREADS="1")
            subprocess.run([sys.executable, __file__, "--child"], env=env, check=True)


if __name__ == "__main__":
    main()
