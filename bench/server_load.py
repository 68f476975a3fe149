#!/usr/bin/env python3
"""Load and soak benchmark of `auris serve` (docs/SERVER.md): many clients against one server.

    python3 bench/server_load.py --model tiny.en [--compute-type float16] [--device cpu] [--clients 32] [--seconds 120]
                                 [--soak-minutes 0]
                                 [--output bench/results/server_load.json] [--peer URL --peer-model NAME]

It starts build/auris serve itself (a free loopback port, uploads in a private $TMPDIR), then:
  load    N clients (threads), each looping round-robin over the 58 Hi-Fi TTS clips and the 232-s
          long-form file (POST /v1/audio/transcriptions, response_format=json) for S seconds; every
          transcript must equal the batched CLI's (`auris transcribe --batch-size 8`, its json text
          stripped), computed once up front; per-request latency, audio seconds, failures
  single  the same server, one client, the same S seconds: throughput ratio load / single
  soak    (--soak-minutes M) the load for M minutes, sampling the server's RSS (VmRSS), open fds and
          upload files every 10 s: RSS in the first vs the last 10 minutes after a warm-up, fds at
          start and end
  peer    (--peer URL) the same load and single runs against another OpenAI-compatible server
          already running at URL, its model named by --peer-model; its transcripts are compared with
          auris's references (stripped) for information only (another engine)
Prints audio seconds per wall second, p50/p99 latency, failures and the ratio; writes JSON. Exits 1
when a transcript differs from the CLI's or a request failed. Standard library only (any python3).

Peers (investigated on this machine, offline; see the end of this comment for what did not work):

  faster-whisper-server 0.0.3 (PyPI; andyjjrt's FastAPI wrapper of faster-whisper, not fedirz's
  project that became speaches) installs and runs offline on the CTranslate2 test model directory:
    python3 -m venv /work/peers-venv
    /work/peers-venv/bin/pip install faster-whisper-server==0.0.3
    HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2 /work/peers-venv/bin/faster-whisper-server \\
        ~/.cache/auris/models/tiny.en --host 127.0.0.1 --port 8001 --batch-size 8 &
    python3 bench/server_load.py --model tiny.en --peer http://127.0.0.1:8001 --peer-model tiny.en
  Its form field is `model_name`, not `model` (a single-model server ignores the name); it answers
  json and verbose_json only; its endpoint is an `async def` that runs the transcription on the
  event loop, so it serves one request at a time whatever the number of clients; with --batch-size
  > 1 it runs BatchedInferencePipeline (VAD on, faster-whisper's defaults), so its text is not
  auris's non-VAD batched text.

  speaches: could not be installed here (about 15 minutes spent). It is not on PyPI ("No
  matching distribution found for speaches") and github.com does not resolve from this machine (its
  source, commit 870e1e1, came from a mirror into /work/peers-src/speaches). It wants Python ==3.12
  and ~40 dependencies, among them pyannote-audio (torch: PyPI's Linux wheel pulls the CUDA ones,
  and download.pytorch.org is unreachable), gradio, kokoro-onnx[gpu], piper-tts, aiortc and a dozen
  opentelemetry packages; `pip install /work/peers-src/speaches` in a 3.12 venv
  (/work/peers-venv-speaches) was still backtracking through opentelemetry versions after 8 minutes
  (284 wheels fetched) and was stopped. Its app imports the diarization router (torch, pyannote) at
  start, so a partial install does not start either. It reads whisper models from the Hugging Face
  hub cache only (snapshot_download), so the CTranslate2 directory would have to be laid out as
  ~/.cache/huggingface/hub/models--Systran--faster-whisper-tiny.en/snapshots/<rev>/ (+ refs/main).
  Where Docker and the network are available (its compose.cpu.yaml):
    docker run -p 8002:8000 ghcr.io/speaches-ai/speaches:latest-cpu
    python3 bench/server_load.py --model tiny.en --peer http://127.0.0.1:8002 \\
        --peer-model Systran/faster-whisper-tiny.en
"""
import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# $AURIS_TEST_DATA: the data folder where it is not ../shared/data (a lent GPU machine's bundle).
DATA = os.path.join(os.environ.get("AURIS_TEST_DATA", os.path.join(ROOT, "..", "shared", "data")), "audio")
HIFITTS = os.path.join(DATA, "hifitts-6097")
LONGFORM = os.path.join(DATA, "longform", "hifitts-dev-concat.flac")
sys.path.insert(0, os.path.join(ROOT, "tests", "server"))
from auris_server import AURIS, Server  # noqa: E402 (the tests' server, shared)

AURIS = str(AURIS)


# --- the server ----------------------------------------------------------------------------------

# --- the workload --------------------------------------------------------------------------------

def flac_duration(path):
    """A FLAC file's duration from its STREAMINFO block (no ffprobe on a lent GPU machine)."""
    with open(path, "rb") as handle:
        head = handle.read(42)
    if head[:4] != b"fLaC" or head[4] & 0x7F != 0:
        raise ValueError(f"{path}: not a FLAC file that starts with STREAMINFO")
    info = int.from_bytes(head[18:26], "big")  # 20 bits rate, 3 channels, 5 bits per sample, 36 samples
    rate, samples = info >> 44, info & ((1 << 36) - 1)
    return samples / rate


def workload():
    """The 58 clips (manifest order, manifest durations) and the long-form file (its FLAC header's duration)."""
    files = []
    for line in open(os.path.join(HIFITTS, "manifest.jsonl")):
        row = json.loads(line)
        path = os.path.join(HIFITTS, row["audio_filepath"])
        files.append({"path": path, "audio_s": float(row["duration"])})
    files.append({"path": LONGFORM, "audio_s": flac_duration(LONGFORM)})
    for f in files:
        f["name"] = os.path.basename(f["path"])
        f["stem"] = os.path.splitext(f["name"])[0]
        with open(f["path"], "rb") as handle:
            f["bytes"] = handle.read()
    assert len({f["stem"] for f in files}) == len(files), "two files share a stem"
    return files


def references(model, files, batch_size, threads, compute_type, device):
    """Each file's text from one batched CLI run (its json's "text", stripped), keyed by name; kept in
    $TMPDIR for the same binary, model, compute type, batch size and threads (the CLI takes minutes on two
    cores)."""
    binary = os.stat(AURIS)
    cache = os.path.join(tempfile.gettempdir(), f"auris-server-load-refs-{os.path.basename(model)}-b{batch_size}-"
                         f"t{threads}-{compute_type}-{device}-{binary.st_size}-{int(binary.st_mtime)}.json")
    if os.path.exists(cache):
        with open(cache, encoding="utf-8") as handle:
            refs = json.load(handle)
        if set(refs) == {f["name"] for f in files}:
            print(f"references: {cache}", flush=True)
            return refs
    out = tempfile.mkdtemp(prefix="auris-server-load-refs-")
    argv = [AURIS, "transcribe", "--model", model, "--batch-size", str(batch_size),
            "--compute-type", compute_type, "--device", device, "-f", "json", "-o", out]
    if threads:
        argv += ["--threads", str(threads)]
    start = time.monotonic()
    done = subprocess.run(argv + [f["path"] for f in files], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    refs = {}
    for f in files:
        with open(os.path.join(out, f["stem"] + ".json"), encoding="utf-8") as handle:
            refs[f["name"]] = json.load(handle)["text"].strip()
    shutil.rmtree(out, ignore_errors=True)
    print(f"references: {len(files)} files with the CLI in {time.monotonic() - start:.1f} s", flush=True)
    with open(cache, "w", encoding="utf-8") as handle:
        json.dump(refs, handle)
    return refs


def multipart(fields, filename, content):
    boundary = "auris-load-" + uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


class Target:
    """An OpenAI-compatible server: where to post, and how to name the model."""

    def __init__(self, url, model, api_key=None, model_field="model"):
        self.url = urllib.parse.urlsplit(url)
        self.model = model
        self.api_key = api_key
        self.model_field = model_field

    def connection(self, timeout):
        cls = http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
        return cls(self.url.hostname, self.url.port, timeout=timeout)

    def transcribe(self, f, timeout):
        """(status, text or error message); one connection per request (no keep-alive to rely on)."""
        fields = {self.model_field: self.model, "response_format": "json"}
        if self.model_field != "model":
            fields["model"] = self.model
        content_type, body = multipart(fields, f["name"], f["bytes"])
        headers = {"Content-Type": content_type, "Content-Length": str(len(body))}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        conn = self.connection(timeout)
        try:
            conn.request("POST", self.url.path.rstrip("/") + "/v1/audio/transcriptions", body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        if response.status != 200:
            return response.status, data[:300].decode("utf-8", "replace")
        return 200, json.loads(data)["text"]

    def get(self, path, timeout=10):
        conn = self.connection(timeout)
        try:
            conn.request("GET", self.url.path.rstrip("/") + path)
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        finally:
            conn.close()


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(round(q / 100 * len(ordered) + 0.5)) - 1))]


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far (None where it is not ours to read)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, IndexError, ValueError):
        return None


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_load(target, files, clients, seconds, refs, *, check=True, max_requests=100000, request_timeout=900,
             on_sample=None, sample_every=10.0, pid=None, strip=False):
    """`clients` threads looping round-robin over `files` until `seconds` have passed (requests in
    flight then finish). Returns the records and a summary (with the server's CPU seconds where its
    pid is given, and the machine's load average: other work on the machine skews the figures)."""
    records, lock = [], threading.Lock()
    cpu_start, load_start = cpu_seconds(pid), loadavg()
    issued = [0]
    start = time.monotonic()
    deadline = start + seconds

    def client(i):
        index = (i * len(files)) // max(1, clients)  # spread the clients over the list
        while time.monotonic() < deadline:
            with lock:
                if issued[0] >= max_requests:
                    return
                issued[0] += 1
            f = files[index % len(files)]
            index += 1
            t0 = time.monotonic()
            try:
                status, text = target.transcribe(f, request_timeout)
                error = None if status == 200 else f"HTTP {status}: {text}"
            except Exception as e:  # noqa: BLE001 - a failed request is a figure of the benchmark
                status, text, error = None, None, f"{type(e).__name__}: {e}"
            t1 = time.monotonic()
            record = {"file": f["name"], "audio_s": f["audio_s"], "start": t0 - start, "latency": t1 - t0,
                      "status": status, "error": error}
            if error is None and refs is not None:
                record["matches"] = (text.strip() if strip else text) == refs[f["name"]]
                if not record["matches"]:
                    record["text"] = text
            with lock:
                records.append(record)

    samples = []
    stop_sampling = threading.Event()

    def sampler():
        while not stop_sampling.wait(sample_every):
            samples.append({"t": time.monotonic() - start, **on_sample()})

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    if on_sample:
        samples.append({"t": 0.0, **on_sample()})
        sampling = threading.Thread(target=sampler, daemon=True)
        sampling.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - start
    stop_sampling.set()
    summary = summarize(records, wall, seconds, clients, check)
    summary["requests_list"] = [[r["file"], round(r["start"], 3), round(r["latency"], 3), r["status"]]
                                for r in sorted(records, key=lambda r: r["start"])]  # file, start, latency, status
    summary["loadavg_1min_start_end"] = [load_start, loadavg()]
    if cpu_start is not None and cpu_seconds(pid) is not None:
        cpu = cpu_seconds(pid) - cpu_start
        summary["server_cpu_s"] = round(cpu, 1)
        summary["server_cpu_s_per_audio_s"] = round(cpu / summary["audio_s"], 4) if summary["audio_s"] else None
    return records, summary, samples


def summarize(records, wall, seconds, clients, check):
    ok = [r for r in records if r["error"] is None]
    failures = [r for r in records if r["error"] is not None]
    mismatches = [r for r in ok if r.get("matches") is False]
    audio = sum(r["audio_s"] for r in ok)
    in_window = sum(r["audio_s"] for r in ok if r["start"] + r["latency"] <= seconds)
    latencies = [r["latency"] for r in ok]
    short = [r["latency"] for r in ok if r["audio_s"] < 60]
    long = [r["latency"] for r in ok if r["audio_s"] >= 60]
    summary = {
        "clients": clients, "seconds": seconds, "wall_s": round(wall, 2), "requests": len(records),
        "ok": len(ok), "failures": len(failures),
        "failure_examples": sorted({r["error"] for r in failures})[:5],
        "audio_s": round(audio, 2),
        "audio_s_per_wall_s": round(audio / wall, 3) if wall else None,
        "audio_s_per_s_within_window": round(in_window / seconds, 3),
        "requests_per_s": round(len(ok) / wall, 3) if wall else None,
        "latency_p50_s": percentile(latencies, 50), "latency_p99_s": percentile(latencies, 99),
        "latency_max_s": max(latencies) if latencies else None,
        "clip_latency_p50_s": percentile(short, 50), "clip_latency_p99_s": percentile(short, 99),
        "longform_latency_p50_s": percentile(long, 50), "longform_latency_max_s": max(long) if long else None,
        "longform_requests": len(long),
    }
    if check:
        summary["mismatches"] = len(mismatches)
        summary["mismatch_examples"] = [{"file": r["file"], "text": r["text"]} for r in mismatches[:5]]
    return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in summary.items()}


def print_summary(name, s):
    p = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    line = (f"{name:>14}: {s['clients']:>3} clients {s['wall_s']:>7.1f} s  {s['ok']:>5} ok  {s['failures']} failed  "
            f"{s['audio_s_per_wall_s']:.2f} audio-s/s  latency p50 {p(s['latency_p50_s'])} s p99 "
            f"{p(s['latency_p99_s'])} s (clips p50 {p(s['clip_latency_p50_s'])} p99 {p(s['clip_latency_p99_s'])}, "
            f"long-form {s['longform_requests']}x p50 {p(s['longform_latency_p50_s'])})")
    if "mismatches" in s:
        line += f"  {s['mismatches']} differ from the CLI"
    if s.get("server_cpu_s_per_audio_s") is not None:
        line += f"  server CPU {s['server_cpu_s_per_audio_s']:.3f} s per audio s"
    line += f"  (load average {s['loadavg_1min_start_end'][0]:.1f} -> {s['loadavg_1min_start_end'][1]:.1f})"
    print(line, flush=True)
    for example in s["failure_examples"]:
        print(f"{'':>16}failure: {example}", flush=True)
    for example in s.get("mismatch_examples", []):
        print(f"{'':>16}differs: {example['file']}: {example['text'][:200]!r}", flush=True)


# --- process figures -----------------------------------------------------------------------------

def process_sample(pid, upload_root):
    """RSS (MiB), open fds and upload files of the server process."""
    rss = None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except FileNotFoundError:
        return {"rss_mib": None, "fds": None, "upload_files": None}
    uploads = sum(len(names) for _, _, names in os.walk(upload_root))
    return {"rss_mib": round(rss, 1) if rss is not None else None, "fds": fds, "upload_files": uploads}


def scrape(target, names=("auris_batch_occupancy", "auris_queue_depth", "auris_requests_in_flight")):
    status, text = target.get("/metrics")
    out = {}
    if status == 200:
        for line in text.splitlines():
            for name in names:
                if line.startswith(name):
                    key, _, value = line.rpartition(" ")
                    out[key] = float(value)
    return out


def soak_report(samples, minutes, warmup_s):
    """RSS over the first and the last (up to) 10 minutes after the warm-up; fds at start and end."""
    after = [s for s in samples if s["t"] >= warmup_s and s["rss_mib"] is not None]
    if len(after) < 2:
        return {"samples": samples, "note": "too few samples after the warm-up"}
    span = after[-1]["t"] - after[0]["t"]
    window = min(600.0, span / 2)
    first = [s["rss_mib"] for s in after if s["t"] <= after[0]["t"] + window]
    last = [s["rss_mib"] for s in after if s["t"] >= after[-1]["t"] - window]
    return {
        "minutes": minutes, "warmup_s": warmup_s, "window_s": round(window, 1),
        "rss_first_window_mean_mib": round(statistics.mean(first), 1), "rss_first_window_max_mib": max(first),
        "rss_last_window_mean_mib": round(statistics.mean(last), 1), "rss_last_window_max_mib": max(last),
        "rss_growth_mib": round(statistics.mean(last) - statistics.mean(first), 1),
        "fds_start": samples[0]["fds"], "fds_end": samples[-1]["fds"],
        "upload_files_max": max(s["upload_files"] or 0 for s in samples),
        "samples": samples,
    }


# --- main ----------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--soak-minutes", type=float, default=0)
    parser.add_argument("--soak-warmup-minutes", type=float, default=None,
                        help="excluded from the RSS windows (default: 2, or a tenth of a shorter soak)")
    parser.add_argument("--max-batch", type=int, default=8, help="the server's --max-batch (and the CLI's --batch-size)")
    parser.add_argument("--compute-type", default="float16", help="the server's and the CLI's")
    parser.add_argument("--device", default="cpu", help="the server's and the CLI's (cpu or cuda)")
    parser.add_argument("--threads", type=int, default=0, help="the server's and the CLI's --threads (0: all cores)")
    parser.add_argument("--max-requests", type=int, default=100000, help="at most this many requests per run")
    parser.add_argument("--request-timeout", type=float, default=900, help="a client gives up after this (s)")
    parser.add_argument("--no-single", action="store_true", help="skip the one-client run (and the ratio)")
    parser.add_argument("--no-check", action="store_true", help="skip the CLI references")
    parser.add_argument("--peer", help="URL of another OpenAI-compatible server, already running")
    parser.add_argument("--peer-model", default="whisper-1", help="the model name the peer wants")
    parser.add_argument("--peer-pid", type=int, help="the peer's process id, for its CPU seconds")
    parser.add_argument("--peer-model-field", default="model",
                        help="the form field naming the model (faster-whisper-server 0.0.3: model_name)")
    parser.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "server_load.json"))
    args = parser.parse_args()

    files = workload()
    print(f"workload: {len(files)} files, {sum(f['audio_s'] for f in files):.1f} s of audio a round", flush=True)
    refs = None if args.no_check else references(args.model, files, args.max_batch, args.threads, args.compute_type,
                                                 args.device)

    upload_root = tempfile.mkdtemp(prefix="auris-server-load-tmp-")
    server_args = ["--model", args.model, "--compute-type", args.compute_type, "--device", args.device,
                   "--max-batch", str(args.max_batch),
                   "--max-queue", str(max(64, 2 * args.clients)), "--request-timeout", "600"]
    if args.threads:
        server_args += ["--threads", str(args.threads)]
    server = Server(*server_args, env={"TMPDIR": upload_root})
    target = Target(server.url, args.model)
    pid = server.process.pid
    print(f"auris serve {' '.join(server_args)} at {server.url} (pid {pid})", flush=True)
    results = {
        "machine": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t"),
        "cores": os.cpu_count(), "model": args.model, "server_args": server_args,
        "workload": {"files": len(files), "audio_s_per_round": round(sum(f["audio_s"] for f in files), 2)},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    failed = False
    try:
        occupancy = []
        sampling_metrics = lambda: occupancy.append(scrape(target)) or process_sample(pid, upload_root)  # noqa: E731
        _, load, samples = run_load(target, files, args.clients, args.seconds, refs, check=refs is not None,
                                    max_requests=args.max_requests, request_timeout=args.request_timeout,
                                    on_sample=sampling_metrics, sample_every=2.0, pid=pid)
        key = f'auris_batch_occupancy{{model="{args.model}"}}'
        busy = [o[key] for o in occupancy if key in o]
        load["batch_occupancy_mean"] = round(statistics.mean(busy), 3) if busy else None
        load["rss_max_mib"] = max((s["rss_mib"] or 0) for s in samples)
        results["load"] = load
        print_summary("auris load", load)
        failed |= load["failures"] > 0 or load.get("mismatches", 0) > 0
        if not args.no_single:
            _, single, _ = run_load(target, files, 1, args.seconds, refs, check=refs is not None,
                                    max_requests=args.max_requests, request_timeout=args.request_timeout, pid=pid)
            results["single"] = single
            print_summary("auris single", single)
            failed |= single["failures"] > 0 or single.get("mismatches", 0) > 0
            results["ratio"] = round(load["audio_s_per_wall_s"] / single["audio_s_per_wall_s"], 3)
            print(f"{'ratio':>14}: {results['ratio']:.2f}x the audio seconds per second of one client at a time",
                  flush=True)
        results["metrics_after_load"] = scrape(target, ("auris_requests_total", "auris_audio_seconds_total"))

        if args.soak_minutes > 0:
            warmup = 60 * (args.soak_warmup_minutes if args.soak_warmup_minutes is not None
                           else min(2.0, args.soak_minutes / 10))
            print(f"soak: {args.soak_minutes} min with {args.clients} clients, sampling every 10 s", flush=True)
            _, soak, samples = run_load(target, files, args.clients, 60 * args.soak_minutes, refs,
                                        check=refs is not None, max_requests=10 ** 9,
                                        request_timeout=args.request_timeout,
                                        on_sample=lambda: process_sample(pid, upload_root), sample_every=10.0,
                                        pid=pid)
            time.sleep(5)  # idle: what is still held is held for good
            samples.append({"t": samples[-1]["t"] + 5 if samples else 0, **process_sample(pid, upload_root)})
            soak["process"] = soak_report(samples, args.soak_minutes, warmup)
            results["soak"] = soak
            print_summary("auris soak", soak)
            p = soak["process"]
            if "rss_first_window_mean_mib" in p:
                print(f"{'':>16}RSS first {p['window_s']:.0f} s {p['rss_first_window_mean_mib']} MiB (max "
                      f"{p['rss_first_window_max_mib']}), last {p['rss_last_window_mean_mib']} MiB (max "
                      f"{p['rss_last_window_max_mib']}): {p['rss_growth_mib']:+} MiB; fds {p['fds_start']} -> "
                      f"{p['fds_end']}; upload files at most {p['upload_files_max']}, at the end "
                      f"{samples[-1]['upload_files']}", flush=True)
            failed |= soak["failures"] > 0 or soak.get("mismatches", 0) > 0
    finally:
        code = server.stop()
        results["exit_code"] = code
        leftover = [os.path.join(d, n) for d, _, names in os.walk(upload_root) for n in names]
        results["upload_files_left"] = leftover
        if code != 0:
            print(f"auris serve exited {code} after SIGTERM:\n" + "".join(server.log[-20:]), flush=True)
            failed = True
        if leftover:
            print(f"upload files left behind: {leftover[:5]}", flush=True)
            failed = True
        else:
            for directory, _, _ in sorted(os.walk(upload_root), reverse=True):
                try:
                    os.rmdir(directory)
                except OSError:
                    pass

    if args.peer:
        peer = Target(args.peer, args.peer_model, model_field=args.peer_model_field)
        print(f"peer {args.peer} (model {args.peer_model})", flush=True)
        _, peer_load, _ = run_load(peer, files, args.clients, args.seconds, refs, check=refs is not None,
                                   max_requests=args.max_requests, request_timeout=args.request_timeout,
                                   pid=args.peer_pid, strip=True)
        print_summary("peer load", peer_load)
        results["peer"] = {"url": args.peer, "model": args.peer_model, "load": peer_load}
        if not args.no_single:
            _, peer_single, _ = run_load(peer, files, 1, args.seconds, refs, check=refs is not None,
                                         max_requests=args.max_requests, request_timeout=args.request_timeout,
                                         pid=args.peer_pid, strip=True)
            print_summary("peer single", peer_single)
            results["peer"]["single"] = peer_single
            results["peer"]["ratio"] = round(peer_load["audio_s_per_wall_s"] / peer_single["audio_s_per_wall_s"], 3)
        results["auris_over_peer_load"] = round(load["audio_s_per_wall_s"] / peer_load["audio_s_per_wall_s"], 3)
        print(f"{'auris / peer':>14}: {results['auris_over_peer_load']:.2f}x under load (peer's transcripts are "
              f"another engine's: their differences from auris's CLI are not failures)", flush=True)

    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as out:
        json.dump(results, out, indent=1)
        out.write("\n")
    print(f"wrote {args.output}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
