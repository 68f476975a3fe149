#!/usr/bin/env python3
"""Memory over a long live stream (issue 32): `auris stream` fed an hour of speech (the long-form
file looped) step by step as fast as it decodes, its resident size sampled every few seconds.
Prints the RSS after the first 10% of the audio, at the middle and at the end, and the largest.

Usage: bench/stream_memory.py [--cli build/auris] [--model tiny.en] [--step-ms 2000] [--loops 16] [--vad-model FILE]
"""

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(REPO / "build" / "auris"))
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--audio", default=str(REPO.parent / "shared/data/audio/longform/hifitts-dev-concat.flac"))
    parser.add_argument("--step-ms", type=int, default=2000)
    parser.add_argument("--loops", type=int, default=16, help="copies of the file end to end")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--vad-model", help="stream with --vad and this Silero VAD file or cached name")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as d:
        long_file = Path(d) / "long.flac"
        subprocess.run(["ffmpeg", "-loglevel", "error", "-stream_loop", str(args.loops - 1), "-i", args.audio,
                        "-c", "copy", str(long_file)], check=True)
        command = [args.cli, "stream", "-m", args.model, "-t", str(args.threads), "--beam-size", "0",
                   "--step-ms", str(args.step_ms), "-f", "jsonl", str(long_file)]
        if args.vad_model:
            command[2:2] = ["--vad", "--vad-model", args.vad_model]
        samples = []  # (audio seconds committed so far, RSS MiB)
        committed_until = 0.0
        start = time.time()
        with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
            last = 0.0
            for line in process.stdout:
                event = json.loads(line)
                if event["type"] == "committed":
                    committed_until = event["end"]
                if time.time() - last >= 2.0:
                    samples.append((committed_until, rss_mib(process.pid)))
                    last = time.time()
                if event["type"] == "end":
                    audio_seconds, decodes = event["audio_seconds"], event["decodes"]
        wall = time.time() - start
    total = samples[-1][0]

    def at(fraction):
        return next(rss for t, rss in samples if t >= fraction * total)

    print(f"{args.model}{' --vad' if args.vad_model else ''}, step {args.step_ms} ms, greedy, {audio_seconds / 60:.1f} min of audio "
          f"({args.loops} x {Path(args.audio).name}) in {wall / 60:.1f} min, {decodes} decodes")
    print(f"  RSS: {at(0.1):.1f} MiB at 10% of the audio, {at(0.5):.1f} MiB at 50%, {samples[-1][1]:.1f} MiB at "
          f"the end; largest {max(r for _, r in samples):.1f} MiB")


if __name__ == "__main__":
    main()
