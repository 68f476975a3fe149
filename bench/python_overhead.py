#!/usr/bin/env python3
"""What the Python package costs over the CLI: the same transcription as `auris transcribe` and as
`auris.WhisperModel(...).transcribe(...)`, each a whole process (start, model load, audio decode,
transcription), taken in pairs whose order alternates, so that the machine's noise and drift fall
on both. Prints the median and the spread of each, the median of the pairs' ratios (the figure: a
slow minute slows both runs of a pair) beside the ratio of the medians, and checks that both gave
the same text. With --batch-size N: `auris transcribe --batch-size N --vad` beside
`BatchedInferencePipeline(model).transcribe(audio, batch_size=N)`, both with the test Silero file.

Usage: bench/python_overhead.py --python VENV/bin/python [--cli build/auris] [--model base]
       [--audio ../shared/data/audio/longform/hifitts-dev-concat.flac] [--repeats 5] [--threads 2]
       [--compute-type float16] [--batch-size 8]
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PYTHON_JOB = """
import sys
from auris import BatchedInferencePipeline, WhisperModel
model = WhisperModel(sys.argv[1], cpu_threads=int(sys.argv[3]), compute_type=sys.argv[4])
batch_size = int(sys.argv[5])
if batch_size:
    segments, info = BatchedInferencePipeline(model).transcribe(
        sys.argv[2], beam_size=5, batch_size=batch_size,
        vad_parameters={"model": sys.argv[6], "min_silence_duration_ms": 160})  # the CLI's batched VAD
else:
    segments, info = model.transcribe(sys.argv[2], beam_size=5)
print("".join(s.text for s in segments).strip())
"""


def timed(command):
    start = time.perf_counter()
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="a Python with the auris package installed")
    parser.add_argument("--cli", default=str(REPO / "build" / "auris"))
    parser.add_argument("--model", default="base")
    parser.add_argument("--audio", default=str(REPO.parent / "shared/data/audio/longform/hifitts-dev-concat.flac"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--compute-type", default="float16", help="both sides' (the CLI's default)")
    parser.add_argument("--batch-size", type=int, default=0, help="batched transcription with VAD (0: sequential)")
    parser.add_argument("--vad-model", default=str(REPO.parent / "shared/data/vad/for-tests-silero-v6.2.0-ggml.bin"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as out:
        cli = [args.cli, "transcribe", "-m", args.model, "-t", str(args.threads), "--beam-size", "5",
               "--compute-type", args.compute_type, "-f", "txt",
               "-o", out, args.audio]
        if args.batch_size:
            cli[-3:-3] = ["--batch-size", str(args.batch_size), "--vad", "--vad-model", args.vad_model,
                          "--without-timestamps"]
        job = Path(out) / "job.py"
        job.write_text(PYTHON_JOB)
        python = [args.python, str(job), args.model, args.audio, str(args.threads), args.compute_type,
                  str(args.batch_size), args.vad_model]
        times = {"cli": [], "python": []}
        texts = {}
        timed(cli)  # warm the page cache and the model files
        for repeat in range(args.repeats):
            pair = (("cli", cli), ("python", python))
            for name, command in (pair if repeat % 2 == 0 else pair[::-1]):
                seconds, _ = timed(command)
                times[name].append(seconds)
        texts["cli"] = (Path(out) / (Path(args.audio).stem + ".txt")).read_text()
        texts["python"] = timed(python)[1]

    def norm(text):
        return " ".join(text.split())

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    family = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
              if line.startswith(("cpu family", "model\t"))][:2]
    print(f"CPU: {cpu} (family {family[0]} model {family[1]}), {os.cpu_count()} cores; "
          f"{args.model} {args.compute_type}, beam 5, batch {args.batch_size or 'none'}, {args.threads} threads, {Path(args.audio).name}, {args.repeats} runs each")
    for name in ("cli", "python"):
        t = times[name]
        print(f"{name:7s} median {statistics.median(t):7.3f} s   min {min(t):7.3f}   max {max(t):7.3f}")
    pairs = [p / c for p, c in zip(times["python"], times["cli"])]
    ratio = statistics.median(pairs)
    print(f"python / cli, median of {len(pairs)} pairs: {ratio:.4f} ({(ratio - 1) * 100:+.2f}%), "
          f"pairs {min(pairs):.4f}-{max(pairs):.4f}")
    print(f"python / cli, ratio of the medians: {statistics.median(times['python']) / statistics.median(times['cli']):.4f}")
    print("same text:", norm(texts["cli"]) == norm(texts["python"]))


if __name__ == "__main__":
    main()
