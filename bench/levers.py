#!/usr/bin/env python3
"""Each CPU speed lever on its own: build/auris_levers (Google Benchmark) at Whisper base's shapes,
the variant auris runs beside the one it replaced or avoided, repeated with the repetitions
interleaved, reported as median and spread (min-max) of the wall time per call.

Writes bench/results/levers.json and prints the markdown table docs/benchmarks/cpu-kernels.md quotes.

Usage: bench/levers.py [--repeats 7] [--threads 2] [--render bench/results/levers.json]
"""
import argparse
import json
import os
import subprocess
import sys

from speed import ROOT, machine, spread

BINARY = os.path.join(ROOT, "build", "auris_levers")
WHAT = {  # lever -> what it is, for the table
    "encoder_gemm_qkv": "GEMM library and packing: encoder QKV (1500 x 1536 x 512)",
    "encoder_gemm_mlp_in": "GEMM library and packing: encoder MLP in (1500 x 2048 x 512)",
    "encoder_gemm_mlp_out": "GEMM library and packing: encoder MLP out (1500 x 512 x 2048)",
    "bias_gelu": "bias + GELU after the encoder's MLP-in GEMM",
    "encoder_attention": "the encoder's self-attention, one layer (8 heads, 1500 positions)",
    "cross_kv": "the window's cross K/V, 6 layers",
    "prefill_products": "a 96-token prefill's products, one decoder layer (fp16 weights)",
    "prefill_products_int8": "a 96-token prefill's products, one decoder layer (int8 weights)",
    "batched_step_products_int8": "a batched beam-5 step of 8 windows (40 rows): one decoder layer and the vocabulary (int8 weights)",
    "batched_step_products_f16": "a batched beam-5 step of 8 windows (40 rows): one decoder layer and the vocabulary (fp16 weights)",
    "prefill_logits": "vocabulary projection at a 96-token prefill",
    "beam_logits": "vocabulary projection, 5 beams",
    "beam_self_attention": "a beam-5 step's self-attention, 6 layers (160-token prompt, 40 tokens each)",
    "vocab_weight_format": "vocabulary projection, 1 row, per weight format",
    "decode_step_threads": "a beam-1 decode step's 37 products: threads",
    "decode_step_buffers": "a beam-1 decode step's 37 products: output buffers",
}


def run(repeats, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([BINARY, f"--benchmark_repetitions={repeats}", "--benchmark_enable_random_interleaving=true",
                          "--benchmark_min_time=0.3", "--benchmark_format=json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    levers = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        lever, variant = b["run_name"].split("/")[:2]
        entry = levers.setdefault(lever, {}).setdefault(variant, {"ours": b.get("label") == "auris", "ms": []})
        entry["ms"].append(b["real_time"])  # Unit(kMillisecond)
    return levers


def markdown(levers, machine_name, threads):
    lines = [f"Machine: {machine_name}; {threads} threads.\n",
             "| lever | variant | ms per call, median (min-max) | time / auris's |",
             "|---|---|---|---|"]
    order = list(WHAT) + [lever for lever in levers if lever not in WHAT]
    for lever in (l for l in order if l in levers):
        variants = dict(sorted(levers[lever].items(), key=lambda kv: not kv[1]["ours"]))
        ours = next(v for v in variants.values() if v["ours"])
        ours_ms = spread(ours["ms"])["median"]
        for name, v in variants.items():
            s = spread(v["ms"])
            mark = "**auris**: " if v["ours"] else ""
            lines.append(f"| {WHAT.get(lever, lever)} | {mark}{name.replace('_', ' ')} | "
                         f"{s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f}) | {s['median'] / ours_ms:.2f}x |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--render", metavar="JSON", help="print the table of an earlier run's results and exit")
    args = p.parse_args()
    if args.render:
        saved = json.load(open(args.render))
        print(markdown(saved["levers"], saved["machine"], saved["threads"]))
        return
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: build first (cmake --build build --target auris_levers)")
    levers = run(args.repeats, args.threads)
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "levers.json"), "w") as f:
        json.dump({"machine": machine(), "threads": args.threads, "levers": levers}, f, indent=1)
    print(markdown(levers, machine(), args.threads))


if __name__ == "__main__":
    main()
