"""Reference fixtures for word timestamps (openai/whisper timing.py) and transcribe()'s options.

Runs the real openai/whisper 20250625 code and writes tests/fixtures/timing/:
  dtw.json, median_filter.json        timing.dtw_cpu / median_filter on random (and tied) inputs
  word_split.json                     Tokenizer.split_to_word_tokens on real tokens (gpt2, multilingual)
  merge_punctuations.json             timing.merge_punctuations
  add_word_timestamps_<n>.json        the full timing.add_word_timestamps (find_alignment included)
                                      with a stand-in model whose cross-attention scores and logits
                                      are random: every step after the forward pass is openai's own
  transcribe_<name>.json              whisper.transcribe() on jfk with the project's test weights
                                      (word_timestamps, clip_timestamps, carry_initial_prompt,
                                      hallucination_silence_threshold), via ct2_to_openai.py

Usage:  PY=$(scripts/setup_reference.sh); $PY tools/reference/make_timing_fixtures.py [--skip-transcribe]
Needs ../shared/data (tokenizer files, audio/jfk.flac), ffmpeg, and scripts/fetch_models.sh's models.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
import whisper
from whisper import timing
from whisper.tokenizer import get_tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "timing")
DATA = os.path.join(ROOT, "..", "shared", "data")


def write(name, obj):
    path = os.path.join(OUT, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
    print(f"{path}: {os.path.getsize(path)} bytes")


def r3(a):
    """Random values rounded to 3 decimals, as float32: the fixture's text reproduces them exactly."""
    return np.round(a, 3).astype(np.float32)


def dtw_cases(rng):
    cases = []
    for rows, cols, kind in [(1, 1, "float"), (1, 7, "float"), (7, 1, "float"), (5, 9, "float"),
                             (12, 40, "float"), (30, 25, "float"), (6, 10, "ties"), (15, 15, "ties"),
                             (8, 30, "zeros"), (20, 60, "float")]:
        if kind == "float":
            x = np.round(rng.normal(size=(rows, cols)), 3)
        elif kind == "ties":
            x = rng.integers(0, 3, size=(rows, cols)).astype(np.float64)
        else:
            x = np.zeros((rows, cols))
        path = timing.dtw_cpu(x.copy())
        cases.append({"rows": rows, "cols": cols, "x": x.flatten().tolist(),
                      "text_indices": path[0].tolist(), "time_indices": path[1].tolist()})
    return cases


def median_cases(rng):
    cases = []
    for shape, width in [((3, 20), 7), ((2, 4, 9), 7), ((1, 3), 7), ((2, 4), 7), ((4, 11), 3), ((3, 8), 5)]:
        x = torch.from_numpy(r3(rng.normal(size=shape)))
        y = timing.median_filter(x, width)
        cases.append({"shape": list(shape), "width": width, "x": x.flatten().tolist(), "y": y.flatten().tolist()})
    return cases


TEXTS = {
    "gpt2": [
        (None, ' "Hello," he said. Wait! (Really?) It\'s 5 o\'clock... 3.14% of $20 -- ok?!'),
        (None, " And so, my fellow Americans: ask not what your country can do for you."),
        (None, "no leading space,and-dashes/slashes [brackets] {braces} 'quotes' “curly” ¿qué?"),
    ],
    "multilingual": [
        ("en", " Good morning. I'm fine, thanks!"),
        ("ja", "こんにちは、世界。今日は「いい天気」ですね！"),
        ("zh", "我们今天去公园吧？好的，走。"),
        ("de", " Grüße aus Köln – schön, dass ihr da seid."),
        ("ko", " 안녕하세요. 반갑습니다!"),
        ("th", "สวัสดีครับ ยินดีที่ได้รู้จัก"),
    ],
}


def tokenizer_for(encoding, language):
    return get_tokenizer(encoding == "multilingual", num_languages=99, language=language, task="transcribe")


def word_split_cases():
    cases = []
    for encoding, texts in TEXTS.items():
        for language, text in texts:
            tok = tokenizer_for(encoding, language)
            tokens = tok.encode(text) + [tok.eot]
            words, word_tokens = tok.split_to_word_tokens(tokens)
            cases.append({"encoding": encoding, "language": tok.language if encoding == "multilingual" else "",
                          "tokens": tokens, "words": words, "word_tokens": word_tokens})
    return cases


def merge_cases(rng):
    cases = []
    punct = [(timing.add_word_timestamps.__kwdefaults__["prepend_punctuations"],
              timing.add_word_timestamps.__kwdefaults__["append_punctuations"]), ("\"(", ".,"), ("", "")]
    for encoding, texts in TEXTS.items():
        for language, text in texts:
            tok = tokenizer_for(encoding, language)
            words, word_tokens = tok.split_to_word_tokens(tok.encode(text))
            for prepend, append in punct:
                alignment = [timing.WordTiming(w, list(t), float(i), float(i + 1), 0.5)
                             for i, (w, t) in enumerate(zip(words, word_tokens))]
                inputs = [[a.word, a.tokens] for a in alignment]
                timing.merge_punctuations(alignment, prepend, append)
                cases.append({"prepend": prepend, "append": append, "input": inputs,
                              "output": [[a.word, a.tokens] for a in alignment]})
    return cases


class _CrossAttention(torch.nn.Module):
    def __init__(self, qk):
        super().__init__()
        self.qk = qk

    def forward(self, x):
        return x, self.qk[None]  # find_alignment's hook keeps outs[-1][0]


class _Block(torch.nn.Module):
    def __init__(self, qk):
        super().__init__()
        self.cross_attn = _CrossAttention(qk)


class StandInModel(torch.nn.Module):
    """What find_alignment uses of a Whisper model: given cross-attention scores and logits."""

    def __init__(self, qks, logits, heads):
        super().__init__()
        self.decoder = torch.nn.Module()
        self.decoder.blocks = torch.nn.ModuleList([_Block(qk) for qk in qks])
        self.dims = type("Dims", (), {"n_text_layer": len(qks)})()
        mask = torch.zeros(len(qks), qks[0].shape[0], dtype=torch.bool)
        for layer, head in heads:
            mask[layer, head] = True
        self.alignment_heads = mask.to_sparse()
        self.logits = logits

    @property
    def device(self):
        return torch.device("cpu")

    def forward(self, mel, tokens):
        for block in self.decoder.blocks:
            block.cross_attn(None)
        return self.logits[None]


ALIGN_CASES = [
    # encoding, language, segment texts, seek, num_frames, n_ctx, last_speech_timestamp
    ("gpt2", None, [" And so, my fellow Americans.", ' "Ask not" what your country can do (for you)!'], 1500, 100, 60, 14.0),
    ("gpt2", None, [" Wait. Stop! Really?", " Yes.", " No"], 0, 160, 80, 0.0),
    ("gpt2", None, [" one two three four five six seven eight nine ten."], 300, 200, 70, 0.5),
    ("multilingual", "ja", ["こんにちは、世界。", "今日は「いい天気」ですね！"], 3000, 120, 60, 20.0),
    ("multilingual", "en", [" Hello there, general Kenobi.", " You are a bold one."], 0, 90, 50, 0.0),
]


def alignment_case(rng, index, encoding, language, texts, seek, num_frames, n_ctx, last_speech):
    tok = tokenizer_for(encoding, language)
    n_vocab = tok.encoding.n_vocab
    # Segments as transcribe() makes them: <|t0|> text <|t1|>.
    segments, stamp = [], int(rng.integers(0, 5))
    time_offset = seek * 160 / 16000
    for text in texts:
        text_tokens = tok.encode(text)
        end_stamp = stamp + int(rng.integers(3, 25))
        tokens = [tok.timestamp_begin + stamp, *text_tokens, tok.timestamp_begin + end_stamp]
        segments.append({"seek": seek, "start": time_offset + stamp * 0.02, "end": time_offset + end_stamp * 0.02,
                         "tokens": tokens})
        stamp = end_stamp
    text_tokens = [t for s in segments for t in s["tokens"] if t < tok.eot]
    sequence = [*tok.sot_sequence, tok.no_timestamps, *text_tokens, tok.eot]
    n_tokens = len(sequence)

    # Attention that moves through the frames with some long pauses, plus noise.
    n_layer, n_head = 4, 6
    heads = [(1, 2), (2, 0), (3, 5)] if index % 2 == 0 else [(3, 1), (2, 4)]
    limit = min(num_frames // 2, n_ctx)
    steps = rng.choice([0, 1, 2, 3, 8], size=n_tokens, p=[0.15, 0.35, 0.25, 0.15, 0.10])
    centres = np.minimum(np.cumsum(steps) * limit / max(1, steps.sum()), limit - 1)
    frames = np.arange(n_ctx)
    qks = []
    for layer in range(n_layer):
        qk = rng.normal(scale=0.5, size=(n_head, n_tokens, n_ctx))
        for (l, h) in heads:
            if l == layer:
                qk[h] += 4.0 * np.exp(-((frames[None, :] - centres[:, None]) ** 2) / 6.0)
        qks.append(torch.from_numpy(r3(qk)))
    # Sparse logits: a few random entries per row (one of them the next token, usually likely).
    logits = torch.zeros(n_tokens, n_vocab)
    entries = []
    for row in range(n_tokens):
        cols = list(rng.choice(tok.eot, size=5, replace=False))
        if row + 1 < n_tokens and sequence[row + 1] < tok.eot:
            cols[0] = sequence[row + 1]
        cols.append(int(rng.integers(tok.eot, n_vocab)))  # beyond <|endoftext|>: must not count
        for col in cols:
            value = float(r3(rng.normal(scale=3.0)))
            logits[row, col] = value
            entries.append([row, int(col), value])

    model = StandInModel(qks, logits, heads)
    alignment = timing.find_alignment(model, tok, text_tokens, torch.zeros(1), num_frames)
    inputs = [dict(s) for s in segments]
    timing.add_word_timestamps(segments=segments, model=model, tokenizer=tok, mel=torch.zeros(1), num_frames=num_frames,
                               last_speech_timestamp=last_speech)
    return {
        "encoding": encoding, "language": tok.language if encoding == "multilingual" else "",
        "sot_sequence": list(tok.sot_sequence), "num_frames": num_frames, "n_ctx": n_ctx,
        "last_speech_timestamp": last_speech, "heads": heads,
        "cross_scores": [[f"{v:.3f}" for v in qks[l][h].flatten().tolist()] for l, h in heads],
        "logits": entries, "segments_in": inputs,
        "alignment": [{"word": a.word, "tokens": a.tokens, "start": float(a.start), "end": float(a.end),
                       "probability": float(a.probability)} for a in alignment],
        "segments_out": [{"start": float(s["start"]), "end": float(s["end"]),
                          "words": [{k: (float(v) if k != "word" else v) for k, v in w.items()} for w in s["words"]]}
                         for s in segments],
    }


TRANSCRIBE_CASES = {
    "words": ("tiny.en", dict(word_timestamps=True)),
    "words_base": ("base", dict(word_timestamps=True)),
    "words_punctuation": ("tiny.en", dict(word_timestamps=True, prepend_punctuations="", append_punctuations=",")),
    # Without the previous text as prompt, carrying this initial prompt changes the later clips' text.
    "clips_carry_prompt": ("tiny.en", dict(clip_timestamps="0,3.5,4.2,8,8.5", initial_prompt="umm, so, like, uh, you know",
                                           carry_initial_prompt=True, condition_on_previous_text=False)),
    "clips_prompt": ("tiny.en", dict(clip_timestamps="0,3.5,4.2,8,8.5", initial_prompt="umm, so, like, uh, you know",
                                     condition_on_previous_text=False)),
    "clips_carry_prompt_conditioned": ("tiny.en", dict(clip_timestamps="0,3.5,4.2,8,8.5",
                                                       initial_prompt="Kennedy's inaugural address.", carry_initial_prompt=True)),
    "clips_words_hallucination": ("tiny.en", dict(clip_timestamps=[1.0, 7.3, 7.5], word_timestamps=True,
                                                   hallucination_silence_threshold=0.5)),
}


def transcribe_cases():
    sys.path.insert(0, HERE)
    from ct2_to_openai import load_ct2_as_openai

    torch.set_num_threads(1)
    audio = whisper.load_audio(os.path.join(DATA, "audio", "jfk.flac"))
    models = {}
    for name, (model_name, options) in TRANSCRIBE_CASES.items():
        if model_name not in models:
            models[model_name] = load_ct2_as_openai(os.path.expanduser(f"~/.cache/auris/models/{model_name}"))
        result = whisper.transcribe(models[model_name], audio, fp16=False, **options)
        write(f"transcribe_{name}.json", {
            "model": model_name, "clip": "audio/jfk.flac", "options": options, "text": result["text"],
            "segments": [{k: s[k] for k in ("seek", "start", "end", "text", "tokens", "temperature", "words")
                          if k in s} for s in result["segments"]]})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-transcribe", action="store_true", help="only the timing.py unit fixtures")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20250625)
    write("dtw.json", dtw_cases(rng))
    write("median_filter.json", median_cases(rng))
    write("word_split.json", word_split_cases())
    write("merge_punctuations.json", merge_cases(rng))
    for i, case in enumerate(ALIGN_CASES):
        write(f"add_word_timestamps_{i}.json", alignment_case(rng, i, *case))
    if not args.skip_transcribe:
        transcribe_cases()


if __name__ == "__main__":
    main()
