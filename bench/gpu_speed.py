#!/usr/bin/env python3
"""GPU speed of auris beside Hugging Face transformers, on one NVIDIA GPU, in one invocation.

Both engines run models of the real large-v3 and large-v3-turbo shapes with the same random weights
(`auris convert base --random-weights NAME --to hf --f16`, which transformers loads too), batch 1,
fp16. For auris: encoder ms per 30-s window, prefill ms, decode ms per token (from --print-timings),
and the same with cross K/V recomputed at every step (the ablation). For transformers: eager, and
static cache + torch.compile, timing the encoder and per-token decoding of generate(). The HBM floor
is the decoder's and the vocabulary's weight bytes over the measured device-to-device copy bandwidth.

Random weights decode arbitrary tokens: every engine is forced to the same number of steps
(--steps, via max_new_tokens for transformers and a prompt-free greedy run for auris, whose timings
report per-step figures), so per-token latencies compare like for like.

NOT YET RUN: written on a machine without a GPU; the first session with one runs and fixes it.
Usage: bench/gpu_speed.py [--models large-v3-turbo large-v3] [--repeats 5] [--steps 100]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JFK = os.path.join(ROOT, "..", "shared", "data", "audio", "jfk.flac")


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def make_model(auris, name, work):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "config.json")):
        subprocess.run([auris, "convert", "base", "--random-weights", name, "--to", "hf", "--f16", "-o", out], check=True)
    return out


def auris_timings(auris, model, extra):
    argv = [auris, "transcribe", "-m", model, "--device", "cuda", "--compute-type", "float16", "--beam-size", "0",
            "--temperature", "0", "--print-timings", JFK] + extra
    stderr = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
    return json.loads(next(l for l in stderr.splitlines() if l.startswith("auris: timings "))[15:])


def copy_bandwidth_gbs():
    import torch
    x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    for _ in range(3):
        y.copy_(x)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(20):
        y.copy_(x)
    torch.cuda.synchronize()
    return 2 * 20 * x.numel() / (time.perf_counter() - start) / 1e9  # read + write


def transformers_timings(model_dir, steps, compiled):
    import torch
    from transformers import WhisperForConditionalGeneration
    model = WhisperForConditionalGeneration.from_pretrained(model_dir, torch_dtype=torch.float16).to("cuda").eval()
    features = torch.randn(1, model.config.num_mel_bins, 3000, dtype=torch.float16, device="cuda")
    kwargs = {}
    if compiled:
        model.generation_config.cache_implementation = "static"
        model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
        kwargs["cache_implementation"] = "static"
    with torch.inference_mode():
        encoder = model.get_encoder()
        for _ in range(3):
            encoder(features)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(5):
            encoder(features)
        torch.cuda.synchronize()
        encoder_ms = (time.perf_counter() - start) / 5 * 1000
        generate = lambda n: model.generate(features, max_new_tokens=n, min_new_tokens=n, do_sample=False, **kwargs)
        for _ in range(2):
            generate(steps)
        times = {}
        for n in (1, steps):
            torch.cuda.synchronize()
            start = time.perf_counter()
            generate(n)
            torch.cuda.synchronize()
            times[n] = time.perf_counter() - start
    return {"encoder_ms": encoder_ms, "decode_ms_per_token": (times[steps] - times[1]) / (steps - 1) * 1000}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", default=["large-v3-turbo", "large-v3"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "auris-gpu-bench"))
    args = p.parse_args()
    auris = os.path.join(ROOT, "build", "auris")
    os.makedirs(args.work, exist_ok=True)
    bandwidth = copy_bandwidth_gbs()
    print(f"device-to-device copy bandwidth: {bandwidth:.0f} GB/s", file=sys.stderr)
    results = {}
    for name in args.models:
        model = make_model(auris, name, args.work)
        runs = {"auris": [], "auris, cross K/V recomputed each step": []}
        for _ in range(args.repeats):
            runs["auris"].append(auris_timings(auris, model, []))
            runs["auris, cross K/V recomputed each step"].append(auris_timings(auris, model, ["--recompute-cross-kv"]))
        peers = {label: [transformers_timings(model, args.steps, compiled) for _ in range(args.repeats)]
                 for label, compiled in (("transformers eager", False), ("transformers static cache + compile", True))}
        floor_ms = runs["auris"][0]["model"]["decode_weight_bytes"] / (bandwidth * 1e9) * 1000
        results[name] = {"floor_ms": floor_ms,
                         "auris": {l: {k: spread([r[k] for r in rs]) for k in ("encoder_ms_per_window", "prefill_ms",
                                                                              "decode_ms_per_step")} for l, rs in runs.items()},
                         "transformers": {l: {k: spread([r[k] for r in rs]) for k in ("encoder_ms", "decode_ms_per_token")}
                                          for l, rs in peers.items()}}
        print(json.dumps({name: results[name]}, indent=1))
    with open(os.path.join(ROOT, "bench", "results", "gpu_speed.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
