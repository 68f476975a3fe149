"""whisper_streaming (ufal/whisper_streaming's whisper_online.py: OnlineASRProcessor, the
LocalAgreement-2 policy, with its default segment trimming at 15 s and no VAD) on faster-whisper, fed
an audio file at the speed it plays, as bench/stream_latency.py measures `auris stream --realtime`.
The feed is whisper_online.py's own simulation (neither --offline nor --comp_unaware): before each
process_iter() it waits until at least --step-ms of new audio has arrived, then inserts all that has.

Prints one JSON object: {"committed": [{"word", "start", "end", "time"}, ...], "compute_seconds",
"audio_seconds"}. start/end are the word's times in the audio as the processor reports them; time is
the wall time since the feed began (when the first sample arrived) at which it was committed;
compute_seconds is the wall time spent inside process_iter() and finish().

Usage (with the python that scripts/setup_stream_peer.sh prints):
  whisper_streaming_run.py --model tiny.en|MODEL_DIR --audio FILE [--step-ms 500] [--beam-size 5]
                           [--threads 2] [--compute-type int8] [--language en]"""
import argparse
import json
import os
import time
from pathlib import Path

import whisper_online
from faster_whisper import WhisperModel

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True, help="model name (looked up in auris's model cache first) or directory")
parser.add_argument("--audio", required=True)
parser.add_argument("--step-ms", type=int, default=500, help="least new audio before each process_iter (min chunk size)")
parser.add_argument("--beam-size", type=int, default=5)
parser.add_argument("--threads", type=int, default=2)
# whisper_streaming's FasterWhisperASR loads CUDA float16; its CPU variant (commented out there) is int8.
parser.add_argument("--compute-type", default="int8")
parser.add_argument("--language", default="en")
args = parser.parse_args()

# The same CTranslate2 weights auris runs, where scripts/fetch_models.sh put them; else a Hugging Face id.
cached = Path(os.environ.get("AURIS_MODEL_DIR", Path.home() / ".cache/auris/models")) / args.model
model_path = args.model if Path(args.model).is_dir() or not cached.is_dir() else str(cached)


class CpuFasterWhisperASR(whisper_online.FasterWhisperASR):
    """The package's faster-whisper backend (same transcribe options, same word extraction), on the CPU."""

    def load_model(self, modelsize=None, cache_dir=None, model_dir=None):
        return WhisperModel(model_path, device="cpu", compute_type=args.compute_type, cpu_threads=args.threads)


asr = CpuFasterWhisperASR(lan=args.language, modelsize=args.model)
# FasterWhisperASR.transcribe passes beam_size=5 itself; only that option is replaced.
transcribe = asr.model.transcribe
asr.model.transcribe = lambda audio, **options: transcribe(audio, **dict(options, beam_size=args.beam_size))
online = whisper_online.OnlineASRProcessor(asr)

SR = whisper_online.OnlineASRProcessor.SAMPLING_RATE
audio = whisper_online.load_audio(args.audio)  # librosa, 16 kHz mono float32
asr.transcribe(audio[:SR])  # whisper_online.py warms up on the first second before its clock starts

committed, compute = [], 0.0


def timed(call, words_after):
    """Runs one processor call, counting its time as compute, and records the words it committed,
    each stamped with the wall time the call returned."""
    global compute
    t0 = time.perf_counter()
    call()
    compute += time.perf_counter() - t0
    now = time.perf_counter() - start
    committed.extend({"word": w, "start": round(b, 3), "end": round(e, 3), "time": round(now, 3)}
                     for b, e, w in words_after())


start = time.perf_counter()
fed = 0  # samples inserted so far
while fed < len(audio):
    wait = fed / SR + args.step_ms / 1000 - (time.perf_counter() - start)
    if wait > 0:
        time.sleep(wait)
    arrived = min(len(audio), int((time.perf_counter() - start) * SR))
    online.insert_audio_chunk(audio[fed:arrived])
    fed = arrived
    # Word granularity: process_iter returns the newly committed words joined into one (beg, end,
    # text); it appends them, one (beg, end, word) each in audio seconds, to online.commited.
    before = len(online.commited)
    timed(online.process_iter, lambda: online.commited[before:])
# finish() returns, joined, the words still waiting for agreement: the transcript buffer's contents.
timed(online.finish, online.transcript_buffer.complete)

print(json.dumps({"committed": committed, "compute_seconds": compute, "audio_seconds": len(audio) / SR}))
