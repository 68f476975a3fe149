"""A deterministic stand-in for Whisper's decoder, defined bit-for-bit like the C++ test's
FakeDecoderModel (tests/fake_decoder_model.h): the logits at a position are a function
of the token history up to it, built from integer hashes so both languages compute the same
float32 values. Also the shared pseudo-random logits used by the logit-filter fixtures.

Not a script: imported by make_decoding_fixtures.py.
"""

import numpy as np

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
VOCAB_SALT = 0xD1B54A32D192ED03
STRUCTURE_SALT = 0xA5A5A5A5A5A5A5A5
HISTORY_SEED = 0x1234567


def mix(x: int) -> int:
    """splitmix64's finaliser on a Python int."""
    x &= MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def mix_array(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on a uint64 array (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def unit_floats(seed: int, n: int) -> np.ndarray:
    """n float32 values k / 2**24 in [0, 1), k the top 24 bits of mix(seed ^ (v + 1) * VOCAB_SALT)."""
    v = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(VOCAB_SALT)
    bits = mix_array(np.uint64(seed & MASK) ^ v) >> np.uint64(40)
    return bits.astype(np.float32) * np.float32(1.0 / (1 << 24))


def random_logits(seed: int, n_vocab: int, scale: float, overrides) -> np.ndarray:
    """Logits (2u - 1) * scale (scale a power of two: exact), then logits[t] = value per override."""
    u = unit_floats(seed, n_vocab)
    logits = (u * np.float32(2.0) - np.float32(1.0)) * np.float32(scale)
    for token, value in overrides:
        logits[token] = np.float32(value)
    return logits


def history_step(h: int, token: int) -> int:
    return mix(h + (token + 1) * GOLDEN)


class FakeDecoder:
    """logits(history) for one vocabulary.

    noise[v] = 2u (u as unit_floats(h)), then, with r = mix(h ^ STRUCTURE_SALT) and pos the number of
    tokens from the last <|startoftranscript|> on (the whole history when there is none):
      three preferred words (from `words`) get 9, 8 and 7.5 added;
      the timestamp tb + min(1500, 10 * pos + (r >> 48) % 10) gets 10 added when (r >> 40) % 4 == 0;
      <|endoftext|> gets 0.25 * max(0, pos - 20) added, and 6 more when (r >> 56) % 16 == 0;
      <|nospeech|> gets 4 + (r >> 20) % 8 added.
    """

    def __init__(self, n_vocab, eot, sot, no_speech, timestamp_begin, words):
        self.n_vocab = n_vocab
        self.eot = eot
        self.sot = sot
        self.no_speech = no_speech
        self.timestamp_begin = timestamp_begin
        self.words = list(words)

    def logits_for_hash(self, h: int, pos: int) -> np.ndarray:
        logits = unit_floats(h, self.n_vocab) * np.float32(2.0)
        r = mix(h ^ STRUCTURE_SALT)
        n = len(self.words)
        for shift, boost in ((0, 9.0), (16, 8.0), (32, 7.5)):
            t = self.words[(r >> shift) % n]
            logits[t] = logits[t] + np.float32(boost)
        if (r >> 40) % 4 == 0:
            t = self.timestamp_begin + min(1500, 10 * pos + (r >> 48) % 10)
            logits[t] = logits[t] + np.float32(10.0)
        eot_boost = 0.25 * max(0, pos - 20) + (6.0 if (r >> 56) % 16 == 0 else 0.0)
        logits[self.eot] = logits[self.eot] + np.float32(eot_boost)
        logits[self.no_speech] = logits[self.no_speech] + np.float32(4 + (r >> 20) % 8)
        return logits

    def logits_of_row(self, row, positions):
        """Logits at each of `positions` (indices into row) of one token row."""
        out = []
        h = HISTORY_SEED
        wanted = set(positions)
        start = 0
        for p, token in enumerate(row):
            h = history_step(h, token)
            if token == self.sot:
                start = p
            if p in wanted:
                out.append((p, self.logits_for_hash(h, p - start + 1)))
        by_position = dict(out)
        return [by_position[p] for p in positions]
