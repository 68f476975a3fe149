#!/usr/bin/env python3
"""Transcribes many audio files on a Ray cluster: a pool of actors, each with one auris.WhisperModel
loaded once and its own cores, fed one file at a time by Ray Data.

    python examples/ray_transcribe.py AUDIO_DIR --output-dir transcripts            # a local Ray
    python examples/ray_transcribe.py manifest.jsonl --address auto --actors 8 --cpus-per-actor 4

The input is a folder (searched recursively for audio files), a manifest (one path per line, or
JSON lines with an "audio_filepath" or "path" key; relative paths are relative to the manifest), or
one audio file. Each input gets one output file, in the format `auris transcribe -f FORMAT` writes,
at its path relative to the inputs' root under --output-dir (a/b/clip.wav -> OUT/a/b/clip.json), so
files with the same name in different folders do not collide. Outputs are written whole or not at
all (a temporary file, then a rename), and inputs whose output exists are skipped: a rerun resumes.

The actors read the audio by path: on a cluster, every node must see the inputs at the same path
(a shared file system). The outputs are written by this script, on the machine it runs on.
Exits 1 when a file failed (each is reported with its error; the others are still written).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import ray
import ray.data
from auris import WhisperModel, format_transcript

AUDIO_EXTENSIONS = {".wav", ".flac", ".mp3", ".m4a", ".ogg", ".oga", ".opus", ".webm", ".mp4", ".m4b", ".aac",
                    ".wma", ".aiff", ".aif", ".mkv", ".mov", ".amr"}
OUTPUT_FORMATS = ("txt", "json", "srt", "vtt", "tsv")  # the CLI's, but "all"


# Inputs and outputs (on the driver).

def read_manifest(manifest: Path) -> list:
    """The audio paths a manifest lists, resolved against the manifest's folder."""
    paths = []
    for line in manifest.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            row = json.loads(line)
            line = row.get("audio_filepath") or row.get("path")
            if not line:
                raise SystemExit(f"{manifest}: a JSON line has neither 'audio_filepath' nor 'path': {row}")
        paths.append(manifest.parent / line)
    return paths


def absolute(path: Path) -> Path:
    # Not resolve(): a symbolic link to an audio file keeps its own place (and so its output's name).
    return Path(os.path.abspath(path))


def find_inputs(source: Path):
    """The audio files to transcribe, and the folder their output names are relative to."""
    if source.is_dir():
        files = sorted(p for p in source.rglob("*") if p.suffix.lower() in AUDIO_EXTENSIONS and p.is_file())
        return files, source
    if source.suffix.lower() in AUDIO_EXTENSIONS:
        return [source], source.parent
    if not source.is_file():
        raise SystemExit(f"{source}: no such folder, audio file or manifest")
    files = list(dict.fromkeys(absolute(p) for p in read_manifest(source)))  # a path listed twice counts once
    if not files:
        return [], source.parent
    return files, Path(os.path.commonpath([p.parent for p in files]))


def output_path(audio: Path, root: Path, output_dir: Path, output_format: str) -> Path:
    """OUT/<relative folder>/<name without its extension>.<format>: the CLI's name, in the input's folder."""
    relative = absolute(audio).relative_to(absolute(root))
    return output_dir / relative.parent / f"{relative.stem}.{output_format}"


def plan(files, root, output_dir, output_format):
    """Splits the inputs into work (audio, output), skipped (output exists) and failed (name clash)."""
    work, skipped, failed, claimed = [], [], [], {}
    for audio in files:
        out = output_path(audio, root, output_dir, output_format)
        if out in claimed:  # clip.wav and clip.flac in one folder: both would be clip.<format>
            failed.append((str(audio), f"its output {out} is also {claimed[out]}'s; rename one of them"))
            continue
        claimed[out] = audio
        if out.exists():
            skipped.append(str(audio))
        else:
            work.append({"audio": str(audio), "output": str(out)})
    return work, skipped, failed


def write_atomically(path: Path, text: str) -> None:
    """A reader (or a rerun's skip check) sees the whole file or none: write aside, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # hidden, and in the same file system
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_output(row) -> str:
    """Writes a transcript; the error, or "" when written."""
    try:
        write_atomically(Path(row["output"]), row["text"])
    except OSError as e:
        return f"cannot write {row['output']}: {e}"
    return ""


# The work (on the actors).

class Transcriber:
    """One actor of the pool: loads the model once, then formats one transcript per input row."""

    def __init__(self, model: str, cpu_threads: int, output_format: str, options: dict):
        self.model = WhisperModel(model, cpu_threads=cpu_threads)
        self.output_format = output_format
        self.options = options

    def transcribe(self, audio: str) -> dict:
        # A bad file is reported, not raised: one unreadable input must not stop the others.
        try:
            segments, info = self.model.transcribe(audio, **self.options)
            text = format_transcript(segments, info.language, self.output_format)  # as the CLI writes it
        except Exception as e:
            return {"text": "", "duration": 0.0, "error": f"{type(e).__name__}: {e}"}
        return {"text": text, "duration": info.duration, "error": ""}

    def __call__(self, batch: dict) -> dict:
        rows = [{"audio": str(audio), "output": str(output), **self.transcribe(str(audio))}
                for audio, output in zip(batch["audio"], batch["output"])]
        return {key: [row[key] for row in rows] for key in ("audio", "output", "text", "duration", "error")}


# The run.

def connect(address):
    """Joins the cluster at address ("auto": the one `ray start` made here), or starts a local Ray."""
    if not ray.is_initialized():
        ray.init(address=address, logging_level="WARNING")


def transcribe_on_ray(work, args):
    """Yields each input's result row as an actor finishes it."""
    cpus = ray.cluster_resources().get("CPU", 0)
    if args.actors * args.cpus_per_actor > cpus:
        print(f"warning: {args.actors} actors x {args.cpus_per_actor} CPUs > the cluster's {cpus:g} CPUs: "
              "some actors wait for a node (or for the autoscaler)", file=sys.stderr)
    options = {"beam_size": args.beam_size, "language": args.language}
    # One block per file, so that the pool hands out files, not runs of them; one file in flight per
    # actor, so that no file waits behind another while an actor is idle.
    dataset = ray.data.from_items(work, override_num_blocks=len(work))
    results = dataset.map_batches(
        Transcriber,
        fn_constructor_kwargs={"model": args.model, "cpu_threads": args.cpus_per_actor,
                               "output_format": args.output_format, "options": options},
        batch_size=1,
        num_cpus=args.cpus_per_actor,
        compute=ray.data.ActorPoolStrategy(size=args.actors, max_tasks_in_flight_per_actor=1),
    )
    yield from results.iter_rows()


def print_summary(done, skipped, failed, audio_seconds, wall_seconds):
    for audio, error in failed:
        print(f"failed: {audio}: {error}")
    print(f"files: {done} done, {len(skipped)} skipped, {len(failed)} failed")
    speed = audio_seconds / wall_seconds if wall_seconds > 0 else 0.0
    print(f"audio: {audio_seconds:.1f} s in {wall_seconds:.1f} s wall: {speed:.2f} audio seconds per wall second")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", type=Path, help="a folder of audio files, a manifest (.txt or .jsonl), or one file")
    p.add_argument("--model", default="tiny.en", help="a model name (auris's model cache) or path (default tiny.en)")
    p.add_argument("--actors", type=int, default=1, help="actors in the pool, one model each (default 1)")
    p.add_argument("--cpus-per-actor", type=int, default=1, help="CPUs each actor reserves and the model's threads")
    p.add_argument("--output-dir", type=Path, default=Path("."), help="where the outputs go (default .)")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, default="txt", help="as `auris transcribe -f`")
    p.add_argument("--beam-size", type=int, default=5, help="beams in beam search (default 5)")
    p.add_argument("--language", default=None, help="the spoken language's code; detected when omitted")
    p.add_argument("--address", default=None,
                   help="the Ray cluster: 'auto' (the one on this node), ray://host:10001, host:6379; "
                        "default: $RAY_ADDRESS, else a local Ray started for this run")
    args = p.parse_args(argv)
    if args.actors < 1 or args.cpus_per_actor < 1:
        p.error("--actors and --cpus-per-actor must be 1 or more")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    files, root = find_inputs(args.inputs)
    work, skipped, failed = plan(files, root, args.output_dir, args.output_format)
    done, audio_seconds, start = 0, 0.0, time.monotonic()
    if work:
        connect(args.address)
        start = time.monotonic()  # from here: actor start and model loading count, Ray's own start does not
        for row in transcribe_on_ray(work, args):
            error = row["error"] or write_output(row)
            if error:
                failed.append((row["audio"], error))
                continue
            done += 1
            audio_seconds += float(row["duration"])
    print_summary(done, skipped, failed, audio_seconds, time.monotonic() - start)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
