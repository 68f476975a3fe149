#!/usr/bin/env python3
"""The portable build against native ones, per CPU path: the same `auris transcribe` run by each
build in turns, so that the machine's noise falls on all, and the median and spread of each.

 - AVX-512 path: the portable build (its best path on an AVX-512 CPU) against a -march=native build.
 - AVX2 path: the portable build forced onto its AVX2 kernels (AURIS_CPU_PATH=avx2) against a build
   whose every file targets x86-64-v3 (AVX2), as a native build on an AVX2-only CPU is. oneDNN is
   held to AVX2 as well (ONEDNN_MAX_CPU_ISA), so the row is what an AVX2 CPU runs.
Says whether the builds of a path printed the same text.

Usage: bench/portable_build.py --portable build/auris --native build-native/auris --avx2 build-v3/auris
       [--model base] [--compute-type float16] [--audio ...longform/hifitts-dev-concat.flac]
       [--repeats 5] [--threads 2]
"""

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from cpu_info import cpu_name

REPO = Path(__file__).resolve().parents[1]


def timed(command, env):
    start = time.perf_counter()
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--portable", default=str(REPO / "build" / "auris"))
    parser.add_argument("--native", default=str(REPO / "build-native" / "auris"), help="built with -DAURIS_NATIVE=ON")
    parser.add_argument("--avx2", default=str(REPO / "build-v3" / "auris"), help="built with -march=x86-64-v3")
    parser.add_argument("--model", default="base")
    parser.add_argument("--compute-type", default="float16")
    parser.add_argument("--audio", default=str(REPO.parent / "shared/data/audio/longform/hifitts-dev-concat.flac"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    avx2 = {"AURIS_CPU_PATH": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    runs = {  # name: (binary, environment)
        "avx512 portable": (args.portable, {"AURIS_CPU_PATH": "avx512"}),
        "avx512 native": (args.native, {"AURIS_CPU_PATH": "avx512"}),
        "avx2 portable": (args.portable, avx2),
        "avx2 x86-64-v3": (args.avx2, avx2),
    }
    times = {name: [] for name in runs}
    texts = {name: set() for name in runs}
    for _ in range(args.repeats):
        for name, (binary, extra) in runs.items():
            command = [binary, "transcribe", "-m", args.model, "-t", str(args.threads), "--compute-type",
                       args.compute_type, args.audio]
            seconds, out = timed(command, {**os.environ, **extra})
            times[name].append(seconds)
            texts[name].add(out.strip())
    print(f"CPU: {cpu_name()}; {args.model} {args.compute_type}, beam 5, {args.threads} threads, "
          f"{Path(args.audio).name}, {args.repeats} runs each, in turns")
    for name, values in times.items():
        print(f"  {name:16s} median {statistics.median(values):7.2f} s  (min {min(values):.2f}, max {max(values):.2f})")
    for path, native in (("avx512", "avx512 native"), ("avx2", "avx2 x86-64-v3")):
        ratio = statistics.median(times[f"{path} portable"]) / statistics.median(times[native])
        same = texts[f"{path} portable"] | texts[native]
        print(f"  {path}: portable / native = {ratio:.3f}; "
              + ("the same text" if len(same) == 1 else f"{len(same)} different texts"))


if __name__ == "__main__":
    main()
