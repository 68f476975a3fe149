"""faster-whisper's (CTranslate2's) encoder alone: the milliseconds one 30-s window takes through
WhisperModel.encode(), on the first window of the file (log-mel features padded to 3000 frames as
transcribe() pads them), after one warm-up, repeated. bench/speed.py sets these beside auris's
per-window encoder time, to show how much of a peer's wall time is the same GEMM-bound work.
Prints one JSON line: {"encoder_ms": [one figure per repeat]}."""
import json
import time

import numpy as np
from peer_cli import parse_args

args = parse_args("CTranslate2 model directory", lambda p: (p.add_argument("--compute-type", default="float32"),
                                                             p.add_argument("--repeats", type=int, default=5)))

from faster_whisper import WhisperModel, decode_audio  # noqa: E402

model = WhisperModel(args.model, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads, num_workers=1)
extractor = model.feature_extractor
features = extractor(decode_audio(args.audio, sampling_rate=extractor.sampling_rate))
window = extractor.nb_max_frames  # 3000 frames: 30 s
features = np.pad(features[:, :window], ((0, 0), (0, max(0, window - features.shape[1]))))
features = np.ascontiguousarray(features, dtype=np.float32)


def encode_once():
    start = time.perf_counter()
    np.asarray(model.encode(features))  # reading the output back waits for the encoder to finish
    return (time.perf_counter() - start) * 1000.0


encode_once()  # warm-up: first-call allocations and kernel selection
print(json.dumps({"encoder_ms": [encode_once() for _ in range(args.repeats)]}))
