"""faster-whisper's BatchedInferencePipeline over one or many files, as bench/batch.py compares it
with auris --batch-size: its own defaults (Silero VAD chunks of at most 30 s, min silence 160 ms,
no timestamps, no previous-text prompt, one temperature), the given beam size and batch size. Each
file is transcribed in turn (the pipeline batches the chunks of one file). Prints one JSON line:
each file's text and the seconds spent loading and transcribing."""
import argparse
import json
import time

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True, help="CTranslate2 model directory")
parser.add_argument("--compute-type", default="float32")
parser.add_argument("--beam", type=int, default=5)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("--language", default="en")
parser.add_argument("audio", nargs="+")
args = parser.parse_args()

start = time.perf_counter()
from faster_whisper import BatchedInferencePipeline, WhisperModel  # noqa: E402  (import time counts as loading)

model = WhisperModel(args.model, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads, num_workers=1)
pipeline = BatchedInferencePipeline(model)
loaded = time.perf_counter()
texts = []
for path in args.audio:
    segments, _ = pipeline.transcribe(path, language=args.language, beam_size=args.beam, batch_size=args.batch_size)
    texts.append("".join(s.text for s in segments).strip())  # a generator: decoding happens here
done = time.perf_counter()
print(json.dumps({"texts": texts, "load_s": loaded - start, "transcribe_s": done - loaded}))
