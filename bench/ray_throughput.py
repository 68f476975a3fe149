#!/usr/bin/env python3
"""examples/ray_transcribe.py's throughput with 1 and with 2 actors of 1 CPU each: audio seconds per
wall second over the Hi-Fi TTS clips, as the example's summary reports it (from the dataset's start to
its last file: actor start and model load count, Ray's own start does not). Each run is a fresh
process with its own local Ray and a fresh output folder; the pool sizes take turns, so that the
machine's noise falls on both. Prints the median and the spread (min, max) of each, and the CPU.

Usage: bench/ray_throughput.py [--python VENV/bin/python] [--model tiny.en] [--repeats 3]
       [--actors 1 2] [--files N]   (a Python with auris and ray[data]: pip install '.[test]')
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cpu_info import cpu_name

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "ray_transcribe.py"
HIFITTS = REPO.parent / "shared" / "data" / "audio" / "hifitts-6097" / "audio"
SUMMARY = re.compile(r"audio: ([\d.]+) s in ([\d.]+) s wall: ([\d.]+) audio seconds per wall second")


def write_manifest(folder: Path, clips) -> Path:
    manifest = folder / "clips.txt"
    manifest.write_text("".join(f"{clip}\n" for clip in clips))
    return manifest


def run_once(args, manifest: Path, actors: int) -> float:
    """One run of the example into a fresh output folder; its audio seconds per wall second."""
    with tempfile.TemporaryDirectory(prefix="ray-throughput-") as out:
        run = subprocess.run([args.python, str(EXAMPLE), str(manifest), "--model", args.model, "--actors", str(actors),
                              "--cpus-per-actor", "1", "--output-dir", out, "--output-format", "txt"],
                             capture_output=True, text=True, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    match = SUMMARY.search(run.stdout)
    if run.returncode != 0 or not match:
        sys.exit(f"the example failed ({run.returncode}):\n{run.stdout}\n{run.stderr[-3000:]}")
    return float(match.group(3))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="a Python with auris and ray[data] installed")
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--actors", type=int, nargs="+", default=[1, 2], help="pool sizes (1 CPU per actor)")
    parser.add_argument("--files", type=int, default=0, help="only the first N clips (0: all 58)")
    args = parser.parse_args()

    clips = sorted(HIFITTS.glob("*.wav"))
    clips = clips[:args.files] if args.files else clips
    if not clips:
        sys.exit(f"no clips in {HIFITTS}")
    speeds = {actors: [] for actors in args.actors}
    with tempfile.TemporaryDirectory(prefix="ray-throughput-") as folder:
        manifest = write_manifest(Path(folder), clips)
        for _ in range(args.repeats):
            for actors in args.actors:
                speeds[actors].append(run_once(args, manifest, actors))

    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; {args.model}, beam 5, {len(clips)} Hi-Fi TTS clips, "
          f"{args.repeats} runs each; audio seconds per wall second")
    for actors, s in speeds.items():
        print(f"{actors} actor{'s' if actors > 1 else ' '} x 1 CPU  median {statistics.median(s):6.2f}   "
              f"min {min(s):6.2f}   max {max(s):6.2f}")
    if len(args.actors) > 1:
        first, last = args.actors[0], args.actors[-1]
        ratio = statistics.median(speeds[last]) / statistics.median(speeds[first])
        print(f"{last} actors / {first}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
