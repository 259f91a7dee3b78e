"""Cases per second through the process protocol (the example C device, batched) against the
in-process golden model, on the same cases in the same run.

Run: ``.venv/bin/python tests/benchmarks/bench_process.py [--cases N]``. Builds the C device
with ``cc`` into a temporary folder. For each workload it prints cases/s and elements/s of
the C device at batch sizes 1 and 64 and of ``golden:hw-ieee`` (when the golden model is
importable), and whether the two agree on every result word and flag.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.contract.case import Case  # noqa: E402
from pto_avs.plugins import c_device  # noqa: E402
from pto_avs.plugins.process import ProcessDevice  # noqa: E402

BYTES = {"U16": 2, "U8": 1, "FP32": 4, "FP16": 2, "BF16": 2}


def workload(name: str, src: str, dst: str, rows: int, cols: int, count: int, rng, datr: str) -> list[Case]:
    """``count`` TCVT cases of a fully valid rows x cols tile with random source bits."""
    src_bytes, dst_bytes = rows * cols * BYTES[src], rows * cols * BYTES[dst]
    size_code = (dst_bytes // 128).bit_length()
    program = (f"BSTART.VEC TCVT, {src}; B.DATR {dst}, {datr}; B.DIM LB0={cols}; B.DIM LB1={rows}; "
               f"B.DIM LB2={cols}; B.IOT T1, mask=1111, <last>, ->T<{size_code}>; BSTOP",)
    cases = []
    for i in range(count):
        data = rng.integers(0, 1 << (8 * BYTES[src]), size=(rows, cols), dtype=np.uint64).astype(int).tolist()
        tile = {"index": 1, "dtype": src, "capacity": src_bytes, "cols": cols, "valid": [rows, cols],
                "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid", "data": data}
        state = {"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": [tile]}
        cases.append(Case("PTO-AVS-X-BENCH", f"{name}-{i}", "TCVT", "execution", ("hw-ieee",), (), (), state,
                          program, {}))
    return cases


def timed(device, cases: list[Case], batch: int):
    start = time.perf_counter()
    observations = []
    for k in range(0, len(cases), batch):
        observations += device.execute_batch(cases[k:k + batch])
    return time.perf_counter() - start, observations


def open_golden():
    try:
        from pto_avs.plugins.golden import GoldenDevice
        return GoldenDevice("hw-ieee"), None
    except Exception as exc:  # the golden model is written concurrently; report why it is absent
        return None, f"{type(exc).__name__}: {exc}"


def disagreements(a, b) -> int:
    count = 0
    for x, y in zip(a, b):
        if x.error or y.error or x.fault != y.fault or x.flags != y.flags or \
                {i: t.words for i, t in x.tiles.items()} != {i: t.words for i, t in y.tiles.items()}:
            count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=256, help="cases per workload (default 256)")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    workloads = [
        ("U16->U8 Sat 2x64", workload("int-2x64", "U16", "U8", 2, 64, args.cases, rng, "Sat=1")),
        ("FP32->FP16 RNE 32x32", workload("fp16-32", "FP32", "FP16", 32, 32, args.cases, rng, "RNE")),
        ("FP32->BF16 RTZ 128x128", workload("bf16-128", "FP32", "BF16", 128, 128, max(args.cases // 8, 1), rng,
                                            "RTZ")),
    ]
    with tempfile.TemporaryDirectory() as folder:
        binary, _ = c_device.build(Path(folder))
        process = ProcessDevice([str(binary)])
        golden, why = open_golden()
        print(f"process device: {process.name} (max batch {process.batch_size}); "
              f"golden: {'golden:hw-ieee' if golden else 'unavailable (' + why + ')'}")
        print(f"{'workload':24} {'cases':>5} {'elements':>9}  {'device':22} {'cases/s':>9} {'Melem/s':>8}")
        try:
            for title, cases in workloads:
                rows, cols = cases[0].state["tiles"][0]["valid"]
                elements = rows * cols * len(cases)
                runs = [("process batch 1", process, 1), (f"process batch {process.batch_size}", process,
                                                          process.batch_size)]
                if golden is not None:
                    runs.append(("golden (in-process)", golden, len(cases)))
                results = {}
                for label, device, batch in runs:
                    seconds, observations = timed(device, cases, batch)
                    errors = sum(o.error is not None for o in observations)
                    results[label] = observations
                    note = f"  ({errors} errors)" if errors else ""
                    print(f"{title:24} {len(cases):5} {elements:9}  {label:22} {len(cases) / seconds:9.1f} "
                          f"{elements / seconds / 1e6:8.2f}{note}")
                if golden is not None:
                    bad = disagreements(results[runs[1][0]], results["golden (in-process)"])
                    print(f"{'':24} C device and golden model disagree on {bad} of {len(cases)} cases")
        finally:
            process.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
