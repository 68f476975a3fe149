"""Writes golden fixtures from the real openai/whisper package, run on the project's test weights.

Run from the repository root (takes a few minutes on 2 cores; see tools/reference/README.md):

    PY=$(scripts/setup_reference.sh)
    $PY tools/reference/golden.py                 # both models -> tests/fixtures/golden/<model>/
    $PY tools/reference/golden.py --quick         # a few clips only -> /tmp/auris-golden-quick

The CTranslate2 models in ~/.cache/auris/models are converted in memory to openai/whisper's
Whisper (fp32, CPU) by ct2_to_openai.py, so the reference and the engine share the same weights.
"""

import argparse
import dataclasses
import json
import os
import re
import sys
import time

import numpy as np
import torch
import whisper
from whisper.audio import N_FRAMES, N_SAMPLES, load_audio, log_mel_spectrogram, pad_or_trim
from whisper.decoding import DecodingOptions, DecodingTask, decode, detect_language
from whisper.tokenizer import get_tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ct2_to_openai import load_ct2_as_openai  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JFK_TEXT = ("And so my fellow Americans, ask not what your country can do for you, "
            "ask what you can do for your country.")
ENCODER_ROW_STEP = 50
MEL_FRAME_STEP = 100
N_BEAM_HIFITTS = 20
# Prompt/prefix cases on jfk, so those initial-token paths are covered.
PROMPT = "President Kennedy's inaugural address, January 1961."
PREFIX = "And so, my fellow Americans,"


@dataclasses.dataclass
class Clip:
    key: str  # unique id, e.g. "hifitts/swag_06_tompkins_0883"
    group: str  # jfk | hifitts | multilingual | empty
    path: str  # relative to the shared data directory
    reference_text: str = None  # manifest / published transcript, for information only
    language: str = None  # the language the clip is spoken in, where known


def list_clips(data_dir: str, quick: bool):
    clips = [Clip("jfk", "jfk", "audio/jfk.flac", JFK_TEXT, "en")]
    with open(os.path.join(data_dir, "audio/hifitts-6097/manifest.jsonl")) as f:
        for line in f:
            row = json.loads(line)
            stem = os.path.splitext(os.path.basename(row["audio_filepath"]))[0]
            clips.append(Clip(f"hifitts/{stem}", "hifitts",
                              os.path.join("audio/hifitts-6097", row["audio_filepath"]),
                              row["text_no_preprocessing"], "en"))
    with open(os.path.join(data_dir, "audio/multilingual/test_data.json")) as f:
        for test in json.load(f)["tests"]["language_tests"]:
            clips.append(Clip(f"multilingual/{test['language']}", "multilingual",
                              os.path.join("audio/multilingual", test["audio_file"]),
                              test["transcript_with_punctuation"], test["language"]))
    clips.append(Clip("empty", "empty", "audio/multilingual/empty.wav"))
    if quick:
        keep = {"jfk", "multilingual/en", "multilingual/de", "empty"}
        hifitts = [c.key for c in clips if c.group == "hifitts"][:3]
        clips = [c for c in clips if c.key in keep or c.key in hifitts]
    return clips


def mel_windows(audio: np.ndarray, n_mels: int):
    """The two 30 s windows transcribe() builds for a clip shorter than 30 s.

    decode: mel[:, :content_frames] zero-padded to 3000 frames (transcribe's decode loop).
    detect: mel[:, :3000] of the 30 s-padded log-mel (transcribe's language detection).
    """
    mel = log_mel_spectrogram(torch.from_numpy(audio), n_mels, padding=N_SAMPLES)
    content_frames = mel.shape[-1] - N_FRAMES
    decode_window = pad_or_trim(mel[:, : min(N_FRAMES, content_frames)], N_FRAMES)
    detect_window = pad_or_trim(mel, N_FRAMES)
    return decode_window, detect_window, content_frames


def normalize(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9' ]", " ", text.lower()).split())


def options_dict(options: DecodingOptions) -> dict:
    d = dataclasses.asdict(options)
    if d["suppress_tokens"] is not None and not isinstance(d["suppress_tokens"], str):
        d["suppress_tokens"] = list(d["suppress_tokens"])
    return d


def top_languages(probs: dict, n: int = 5):
    return [[lang, float(p)] for lang, p in sorted(probs.items(), key=lambda kv: -kv[1])[:n]]


class Generator:
    def __init__(self, name: str, model_dir: str, data_dir: str, out_dir: str, quick: bool):
        self.name = name
        self.data_dir = data_dir
        self.out_dir = out_dir
        self.model = load_ct2_as_openai(model_dir)
        self.multilingual = self.model.is_multilingual
        self.tokenizer = get_tokenizer(self.multilingual, num_languages=self.model.num_languages,
                                       language="en", task="transcribe")
        self.clips = list_clips(data_dir, quick)
        self.features = {}  # (clip key, window) -> encoder output [1, 1500, d]
        self.windows = {}
        self.entries = []
        self.timings = {}

    # -- inputs -----------------------------------------------------------------------------------

    def window(self, clip: Clip, which: str) -> torch.Tensor:
        if clip.key not in self.windows:
            audio = load_audio(os.path.join(self.data_dir, clip.path))
            decode_window, detect_window, content_frames = mel_windows(audio, self.model.dims.n_mels)
            self.windows[clip.key] = {"decode": decode_window, "detect": detect_window,
                                      "content_frames": content_frames}
        return self.windows[clip.key][which]

    def encoded(self, clip: Clip, which: str = "decode") -> torch.Tensor:
        if (clip.key, which) not in self.features:
            with torch.no_grad():
                self.features[(clip.key, which)] = self.model.embed_audio(
                    self.window(clip, which).unsqueeze(0))
        return self.features[(clip.key, which)]

    # -- decoding entries -------------------------------------------------------------------------

    def decode_entry(self, clip: Clip, kind: str, **kwargs):
        options = DecodingOptions(fp16=False, temperature=0.0, **kwargs)
        with torch.no_grad():
            # Passing encoder output skips a second encoder pass; decode() accepts either.
            result = decode(self.model, self.encoded(clip), options)[0]
        resolved = dataclasses.replace(options, language=result.language)
        entry = {
            "id": f"{clip.key}/{kind}",
            "clip": clip.path,
            "group": clip.group,
            "window": "decode",
            "content_frames": self.windows[clip.key]["content_frames"],
            "options": options_dict(options),
            "language_source": "given" if options.language else "detected",
            "initial_tokens": list(DecodingTask(self.model, resolved).initial_tokens),
            "tokens": list(result.tokens),
            "text": result.text,
            "avg_logprob": float(result.avg_logprob),
            "no_speech_prob": float(result.no_speech_prob),
            "compression_ratio": float(result.compression_ratio),
            "temperature": float(result.temperature),
            "language": result.language,
        }
        if options.language is None:
            # decode() does not return the probabilities it detected with; recompute them the same
            # way (model.detect_language on the same encoder output).
            with torch.no_grad():
                _, probs = detect_language(self.model, self.encoded(clip), self.tokenizer)
            entry["language_top5"] = top_languages(probs[0])
            assert entry["language_top5"][0][0] == result.language, entry["id"]
        if clip.reference_text is not None and kind == "greedy_ts":
            entry["reference_text"] = clip.reference_text
        self.entries.append(entry)
        return entry

    def timed(self, label: str, fn):
        start = time.time()
        fn()
        self.timings[label] = round(time.time() - start, 2)
        print(f"[{self.name}] {label}: {self.timings[label]:.1f} s", flush=True)

    def language_for(self, clip: Clip):
        # tiny.en is English-only; base detects the language of the multilingual clips.
        if not self.multilingual:
            return "en"
        return None if clip.group == "multilingual" else "en"

    def run_greedy(self):
        for clip in self.clips:
            lang = self.language_for(clip)
            self.decode_entry(clip, "greedy_ts", language=lang, without_timestamps=False)
            self.decode_entry(clip, "greedy_nots", language=lang, without_timestamps=True)

    def run_beam(self):
        beam_clips = [c for c in self.clips if c.group == "jfk"]
        beam_clips += [c for c in self.clips if c.group == "hifitts"][:N_BEAM_HIFITTS]
        for clip in beam_clips:
            self.decode_entry(clip, "beam5_ts", language="en", beam_size=5, without_timestamps=False)
        self.decode_entry(self.jfk, "beam5_nots", language="en", beam_size=5, without_timestamps=True)

    def run_prompt_prefix(self):
        self.decode_entry(self.jfk, "prompt_prefix_nots", language="en", prompt=PROMPT, prefix=PREFIX,
                          without_timestamps=True)
        self.decode_entry(self.jfk, "prompt_ts", language="en", prompt=PROMPT, without_timestamps=False)
        self.decode_entry(self.jfk, "prefix_ts", language="en", prefix=PREFIX, without_timestamps=False)

    def run_translate(self):
        for clip in self.clips:
            if clip.group == "multilingual" and clip.language != "en":
                self.decode_entry(clip, "translate_greedy_ts", task="translate", language=None,
                                  without_timestamps=False)

    def run_detect_language(self):
        self.detections = []
        for clip in self.clips:
            if clip.group != "multilingual":
                continue
            with torch.no_grad():
                _, probs = detect_language(self.model, self.encoded(clip, "detect"), self.tokenizer)
            self.detections.append({"id": f"{clip.key}/detect", "clip": clip.path, "window": "detect",
                                    "expected_language": clip.language,
                                    "language": max(probs[0], key=probs[0].get),
                                    "top5": top_languages(probs[0])})

    # -- arrays -----------------------------------------------------------------------------------

    def write_array(self, name: str, array: np.ndarray, description: str):
        array = np.ascontiguousarray(array, dtype="<f4")
        array.tofile(os.path.join(self.out_dir, name))
        self.arrays[name] = {"shape": list(array.shape), "dtype": "float32-le",
                             "description": description}

    def run_arrays(self):
        self.arrays = {}
        jfk = self.jfk
        window = self.window(jfk, "decode")
        features = self.encoded(jfk)[0]
        self.encoder_rows = list(range(0, features.shape[0], ENCODER_ROW_STEP))
        self.mel_frames = list(range(0, N_FRAMES, MEL_FRAME_STEP))
        self.write_array("jfk_mel_frames.bin", window[:, self.mel_frames].T.numpy(),
                         "jfk decode-window log-mel at frames mel_frames, [len(mel_frames), n_mels]")
        self.write_array("jfk_encoder_rows.bin", features[self.encoder_rows].numpy(),
                         "jfk encoder output at rows encoder_rows, [len(encoder_rows), n_audio_state]")
        sot = list(self.tokenizer.sot_sequence)
        sot_nots = list(self.tokenizer.sot_sequence_including_notimestamps)
        with torch.no_grad():
            for name, tokens in (("jfk_logits_sot.bin", sot), ("jfk_logits_notimestamps.bin", sot_nots)):
                logits = self.model.logits(torch.tensor([tokens]), features.unsqueeze(0))[0, -1]
                self.write_array(name, logits.numpy(),
                                 f"raw decoder logits at the last position of {tokens}, [n_vocab]")
        self.logit_prompts = {"jfk_logits_sot.bin": sot, "jfk_logits_notimestamps.bin": sot_nots}

    # -- driver -----------------------------------------------------------------------------------

    def sanity_check(self):
        entry = self.decode_entry(self.jfk, "sanity", language="en", without_timestamps=False)
        self.entries.pop()
        if normalize(entry["text"]) != normalize(JFK_TEXT):
            raise SystemExit(f"[{self.name}] jfk sanity check failed: {entry['text']!r}; "
                             "the weight conversion is wrong or the model is damaged")
        print(f"[{self.name}] jfk: {entry['text']}", flush=True)

    def run(self):
        os.makedirs(self.out_dir, exist_ok=True)
        self.jfk = next(c for c in self.clips if c.key == "jfk")
        start = time.time()
        self.timed("encode", lambda: [self.encoded(c) for c in self.clips])
        self.sanity_check()
        self.timed("arrays", self.run_arrays)
        self.timed("greedy", self.run_greedy)
        self.timed("beam", self.run_beam)
        self.timed("prompt_prefix", self.run_prompt_prefix)
        self.detections = []
        if self.multilingual:
            self.timed("translate", self.run_translate)
            self.timed("detect_language", self.run_detect_language)
        self.timings["total"] = round(time.time() - start, 2)
        self.write_outputs()

    def write_outputs(self):
        tok = self.tokenizer
        dims = dataclasses.asdict(self.model.dims)
        meta = {
            "model": self.name,
            "generator": "tools/reference/golden.py",
            "reference": {"openai_whisper": whisper.__version__, "torch": torch.__version__,
                          "precision": "float32 CPU, weights widened from the model's float16"},
            "dims": dims,
            "multilingual": self.multilingual,
            "special_tokens": {"eot": tok.eot, "sot": tok.sot, "sot_prev": tok.sot_prev,
                               "no_timestamps": tok.no_timestamps, "no_speech": tok.no_speech,
                               "timestamp_begin": tok.timestamp_begin, "transcribe": tok.transcribe,
                               "translate": tok.translate, "sot_lm": tok.sot_lm},
            "sot_sequence": list(tok.sot_sequence),
            "sot_sequence_including_notimestamps": list(tok.sot_sequence_including_notimestamps),
            "alignment_heads": self.model.alignment_heads.to_dense().nonzero().tolist(),
            "windows": {
                "decode": "mel = log_mel_spectrogram(load_audio(path), n_mels, padding=480000); "
                          "content_frames = mel.shape[-1] - 3000; "
                          "window = pad_or_trim(mel[:, :min(3000, content_frames)], 3000)  "
                          "# zero-padded, as transcribe() feeds decode()",
                "detect": "window = log_mel_spectrogram(load_audio(path), n_mels, padding=480000)[:, :3000]"
                          "  # as transcribe() feeds detect_language()",
            },
            "jfk": {"clip": self.jfk.path, "window": "decode", "encoder_rows": self.encoder_rows,
                    "mel_frames": self.mel_frames, "logit_prompts": self.logit_prompts},
            "arrays": self.arrays,
            "timings_s": self.timings,
            "threads": torch.get_num_threads(),
        }
        with open(os.path.join(self.out_dir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, ensure_ascii=False)
            f.write("\n")
        # One entry per line: small diffs when regenerated, easy to grep.
        with open(os.path.join(self.out_dir, "tokens.json"), "w") as f:
            f.write('{"model": %s, "n_vocab": %d,\n"entries": [\n' % (json.dumps(self.name), dims["n_vocab"]))
            f.write(",\n".join(json.dumps(e, ensure_ascii=False) for e in self.entries))
            f.write('\n],\n"language_detection": [\n')
            f.write(",\n".join(json.dumps(d, ensure_ascii=False) for d in self.detections))
            f.write("\n]}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="tiny.en,base", help="comma-separated model names")
    parser.add_argument("--model-dir", default=os.path.expanduser("~/.cache/auris/models"))
    parser.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data"))
    parser.add_argument("--out", default=None,
                        help="output root (default tests/fixtures/golden, or /tmp/auris-golden-quick with --quick)")
    parser.add_argument("--quick", action="store_true", help="a handful of clips, for a smoke run")
    # One thread: under a shared 2-core machine, 2 threads made decoding ~5x slower (sync overhead).
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    out_root = args.out or ("/tmp/auris-golden-quick" if args.quick
                            else os.path.join(REPO, "tests", "fixtures", "golden"))
    for name in args.models.split(","):
        Generator(name, os.path.join(args.model_dir, name), os.path.abspath(args.data),
                  os.path.join(out_root, name), args.quick).run()


if __name__ == "__main__":
    main()
