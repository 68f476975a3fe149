#!/usr/bin/env python3
"""Where the Python package's time goes on one file (beside `auris transcribe --print-timings`):
import, model load, audio decode, the eager part of transcribe() (language detection), and the
segments. Run it with the package's Python.

Usage: build/python-venv/bin/python bench/python_stages.py [--model base] [--threads 2] [AUDIO]
"""

import argparse
import time
from pathlib import Path

LONGFORM = Path(__file__).resolve().parents[2] / "shared" / "data" / "audio" / "longform" / "hifitts-dev-concat.flac"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("audio", nargs="?", default=str(LONGFORM))
    p.add_argument("--model", default="base")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--beam-size", type=int, default=5)
    a = p.parse_args()
    marks = [("start", time.perf_counter())]
    import auris
    marks.append(("import", time.perf_counter()))
    model = auris.WhisperModel(a.model, cpu_threads=a.threads)
    marks.append(("load", time.perf_counter()))
    samples = auris.decode_audio(a.audio)
    marks.append(("decode", time.perf_counter()))
    segments, _ = model.transcribe(samples, beam_size=a.beam_size)
    marks.append(("transcribe() returns", time.perf_counter()))
    list(segments)
    marks.append(("segments", time.perf_counter()))
    print("  ".join(f"{name} {t - marks[i][1]:.3f} s" for i, (name, t) in enumerate(marks[1:])))


if __name__ == "__main__":
    main()
