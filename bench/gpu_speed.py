#!/usr/bin/env python3
"""GPU speed of auris beside Hugging Face transformers, on one NVIDIA GPU, in one invocation.

Both engines run models of the real large-v3 and large-v3-turbo shapes with the same random weights
(`auris convert VOCAB --random-weights NAME --to hf --f16`, VOCAB any multilingual model, which
transformers loads too), batch 1, fp16. For auris: encoder ms per 30-s window, prefill ms and decode
ms per step from CUDA events (--print-timings; see auris_timings), and the same with cross K/V
recomputed at every step (the ablation), with each step's tail (logit filters, log-softmax, argmax)
on the host instead of in the step's graph (the ablation: the per-step host cost from the two runs'
process wall times), with the encoder's attention fused (our kernel, or cuDNN's), and with the decode step fused (its layer
norms, residual adds and cache writes inside its gemv kernels), alone and with programmatic
dependent launch (the experiments). For
transformers: eager attention, SDPA, and SDPA with a static cache + torch.compile, timing the
encoder and per-token decoding of generate(). The HBM floor is the decoder's and the vocabulary's
weight bytes over the measured device-to-device copy bandwidth.

Random weights decode arbitrary tokens: transformers is forced to --steps tokens (max_new_tokens and
min_new_tokens) and auris decodes greedily without temperature fallback, so both report per-token
latency of batch-1 greedy decoding. The audio's content does not matter to random weights.

Usage: bench/gpu_speed.py [--models large-v3-turbo large-v3] [--repeats 5] [--steps 100]
                          [--vocab-from base] [--audio FILE] [--auris build/auris]
                          [--transformers eager sdpa compiled] [--peer-timeout 300]
                          [--ablations recompute host-tail fused cudnn fused-step overlapped]
                          [--out bench/results/gpu_speed.json]
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


PEERS = {"eager": "transformers eager", "sdpa": "transformers SDPA",
         "compiled": "transformers SDPA + static cache + torch.compile"}
ABLATIONS = {"recompute": ("auris, cross K/V recomputed each step", ["--recompute-cross-kv"]),
             "host-tail": ("auris, step tail on the host", ["--host-step-tail"]),
             "fused": ("auris, fused encoder attention", ["--fused-encoder-attention"]),
             "cudnn": ("auris, cuDNN encoder attention", ["--cudnn-encoder-attention"]),
             "fused-step": ("auris, fused decode step", ["--fused-decode-step"]),
             "overlapped": ("auris, fused decode step, programmatic launch", ["--fused-decode-step", "--programmatic-launch"])}


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def make_model(auris, vocab_from, name, work):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "config.json")):
        subprocess.run([auris, "convert", vocab_from, "--random-weights", name, "--to", "hf", "--f16", "-o", out], check=True)
    return out


class RowFailed(Exception):
    """An auris run that failed, hung or printed no device timings: its row reports why."""


# An auris run of the two 45-s windows: a large-v3 load and 2 x 40 steps take well under this; an
# experiment that hangs loses its row, not the speed call's whole budget.
AURIS_RUN_TIMEOUT_S = 150


def failure_line(stderr):
    """The line that says why auris failed: its error, not the timings it prints after one."""
    lines = (stderr or "").strip().splitlines()
    errors = [l for l in lines if l.startswith("auris: error")]
    others = [l for l in lines if not l.startswith("auris: timings")]
    return (errors or others or [""])[-1]


def auris_timings(auris, model, audio, extra):
    """One process transcribes the audio twice; the engine times each encoder pass, prefill and decode
    step with CUDA events (--print-timings' device_ms), and the medians leave out each stage's first
    call, which also pays cuBLAS's and the kernels' first-use setup."""
    argv = [auris, "transcribe", "-m", model, "--device", "cuda", "--compute-type", "float16", "--beam-size", "0",
            "--temperature", "0", "--temperature-increment-on-fallback", "0", "--print-timings", audio, audio] + extra
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=AURIS_RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RowFailed(f"no answer in {AURIS_RUN_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise RowFailed(failure_line(done.stderr) or f"exit {done.returncode}")
    process_wall_s = time.perf_counter() - start
    t = json.loads(next(l for l in done.stderr.splitlines() if l.startswith("auris: timings "))[15:])
    device = t["device_ms"]
    if device["encoder_per_window"] is None or device["decode_step"] is None:
        raise RowFailed(f"{audio}: no device timings (give audio longer than one 30-s window: the engine keeps a "
                        "repeated window's encoding)")
    return {"encoder_ms_per_window": device["encoder_per_window"],
            "prefill_ms": device["prefill"],
            "decode_ms_per_step": device["decode_step"],
            "decode_wall_ms_per_step": t["decode_ms_per_step"],
            "decode_steps": t["decode_steps"],
            "mean_rows_per_step": t["mean_rows_per_step"],
            "process_wall_s": process_wall_s,
            "model": t["model"]}


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


def transformers_timings(model_dir, steps, configuration, repeats):
    """One load (and one compile) per configuration, then `repeats` timings of the encoder and of
    per-token decoding; the one-token generate is subtracted so prefill and setup cancel."""
    import torch
    from transformers import WhisperForConditionalGeneration
    compiled = configuration == "compiled"
    attention = "eager" if configuration == "eager" else "sdpa"
    model = WhisperForConditionalGeneration.from_pretrained(model_dir, dtype=torch.float16,
                                                            attn_implementation=attention).to("cuda").eval()
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


def peer_timings(model_dir, steps, configuration, repeats, timeout):
    """transformers in a child process, so that a crash there (torch.compile) costs only its own row."""
    argv = [sys.executable, os.path.abspath(__file__), "--peer", model_dir, "--steps", str(steps), "--repeats", str(repeats),
            "--configuration", configuration]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {timeout} s"}
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
    p.add_argument("--transformers", nargs="*", default=["eager", "sdpa", "compiled"], choices=list(PEERS),
                   help="which transformers configurations to time beside auris")
    p.add_argument("--peer-timeout", type=int, default=300, help="seconds one transformers configuration may take")
    p.add_argument("--ablations", nargs="*", default=list(ABLATIONS), choices=list(ABLATIONS),
                   help="which auris rows to time beside the default one")
    p.add_argument("--peer", help=argparse.SUPPRESS)  # internal: time transformers on this model dir
    p.add_argument("--configuration", choices=list(PEERS), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.peer:
        print(json.dumps(transformers_timings(args.peer, args.steps, args.configuration, args.repeats)))
        return
    os.makedirs(args.work, exist_ok=True)
    bandwidth = copy_bandwidth_gbs()
    print(f"device-to-device copy bandwidth: {bandwidth:.0f} GB/s", file=sys.stderr)
    results = {"copy_bandwidth_gbs": bandwidth}
    for name in args.models:
        model = make_model(args.auris, args.vocab_from, name, args.work)
        ablations = {"auris": [], **dict(ABLATIONS[a] for a in args.ablations)}
        runs = {label: [] for label in ablations}
        failed = {}  # an experiment that does not run here (cuDNN missing, say) is reported, not fatal
        for _ in range(args.repeats):
            for label, flags in ablations.items():
                if label in failed:
                    continue
                try:
                    runs[label].append(auris_timings(args.auris, model, args.audio, flags))
                except RowFailed as e:
                    failed[label] = [str(e)]
                    print(f"{name} {label}: failed: {e}", file=sys.stderr, flush=True)
            if "auris" in failed:
                break
        if "auris" in failed:  # no baseline, no ratios: the next model may still run
            results[name] = {"error": "the baseline failed: " + failed["auris"][0]}
            with open(args.out, "w") as f:
                json.dump(results, f, indent=1)
            continue
        auris_results = {l: {k: spread([r[k] for r in rs]) for k in ("encoder_ms_per_window", "prefill_ms",
                                                                      "decode_ms_per_step", "decode_wall_ms_per_step",
                                                                      "decode_steps", "mean_rows_per_step",
                                                                      "process_wall_s")}
                         for l, rs in runs.items() if l not in failed}
        auris_results.update({l: {"error": message[0]} for l, message in failed.items()})
        print(json.dumps({name: auris_results}, indent=1), flush=True)
        results[name] = {"auris": auris_results}  # kept should the peers run out the call's time
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        peers = {PEERS[c]: peer_timings(model, args.steps, c, args.repeats, args.peer_timeout) for c in args.transformers}
        floor_ms = runs["auris"][0]["model"]["decode_weight_bytes"] / (bandwidth * 1e9) * 1000
        ours = auris_results["auris"]
        ratios = {"step_over_floor": ours["decode_ms_per_step"]["median"] / floor_ms}
        host_tail = auris_results.get(ABLATIONS["host-tail"][0])
        if host_tail and "error" not in host_tail:  # the same steps, encoder passes and load in both: the wall difference is the tails'
            ratios["host tail costs ms per step"] = ((host_tail["process_wall_s"]["median"] - ours["process_wall_s"]["median"])
                                                     * 1000 / ours["decode_steps"]["median"])
        for key, ratio in (("fused", "fused encoder attention faster by"), ("cudnn", "cuDNN encoder attention faster by")):
            row = auris_results.get(ABLATIONS[key][0])
            if row and "error" not in row:
                ratios[ratio] = ours["encoder_ms_per_window"]["median"] / row["encoder_ms_per_window"]["median"]
                for label, peer in peers.items():
                    if "error" not in peer:
                        ratios[f"{key} encoder faster than {label}"] = (peer["encoder_ms"]["median"]
                                                                        / row["encoder_ms_per_window"]["median"])
        for key, ratio in (("fused-step", "fused decode step faster by"), ("overlapped", "fused + programmatic launch faster by")):
            row = auris_results.get(ABLATIONS[key][0])
            if row and "error" not in row:
                ratios[ratio] = ours["decode_ms_per_step"]["median"] / row["decode_ms_per_step"]["median"]
                ratios[f"{key} step_over_floor"] = row["decode_ms_per_step"]["median"] / floor_ms
        for label, peer in peers.items():
            if "error" not in peer:
                ratios[f"encoder faster than {label}"] = peer["encoder_ms"]["median"] / ours["encoder_ms_per_window"]["median"]
                ratios[f"decode faster than {label}"] = peer["decode_ms_per_token"]["median"] / ours["decode_ms_per_step"]["median"]
        results[name] = {"floor_ms": floor_ms, "auris": auris_results, "transformers": peers, "ratios": ratios}
        print(json.dumps({name: results[name]}, indent=1), flush=True)
        with open(args.out, "w") as f:  # after each model, so a later failure keeps the earlier ones
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
