"""auris: OpenAI Whisper speech recognition, with faster-whisper's Python API.

    from auris import WhisperModel

    model = WhisperModel("tiny.en")
    segments, info = model.transcribe("audio.mp3", beam_size=5)
    for segment in segments:
        print("[%.2fs -> %.2fs] %s" % (segment.start, segment.end, segment.text))
"""

from auris._core import AurisError
from auris.audio import decode_audio
from auris.stream import StreamingTranscriber, StreamUpdate
from auris.transcribe import (
    BatchedInferencePipeline,
    Segment,
    TranscriptionInfo,
    TranscriptionOptions,
    WhisperModel,
    Word,
)
from auris.utils import available_models, download_model, format_timestamp, format_transcript
from auris.vad import VadOptions

__version__ = "0.1.0"

__all__ = [
    "AurisError",
    "available_models",
    "BatchedInferencePipeline",
    "decode_audio",
    "download_model",
    "format_timestamp",
    "format_transcript",
    "Segment",
    "StreamingTranscriber",
    "StreamUpdate",
    "TranscriptionInfo",
    "TranscriptionOptions",
    "VadOptions",
    "WhisperModel",
    "Word",
    "__version__",
]
