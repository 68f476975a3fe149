"""faster-whisper (CTranslate2) on one file, as bench/speed.py runs every engine: openai's
transcribe() defaults (temperature fallback 0.0..1.0, condition on previous text, no VAD), the
given beam size (1 = greedy) and language. Prints one JSON line: the text and the seconds spent
loading and transcribing."""
import time

from peer_cli import parse_args, report

args = parse_args("CTranslate2 model directory", lambda p: p.add_argument("--compute-type", default="float32"))

start = time.perf_counter()
from faster_whisper import WhisperModel  # noqa: E402  (import time counts as loading)

model = WhisperModel(args.model, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads, num_workers=1)
loaded = time.perf_counter()
segments, _ = model.transcribe(
    args.audio,
    language=args.language,
    beam_size=args.beam,
    best_of=5,
    temperature=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
    condition_on_previous_text=True,
    vad_filter=False,
)
report("".join(s.text for s in segments), start, loaded)  # a generator: decoding happens here
