"""Reference fixtures for src/decoding, produced by openai/whisper's own decoding.py.

  PY=$(scripts/setup_reference.sh)
  $PY tools/reference/make_decoding_fixtures.py   # writes tests/fixtures/decoding/*.json

logit_filters.json: SuppressBlank, SuppressTokens and ApplyTimestampRules applied to pseudo-random
  logits (fake_decoder_model.random_logits, reproducible in C++) for many token contexts, with the
  positions each filter set to -inf, as ranges per row.
decode_runs.json: whisper.decoding.DecodingTask run on fake_decoder_model.FakeDecoder (a stand-in
  decoder that the C++ test re-implements), for greedy, beam search, prompts, prefixes, language
  detection and both vocabularies: tokens, log-probabilities, no-speech probability, text, ...
Deterministic: the same reference version gives the same files.
"""

import json
import os
import re
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whisper.decoding as wd  # noqa: E402
from whisper.tokenizer import get_tokenizer  # noqa: E402

from fake_decoder_model import FakeDecoder, random_logits  # noqa: E402

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "decoding")
NUM_LANGUAGES = 99


def vocabularies():
    return {
        "multilingual": get_tokenizer(True, num_languages=NUM_LANGUAGES),
        "gpt2": get_tokenizer(False, num_languages=NUM_LANGUAGES),
    }


def vocab_info(tokenizer):
    return {
        "n_vocab": tokenizer.timestamp_begin + 1501,
        "eot": tokenizer.eot,
        "sot": tokenizer.sot,
        "no_timestamps": tokenizer.no_timestamps,
        "no_speech": tokenizer.no_speech,
        "timestamp_begin": tokenizer.timestamp_begin,
        "blank_tokens": tokenizer.encode(" "),
    }


def masked_ranges(row: np.ndarray):
    """[[begin, end), ...] of the -inf positions."""
    masked = np.isneginf(row)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], masked.astype(np.int8), [0]))))
    return edges.reshape(-1, 2).tolist()


def float_bits_sum(row: np.ndarray) -> str:
    """Order-independent fingerprint of a float32 row: sum of its bit patterns mod 2**64 (as text)."""
    return str(int(row.view(np.uint32).astype(np.uint64).sum(dtype=np.uint64)))


def random_row_spec(rng, info):
    """A logits row: scale and a few exact overrides, so both text and timestamps sometimes win."""
    tb, eot = info["timestamp_begin"], info["eot"]
    overrides = []
    if rng.random() < 0.5:
        overrides.append([int(rng.integers(0, eot)), float(rng.choice([6.0, 8.0, 10.0, 12.0, 14.0]))])
    if rng.random() < 0.3:
        overrides.append([int(rng.integers(tb, tb + 1501)), float(rng.choice([8.0, 12.0]))])
    if rng.random() < 0.2:
        overrides.append([eot, float(rng.choice([5.0, 9.0]))])
    return {"seed": int(rng.integers(0, 2**62)), "scale": float(rng.choice([1.0, 2.0, 4.0, 8.0])),
            "overrides": overrides}


def random_sampled_tokens(rng, info, length):
    """Sampled tokens mixing text, timestamps (monotone or not, incl. both ends) and <|endoftext|>."""
    tb, eot = info["timestamp_begin"], info["eot"]
    out, last_ts = [], tb + int(rng.integers(0, 100))
    for _ in range(length):
        kind = rng.random()
        if kind < 0.45:
            style = rng.random()
            if style < 0.6:
                last_ts = min(tb + 1500, last_ts + int(rng.integers(0, 30)))
                out.append(last_ts)
            elif style < 0.8:
                out.append(int(rng.integers(tb, tb + 1501)))
            else:
                out.append(int(rng.choice([tb, tb + 1500])))
        elif kind < 0.93:
            out.append(int(rng.integers(0, eot)))
        else:
            out.append(eot)
    return out


def run_filter(logit_filter, rows, info):
    logits = torch.from_numpy(np.stack([random_logits(r["seed"], info["n_vocab"], r["scale"], r["overrides"])
                                        for r in rows]))
    before = logits.clone()
    tokens = torch.tensor([r["tokens"] for r in rows])
    logit_filter.apply(logits, tokens)
    for i, r in enumerate(rows):
        out, inp = logits[i].numpy(), before[i].numpy()
        changed = out != inp
        assert np.all(np.isneginf(out[changed])), "filters only ever write -inf"
        r["input_fingerprint"] = float_bits_sum(inp)
        r["masked"] = masked_ranges(out)
    return rows


def filter_cases(rng, name, tokenizer):
    info = vocab_info(tokenizer)
    cases = []
    for _ in range(120):  # ApplyTimestampRules: the tricky one
        sample_begin = int(rng.choice([1, 3, 4, 9]))
        length = int(rng.choice([0, 0, 1, 1, 2, 2, 3, 4, 5, 7, 10]))
        max_index = [None, 0, 50, 1500][int(rng.integers(0, 4))]
        rows = []
        for _ in range(int(rng.integers(1, 4))):
            context = [tokenizer.sot] + [int(t) for t in rng.integers(0, info["eot"], sample_begin - 1)]
            rows.append({**random_row_spec(rng, info),
                         "tokens": context + random_sampled_tokens(rng, info, length)})
        f = wd.ApplyTimestampRules(tokenizer, sample_begin, max_index)
        cases.append({"filter": "timestamp_rules", "sample_begin": sample_begin,
                      "max_initial_timestamp_index": max_index, "rows": run_filter(f, rows, info)})
    for _ in range(12):
        sample_begin = int(rng.choice([1, 3, 4]))
        extra = int(rng.choice([0, 0, 1, 2]))
        rows = [{**random_row_spec(rng, info),
                 "tokens": [tokenizer.sot] * sample_begin + [int(t) for t in rng.integers(0, info["eot"], extra)]}
                for _ in range(2)]
        f = wd.SuppressBlank(tokenizer, sample_begin)
        cases.append({"filter": "suppress_blank", "sample_begin": sample_begin, "rows": run_filter(f, rows, info)})
    for _ in range(6):
        suppress = sorted({int(t) for t in rng.integers(0, info["n_vocab"], int(rng.integers(1, 40)))})
        rows = [{**random_row_spec(rng, info), "tokens": [tokenizer.sot]} for _ in range(2)]
        f = wd.SuppressTokens(suppress)
        cases.append({"filter": "suppress_tokens", "suppress_tokens": suppress, "rows": run_filter(f, rows, info)})
    return {"vocabulary": name, **info, "cases": cases}


# ----------------------------------------------------------------------------------------------
# Decoding runs on the fake decoder.


def word_tokens(tokenizer, count=400):
    """Tokens that decode to " word" (ASCII letters), so that texts are plain."""
    pattern = re.compile(rb"^ [a-z]{3,8}$")
    words = []
    for t in range(tokenizer.eot):
        if pattern.match(tokenizer.encoding.decode_single_token_bytes(t)):
            words.append(t)
            if len(words) == count:
                break
    return words


class FakeInference(wd.Inference):
    def __init__(self, fake, initial_token_length):
        self.fake = fake
        self.initial_token_length = initial_token_length

    def logits(self, tokens, audio_features):
        rows = tokens.tolist()
        n = tokens.shape[-1]
        positions = list(range(n)) if n == self.initial_token_length else [n - 1]
        return torch.from_numpy(np.stack([np.stack(self.fake.logits_of_row(r, positions)) for r in rows]))

    def rearrange_kv_cache(self, source_indices):
        pass  # the fake recomputes from the whole history


class StubDims:
    n_text_ctx = 448
    n_audio_ctx = 1500
    n_audio_state = 8


class StubDecoder:
    blocks = []


class StubModel:
    """What DecodingTask touches of a Whisper model."""

    def __init__(self, multilingual, fake):
        self.is_multilingual = multilingual
        self.num_languages = NUM_LANGUAGES
        self.dims = StubDims()
        self.decoder = StubDecoder()
        self.fake = fake

    def logits(self, tokens, audio_features):
        return FakeInference(self.fake, tokens.shape[-1]).logits(tokens, audio_features)

    def detect_language(self, audio_features, tokenizer):
        tokens, probs = wd.detect_language(self, audio_features, tokenizer)
        self.detected_language_probs = probs[0]  # DecodingTask.run drops them unless task is lang_id
        return tokens, probs


def decode_run(model, options):
    task = wd.DecodingTask(model, wd.DecodingOptions(fp16=False, **options))
    task.inference = FakeInference(model.fake, len(task.initial_tokens))
    if isinstance(task.decoder, wd.BeamSearchDecoder):
        task.decoder.inference = task.inference
    captured = {}
    rank = task.sequence_ranker.rank

    def capturing_rank(tokens, sum_logprobs):
        selected = rank(tokens, sum_logprobs)
        captured["candidates"] = [[int(x) for x in t] for t in tokens[0]]
        captured["candidate_sum_logprobs"] = [float(x) for x in sum_logprobs[0]]
        captured["sum_logprob"] = float(sum_logprobs[0][selected[0]])
        return selected

    task.sequence_ranker.rank = capturing_rank
    mel = torch.zeros(1, StubDims.n_audio_ctx, StubDims.n_audio_state)
    model.detected_language_probs = None
    result = task.run(mel)[0]
    return {
        "initial_tokens": list(task.initial_tokens),
        "language": result.language,
        "language_probs": model.detected_language_probs,
        "tokens": result.tokens,
        "text": result.text,
        "avg_logprob": result.avg_logprob,
        "no_speech_prob": result.no_speech_prob,
        "temperature": result.temperature,
        "compression_ratio": result.compression_ratio,
        **captured,
    }


def decode_cases(name, tokenizer):
    info = vocab_info(tokenizer)
    words = word_tokens(tokenizer)
    fake = FakeDecoder(info["n_vocab"], info["eot"], info["sot"], info["no_speech"], info["timestamp_begin"], words)
    model = StubModel(name == "multilingual", fake)
    tb = info["timestamp_begin"]
    runs = {
        "greedy": {},
        "greedy_without_timestamps": {"without_timestamps": True},
        "greedy_short": {"sample_len": 12},
        "greedy_no_initial_limit": {"max_initial_timestamp": None},
        "greedy_unsuppressed": {"suppress_tokens": "", "suppress_blank": False, "without_timestamps": True},
        "greedy_suppress_list": {"suppress_tokens": "-1," + ",".join(str(w) for w in words[:40:3])},
        "greedy_prompt_prefix_tokens": {"prompt": words[100:130], "prefix": [tb + 5] + words[7:9]},
        "greedy_long_prompt": {"prompt": words[:300]},
        "greedy_prompt_prefix_text": {"prompt": " Hello world, this is a test. ", "prefix": "And so my"},
        "beam5": {"beam_size": 5},
        "beam5_patience2": {"beam_size": 5, "patience": 2.0},
        "beam4_patience1.5": {"beam_size": 4, "patience": 1.5},
        "beam5_without_timestamps_lp": {"beam_size": 5, "without_timestamps": True, "length_penalty": 0.5},
        "beam3_short": {"beam_size": 3, "sample_len": 10},
    }
    if name == "multilingual":
        runs.update({
            "greedy_detect_language": {"language": None},
            "beam5_detect_language": {"language": None, "beam_size": 5},
            "greedy_translate_german": {"task": "translate", "language": "de"},
        })
    results = {}
    for run_name, options in runs.items():
        options = {"language": "en", **options}
        results[run_name] = {"options": options, **decode_run(model, options)}
    return {"vocabulary": name, **info, "num_languages": NUM_LANGUAGES, "n_text_ctx": StubDims.n_text_ctx,
            "n_audio_ctx": StubDims.n_audio_ctx, "words": words, "runs": results}


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    rng = np.random.default_rng(20250625)
    vocabs = vocabularies()
    filters = [filter_cases(rng, name, tok) for name, tok in vocabs.items()]
    with open(os.path.join(OUT_DIR, "logit_filters.json"), "w") as f:
        json.dump(filters, f, separators=(",", ":"))
    decodes = [decode_cases(name, tok) for name, tok in vocabs.items()]
    with open(os.path.join(OUT_DIR, "decode_runs.json"), "w") as f:
        json.dump(decodes, f, indent=1)
    for d in decodes:
        for run_name, r in d["runs"].items():
            print(f"{d['vocabulary']:>12} {run_name:<30} {len(r['tokens']):3d} tokens "
                  f"avg {r['avg_logprob']:.4f} no_speech {r['no_speech_prob']:.4f} {r['text'][:50]!r}")


if __name__ == "__main__":
    main()
