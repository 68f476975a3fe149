"""Live transcription: audio pushed as it arrives, committed words back within about a second.

    from auris import StreamingTranscriber, WhisperModel

    stream = StreamingTranscriber(WhisperModel("base"), step_ms=500)
    for chunk in microphone_chunks():            # float32 numpy arrays, 16 kHz mono
        update = stream.push(chunk)
        print("".join(w.word for w in update.committed), end="", flush=True)
    print("".join(w.word for w in stream.finish().committed))

The policy is whisper_streaming's LocalAgreement-2, as `auris stream` runs it (include/auris/stream.h).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Union

from auris import _core
from auris.transcribe import Word, WhisperModel, _engine_options, _vad_dict
from auris.vad import VadOptions

if TYPE_CHECKING:
    import numpy as np


@dataclass
class StreamUpdate:
    committed: List[Word]   # newly committed words, final; times in seconds since the stream began
    tentative: List[Word]   # the words after them in the latest decode, not yet agreed
    utterance_ended: bool   # the VAD heard the speech end, or the input ended


def _words(ws) -> List[Word]:
    return [Word(start=w.start, end=w.end, word=w.word, probability=w.probability) for w in ws]


class StreamingTranscriber:
    """One live stream over a WhisperModel (several may share it). Not for several threads at once."""

    def __init__(
        self,
        model: WhisperModel,
        language: Optional[str] = None,
        task: str = "transcribe",
        beam_size: int = 5,
        initial_prompt: Optional[str] = None,
        step_ms: int = 500,
        trim_s: float = 15.0,
        vad_filter: bool = False,
        vad_parameters: Optional[Union[dict, VadOptions]] = None,
    ):
        """step_ms: new audio that triggers the next decode. trim_s: the buffer is cut at a committed
        segment end once longer. vad_filter: Silero VAD on the live audio (silence not decoded,
        utterances closed after vad_parameters' min_silence_duration_ms, 500 by default here)."""
        if task not in ("transcribe", "translate"):
            raise ValueError(f"task must be 'transcribe' or 'translate', got '{task}'")
        if vad_filter and vad_parameters is None:
            vad_parameters = VadOptions(min_silence_duration_ms=500, speech_pad_ms=100)
        vad, _ = _vad_dict(vad_filter, vad_parameters, model.local_files_only)
        options = _engine_options(
            task=task, language=language, beam_size=beam_size, best_of=5, patience=1.0, length_penalty=1,
            repetition_penalty=1.0, no_repeat_ngram_size=0, max_new_tokens=None,
            prefix=None, suppress_blank=True, suppress_tokens=[-1], without_timestamps=False,
            max_initial_timestamp=1.0, temperatures=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], compression_ratio_threshold=2.4,
            log_prob_threshold=-1.0, no_speech_threshold=0.6, condition_on_previous_text=True,
            prompt_reset_on_temperature=0.5, initial_prompt=initial_prompt, word_timestamps=True,
            prepend_punctuations="\"'“¿([{-",
            append_punctuations="\"'.。,，!！?？:：”)]}、", hallucination_silence_threshold=None, clip_timestamps=[],
            vad=vad, language_detection_segments=1, language_detection_threshold=0.5, hotwords=None,
            multilingual=False)
        self._stream = _core.Stream(model.model, options, step_ms / 1000.0, float(trim_s), model.cpu_threads)

    def push(self, audio: "np.ndarray") -> StreamUpdate:
        """Appends 16-kHz mono float32 samples (other float types are converted); decodes when a step of
        new audio has come."""
        import numpy  # here, not at import: `import auris` stays as quick as the CLI's start

        samples = numpy.asarray(audio)
        if numpy.issubdtype(samples.dtype, numpy.floating) and samples.dtype != numpy.float32:
            samples = samples.astype(numpy.float32)
        if samples.dtype != numpy.float32 or samples.ndim != 1:
            raise ValueError(f"audio must be a 1-D float32 array at 16 kHz, got {samples.dtype} of shape {samples.shape}")
        committed, tentative, ended = self._stream.push(numpy.ascontiguousarray(samples))
        return StreamUpdate(_words(committed), _words(tentative), ended)

    def finish(self) -> StreamUpdate:
        """The input ended, or paused: commits every word left. push() may go on after it, its
        times continuing, as after an utterance the VAD closed."""
        committed, tentative, ended = self._stream.finish()
        return StreamUpdate(_words(committed), _words(tentative), ended)

    @property
    def stats(self) -> dict:
        """received_seconds, decoded_seconds, decodes, compute_seconds, forced_tokens, buffered_seconds."""
        return self._stream.stats()
