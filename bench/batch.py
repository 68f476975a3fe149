#!/usr/bin/env python3
"""Batched transcription: auris --batch-size beside faster-whisper's BatchedInferencePipeline, and
beside auris's own sequential transcription, in one invocation on one machine.

Workloads (the batched-transcription issue's):
  longform   the 232-s long-form file, one recording
  files66    the 58 Hi-Fi TTS utterances and the 8 multilingual clips as 66 files in one invocation
             (faster-whisper's pipeline batches the chunks of one file, so it takes them in turn)
Engines, each run in a fresh process, interleaved, repeated; wall time end to end, peak RSS:
  auris seq          openai's sequential transcribe() (no VAD)
  auris bN           --batch-size N --vad (faster-whisper's batched VAD defaults); --pack where named
  faster-whisper bN  BatchedInferencePipeline, its defaults (VAD, no timestamps), batch_size N
auris batched runs --without-timestamps beside faster-whisper, as its pipeline does by default.
Same weights (the CTranslate2 test models), beam 5 unless --beam, 2 threads, language en for both. WER after openai's
English normaliser (`auris wer`) over what has an English reference: the long-form file, or the 58
Hi-Fi TTS utterances.

  --scaling    also auris_batch_scaling at batch 1..32 over 32 Hi-Fi TTS clips (one window each),
               with the floor of a batched step (the weights read once plus each window's cross K/V,
               over the read bandwidth auris_floors measures), and a PNG of the curve
  --memory     also peak RSS of auris on a 2-hour file (the long-form file 31 times) at batch 1 and 16

Usage: /usr/bin/python3 bench/batch.py [--models tiny.en base] [--repeats 3] [--scaling] [--memory]
       /usr/bin/python3 bench/batch.py --render bench/results/batch.json   (tables, and the plot again)
(scripts/setup_bench.sh installs faster-whisper and Debian's matplotlib, which the plot needs: run it
with Debian's python3; the VAD model is ../shared/data's ggml file.)
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
DATA = os.path.join(ROOT, "..", "shared", "data")
VAD = os.path.join(DATA, "vad", "for-tests-silero-v6.2.0-ggml.bin")
LONGFORM = os.path.join(DATA, "audio", "longform", "hifitts-dev-concat.flac")
HIFITTS = os.path.join(DATA, "audio", "hifitts-6097")
MULTILINGUAL = ["test.wav", "test_de.wav", "test_es.wav", "test_fr.wav", "test_it.wav", "test_ja.wav", "test_ko.wav",
                "test_pt.wav"]


def model_dir(name):
    return os.path.join(os.environ.get("AURIS_MODEL_DIR", os.path.expanduser("~/.cache/auris/models")), name)


def hifitts():
    """The 58 utterances and their reference texts, in manifest order."""
    rows = [json.loads(line) for line in open(os.path.join(HIFITTS, "manifest.jsonl"))]
    return [os.path.join(HIFITTS, r["audio_filepath"]) for r in rows], [r["text_no_preprocessing"] for r in rows]


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.join(ROOT, "build")
        self.auris = os.path.join(self.build, "auris")
        self.work = tempfile.mkdtemp(prefix="auris-batch-")
        self.python = args.bench_python

    def run(self, argv):
        """argv in a fresh process under /usr/bin/time: wall seconds, peak RSS (MB), stdout."""
        rss = os.path.join(self.work, "rss")
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + argv, capture_output=True, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": str(self.args.threads)})
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        return wall, int(open(rss).read().split()[-1]) / 1024.0, proc.stdout

    def wer(self, references, hypotheses):
        ref, hyp = os.path.join(self.work, "ref.txt"), os.path.join(self.work, "hyp.txt")
        open(ref, "w").write("\n".join(references) + "\n")
        open(hyp, "w").write("\n".join(hypotheses) + "\n")
        out = subprocess.run([self.auris, "wer", ref, hyp], capture_output=True, text=True, check=True).stdout
        return float(out.split()[1])

    def auris_run(self, model, files, compute_type, batch, variant="", beam=5):
        """variant: words among "pack" (--pack) and "one-temperature" (no fallback to sampling, as
        faster-whisper's batched pipeline decodes); "" is openai's decoding, one window a chunk."""
        # Told the language, as faster-whisper is: untold, base detects each file's on its own encoder pass.
        argv = [self.auris, "transcribe", "--model", model_dir(model), "--compute-type", compute_type, "--threads",
                str(self.args.threads), "--beam-size", str(beam if beam > 1 else 0), "--language", "en"]
        if batch:
            argv += ["--batch-size", str(batch), "--vad", "--vad-model", VAD, "--without-timestamps"]
            if "pack" in variant.split():
                argv.append("--pack")
            if "one-temperature" in variant.split():
                argv += ["--temperature-increment-on-fallback", "0"]
        wall, rss, out = self.run(argv + files)
        return wall, rss, out.splitlines()

    def faster_whisper_run(self, model, files, compute_type, batch, beam=5):
        argv = [self.python, os.path.join(ROOT, "bench", "peers", "faster_whisper_batched.py"), "--model",
                model_dir(model), "--compute-type", compute_type, "--beam", str(beam), "--batch-size", str(batch),
                "--threads", str(self.args.threads), "--language", "en"]
        wall, rss, out = self.run(argv + files)
        return wall, rss, json.loads(out.splitlines()[-1])["texts"]


def engines(args):
    """(name, kind, compute type, batch, variant, beam) for every engine of the comparison."""
    out = []
    for beam in args.beams:
        tag = "greedy" if beam == 1 else f"beam{beam}"
        out.append((f"auris seq float16 {tag}", "auris", "float16", 0, "", beam))
        for batch in args.batch_sizes:
            for ct in args.auris_compute_types:
                out.append((f"auris b{batch} {ct} {tag}", "auris", ct, batch, "", beam))
                if args.one_temperature:
                    out.append((f"auris b{batch} {ct} one-temperature {tag}", "auris", ct, batch, "one-temperature", beam))
            for ct in ("float32", "int8"):
                out.append((f"faster-whisper b{batch} {ct} {tag}", "fw", ct, batch, "", beam))
    return out


def measure(bench, args):
    results = {"machine": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t"),
               "threads": args.threads, "repeats": args.repeats, "workloads": {}}
    files58, refs58 = hifitts()
    workloads = {"longform": ([LONGFORM], [open(LONGFORM.replace(".flac", ".txt")).read().strip()]),
                 "files66": (files58 + [os.path.join(DATA, "audio", "multilingual", f) for f in MULTILINGUAL], refs58)}
    for workload in args.workloads:
        files, references = workloads[workload]
        audio_s = sum(float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                                            "csv=p=0", f], capture_output=True, text=True).stdout) for f in files)
        table = results["workloads"].setdefault(workload, {"audio_s": audio_s, "models": {}})
        for model in args.models:
            rows = {}
            runs = engines(args)
            if workload == "files66":  # packing: the workload it exists for
                packed = ["pack"] + (["pack one-temperature"] if args.one_temperature else [])
                runs += [(f"auris b{b} {ct} {v} {'greedy' if beam == 1 else f'beam{beam}'}", "auris", ct, b, v, beam)
                         for beam in args.beams for b in args.batch_sizes for ct in args.auris_compute_types
                         for v in packed]
            for repeat in range(args.repeats):
                for name, kind, ct, batch, variant, beam in runs:
                    if kind == "auris":
                        wall, rss, texts = bench.auris_run(model, files, ct, batch, variant, beam)
                    else:
                        wall, rss, texts = bench.faster_whisper_run(model, files, ct, batch, beam)
                    row = rows.setdefault(name, {"wall": [], "rss": [], "wer": None})
                    row["wall"].append(wall)
                    row["rss"].append(rss)
                    if row["wer"] is None:
                        row["wer"] = bench.wer(references, texts[:len(references)])
                    print(f"{workload} {model} {name}: {wall:.2f} s, {rss:.0f} MB, WER {row['wer']:.4f}", file=sys.stderr)
            table["models"][model] = rows
    return results


def scaling(bench, args, results):
    files58, _ = hifitts()
    files = files58[:32]
    floors = json.loads(subprocess.run([os.path.join(bench.build, "auris_floors"), "--quick"], capture_output=True,
                                       text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": str(args.threads)}).stdout)
    results["scaling"] = {"floors": floors, "models": {}}
    for model in args.models:
        for beam in args.beams:
            proc = subprocess.run([os.path.join(bench.build, "auris_batch_scaling"), model_dir(model), "float16",
                                   str(beam if beam > 1 else 0), str(args.repeats), "1 2 4 8 16 32"] + files,
                                  capture_output=True, text=True, check=True,
                                  env={**os.environ, "OMP_NUM_THREADS": str(args.threads)})
            results["scaling"]["models"][f"{model} {'greedy' if beam == 1 else f'beam{beam}'}"] = [
                json.loads(line) for line in proc.stdout.splitlines()]


def memory(bench, args, results):
    long_file = os.path.join(bench.work, "two_hours.flac")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-stream_loop", "30", "-i", LONGFORM, "-c:a", "flac",
                    long_file], check=True)
    results["memory"] = {"audio_s": 31 * 231.6, "models": {}}
    for model in args.models:
        row = {}
        for batch in (1, 16):
            _, rss, _ = bench.auris_run(model, [long_file], "float16", batch, beam=1)
            row[f"b{batch}"] = rss
        results["memory"]["models"][model] = row


def spread(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def render(results):
    print(f"Machine: {results['machine']}; {results['threads']} threads; {results['repeats']} repeats, median (min-max).")
    for workload, table in results["workloads"].items():
        audio = table["audio_s"]
        for model, rows in table["models"].items():
            print(f"\n#### {workload} ({audio:.0f} s of audio), {model}\n")
            print("| engine | wall s | audio s / wall s | WER | peak RSS MB |\n|---|---|---|---|---|")
            for name, row in rows.items():
                print(f"| {name} | {spread(row['wall'])} | {audio / statistics.median(row['wall']):.1f} | "
                      f"{row['wer']:.4f} | {statistics.median(row['rss']):.0f} |")
            ratios = []
            for name, row in rows.items():
                if not name.startswith("auris b"):
                    continue
                parts = name.split()
                batch, ct, tag = parts[1], parts[2], parts[-1]
                peer_ct = "int8" if ct.startswith("int8") else "float32"
                peer = rows.get(f"faster-whisper {batch} {peer_ct} {tag}")
                seq = rows.get(f"auris seq float16 {tag}")
                mine = statistics.median(row["wall"])
                line = f"| {name} |"
                line += f" {statistics.median(peer['wall']) / mine:.2f}x faster-whisper {batch} {peer_ct}, WER {row['wer'] - peer['wer']:+.4f} |" if peer else " |"
                line += f" {statistics.median(seq['wall']) / mine:.2f}x auris sequential |" if seq else " |"
                ratios.append(line)
            if ratios:
                print("\n| auris batched | against faster-whisper (same batch, beam) | against auris sequential |\n|---|---|---|")
                print("\n".join(ratios))
    if "scaling" in results:
        bandwidth = results["scaling"]["floors"]["read_gbs"]["median"]
        print(f"\n#### Scaling (32 Hi-Fi TTS clips, one window each, float16; read floor {bandwidth:.1f} GB/s)\n")
        print("| model | batch | wall s | audio s / wall s | decoder passes | rows / pass | ms / pass | floor ms / pass |")
        print("|---|---|---|---|---|---|---|---|")
        for key, rows in results["scaling"]["models"].items():
            for r in rows:
                per_pass = r["rows"] / max(1, r["steps"])
                windows_per_pass = min(r["batch"], r["windows"])
                floor_ms = (r["decode_weight_bytes"] + windows_per_pass * r["cross_kv_bytes_per_row"]) / bandwidth / 1e6
                print(f"| {key} | {r['batch']} | {r['wall_s']['median']:.2f} | {r['audio_s_per_s']:.1f} | {r['steps']} | "
                      f"{per_pass:.1f} | {r['step_ms']:.2f} | {floor_ms:.2f} |")
    if "memory" in results:
        print(f"\n#### Peak RSS on a {results['memory']['audio_s'] / 3600:.1f}-hour file (greedy, float16, --vad)\n")
        print("| model | batch 1 MB | batch 16 MB | ratio |\n|---|---|---|---|")
        for model, row in results["memory"]["models"].items():
            print(f"| {model} | {row['b1']:.0f} | {row['b16']:.0f} | {row['b16'] / row['b1']:.2f} |")


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, rows in results["scaling"]["models"].items():
        ax.plot([r["batch"] for r in rows], [r["audio_s_per_s"] for r in rows], marker="o", label=key)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("windows decoded together (batch size)")
    ax.set_ylabel("audio seconds per wall second")
    ax.set_title(f"auris batched decoding, {results['machine']}, {results['threads']} threads", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", nargs="+", default=["tiny.en", "base"])
    p.add_argument("--workloads", nargs="*", default=["longform", "files66"])  # none: --scaling or --memory alone
    p.add_argument("--batch-sizes", nargs="+", type=int, default=[8, 16])
    p.add_argument("--beams", nargs="+", type=int, default=[5])
    p.add_argument("--auris-compute-types", nargs="+", default=["float32", "int8"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--one-temperature", action="store_true",
                   help="also run auris batched without the fallback to sampling, as faster-whisper batches")
    p.add_argument("--scaling", action="store_true")
    p.add_argument("--memory", action="store_true")
    p.add_argument("--bench-python", default=os.path.expanduser("~/.cache/auris/benchenv/bin/python"))
    p.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "batch.json"))
    p.add_argument("--plot", default=os.path.join(ROOT, "docs", "batch_scaling.png"))
    p.add_argument("--render", metavar="JSON")
    args = p.parse_args()
    if args.render:
        results = json.load(open(args.render))
        render(results)
        if "scaling" in results:
            plot(results, args.plot)
        return
    bench = Bench(args)
    results = measure(bench, args)
    if args.scaling:
        scaling(bench, args, results)
    if args.memory:
        memory(bench, args, results)
    json.dump(results, open(args.output, "w"), indent=1)  # before the plot, which needs matplotlib
    render(results)
    if args.scaling:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
