"""openai/whisper (the reference) on one file, as bench/speed.py runs every engine: transcribe()
with its defaults, fp32 on the CPU, the given beam size (1 = greedy) and language, on the same
CTranslate2 weights (tools/reference/ct2_to_openai.py). Prints one JSON line: the text and the
seconds spent loading and transcribing."""
import os
import sys
import time

from peer_cli import parse_args, report

args = parse_args("CTranslate2 model directory")

start = time.perf_counter()
import torch  # noqa: E402
import whisper  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "reference"))
from ct2_to_openai import load_ct2_as_openai  # noqa: E402

torch.set_num_threads(args.threads)
model = load_ct2_as_openai(args.model)
loaded = time.perf_counter()
result = whisper.transcribe(
    model,
    args.audio,
    language=args.language,
    beam_size=args.beam if args.beam > 1 else None,
    best_of=5,
    fp16=False,
)
report(result["text"], start, loaded)
