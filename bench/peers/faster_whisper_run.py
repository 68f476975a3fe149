"""faster-whisper (CTranslate2) on one file, as bench/speed.py runs every engine: openai's
transcribe() defaults (temperature fallback 0.0..1.0, condition on previous text, no VAD), the
given beam size (1 = greedy) and language. Prints one JSON line: the text and the seconds spent
loading and transcribing."""
import argparse
import json
import time

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True, help="CTranslate2 model directory")
parser.add_argument("--compute-type", default="float32")
parser.add_argument("--beam", type=int, default=1)
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("--language", default="en")
parser.add_argument("audio")
args = parser.parse_args()

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
text = "".join(s.text for s in segments)  # a generator: decoding happens here
done = time.perf_counter()
print(json.dumps({"text": text.strip(), "load_s": loaded - start, "transcribe_s": done - loaded}))
