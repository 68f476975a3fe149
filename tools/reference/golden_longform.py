"""Writes long-form golden fixtures: openai/whisper's transcribe() on the project's test weights.

Run from the repository root (see tools/reference/README.md; ~20-40 min on a busy 2-core machine):

    PY=$(scripts/setup_reference.sh)
    $PY -m pip install jiwer                           # WER, once
    $PY tools/reference/golden_longform.py             # both models -> tests/fixtures/longform/<model>/
    $PY tools/reference/golden_longform.py --models tiny.en --parts longform --out /tmp/x

Parts (--parts, comma-separated):
  longform      hifitts-dev-concat.flac (232 s, a 20 s silence in the middle), language "en", with the
                option sets greedy_fallback, beam5, greedy_words -> hifitts-dev-concat.<set>.json
  utterances    each of the 58 hifitts-6097 utterances, greedy with fallback -> hifitts-utterances.json
                (text per utterance and jiwer WER after openai's EnglishTextNormalizer)
  multilingual  base only: the multilingual clips, language detected -> multilingual.json
  jfk_words     base only: jfk.flac with word_timestamps=True -> jfk.words.json

Each transcribe() call records, besides its result, every 30-s window transcribe() decoded: its seek,
the length of the prompt it passed, and every decode() attempt of the temperature fallback. Sampling
at temperature > 0 uses torch's RNG (seeded with --seed before every call), which another runtime
cannot reproduce; the temperature of each segment and attempt says which outputs are deterministic.
"""

import argparse
import itertools
import json
import os
import sys
import time

import jiwer
import numpy as np
import torch
import whisper
from whisper.normalizers import EnglishTextNormalizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ct2_to_openai import load_ct2_as_openai  # noqa: E402

# whisper/__init__ rebinds the name whisper.transcribe to the function; this is the module.
whisper_transcribe = sys.modules["whisper.transcribe"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LONGFORM = "audio/longform/hifitts-dev-concat.flac"
LONGFORM_TEXT = "audio/longform/hifitts-dev-concat.txt"
MANIFEST = "audio/hifitts-6097/manifest.jsonl"
JFK = "audio/jfk.flac"
SAMPLE_RATE = 16000
# A run of samples this quiet and this long is recorded as a silence the output must not cover.
SILENCE_LEVEL = 1e-4
SILENCE_MIN_S = 5.0

# transcribe()'s keyword arguments, all spelled out so each fixture records exactly what ran.
TRANSCRIBE_DEFAULTS = {
    "verbose": None,
    "temperature": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
    "compression_ratio_threshold": 2.4,
    "logprob_threshold": -1.0,
    "no_speech_threshold": 0.6,
    "condition_on_previous_text": True,
    "initial_prompt": None,
    "carry_initial_prompt": False,
    "word_timestamps": False,
    "prepend_punctuations": "\"'“¿([{-",
    "append_punctuations": "\"'.。,，!！?？:：”)]}、",
    "clip_timestamps": "0",
    "hallucination_silence_threshold": None,
}
DECODE_DEFAULTS = {"task": "transcribe", "fp16": False}
OPTION_SETS = {
    "greedy_fallback": ({}, {}),
    "beam5": ({}, {"beam_size": 5, "best_of": 5}),
    "greedy_words": ({"word_timestamps": True}, {}),
}


class WindowRecorder:
    """Records each window transcribe() decodes and every decode() attempt made on it.

    transcribe() slices the window as mel[:, seek:seek+size] and passes the slice through
    pad_or_trim; mel is contiguous [n_mels, frames], so the slice's storage offset is the seek.
    Every window then goes through model.decode once per fallback temperature.
    """

    def __init__(self, model):
        self.model = model
        self.windows = []
        self._pad_or_trim = whisper_transcribe.pad_or_trim
        self._decode = type(model).decode

    def __enter__(self):
        whisper_transcribe.pad_or_trim = self._record_window
        self.model.decode = self._record_decode
        return self

    def __exit__(self, *exc):
        whisper_transcribe.pad_or_trim = self._pad_or_trim
        del self.model.decode

    def _record_window(self, array, length=whisper.audio.N_SAMPLES, *, axis=-1):
        if array.shape[-1] <= whisper.audio.N_FRAMES:  # a decode window (the other call is detection)
            self.windows.append({"seek": int(array.storage_offset()),
                                 "segment_size": int(array.shape[-1]), "attempts": []})
        return self._pad_or_trim(array, length, axis=axis)

    def _record_decode(self, mel, options):
        result = self._decode(self.model, mel, options)
        window = self.windows[-1]
        window["prompt_len"] = len(options.prompt or [])
        attempt = {"temperature": float(result.temperature),
                   "avg_logprob": float(result.avg_logprob),
                   "compression_ratio": float(result.compression_ratio),
                   "no_speech_prob": float(result.no_speech_prob)}
        if result.temperature == 0:  # deterministic: another runtime can reproduce these tokens
            attempt["tokens"] = list(result.tokens)
        window["attempts"].append(attempt)
        return result


def window_summary(windows, segments, kwargs):
    """Adds fallback / no-speech-skip flags and segment counts to the recorded windows."""
    for w in windows:
        final = w["attempts"][-1]
        w["fallback"] = len(w["attempts"]) > 1
        w["final_temperature"] = final["temperature"]
        skip = (kwargs["no_speech_threshold"] is not None
                and final["no_speech_prob"] > kwargs["no_speech_threshold"])
        if kwargs["logprob_threshold"] is not None and final["avg_logprob"] > kwargs["logprob_threshold"]:
            skip = False
        w["skipped_no_speech"] = bool(skip)
        w["n_segments"] = sum(1 for s in segments if s["seek"] == w["seek"])
    return windows


def clean_segment(segment):
    out = {k: segment[k] for k in ("id", "seek", "start", "end", "text")}
    out["tokens"] = [int(t) for t in segment["tokens"]]
    for k in ("temperature", "avg_logprob", "compression_ratio", "no_speech_prob"):
        out[k] = float(segment[k])
    if "words" in segment:
        out["words"] = [{"word": w["word"], "start": float(w["start"]), "end": float(w["end"]),
                         "probability": round(float(w["probability"]), 6)} for w in segment["words"]]
    return out


def silences(audio: np.ndarray):
    """[start, end] seconds of each run of near-digital silence of at least SILENCE_MIN_S."""
    out, pos = [], 0
    for quiet, run in itertools.groupby(np.abs(audio) < SILENCE_LEVEL):
        n = len(list(run))
        if quiet and n >= SILENCE_MIN_S * SAMPLE_RATE:
            out.append([round(pos / SAMPLE_RATE, 3), round((pos + n) / SAMPLE_RATE, 3)])
        pos += n
    return out


def wer_record(references, hypotheses, normalizer):
    refs = [normalizer(r) for r in references]
    hyps = [normalizer(h) for h in hypotheses]
    m = jiwer.process_words(refs, hyps)
    return {"wer": m.wer, "substitutions": m.substitutions, "deletions": m.deletions,
            "insertions": m.insertions, "hits": m.hits,
            "reference_words": m.hits + m.substitutions + m.deletions}, refs, hyps


def write_json(path, obj, line_lists=("segments", "windows", "utterances", "clips")):
    """JSON with one list item per line for the long lists: small diffs, easy to grep."""
    parts = []
    for key, value in obj.items():
        if key in line_lists and isinstance(value, list):
            items = ",\n".join(json.dumps(v, ensure_ascii=False) for v in value)
            parts.append(f"{json.dumps(key)}: [\n{items}\n]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    with open(path, "w") as f:
        f.write("{" + ",\n".join(parts) + "}\n")
    print(f"  wrote {os.path.relpath(path, REPO)} ({os.path.getsize(path) // 1024} KB)", flush=True)


class Generator:
    def __init__(self, name, model_dir, data_dir, out_dir, seed):
        self.name = name
        self.data_dir = data_dir
        self.out_dir = out_dir
        self.seed = seed
        self.model = load_ct2_as_openai(model_dir)
        self.normalizer = EnglishTextNormalizer()
        self.timings = {}

    def data(self, rel):
        return os.path.join(self.data_dir, rel)

    def transcribe(self, audio, transcribe_options=None, decode_options=None):
        kwargs = {**TRANSCRIBE_DEFAULTS, **(transcribe_options or {})}
        decode = {**DECODE_DEFAULTS, **(decode_options or {})}
        torch.manual_seed(self.seed)
        with torch.no_grad(), WindowRecorder(self.model) as recorder:
            call = dict(kwargs, temperature=tuple(kwargs["temperature"]))
            result = whisper.transcribe(self.model, audio, **call, **decode)
        segments = [clean_segment(s) for s in result["segments"]]
        seeks = [w["seek"] for w in recorder.windows]
        assert seeks == sorted(set(seeks)) and {s["seek"] for s in segments} <= set(seeks), \
            "window recording went wrong: segment seeks are not among the recorded windows"
        options = {"transcribe": kwargs, "decode_options": decode, "torch_seed": self.seed}
        return result, segments, window_summary(recorder.windows, segments, kwargs), options

    def header(self, clip, part):
        return {"model": self.name, "generator": "tools/reference/golden_longform.py", "part": part,
                "reference": {"openai_whisper": whisper.__version__, "torch": torch.__version__,
                              "precision": "float32 CPU, weights widened from the model's float16"},
                "clip": clip}

    def timed(self, label, fn):
        start = time.time()
        fn()
        self.timings[label] = round(time.time() - start, 1)
        print(f"[{self.name}] {label}: {self.timings[label]:.1f} s", flush=True)

    def run_longform(self, option_set):
        audio = whisper.load_audio(self.data(LONGFORM))
        with open(self.data(LONGFORM_TEXT)) as f:
            reference = f.read().strip()
        t_opts, d_opts = OPTION_SETS[option_set]
        start = time.time()
        result, segments, windows, options = self.transcribe(audio, t_opts, dict(d_opts, language="en"))
        wer, _, _ = wer_record([reference], [result["text"]], self.normalizer)
        out = self.header(LONGFORM, f"longform/{option_set}")
        out.update({
            "option_set": option_set, "options": options,
            "duration_s": round(len(audio) / SAMPLE_RATE, 4), "silences_s": silences(audio),
            "language": result["language"], "text": result["text"],
            "fallback_happened": any(w["fallback"] for w in windows),
            "wer": wer, "seconds": round(time.time() - start, 1),
            "windows": windows, "segments": segments})
        write_json(os.path.join(self.out_dir, f"hifitts-dev-concat.{option_set}.json"), out)
        print(f"[{self.name}] {option_set}: WER {wer['wer']:.4f}, {len(windows)} windows, "
              f"fallback {out['fallback_happened']}", flush=True)

    def run_utterances(self):
        rows = [json.loads(line) for line in open(self.data(MANIFEST))]
        utterances, hyps, refs = [], [], []
        for row in rows:
            clip = os.path.join(os.path.dirname(MANIFEST), row["audio_filepath"])
            result, segments, windows, options = self.transcribe(
                whisper.load_audio(self.data(clip)), decode_options={"language": "en"})
            hyps.append(result["text"])
            refs.append(row["text_no_preprocessing"])
            utterances.append({"clip": clip, "text": result["text"], "reference": refs[-1],
                               "temperatures": [s["temperature"] for s in segments],
                               "fallback": any(w["fallback"] for w in windows)})
        wer, norm_refs, norm_hyps = wer_record(refs, hyps, self.normalizer)
        for u, r, h in zip(utterances, norm_refs, norm_hyps):
            u["normalized_reference"], u["normalized_text"] = r, h
        out = self.header(os.path.dirname(MANIFEST), "utterances")
        out.update({"options": options, "reference_field": "text_no_preprocessing",
                    "wer_method": "jiwer.process_words(list of normalized references, list of "
                                  "normalized hypotheses); whisper.normalizers.EnglishTextNormalizer",
                    "wer": wer, "utterances": utterances})
        write_json(os.path.join(self.out_dir, "hifitts-utterances.json"), out)
        print(f"[{self.name}] utterances: WER {wer['wer']:.4f}", flush=True)

    def run_multilingual(self):
        with open(self.data("audio/multilingual/test_data.json")) as f:
            tests = json.load(f)["tests"]["language_tests"]
        clips = [(os.path.join("audio/multilingual", t["audio_file"]), t["language"],
                  t["transcript_with_punctuation"]) for t in tests]
        clips += [("audio/multilingual/diarization_test.wav", None, None),
                  ("audio/multilingual/empty.wav", None, None)]
        entries = []
        for clip, expected, reference in clips:
            result, segments, windows, options = self.transcribe(
                whisper.load_audio(self.data(clip)), decode_options={"language": None})
            entries.append({"clip": clip, "expected_language": expected, "language": result["language"],
                            "text": result["text"], "reference": reference,
                            "temperatures": [s["temperature"] for s in segments],
                            "fallback": any(w["fallback"] for w in windows)})
        out = self.header("audio/multilingual", "multilingual")
        out.update({"options": options, "clips": entries})
        write_json(os.path.join(self.out_dir, "multilingual.json"), out)

    def run_jfk_words(self):
        result, segments, windows, options = self.transcribe(
            whisper.load_audio(self.data(JFK)), {"word_timestamps": True}, {"language": "en"})
        out = self.header(JFK, "jfk_words")
        out.update({"options": options, "language": result["language"], "text": result["text"],
                    "windows": windows, "segments": segments})
        write_json(os.path.join(self.out_dir, "jfk.words.json"), out)

    def run(self, parts):
        os.makedirs(self.out_dir, exist_ok=True)
        if "longform" in parts:
            for option_set in OPTION_SETS:
                self.timed(f"longform/{option_set}", lambda: self.run_longform(option_set))
        if "utterances" in parts:
            self.timed("utterances", self.run_utterances)
        if self.model.is_multilingual:
            if "multilingual" in parts:
                self.timed("multilingual", self.run_multilingual)
            if "jfk_words" in parts:
                self.timed("jfk_words", self.run_jfk_words)
        # Timings of this run, merged with earlier runs of other parts.
        path = os.path.join(self.out_dir, "timings.json")
        timings = json.load(open(path)) if os.path.exists(path) else {}
        timings.update(self.timings)
        with open(path, "w") as f:
            json.dump({k: timings[k] for k in sorted(timings)}, f, indent=1)
            f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="tiny.en,base", help="comma-separated model names")
    parser.add_argument("--parts", default="longform,utterances,multilingual,jfk_words")
    parser.add_argument("--model-dir", default=os.path.expanduser("~/.cache/auris/models"))
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data"))
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "longform"))
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed before each transcribe()")
    # One thread: on the shared 2-core machine more threads made decoding slower (see golden.py).
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    parts = set(args.parts.split(","))
    for name in args.models.split(","):
        Generator(name, os.path.join(args.model_dir, name), os.path.abspath(args.data),
                  os.path.join(args.out, name), args.seed).run(parts)


if __name__ == "__main__":
    main()
