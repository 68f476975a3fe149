#!/usr/bin/env python3
"""Live transcription measured (issue 32): `auris stream --realtime` fed the long-form file at the
speed it plays, against the offline transcript of the same file.

 - Latency: for each committed word matched to the offline run's words (by text, in order), the
   time from the word's end in the audio (the offline word timestamps) to the moment it was
   committed (the event's "time": wall seconds since the stream began, which is when the audio's
   first sample arrived). Median and p90.
 - Quality: the WER of the committed text and of the offline transcript against the reference.
   The offline run takes word timestamps (the latency needs them), and openai's transcribe then
   moves each window to the last word's end, which can change the words; the same file offline
   without them is reported beside it ("plain").
 - Silence: committed words inside the file's 20-s silence (found as the longest gap between the
   offline words).
 - Cost: compute seconds per audio second, and the margin to real time.

Usage: bench/stream_latency.py [--cli build/auris] [--model tiny.en] [--step-ms 500] [--threads 2]
       [--audio ...longform/hifitts-dev-concat.flac] [--beam-size 5] [--compute-type int8] [--peer VENV/bin/python]
       [--server build/pyenv/bin/python [--sessions N] [--turn-detection]] [--hallucination-silence-threshold S]
       [--vad-model FILE]
With --vad-model (a Silero ggml file, or silero-vad for the cached one), `auris stream --vad` runs the
same feed too, reported beside the stream without VAD.
With --events DIR, each auris stream's JSON-lines events are kept there (stream.jsonl, stream-vad.jsonl).
With --peer (the python that scripts/setup_stream_peer.sh prints), ufal's whisper_streaming
(whisper_online.py on faster-whisper, int8 as its CPU setting) runs the same feed
(bench/peers/whisper_streaming_run.py) with the same model, step, beam and threads, reported beside.
With --server, the same feed also goes through `auris serve`'s realtime WebSocket
(bench/realtime_client.py, run by that python, which needs `websockets`:
scripts/install_server_test_deps.sh puts it in build/pyenv) in 100-ms chunks of 24-kHz PCM; a
word's commit time is when its delta event arrived. The events carry no audio times, so the silence
check there counts words that match no offline word and arrive more than 3 s into the silence; the
compute is the server process's CPU time over the feed. With --sessions N, N sessions of one server
(--max-sessions N) take the same feed at once, started together, each reported on its own. With
--turn-detection the sessions ask for server_vad, and the server runs with --vad-model.
"""

import argparse
import difflib
import json
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from cpu_info import cpu_name

REPO = Path(__file__).resolve().parents[1]


def bare(word):
    return re.sub(r"[^a-z0-9']", "", word.lower())


def wer(cli, reference_text, hypothesis_text):
    with tempfile.TemporaryDirectory() as d:
        ref, hyp = Path(d) / "ref.txt", Path(d) / "hyp.txt"
        ref.write_text(reference_text.replace("\n", " ") + "\n")
        hyp.write_text(hypothesis_text.replace("\n", " ") + "\n")
        out = subprocess.run([cli, "wer", str(ref), str(hyp)], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"WER ([0-9.]+)", out).group(1))


def offline_words(cli, model, audio, threads, beam, compute, word_timestamps=True):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([cli, "transcribe", "-m", model, "-t", str(threads), "--beam-size", str(beam), *compute,
                        *(["--word-timestamps"] if word_timestamps else []), "-f", "json", "-o", d, audio],
                       check=True, capture_output=True)
        transcript = json.loads(next(Path(d).glob("*.json")).read_text())
    words = [w for s in transcript["segments"] for w in s.get("words", [])]
    return transcript["text"], words


def auris_stream(cli, model, audio, threads, step_ms, beam, extra, events_path=None):
    out = subprocess.run([cli, "stream", "-m", model, "-t", str(threads), "--step-ms", str(step_ms),
                          "--beam-size", str(beam), *extra, "--realtime", "-f", "jsonl", audio],
                         check=True, capture_output=True, text=True).stdout
    if events_path:
        Path(events_path).write_text(out)
    events = [json.loads(line) for line in out.splitlines()]
    committed = [dict(w, time=e["time"]) for e in events if e["type"] == "committed" for w in e["words"]]
    end = next(e for e in events if e["type"] == "end")
    return committed, end["compute_seconds"], end["audio_seconds"]


def peer_stream(python, model, audio, step_ms, beam, threads):
    out = subprocess.run([python, str(REPO / "bench/peers/whisper_streaming_run.py"), "--model", model,
                          "--audio", audio, "--step-ms", str(step_ms), "--beam-size", str(beam), "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    return result["committed"], result["compute_seconds"], result["audio_seconds"]


def cpu_seconds(pid):
    """User plus system CPU seconds of a process so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_stream(python, cli, model, audio, threads, step_ms, beam, compute, sessions, vad_model=None):
    """The feed through `sessions` realtime sessions of one server at once, all started together:
    each session's committed words, the audio seconds, and the server's CPU seconds over the feed."""
    import sys
    os.environ["AURIS_BIN"] = cli  # read when auris_server is imported
    sys.path.insert(0, str(REPO / "tests" / "server"))
    from auris_server import Server
    if step_ms != 500:
        raise SystemExit("--server: the realtime session's step is 500 ms")
    turns = ["--vad-model", vad_model] if vad_model else []
    server = Server("--model", model, "--threads", str(threads), "--max-sessions", str(sessions), *compute, *turns)
    try:
        url = server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
        before = cpu_seconds(server.process.pid)
        clients = [subprocess.Popen([python, str(REPO / "bench/realtime_client.py"), "--url", url, "--audio", audio,
                                     "--model", model, "--beam-size", str(beam)] + (["--turn-detection"] if vad_model else []),
                                    stdout=subprocess.PIPE, text=True)
                   for _ in range(sessions)]
        outs = [c.communicate()[0] for c in clients]
        if any(c.returncode for c in clients):
            raise SystemExit(f"a realtime client failed: exit codes {[c.returncode for c in clients]}")
        compute_seconds = cpu_seconds(server.process.pid) - before
    finally:
        server.stop()
    results = [json.loads(out) for out in outs]
    # Each delta's words, with the time it arrived.
    committed = [[{"word": " " + w, "time": d["time"]} for d in r["deltas"] for w in d["delta"].split()] for r in results]
    return committed, results[0]["audio_seconds"], compute_seconds


def late_in_silence(committed, reference_words, silence, grace=3.0):
    """Words of the delta events that match no offline word and arrived inside the silence, more than
    `grace` seconds after it began (the events carry no audio times: a word arriving that late is not
    the speech before it finishing)."""
    ours = [bare(w["word"]) for w in committed]
    matcher = difflib.SequenceMatcher(a=ours, b=[bare(w["word"]) for w in reference_words], autojunk=False)
    matched = {block.a + k for block in matcher.get_matching_blocks() for k in range(block.size)}
    return [w["word"] for i, w in enumerate(committed)
            if i not in matched and silence[0] + grace < w["time"] < silence[1]]


def delays(committed, reference_words):
    """Commit time minus the word's end in the offline run, for the words both have, in order."""
    ours = [bare(w["word"]) for w in committed]
    theirs = [bare(w["word"]) for w in reference_words]
    matcher = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    out = []
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            out.append(committed[block.a + k]["time"] - reference_words[block.b + k]["end"])
    return out


def longest_gap(words):
    gaps = [(words[i + 1]["start"] - words[i]["end"], words[i]["end"], words[i + 1]["start"]) for i in range(len(words) - 1)]
    return max(gaps)[1:]


def report(name, committed, compute, audio_seconds, reference_words, reference_text, offline_wers, cli, silence):
    d = sorted(delays(committed, reference_words))
    text = "".join(w["word"] for w in committed)
    committed_wer = wer(cli, reference_text, text)
    p90 = d[int(0.9 * (len(d) - 1))] if d else float("nan")
    offline_wer, plain_wer = offline_wers
    line = (f"  {name}: latency median {statistics.median(d):.2f} s, p90 {p90:.2f} s over {len(d)} of "
            f"{len(reference_words)} words; WER {100 * committed_wer:.2f} (offline {100 * offline_wer:.2f}, "
            f"{100 * (committed_wer - offline_wer):+.2f} points; plain {100 * plain_wer:.2f}, "
            f"{100 * (committed_wer - plain_wer):+.2f})")
    if compute is not None:
        inside = [w["word"] for w in committed if w["start"] > silence[0] + 0.5 and w["end"] < silence[1] - 0.5]
        line += (f"; {len(inside)} words committed in the silence; "
                 f"{compute / audio_seconds:.3f} compute s per audio s ({audio_seconds / compute:.2f}x real time)")
    print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(REPO / "build" / "auris"))
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--audio", default=str(REPO.parent / "shared/data/audio/longform/hifitts-dev-concat.flac"))
    parser.add_argument("--step-ms", type=int, default=500)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--compute-type", help="auris's, for the stream and the offline run (default: the CLI's)")
    parser.add_argument("--peer", help="python of scripts/setup_stream_peer.sh's venv (whisper_streaming on faster-whisper)")
    parser.add_argument("--hallucination-silence-threshold", type=float, help="auris stream's option of that name")
    parser.add_argument("--server", help="python with websockets: also through auris serve's realtime WebSocket")
    parser.add_argument("--sessions", type=int, default=1, help="with --server: this many realtime sessions at once")
    parser.add_argument("--vad-model", help="also `auris stream --vad` with this Silero VAD file or cached name")
    parser.add_argument("--stream-args", default="", help="more `auris stream` options, as one string")
    parser.add_argument("--vad-only", action="store_true", help="with --vad-model: skip the stream without VAD")
    parser.add_argument("--server-only", action="store_true", help="with --server: skip `auris stream`")
    parser.add_argument("--turn-detection", action="store_true",
                        help="with --server and --vad-model: the sessions ask for server_vad (the server's defaults)")
    parser.add_argument("--events", help="a directory to keep each auris stream's JSON-lines events in")
    args = parser.parse_args()

    reference_text = Path(args.audio).with_suffix(".txt").read_text()
    compute_args = ["--compute-type", args.compute_type] if args.compute_type else []
    offline_text, words = offline_words(args.cli, args.model, args.audio, args.threads, args.beam_size, compute_args)
    plain_text, _ = offline_words(args.cli, args.model, args.audio, args.threads, args.beam_size, compute_args, False)
    offline_wers = (wer(args.cli, reference_text, offline_text), wer(args.cli, reference_text, plain_text))
    silence = longest_gap(words)
    print(f"CPU: {cpu_name()}; {args.model} {args.compute_type or ''}, beam {args.beam_size}, step {args.step_ms} ms, {args.threads} threads, "
          f"{Path(args.audio).name} fed at real time; silence {silence[0]:.1f}-{silence[1]:.1f} s")
    extra = compute_args + (["--hallucination-silence-threshold", str(args.hallucination_silence_threshold)]
                       if args.hallucination_silence_threshold else []) + args.stream_args.split()
    events = (lambda name: str(Path(args.events) / name)) if args.events else (lambda name: None)
    if args.events:
        Path(args.events).mkdir(parents=True, exist_ok=True)
    if not (args.vad_only and args.vad_model) and not (args.server_only and args.server):
        committed, compute, seconds = auris_stream(args.cli, args.model, args.audio, args.threads, args.step_ms,
                                                   args.beam_size, extra, events("stream.jsonl"))
        report("auris stream", committed, compute, seconds, words, reference_text, offline_wers, args.cli, silence)
    if args.vad_model and not (args.server_only and args.server):
        committed, compute, seconds = auris_stream(args.cli, args.model, args.audio, args.threads, args.step_ms,
                                                   args.beam_size, extra + ["--vad", "--vad-model", args.vad_model],
                                                   events("stream-vad.jsonl"))
        report("auris stream --vad", committed, compute, seconds, words, reference_text, offline_wers, args.cli, silence)
    if args.server:
        sessions, seconds, server_compute = server_stream(args.server, args.cli, args.model, args.audio, args.threads,
                                                          args.step_ms, args.beam_size, compute_args, args.sessions,
                                                          args.vad_model if args.turn_detection else None)
        for i, committed in enumerate(sessions):
            name = "auris serve, realtime WebSocket" + (f", session {i + 1} of {len(sessions)}" if len(sessions) > 1 else "")
            report(name, committed, None, seconds, words, reference_text, offline_wers, args.cli, silence)
            late = late_in_silence(committed, words, silence)
            print(f"    {len(late)} unmatched words arrived inside the silence, 3 s or more into it {late[:10]}")
        print(f"  the server: {server_compute / (seconds * len(sessions)):.3f} CPU s per audio s of each session, "
              f"{server_compute / seconds:.2f} CPU s per wall s over the feed ({args.threads} threads)")
    if args.peer:
        committed, compute, seconds = peer_stream(args.peer, args.model, args.audio, args.step_ms, args.beam_size, args.threads)
        report("whisper_streaming", committed, compute, seconds, words, reference_text, offline_wers, args.cli, silence)


if __name__ == "__main__":
    main()
