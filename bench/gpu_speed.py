#!/usr/bin/env python3
"""GPU speed of auris beside Hugging Face transformers, on one NVIDIA GPU, in one invocation.

Both engines run models of the real large-v3 and large-v3-turbo shapes with the same random weights
(`auris convert VOCAB --random-weights NAME --to hf --f16`, VOCAB any multilingual model, which
transformers loads too), batch 1, fp16. For auris: encoder ms per 30-s window, prefill ms and decode
ms per step in the steady state (from --print-timings; see auris_timings), and the same with cross
K/V recomputed at every step (the ablation). For transformers: eager, and
static cache + torch.compile, timing the encoder and per-token decoding of generate(). The HBM floor
is the decoder's and the vocabulary's weight bytes over the measured device-to-device copy bandwidth.

Random weights decode arbitrary tokens: transformers is forced to --steps tokens (max_new_tokens and
min_new_tokens) and auris decodes greedily without temperature fallback, so both report per-token
latency of batch-1 greedy decoding. The audio's content does not matter to random weights.

Usage: bench/gpu_speed.py [--models large-v3-turbo large-v3] [--repeats 5] [--steps 100]
                          [--vocab-from base] [--audio FILE] [--auris build/auris]
                          [--transformers eager compiled] [--out bench/results/gpu_speed.json]
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
LONGFORM = os.path.join(ROOT, "..", "shared", "data", "audio", "longform", "hifitts-dev-concat.flac")


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def make_model(auris, vocab_from, name, work):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "config.json")):
        subprocess.run([auris, "convert", vocab_from, "--random-weights", name, "--to", "hf", "--f16", "-o", out], check=True)
    return out


def auris_counters(auris, model, files, extra):
    argv = [auris, "transcribe", "-m", model, "--device", "cuda", "--compute-type", "float16", "--beam-size", "0",
            "--temperature", "0", "--temperature-increment-on-fallback", "0", "--print-timings"] + files + extra
    stderr = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
    return json.loads(next(l for l in stderr.splitlines() if l.startswith("auris: timings "))[15:])


def auris_timings(auris, model, audio, extra):
    """Steady-state figures: one process transcribes the audio once, another twice, and the second
    pass is the difference of their cumulative counters. A process's first window also pays cuBLAS's
    and the CUDA modules' first-use setup (about 0.14 s on an H100), which is not a per-window cost."""
    once, twice = auris_counters(auris, model, [audio], extra), auris_counters(auris, model, [audio, audio], extra)
    d = {k: twice[k] - once[k] for k in ("encoder_s", "encoder_windows", "prefill_s", "prefills", "decode_s",
                                         "decode_steps", "decode_rows")}
    if d["encoder_windows"] == 0 or d["decode_steps"] == 0:
        sys.exit(f"{audio}: give audio longer than one 30-s window (the engine keeps a repeated window's encoding)")
    return {"encoder_ms_per_window": d["encoder_s"] / d["encoder_windows"] * 1000,
            "prefill_ms": d["prefill_s"] / d["prefills"] * 1000,
            "decode_ms_per_step": d["decode_s"] / d["decode_steps"] * 1000,
            "decode_steps": d["decode_steps"],
            "mean_rows_per_step": d["decode_rows"] / d["decode_steps"],
            "first_pass_encoder_ms_per_window": once["encoder_ms_per_window"],
            "model": once["model"]}


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


def transformers_timings(model_dir, steps, compiled, repeats):
    """One load (and one compile) per configuration, then `repeats` timings of the encoder and of
    per-token decoding; the one-token generate is subtracted so prefill and setup cancel."""
    import torch
    from transformers import WhisperForConditionalGeneration
    model = WhisperForConditionalGeneration.from_pretrained(model_dir, dtype=torch.float16).to("cuda").eval()
    features = torch.randn(1, model.config.num_mel_bins, 3000, dtype=torch.float16, device="cuda")
    if not getattr(model.generation_config, "lang_to_id", None):  # auris convert writes no language table
        model.generation_config.lang_to_id = {"<|en|>": 50259}
    kwargs = {}
    if compiled:
        model.generation_config.cache_implementation = "static"
        model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
        kwargs["cache_implementation"] = "static"

    def timed(fn):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        return time.perf_counter() - start

    with torch.inference_mode():
        encoder = model.get_encoder()
        generate = lambda n: model.generate(features, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                                            language="en", task="transcribe", **kwargs)
        for _ in range(3):
            encoder(features)
        for _ in range(2):
            generate(steps)
        runs = []
        for _ in range(repeats):
            encoder_s = timed(lambda: [encoder(features) for _ in range(5)]) / 5
            one, many = timed(lambda: generate(1)), timed(lambda: generate(steps))
            runs.append({"encoder_ms": encoder_s * 1000, "decode_ms_per_token": (many - one) / (steps - 1) * 1000})
    del model
    torch.cuda.empty_cache()
    return runs


def peer_timings(model_dir, steps, compiled, repeats):
    """transformers in a child process, so that a crash there (torch.compile) costs only its own row."""
    argv = [sys.executable, os.path.abspath(__file__), "--peer", model_dir, "--steps", str(steps), "--repeats", str(repeats)]
    try:
        done = subprocess.run(argv + (["--compiled"] if compiled else []), capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"error": "no result within 300 s"}
    lines = [l for l in done.stdout.splitlines() if l.startswith("[")]
    if done.returncode != 0 or not lines:
        return {"error": f"exit status {done.returncode}: " + done.stderr.strip()[-400:]}
    runs = json.loads(lines[-1])
    return {k: spread([r[k] for r in runs]) for k in ("encoder_ms", "decode_ms_per_token")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", default=["large-v3-turbo", "large-v3"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--vocab-from", default="base", help="any multilingual model: the random models take its vocabulary")
    p.add_argument("--audio", default=LONGFORM, help="the audio auris transcribes: longer than one 30-s window")
    p.add_argument("--auris", default=os.path.join(ROOT, "build", "auris"))
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "auris-gpu-bench"))
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "gpu_speed.json"))
    p.add_argument("--transformers", nargs="*", default=["eager", "compiled"], choices=["eager", "compiled"],
                   help="which transformers configurations to time beside auris")
    p.add_argument("--peer", help=argparse.SUPPRESS)  # internal: time transformers on this model dir
    p.add_argument("--compiled", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.peer:
        print(json.dumps(transformers_timings(args.peer, args.steps, args.compiled, args.repeats)))
        return
    os.makedirs(args.work, exist_ok=True)
    bandwidth = copy_bandwidth_gbs()
    print(f"device-to-device copy bandwidth: {bandwidth:.0f} GB/s", file=sys.stderr)
    results = {"copy_bandwidth_gbs": bandwidth}
    for name in args.models:
        model = make_model(args.auris, args.vocab_from, name, args.work)
        runs = {"auris": [], "auris, cross K/V recomputed each step": []}
        for _ in range(args.repeats):
            runs["auris"].append(auris_timings(args.auris, model, args.audio, []))
            runs["auris, cross K/V recomputed each step"].append(auris_timings(args.auris, model, args.audio, ["--recompute-cross-kv"]))
        auris_results = {l: {k: spread([r[k] for r in rs]) for k in ("encoder_ms_per_window", "prefill_ms",
                                                                      "decode_ms_per_step", "decode_steps", "mean_rows_per_step",
                                                                      "first_pass_encoder_ms_per_window")}
                         for l, rs in runs.items()}
        print(json.dumps({name: auris_results}, indent=1), flush=True)
        peers = {label: peer_timings(model, args.steps, compiled, args.repeats)
                 for label, compiled in (("transformers eager", False), ("transformers static cache + compile", True))
                 if ("compiled" if compiled else "eager") in args.transformers}
        floor_ms = runs["auris"][0]["model"]["decode_weight_bytes"] / (bandwidth * 1e9) * 1000
        results[name] = {"floor_ms": floor_ms, "auris": auris_results, "transformers": peers}
        print(json.dumps({name: results[name]}, indent=1), flush=True)
        with open(args.out, "w") as f:  # after each model, so a later failure keeps the earlier ones
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
