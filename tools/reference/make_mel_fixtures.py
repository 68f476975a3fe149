"""Reference fixtures for the audio front end (tests/fixtures/audio/), from the real openai/whisper.

Run from the repository root:
    PY=$(scripts/setup_reference.sh) && $PY tools/reference/make_mel_fixtures.py

For each case it runs whisper.audio.load_audio (the ffmpeg CLI) and whisper.audio.log_mel_spectrogram
on a file of ../shared/data and stores:
  - the decoded samples' count, CRC-32 of their s16le bytes (so tests can prove every sample equal),
    their sum, and every 11th sample as int16 (audio<k>.samples.bin) for readable failures;
  - a selection of log-mel frames (every `stride`-th frame plus the last one) as float32
    little-endian, frame-major [n_selected x n_mels] (<name>.mel.bin), with the frame indices.
Also dumps whisper's shipped mel filter banks (mel_filters_<n>.bin, float32 [n_mels x 201]).
index.json describes everything.
"""

import json
import os
import sys
import zlib

import numpy as np
import torch
import whisper.audio as wa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
OUT = os.path.join(ROOT, "tests", "fixtures", "audio")
SAMPLE_STRIDE = 11

# (name, file under shared/data, n_mels, padding, frame stride).
CASES = [
    ("jfk_flac_80", "audio/jfk.flac", 80, 0, 7),
    ("jfk_flac_128", "audio/jfk.flac", 128, 0, 7),
    ("jfk_flac_80_padded", "audio/jfk.flac", 80, wa.N_SAMPLES, 17),
    ("jfk_wav_80", "audio/jfk.wav", 80, 0, 7),
    ("digit_8k_80", "audio/digits-8k/0_george_0.wav", 80, 0, 1),
    ("digit_8k_128_padded", "audio/digits-8k/7_jackson_0.wav", 128, wa.N_SAMPLES, 23),
    ("es_128", "audio/multilingual/test_es.wav", 128, 0, 7),
    ("empty_wav", "audio/multilingual/empty.wav", 80, wa.N_SAMPLES, 29),
]


def describe_audio(rel, audio, number):
    """Stores what proves a decoder's output equal to load_audio's, sample for sample."""
    s16 = np.round(audio * 32768.0).astype("<i2")
    assert np.array_equal(s16.astype(np.float32) / 32768.0, audio)
    name = f"audio{number}.samples.bin"
    s16[::SAMPLE_STRIDE].tofile(os.path.join(OUT, name))
    return {"file": rel, "n_samples": int(audio.size), "crc32_s16le": zlib.crc32(s16.tobytes()),
            "sum": float(np.sum(audio, dtype=np.float64)), "samples_file": name}


def main():
    os.makedirs(OUT, exist_ok=True)
    index = {"sample_stride": SAMPLE_STRIDE, "audio": [], "cases": [], "mel_filters": {}}
    with np.load(os.path.join(DATA, "tokenizer", "mel_filters.npz")) as f:
        for n in (80, 128):
            bank = np.ascontiguousarray(f[f"mel_{n}"], dtype="<f4")
            name = f"mel_filters_{n}.bin"
            bank.tofile(os.path.join(OUT, name))
            index["mel_filters"][str(n)] = {"file": name, "shape": list(bank.shape)}

    decoded = {}
    for name, rel, n_mels, padding, stride in CASES:
        if rel not in decoded:
            decoded[rel] = wa.load_audio(os.path.join(DATA, rel))
            index["audio"].append(describe_audio(rel, decoded[rel], len(index["audio"])))
        mel = wa.log_mel_spectrogram(torch.from_numpy(decoded[rel]), n_mels, padding=padding).numpy()
        n_frames = mel.shape[1]
        frames = list(range(0, n_frames, stride))
        if frames[-1] != n_frames - 1:
            frames.append(n_frames - 1)
        np.ascontiguousarray(mel[:, frames].T, dtype="<f4").tofile(os.path.join(OUT, f"{name}.mel.bin"))
        index["cases"].append({"name": name, "file": rel, "n_mels": n_mels, "padding": padding,
                               "n_frames": n_frames, "frames": frames, "mel_file": f"{name}.mel.bin"})
        print(name, mel.shape, file=sys.stderr)

    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
