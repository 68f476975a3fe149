"""whisper.cpp (through pywhispercpp, compiled on this machine) on one file, as bench/speed.py runs
every engine: greedy (best_of 5 on fallback) or beam search, temperature fallback step 0.2, the
given language. The audio is decoded with PyAV (faster-whisper's decode_audio) to 16-kHz mono.
Prints one JSON line: the text and the seconds spent loading and transcribing."""
import time

from peer_cli import parse_args, report

args = parse_args("ggml model file (auris convert --to ggml)")

start = time.perf_counter()
from faster_whisper.audio import decode_audio  # noqa: E402
from pywhispercpp.model import Model  # noqa: E402

model = Model(
    args.model,
    params_sampling_strategy=0 if args.beam <= 1 else 1,
    n_threads=args.threads,
    language=args.language,
    print_progress=False,
    print_realtime=False,
    greedy={"best_of": 5},
    beam_search={"beam_size": max(args.beam, 1), "patience": -1.0},
    temperature_inc=0.2,
)
loaded = time.perf_counter()
audio = decode_audio(args.audio, sampling_rate=16000)
segments = model.transcribe(audio)
report(" ".join(s.text.strip() for s in segments), start, loaded)
