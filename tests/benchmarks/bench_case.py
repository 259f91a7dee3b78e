"""The fixed cost of one small case through ``Machine.run`` and where it goes.

Run: ``.venv/bin/python tests/benchmarks/bench_case.py [--repeat N] [--profile]``.
For TADD FP32 tiles of 16, 64 and 256 elements under both profiles: a whole case as the
golden device runs one (a fresh Machine, two tiles configured and written, the program
text assembled and run), the run alone on a prepared machine, and the element kernel
alone -- ``ieee_float.exact_add`` (before), ``ieee_float.add`` (after, the fast path) --
beside numpy's float32 add. CPU time per call, mean of N calls. ``--profile`` adds
cProfile's cumulative view of the 16-element hw-ieee case (where the fixed cost goes).
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.device_model.machine import Machine  # noqa: E402
from pto_avs.device_model.numeric import ieee_float  # noqa: E402


def program(cols: int, rows: int, capacity: int) -> str:
    size_code = capacity.bit_length() - 1 - 6
    return (f"BSTART.VEC TADD, FP32; B.DIM LB0={cols}; B.DIM LB1={rows}; B.DIM LB2={cols}; "
            f"B.IOT T1, T2, mask=1111, <last>, ->T<{size_code}>; BSTOP")


def mean_seconds(fn, repeat: int) -> float:
    fn()
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    print(f"TADD FP32, mean of {args.repeat} calls, CPU time, microseconds")
    print(f"{'elements':>8} {'profile':<8} {'whole case':>10} {'run alone':>10} {'exact kernel':>13} "
          f"{'fast kernel':>12} {'numpy':>7}")
    for n in (16, 64, 256):
        cols = 16
        rows = n // cols
        capacity = max(128, n * 4)
        data = rng.standard_normal((rows, cols)).astype(np.float32).view(np.uint32)
        text = program(cols, rows, capacity)
        flat = data.reshape(-1)
        floats = flat.view(np.float32)

        for profile in ("pto-v0", "hw-ieee"):
            def case():
                machine = Machine(profile=profile)
                for index in (1, 2):
                    machine.configure_tile(index, dtype="FP32", capacity=capacity, cols=cols, valid=(rows, cols))
                    machine.write_tile(index, data.tolist())
                result = machine.run(text)
                assert result.outcome == "completed", result
                return machine

            prepared = case()
            whole = mean_seconds(case, args.repeat)
            alone = mean_seconds(lambda: prepared.run(text), args.repeat)
            exact = mean_seconds(lambda: ieee_float.exact_add(flat, flat, "FP32"), args.repeat)
            fast = mean_seconds(lambda: ieee_float.add(flat, flat, "FP32"), args.repeat)
            peer = mean_seconds(lambda: floats + floats, args.repeat * 10)
            print(f"{n:>8} {profile:<8} {whole * 1e6:10.0f} {alone * 1e6:10.0f} {exact * 1e6:13.0f} "
                  f"{fast * 1e6:12.0f} {peer * 1e6:7.1f}", flush=True)
    if args.profile:
        data = rng.standard_normal((1, 16)).astype(np.float32).view(np.uint32).tolist()
        text = program(16, 1, 128)

        def small_case():
            machine = Machine(profile="hw-ieee")
            for index in (1, 2):
                machine.configure_tile(index, dtype="FP32", capacity=128, cols=16, valid=(1, 16))
                machine.write_tile(index, data)
            machine.run(text)

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.repeat):
            small_case()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
