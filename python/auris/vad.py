"""Voice activity detection options: faster-whisper's VadOptions, run by auris's Silero VAD."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class VadOptions:
    """Silero VAD's get_speech_timestamps parameters, in faster-whisper's units and defaults.

    threshold: a 32-ms window whose speech probability reaches this starts speech.
    neg_threshold: in speech, a window below this is silence (None: threshold - 0.15).
    min_speech_duration_ms: speech shorter than this is dropped.
    max_speech_duration_s: longer speech is cut at its last silence.
    min_silence_duration_ms: silence this long ends speech.
    speech_pad_ms: kept on each side of the speech.
    model: the VAD model: "silero-vad" (downloaded into auris's model cache the first time, unless
        the WhisperModel has local_files_only) or the path of a whisper.cpp ggml Silero VAD file.
    """

    threshold: float = 0.5
    neg_threshold: Optional[float] = None
    min_speech_duration_ms: int = 0
    max_speech_duration_s: float = float("inf")
    min_silence_duration_ms: int = 2000
    speech_pad_ms: int = 400
    model: str = "silero-vad"
