"""Reference fixtures for Silero VAD (tests/fixtures/vad/), from the real silero-vad 6.2.0 package.

Run from the repository root:
    PY=$(scripts/setup_reference.sh) && nice -n 19 $PY tools/reference/make_vad_fixtures.py

For every clip (jfk.flac, each multilingual/*.wav, longform/hifitts-dev-concat.flac and 10 s of
digital silence made here) it loads the audio as whisper.load_audio and auris's load_audio do (the
ffmpeg CLI to 16 kHz mono s16le, / 32768) and stores:
  - the speech probability of every 512-sample window from the package's own model
    (load_silero_vad(), TorchScript), fed as get_speech_timestamps feeds it: one window per call
    after reset_states(), the last window zero-padded (probabilities.f32, float32 little-endian);
  - the same from that model with its conv weights and STFT basis rounded to fp16, which is exactly
    what whisper.cpp's ggml file stores (probabilities_ggml_weights.f32): the network auris runs;
  - get_speech_timestamps(audio, model, ...) in samples for each option set in OPTION_SETS, run on
    the stock model.
index.json holds the clips (sample count and sum, window offset into the .f32 files), the option
sets, and how far the ONNX model (load_silero_vad(onnx=True), when onnxruntime is installed) and
the fp16-weight model are from the TorchScript probabilities.
"""

import json
import os
import platform
import subprocess

import numpy as np
import torch
import silero_vad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
OUT = os.path.join(ROOT, "tests", "fixtures", "vad")
SAMPLE_RATE = 16000
WINDOW = 512
SILENCE_SAMPLES = 10 * SAMPLE_RATE

# Keyword arguments of get_speech_timestamps per option set; {} is the package's defaults.
OPTION_SETS = {
    "silero_defaults": {},
    # faster-whisper's VadOptions defaults; its get_speech_timestamps cuts long speech the legacy way.
    "faster_whisper": {"threshold": 0.5, "min_speech_duration_ms": 0, "min_silence_duration_ms": 2000,
                       "speech_pad_ms": 400, "use_max_poss_sil_at_max_speech": False},
    # faster-whisper's BatchedInferencePipeline defaults (max_speech = its 30 s chunk length).
    "faster_whisper_batched": {"threshold": 0.5, "min_speech_duration_ms": 0, "min_silence_duration_ms": 160,
                               "speech_pad_ms": 400, "max_speech_duration_s": 30.0,
                               "use_max_poss_sil_at_max_speech": False},
    # Short enough to cut speech: at the longest silence (the default) and the legacy last silence.
    "max_speech_3s": {"max_speech_duration_s": 3.0},
    "max_speech_3s_last_silence": {"max_speech_duration_s": 3.0, "use_max_poss_sil_at_max_speech": False},
    # So short that most cuts find no silence and fall back to cutting at the current window.
    "max_speech_1s": {"max_speech_duration_s": 1.0},
    "max_speech_1s_last_silence": {"max_speech_duration_s": 1.0, "use_max_poss_sil_at_max_speech": False},
}


def load_audio(path):
    cmd = ["ffmpeg", "-nostdin", "-threads", "0", "-i", path, "-f", "s16le", "-ac", "1", "-acodec", "pcm_s16le",
           "-ar", str(SAMPLE_RATE), "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.int16).flatten().astype(np.float32) / 32768.0


def clips():
    yield "jfk", "audio/jfk.flac"
    folder = os.path.join(DATA, "audio", "multilingual")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".wav"):
            yield "multilingual/" + name[:-4], "audio/multilingual/" + name
    yield "longform", "audio/longform/hifitts-dev-concat.flac"
    yield "silence_10s", None


def window_probabilities(model, audio):
    """As get_speech_timestamps computes them (silero_vad/utils_vad.py)."""
    model.reset_states()
    wav = torch.from_numpy(audio)
    out = []
    for start in range(0, len(audio), WINDOW):
        chunk = wav[start:start + WINDOW]
        if len(chunk) < WINDOW:
            chunk = torch.nn.functional.pad(chunk, (0, WINDOW - len(chunk)))
        out.append(model(chunk, SAMPLE_RATE).item())
    return np.array(out, dtype=np.float32)


def round_weights_to_fp16(model):
    """The tensors whisper.cpp's convert-silero-vad-to-ggml.py writes as fp16 (the rest stay fp32)."""
    with torch.no_grad():
        for name, t in list(model._model.named_parameters()) + list(model._model.named_buffers()):
            if ("encoder" in name and name.endswith("weight")) or name == "decoder.decoder.2.weight" \
                    or name == "stft.forward_basis_buffer":
                t.copy_(t.half().float())


def onnx_model():
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    return silero_vad.load_silero_vad(onnx=True)


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    stock = silero_vad.load_silero_vad()
    ggml_weights = silero_vad.load_silero_vad()
    round_weights_to_fp16(ggml_weights)
    onnx = onnx_model()

    index = {"silero_vad": silero_vad.__version__, "torch": torch.__version__, "python": platform.python_version(),
             "sample_rate": SAMPLE_RATE, "window": WINDOW, "option_sets": OPTION_SETS,
             "onnx_compared": onnx is not None, "clips": []}
    all_stock, all_ggml = [], []
    offset = 0
    for key, rel in clips():
        audio = load_audio(os.path.join(DATA, rel)) if rel else np.zeros(SILENCE_SAMPLES, np.float32)
        probs = window_probabilities(stock, audio)
        probs_ggml = window_probabilities(ggml_weights, audio)
        clip = {"key": key, "file": rel, "num_samples": int(audio.size), "sum": float(np.sum(audio, dtype=np.float64)),
                "windows": int(probs.size), "offset": offset,
                "ggml_weights_max_abs_diff": float(np.max(np.abs(probs - probs_ggml))), "timestamps": {}}
        if onnx is not None:
            clip["onnx_max_abs_diff"] = float(np.max(np.abs(probs - window_probabilities(onnx, audio))))
        for name, kwargs in OPTION_SETS.items():
            spans = silero_vad.get_speech_timestamps(torch.from_numpy(audio), stock, sampling_rate=SAMPLE_RATE, **kwargs)
            clip["timestamps"][name] = [[s["start"], s["end"]] for s in spans]
        index["clips"].append(clip)
        all_stock.append(probs)
        all_ggml.append(probs_ggml)
        offset += probs.size
        print(f"{key}: {audio.size} samples, {probs.size} windows, "
              f"{len(clip['timestamps']['silero_defaults'])} speech spans, fp16 weights max diff "
              f"{clip['ggml_weights_max_abs_diff']:.2e}, onnx max diff {clip.get('onnx_max_abs_diff', float('nan')):.2e}")
    np.concatenate(all_stock).astype("<f4").tofile(os.path.join(OUT, "probabilities.f32"))
    np.concatenate(all_ggml).astype("<f4").tofile(os.path.join(OUT, "probabilities_ggml_weights.f32"))
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
