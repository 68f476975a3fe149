#!/usr/bin/env python3
"""Two or more auris builds side by side on one GPU, in one invocation: each repeat runs every build
in turn on the same models and audio, in the steady state (bench/gpu_speed.py's auris_timings: the
audio once, then twice, in two processes; the second pass is the difference).

Usage: bench/gpu_compare.py --build NAME=AURIS [--build NAME=AURIS ...] --models DIR [DIR ...]
                            --audio FILE [--repeats 3] [--out bench/results/gpu_compare.json]
The model directories are random-weight models at real shapes (bench/gpu_speed.py makes them with
`auris convert VOCAB --random-weights NAME --to hf --f16`). The encoder and prefill figures of the
steady-state difference are noisy with a few windows; the decode step's are tight.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_speed  # noqa: E402

FIELDS = ("encoder_ms_per_window", "prefill_ms", "decode_ms_per_step", "decode_steps", "first_pass_encoder_ms_per_window")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", action="append", required=True, help="NAME=path of an auris binary")
    p.add_argument("--models", nargs="+", required=True)
    p.add_argument("--audio", required=True)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", default=os.path.join(gpu_speed.ROOT, "bench", "results", "gpu_compare.json"))
    args = p.parse_args()
    builds = dict(b.split("=", 1) for b in args.build)
    results = {}
    for model in args.models:
        runs = {name: [] for name in builds}
        for _ in range(args.repeats):
            for name, exe in builds.items():
                runs[name].append(gpu_speed.auris_timings(exe, model, args.audio, []))
        name_of_model = os.path.basename(os.path.normpath(model))
        results[name_of_model] = {name: {k: gpu_speed.spread([r[k] for r in rs]) for k in FIELDS} for name, rs in runs.items()}
        for name in builds:
            step = results[name_of_model][name]["decode_ms_per_step"]
            print(f"{name_of_model} {name}: decode step {step['median']:.3f} ms ({step['min']:.3f}-{step['max']:.3f})", flush=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
