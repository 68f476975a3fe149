#!/usr/bin/env python3
"""CPU speed of auris beside the peers users would pick instead, in one invocation on one machine.

Every engine transcribes the same audio with the same weights and the same decoding options
(openai's transcribe() defaults: temperature fallback, conditioning on previous text; greedy or beam
5; language en; N threads), each run in a fresh process so wall time is end to end (start, model
load, audio decode, transcription) and peak RSS is that process's own. Runs are interleaved across
engines, repeated, and reported as median and spread (min-max). WER uses auris's port of openai's
EnglishTextNormalizer (`auris wer`).

  auris            build/auris, each compute type, plus the two cache-design ablations
  faster-whisper   CTranslate2 4.8 from PyPI, float32 and int8, on the same CTranslate2 model dir
  whisper.cpp      pywhispercpp built here from its sdist (GGML_NATIVE), on `auris convert --to ggml`:
                   f16, and q8_0 and q4_0 as whisper.cpp's `quantize` writes them (checked byte for byte
                   against libggml's own quantiser by bench/peers/check_ggml_blocks.py)
  openai/whisper   the reference, fp32, on the same weights (tools/reference/ct2_to_openai.py)

The floors (peak sgemm, streaming-read bandwidth) come from build/auris_floors in the same run: once
at the start (with the decode products), and again before each case, whose encoder fraction and
step/floor ratios use its own (the machine's bandwidth drifts over a long run). faster-whisper's
encoder is timed alone on the file's first window, beside auris's per-window figure.
Writes bench/results/speed.json and prints the markdown tables docs/BENCHMARKS.md quotes.

Usage: bench/speed.py [--models tiny.en base] [--repeats 3] [--render bench/results/speed.json]
(scripts/setup_bench.sh and scripts/setup_reference.sh install the peers; bench/speed.sh does all.)
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
DATA = os.path.join(ROOT, "..", "shared", "data", "audio")
AUDIO = {
    "longform": (os.path.join(DATA, "longform", "hifitts-dev-concat.flac"), os.path.join(DATA, "longform", "hifitts-dev-concat.txt")),
    "jfk": (os.path.join(DATA, "jfk.flac"), None),
}
JFK_TEXT = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
DECODINGS = {"greedy": 1, "beam5": 5}
# A reduced compute type is compared with the peers only if its WER is within this of float32's.
WER_MARGIN = 0.003


def model_dir(name):
    return os.path.join(os.environ.get("AURIS_MODEL_DIR", os.path.expanduser("~/.cache/auris/models")), name)


class Bench:
    def __init__(self, args):
        self.args = args
        self.auris = os.path.join(ROOT, "build", "auris")
        self.work = tempfile.mkdtemp(prefix="auris-bench-")
        self.bench_python = args.bench_python
        self.ref_python = args.reference_python
        self.site = subprocess.check_output([self.bench_python, "-c", "import site; print(site.getsitepackages()[0])"], text=True).strip()

    # One engine run in a fresh process under /usr/bin/time: wall seconds, peak RSS, text, extras.
    def run(self, argv, env=None):
        rss_file = os.path.join(self.work, "rss")
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv, capture_output=True, text=True,
                              env={**os.environ, **(env or {})})
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        rss_mb = int(open(rss_file).read().split()[-1]) / 1024.0
        return wall, rss_mb, proc.stdout, proc.stderr

    def ggml(self, model, storage):
        """The model as a whisper.cpp file: storage f16, q8_0 or q4_0 (the last two checked against
        what whisper.cpp's own quantiser writes from the f16 file)."""
        path = os.path.join(self.work, f"{model}.{storage}.ggml")
        if not os.path.exists(path):
            option = ["--f16"] if storage == "f16" else ["--quantize", storage]
            subprocess.run([self.auris, "convert", model, "--to", "ggml", "-o", path] + option, check=True, capture_output=True)
            if storage != "f16":
                check = os.path.join(ROOT, "bench", "peers", "check_ggml_blocks.py")
                print("  " + subprocess.check_output([self.bench_python, check, self.ggml(model, "f16"), path, storage, self.site],
                                                     text=True).strip(), file=sys.stderr, flush=True)
        return path

    def engines(self, model, decoding, audio_name):
        """(engine label, argv builder) for every configuration benchmarked on this case."""
        beam = DECODINGS[decoding]
        t = str(self.args.threads)
        auris_common = [self.auris, "transcribe", "-m", model, "--language", "en", "-t", t, "--print-timings",
                        "--beam-size", str(beam) if beam > 1 else "0"]
        out = []
        for ct in self.args.auris_compute_types:
            out.append((f"auris {ct}", "auris", auris_common + ["--compute-type", ct]))
        if decoding == "greedy" and not self.args.no_ablations:
            fp32 = auris_common + ["--compute-type", "float32"]
            out.append(("auris float32, cross K/V recomputed each step", "ablation", fp32 + ["--recompute-cross-kv"]))
            out.append(("auris float32, attends over the full static cache", "ablation", fp32 + ["--attend-full-cache"]))
        if self.args.baseline_auris:  # another build of auris, side by side (what a change gained)
            for ct in self.args.auris_compute_types:
                out.append((f"auris {ct} @{self.args.baseline_name}", "auris",
                            [self.args.baseline_auris] + auris_common[1:] + ["--compute-type", ct]))
        fw = os.path.join(ROOT, "bench", "peers", "faster_whisper_run.py")
        for ct in ("float32", "int8"):
            out.append((f"faster-whisper {ct}", "python",
                        [self.bench_python, fw, "--model", model_dir(model), "--compute-type", ct, "--beam", str(beam), "--threads", t]))
        wc = os.path.join(ROOT, "bench", "peers", "whisper_cpp_run.py")
        # No f32: whisper.cpp 1.8 refuses f32 convolution weights (GGML_ASSERT src0->type == F16).
        if not self.args.no_whisper_cpp:
            for storage in self.args.whisper_cpp_types:
                out.append((f"whisper.cpp {storage}", "python",
                            [self.bench_python, wc, "--model", self.ggml(model, storage), "--beam", str(beam), "--threads", t]))
        if not self.args.no_reference:
            ow = os.path.join(ROOT, "bench", "peers", "openai_whisper_run.py")
            out.append(("openai/whisper float32", "reference",
                        [self.ref_python, ow, "--model", model_dir(model), "--beam", str(beam), "--threads", t]))
        return out

    def peer_encoder(self, model, audio_name):
        """faster-whisper's encoder alone, ms per 30-s window, for each of its compute types."""
        script = os.path.join(ROOT, "bench", "peers", "faster_whisper_encoder.py")
        out = {}
        for ct in ("float32", "int8"):
            _, _, stdout, _ = self.run([self.bench_python, script, "--model", model_dir(model), "--compute-type", ct,
                                        "--threads", str(self.args.threads), AUDIO[audio_name][0]])
            out[f"faster-whisper {ct}"] = spread(json.loads(stdout.strip().splitlines()[-1])["encoder_ms"])
            print(f"  {model:8} {audio_name:8} faster-whisper {ct} encoder alone: {out[f'faster-whisper {ct}']['median']:.0f} ms/window",
                  file=sys.stderr, flush=True)
        return out

    def wer(self, reference_text, hypothesis):
        ref = os.path.join(self.work, "ref.txt")
        hyp = os.path.join(self.work, "hyp.txt")
        open(ref, "w").write(reference_text.replace("\n", " ") + "\n")
        open(hyp, "w").write(hypothesis.replace("\n", " ") + "\n")
        out = subprocess.check_output([self.auris, "wer", ref, hyp], text=True)
        return float(out.split()[1])

    def case(self, model, audio_name, decoding):
        audio, transcript = AUDIO[audio_name]
        reference_text = open(transcript).read() if transcript else JFK_TEXT
        duration = float(subprocess.check_output(
            ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", audio], text=True))
        engines = self.engines(model, decoding, audio_name)
        runs = {label: [] for label, _, _ in engines}
        for repeat in range(self.args.repeats):
            for label, kind, argv in engines:  # interleaved: machine noise spreads over every engine
                if kind == "reference" and repeat >= self.args.reference_repeats:
                    continue
                if kind == "ablation" and repeat >= self.args.ablation_repeats:
                    continue
                env = {"LD_LIBRARY_PATH": self.site} if "whisper.cpp" in label else None
                wall, rss, stdout, stderr = self.run(argv + [audio], env)
                if kind in ("auris", "ablation"):
                    text = stdout.strip()
                    timings = json.loads(next(l for l in stderr.splitlines() if l.startswith("auris: timings "))[15:])
                else:
                    result = json.loads(stdout.strip().splitlines()[-1])
                    text, timings = result["text"], {k: result[k] for k in ("load_s", "transcribe_s")}
                runs[label].append({"wall_s": wall, "rss_mb": rss, "wer": self.wer(reference_text, text), "timings": timings})
                print(f"  {model:8} {audio_name:8} {decoding:6} {label:50} {wall:7.2f} s {rss:7.1f} MB WER {runs[label][-1]['wer']:.4f}",
                      file=sys.stderr, flush=True)
        return {"model": model, "audio": audio_name, "decoding": decoding, "audio_seconds": duration, "runs": runs}


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarise(case):
    rows = {}
    for label, runs in case["runs"].items():
        if not runs:
            continue
        row = {"wall_s": spread([r["wall_s"] for r in runs]), "rss_mb": spread([r["rss_mb"] for r in runs]),
               "wer": statistics.median([r["wer"] for r in runs])}
        row["x_real_time"] = case["audio_seconds"] / row["wall_s"]["median"]
        t = runs[0]["timings"]
        if "encoder_ms_per_window" in t:
            for key in ("encoder_ms_per_window", "encoder_windows", "cross_kv_ms_per_window", "prefill_ms", "decode_ms_per_step",
                        "mean_rows_per_step"):
                row[key] = spread([r["timings"][key] for r in runs])
            row["model_dims"] = t["model"]
        load_key = "model_load_s" if "model_load_s" in t else "load_s"  # auris's, or the Python peers'
        if load_key in t:
            row["model_load_s"] = spread([r["timings"][load_key] for r in runs])
        rows[label] = row
    return rows


def encoder_flops(d):
    """FLOPs of one 30-s window through the encoder (GEMMs and attention's two products)."""
    w, layers, ctx = d["n_audio_state"], d["n_audio_layer"], 1500
    convs = 2 * 3000 * d["n_mels"] * 3 * w + 2 * ctx * w * 3 * w
    per_layer = 2 * ctx * w * (3 * w + w + 8 * w) + 2 * 2 * ctx * ctx * w
    return convs + layers * per_layer


def machine():
    """The CPU as /proc/cpuinfo names it, its core count and widest vector instructions."""
    info = open("/proc/cpuinfo").read()
    name = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("model name")), "unknown CPU")
    family = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("cpu family")), "?")
    flags = set(next((l.split(":", 1)[1].split() for l in info.splitlines() if l.startswith("flags")), []))
    simd = [f for f in ("avx512f", "avx512_bf16", "avx512_vnni", "avx2", "fma", "f16c") if f in flags]
    return f"{name} (family {family}), {os.cpu_count()} cores, {' '.join(simd) or 'no AVX'}"


def ratio_line(rows, ours, peer, target):
    if ours not in rows or peer not in rows:
        return None
    r = rows[peer]["wall_s"]["median"] / rows[ours]["wall_s"]["median"]
    verdict = "met" if r >= target else f"missed by {target - r:.2f}x"
    return f"- {ours} vs {peer}: **{r:.2f}x** faster (target {target}x: {verdict})"


def time_budget_line(rows, ours, peer, target):
    """What a target ratio leaves for everything but the encoder: the peer's wall time / target, less
    our encoder's share (windows x ms per window), against what the rest takes now."""
    if ours not in rows or peer not in rows or "encoder_windows" not in rows[ours]:
        return None
    budget = rows[peer]["wall_s"]["median"] / target
    windows = rows[ours]["encoder_windows"]["median"]
    encoder = windows * rows[ours]["encoder_ms_per_window"]["median"] / 1000.0
    rest = rows[ours]["wall_s"]["median"] - encoder
    return (f"- {target}x {peer} ({rows[peer]['wall_s']['median']:.2f} s) gives {ours} {budget:.2f} s; its encoder takes "
            f"{encoder:.2f} s of that ({windows:.0f} windows), leaving {budget - encoder:.2f} s for all else, "
            f"which takes {rest:.2f} s now")


def floors_text(floors):
    return (f"sgemm {floors['sgemm_gflops']['median']:.1f} GFLOP/s ({floors['sgemm_gflops']['min']:.1f}-"
            f"{floors['sgemm_gflops']['max']:.1f}), streaming read {floors['read_gbs']['median']:.1f} GB/s "
            f"({floors['read_gbs']['min']:.1f}-{floors['read_gbs']['max']:.1f})")


def markdown(results, floors, machine_name):
    lines = []
    lines.append(f"Machine: {machine_name}.\n")
    lines.append(f"Floors (same run, at its start, {floors['threads']} threads, {floors['blas']}): {floors_text(floors)}.\n")
    for case in results:
        rows = case["summary"]
        case_floors = case.get("floors", floors)  # runs before 2026-11-24 measured them once
        peak = case_floors["sgemm_gflops"]["median"]
        bandwidth = case_floors["read_gbs"]["median"]
        lines.append(f"### {case['model']}, {case['audio']} ({case['audio_seconds']:.0f} s), {case['decoding']}\n")
        if "floors" in case:
            lines.append(f"Floors measured before this case (its encoder and step ratios use them): {floors_text(case_floors)}.\n")
        lines.append("| engine | wall s median (min-max), n | x real time | peak RSS MB | WER |")
        lines.append("|---|---|---|---|---|")
        for label, r in rows.items():
            w = r["wall_s"]
            lines.append(f"| {label} | {w['median']:.2f} ({w['min']:.2f}-{w['max']:.2f}), {w['n']} | {r['x_real_time']:.1f} | "
                         f"{r['rss_mb']['median']:.0f} | {r['wer']:.4f} |")
        lines.append("")
        # The fastest type that keeps float32's accuracy: WER within WER_MARGIN of it on this case.
        types = [l for l in rows if l.startswith("auris ") and "," not in l and "@" not in l]
        accurate = [l for l in types if "auris float32" not in rows or rows[l]["wer"] <= rows["auris float32"]["wer"] + WER_MARGIN]
        fastest = min(accurate, key=lambda l: rows[l]["wall_s"]["median"], default=None)
        for label in types:
            if label not in accurate and rows[label]["wall_s"]["median"] < rows[fastest]["wall_s"]["median"]:
                lines.append(f"- {label} is faster but not as accurate: WER {100 * (rows[label]['wer'] - rows['auris float32']['wer']):+.2f} "
                             f"points from float32's (the margin is {100 * WER_MARGIN:.1f}), so it is not compared")
        # whisper.cpp's fastest type likewise among those within WER_MARGIN of its f16 (its full precision).
        cpp_types = [l for l in rows if l.startswith("whisper.cpp ")]
        cpp_accurate = [l for l in cpp_types
                        if "whisper.cpp f16" not in rows or rows[l]["wer"] <= rows["whisper.cpp f16"]["wer"] + WER_MARGIN]
        cpp_fastest = min(cpp_accurate, key=lambda l: rows[l]["wall_s"]["median"], default=None)
        for label in cpp_types:
            if label not in cpp_accurate and rows[label]["wall_s"]["median"] < rows[cpp_fastest]["wall_s"]["median"]:
                lines.append(f"- {label} is faster but not as accurate: WER {100 * (rows[label]['wer'] - rows['whisper.cpp f16']['wer']):+.2f} "
                             f"points from whisper.cpp f16's, so it is not compared (for the record, {fastest} is "
                             f"{rows[label]['wall_s']['median'] / rows[fastest]['wall_s']['median']:.2f}x faster than it)")
        for ours, peer, target in [("auris float32", "faster-whisper float32", 1.5), ("auris float32", "whisper.cpp f16", 1.5),
                                   (fastest, "faster-whisper int8", 1.3), (fastest, cpp_fastest, 1.3)]:
            line = ratio_line(rows, ours, peer, target)
            if line:
                lines.append(line)
        for label, r in rows.items():
            if label.startswith("auris float32,") and "auris float32" in rows:
                slower = r["wall_s"]["median"] / rows["auris float32"]["wall_s"]["median"]
                step = r["decode_ms_per_step"]["median"] / rows["auris float32"]["decode_ms_per_step"]["median"]
                lines.append(f"- ablation, {label[len('auris float32, '):]}: {slower:.2f}x the wall time, "
                             f"{step:.2f}x the decode step of auris float32")
        for label, r in rows.items():
            this = label.split(" @")[0]  # the same compute type in this build
            if "@" in label and this in rows:
                ratio = r["wall_s"]["median"] / rows[this]["wall_s"]["median"]
                enc = r["encoder_ms_per_window"]["median"] / rows[this]["encoder_ms_per_window"]["median"]
                lines.append(f"- build {label.split('@')[1]}: {ratio:.2f}x the wall time, {enc:.2f}x the encoder time "
                             f"per window of this build's {this[len('auris '):]}")
        lines.append("")
        stage = [(l, r) for l, r in rows.items() if "encoder_ms_per_window" in r]
        if stage:
            lines.append("| stage | encoder ms/window (% of sgemm peak) | cross K/V ms/window | prefill ms | "
                         "decode ms/step (rows) | step / weights floor | step / weights+cache floor |")
            lines.append("|---|---|---|---|---|---|---|")
            for label, r in stage:
                d = r["model_dims"]
                enc = r["encoder_ms_per_window"]
                frac = encoder_flops(d) / (enc["median"] / 1000.0) / 1e9 / peak
                step = r["decode_ms_per_step"]["median"]
                weights_ms = d["decode_weight_bytes"] / (bandwidth * 1e9) * 1000.0
                all_ms = (d["decode_weight_bytes"] + d["cross_kv_cache_bytes"]) / (bandwidth * 1e9) * 1000.0
                lines.append(f"| {label} | {enc['median']:.0f} ({enc['min']:.0f}-{enc['max']:.0f}), {100 * frac:.0f}% | "
                             f"{r['cross_kv_ms_per_window']['median']:.0f} | {r['prefill_ms']['median']:.1f} | "
                             f"{step:.2f} ({r['mean_rows_per_step']['median']:.1f}) | {step / weights_ms:.2f}x of {weights_ms:.2f} ms | "
                             f"{step / all_ms:.2f}x of {all_ms:.2f} ms |")
            for label, enc in case.get("peer_encoder_ms", {}).items():
                frac = encoder_flops(stage[0][1]["model_dims"]) / (enc["median"] / 1000.0) / 1e9 / peak
                lines.append(f"| {label}, encode() alone | {enc['median']:.0f} ({enc['min']:.0f}-{enc['max']:.0f}), "
                             f"{100 * frac:.0f}% | | | | | |")
            lines.append("")
            loads = [f"{label} {r['model_load_s']['median']:.2f}" for label, r in rows.items() if "model_load_s" in r]
            if loads:
                lines.append("- model load s, median (part of the wall time): " + ", ".join(loads))
            for ours, peer in [("auris float32", "faster-whisper float32"), ("auris int8", "faster-whisper int8")]:
                if ours in rows and peer in case.get("peer_encoder_ms", {}):
                    theirs = case["peer_encoder_ms"][peer]["median"]
                    mine = rows[ours]["encoder_ms_per_window"]["median"]
                    lines.append(f"- encoder per window, {ours} vs {peer}: {mine:.0f} vs {theirs:.0f} ms ({theirs / mine:.2f}x)")
            budget = time_budget_line(rows, "auris float32", "faster-whisper float32", 1.5)
            if budget:
                lines.append(budget)
            lines.append("")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", default=["tiny.en", "base"])
    p.add_argument("--audio", nargs="+", default=["jfk", "longform"], choices=list(AUDIO))
    p.add_argument("--decodings", nargs="+", default=["greedy", "beam5"], choices=list(DECODINGS))
    p.add_argument("--auris-compute-types", nargs="+", default=["float32", "float16", "bfloat16", "int8"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--reference-repeats", type=int, default=1, help="openai/whisper is slow: fewer repeats")
    p.add_argument("--ablation-repeats", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-reference", action="store_true")
    p.add_argument("--no-ablations", action="store_true")
    p.add_argument("--no-whisper-cpp", action="store_true")
    p.add_argument("--whisper-cpp-types", nargs="+", default=["f16", "q8_0", "q4_0"], choices=["f16", "q8_0", "q4_0"])
    p.add_argument("--no-peer-encoder", action="store_true", help="skip timing faster-whisper's encoder alone")
    p.add_argument("--baseline-auris", metavar="BIN",
                   help="another auris build run beside this one (each of --auris-compute-types)")
    p.add_argument("--baseline-name", default="baseline", help="its label in the tables, e.g. a commit")
    p.add_argument("--bench-python", default=os.path.expanduser("~/.cache/auris/benchenv/bin/python"))
    p.add_argument("--reference-python", default=os.path.expanduser("~/.cache/auris/refenv/bin/python"))
    p.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "speed.json"))
    p.add_argument("--render", metavar="JSON", help="print the tables of a saved results file; run nothing")
    args = p.parse_args()
    if args.render:
        saved = json.load(open(args.render))
        print(markdown(saved["cases"], saved["floors"], saved.get("machine", "not recorded")))
        return

    bench = Bench(args)
    def measure_floors(*options):
        return json.loads(subprocess.check_output([os.path.join(ROOT, "build", "auris_floors"), *options], text=True,
                                                  env={**os.environ, "OMP_NUM_THREADS": str(args.threads)}))

    floors = measure_floors()
    print(f"floors: {json.dumps(floors)}", file=sys.stderr)
    results = []
    peer_encoder = {}  # (model, audio): measured once, shown with each decoding's case
    for model in args.models:
        for audio in args.audio:
            for decoding in args.decodings:
                case_floors = measure_floors("--no-products")
                print(f"floors before {model}, {audio}, {decoding}: {json.dumps(case_floors)}", file=sys.stderr)
                case = bench.case(model, audio, decoding)
                case["floors"] = case_floors
                case["summary"] = summarise(case)
                if not args.no_peer_encoder:
                    if (model, audio) not in peer_encoder:
                        peer_encoder[(model, audio)] = bench.peer_encoder(model, audio)
                    case["peer_encoder_ms"] = peer_encoder[(model, audio)]
                results.append(case)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump({"machine": machine(), "floors": floors, "threads": args.threads, "cases": results}, f, indent=1)
    print(markdown(results, floors, machine()))


if __name__ == "__main__":
    main()
