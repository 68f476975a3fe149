"""faster-whisper's WhisperModel and BatchedInferencePipeline, on the auris engine.

The arguments, defaults and results are faster-whisper's; the decoding is openai/whisper's (auris
matches it token for token in float32). Where faster-whisper has an option auris does not implement,
a value other than its default raises ValueError rather than being ignored.
"""

import numbers
import os
import sys
import warnings
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, BinaryIO, Iterable, Iterator, List, Optional, Tuple, Union

from auris import _core
from auris.audio import decode_audio, engine_path
from auris.utils import download_model
from auris.vad import VadOptions

if TYPE_CHECKING:
    import numpy as np


class _AsDict:
    """faster-whisper's _asdict(), kept there (deprecated) from when its results were named tuples."""

    def _asdict(self) -> dict:
        name = type(self).__name__
        warnings.warn(f"{name}._asdict() method is deprecated, use dataclasses.asdict({name}) instead",
                      DeprecationWarning, 2)
        return asdict(self)


@dataclass
class Word(_AsDict):
    start: float
    end: float
    word: str
    probability: float


@dataclass
class Segment(_AsDict):
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: List[int]
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    words: Optional[List[Word]]
    temperature: Optional[float]


@dataclass
class TranscriptionOptions:
    beam_size: int
    best_of: int
    patience: float
    length_penalty: float
    repetition_penalty: float
    no_repeat_ngram_size: int
    log_prob_threshold: Optional[float]
    no_speech_threshold: Optional[float]
    compression_ratio_threshold: Optional[float]
    condition_on_previous_text: bool
    prompt_reset_on_temperature: float
    temperatures: List[float]
    initial_prompt: Optional[Union[str, Iterable[int]]]
    prefix: Optional[str]
    suppress_blank: bool
    suppress_tokens: Optional[List[int]]
    without_timestamps: bool
    max_initial_timestamp: float
    word_timestamps: bool
    prepend_punctuations: str
    append_punctuations: str
    multilingual: bool
    max_new_tokens: Optional[int]
    clip_timestamps: Union[str, List[float]]
    hallucination_silence_threshold: Optional[float]
    hotwords: Optional[str]


@dataclass
class TranscriptionInfo:
    language: str
    language_probability: float
    duration: float
    duration_after_vad: float
    all_language_probs: Optional[List[Tuple[str, float]]]
    transcription_options: TranscriptionOptions
    vad_options: Optional[VadOptions]


_COMPUTE_TYPES = {
    "default": "float16",  # auris's default: float32 arithmetic, an fp16 cross-attention cache
    "auto": "float16",
    "float32": "float32",
    "float16": "float16",
    "int8_float16": "float16",
    "bfloat16": "bfloat16",
    "int8_bfloat16": "int8_bfloat16",
    "int8": "int8",
    "int8_float32": "int8",
}

# Faster-whisper options auris does not implement, with the only value it accepts.
_FIXED = {
    "chunk_length": None,  # 30 too: Whisper's window (in the batched pipeline, up to 30 s of speech per window)
}


def _token_ids(values, name: str) -> List[int]:
    """An iterable of token ids as a list, each an int (bools and floats are not ids; bytes, sets and
    dicts are not sequences of them)."""
    if isinstance(values, (bytes, bytearray, set, frozenset, dict)):
        raise TypeError(f"{name} must be text or a sequence of token ids, got {type(values).__name__}")
    try:
        ids = list(values)
    except TypeError:
        raise TypeError(f"{name} must be text or an iterable of token ids, got {type(values).__name__}") from None
    for t in ids:
        if isinstance(t, bool) or not isinstance(t, numbers.Integral):
            raise TypeError(f"{name} token ids must be integers, got {t!r}")
        if not 0 <= t < 2**31:
            raise ValueError(f"{name} token {t} is not a text token")
    return [int(t) for t in ids]


def _audio_input(audio: Union[str, "os.PathLike[str]", BinaryIO, "np.ndarray"]) -> Union[str, "np.ndarray"]:
    """A path the engine decodes itself, or float32 samples; NumPy is only imported where the caller
    already has (an array input) or a file object needs decoding here."""
    if isinstance(audio, (str, os.PathLike)):
        return engine_path(audio)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(audio, numpy.ndarray):
        if numpy.issubdtype(audio.dtype, numpy.floating) and audio.dtype != numpy.float32:
            audio = audio.astype(numpy.float32)  # as faster-whisper does: soundfile reads float64
        if audio.dtype != numpy.float32:
            raise ValueError(f"the audio array must be float32 samples in [-1, 1] at 16 kHz, not {audio.dtype}: "
                             "convert it with audio.astype(np.float32), divided by 32768 for int16 samples")
        if audio.ndim != 1:
            raise ValueError(f"the audio array must be one-dimensional (mono), not of shape {audio.shape}")
        if audio.size == 0:
            raise ValueError("the audio array is empty: there is nothing to transcribe")
        return numpy.ascontiguousarray(audio)
    return decode_audio(audio)


def _clip_timestamps(clip_timestamps: Union[str, List[float]]) -> List[float]:
    if isinstance(clip_timestamps, str):
        try:
            clips = [float(t) for t in clip_timestamps.split(",") if t.strip()]
        except ValueError:
            raise ValueError(f"clip_timestamps must be comma-separated seconds, got '{clip_timestamps}'") from None
    else:
        clips = [float(t) for t in clip_timestamps]
    return [] if clips == [0.0] else clips


def _vad_dict(vad_filter: bool, vad_parameters, local_files_only: bool) -> Tuple[Optional[dict], Optional[VadOptions]]:
    """The VAD options as the engine takes them, the VAD model downloaded into auris's model cache the
    first time it is named (faster-whisper's wheel carries its VAD model), unless local_files_only."""
    if not vad_filter:
        return None, None
    if vad_parameters is None:
        options = VadOptions()
    elif isinstance(vad_parameters, dict):
        options = VadOptions(**vad_parameters)  # an unknown key raises TypeError naming it
    elif isinstance(vad_parameters, VadOptions):
        options = vad_parameters
    else:
        raise TypeError("vad_parameters must be a dict or an auris.VadOptions")
    engine_options = asdict(options)
    if not local_files_only and not os.path.exists(options.model) and _core.is_vad_model(options.model):
        engine_options["model"] = _core.download_vad_model(options.model, _core.model_cache_dir())
    return engine_options, options


def _engine_options(*, task, language, beam_size, best_of, patience, length_penalty, repetition_penalty,
                    no_repeat_ngram_size, max_new_tokens, prefix, suppress_blank,
                    suppress_tokens, without_timestamps, max_initial_timestamp, temperatures,
                    compression_ratio_threshold, log_prob_threshold, no_speech_threshold, condition_on_previous_text,
                    prompt_reset_on_temperature, initial_prompt, word_timestamps, prepend_punctuations,
                    append_punctuations,
                    hallucination_silence_threshold, clip_timestamps, vad, language_detection_segments,
                    language_detection_threshold, hotwords, multilingual) -> dict:
    """The options as the engine (_core) takes them."""
    return {
        "task": task, "language": language, "beam_size": beam_size, "best_of": best_of,
        "patience": float(patience),
        # CTranslate2's length_penalty divides by length ** it; its 1 is openai/whisper's plain rule.
        "length_exponent": None if length_penalty == 1 else float(length_penalty),
        "repetition_penalty": repetition_penalty,
        "no_repeat_ngram_size": no_repeat_ngram_size, "max_new_tokens": max_new_tokens, "prefix": prefix,
        "suppress_blank": bool(suppress_blank),
        "suppress_tokens": [] if suppress_tokens is None else [int(t) for t in suppress_tokens],
        "without_timestamps": bool(without_timestamps), "max_initial_timestamp": max_initial_timestamp,
        "temperatures": temperatures, "compression_ratio_threshold": compression_ratio_threshold,
        "log_prob_threshold": log_prob_threshold, "no_speech_threshold": no_speech_threshold,
        "condition_on_previous_text": bool(condition_on_previous_text),
        "prompt_reset_on_temperature": float(prompt_reset_on_temperature), "initial_prompt": initial_prompt,
        "word_timestamps": bool(word_timestamps), "prepend_punctuations": prepend_punctuations,
        "append_punctuations": append_punctuations,
        "hallucination_silence_threshold": hallucination_silence_threshold, "clip_timestamps": clip_timestamps,
        "vad": vad, "hotwords": hotwords, "multilingual": multilingual,
        "language_detection_segments": language_detection_segments,
        # faster-whisper compares with it unchecked, so None has no meaning of its own: the default.
        "language_detection_threshold": 0.5 if language_detection_threshold is None else language_detection_threshold,
    }


class _Segments:
    """The lazy segments: the transcription starts at the first next() and stays one window ahead.
    With a progress bar (log_progress), each segment moves it to the segment's end, in seconds."""

    def __init__(self, transcription, word_timestamps: bool, progress=None):
        self._transcription = transcription
        self._word_timestamps = word_timestamps
        self._done = False
        self._progress = progress

    def __iter__(self) -> Iterator[Segment]:
        return self

    def __next__(self) -> Segment:
        if self._done:
            raise StopIteration
        try:
            while True:
                # Short waits with the GIL released: Ctrl-C is seen between them.
                item = self._transcription.next(100)
                if item is None:
                    continue
                if item is True:
                    self._done = True
                    if self._progress is not None:
                        self._progress.n = self._progress.total
                        self._progress.close()
                    raise StopIteration
                segment = _segment(item, self._word_timestamps)
                if self._progress is not None:
                    # Whole hundredths, as faster-whisper's bar: sums of floats would show 30.299999999999997.
                    self._progress.n = round(max(self._progress.n, min(segment.end, self._progress.total)), 2)
                    self._progress.refresh()
                return segment
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stops the transcription before its next window."""
        self._done = True
        self._transcription.close()
        if self._progress is not None:
            self._progress.close()

    def __del__(self):
        self._transcription.close()


def _segment(s, word_timestamps: bool) -> Segment:
    """words as faster-whisper gives them: a list (maybe empty) with word timestamps, else None."""
    words = [Word(start=w.start, end=w.end, word=w.word, probability=w.probability) for w in s.words]
    return Segment(id=s.id + 1, seek=s.seek, start=s.start, end=s.end, text=s.text, tokens=list(s.tokens),
                   avg_logprob=s.avg_logprob, compression_ratio=s.compression_ratio,
                   no_speech_prob=s.no_speech_prob, words=words if word_timestamps else None, temperature=s.temperature)


class WhisperModel:
    """A Whisper model loaded once; transcribe() may be called from several threads at once."""

    def __init__(
        self,
        model_size_or_path: str,
        device: str = "auto",
        device_index: Union[int, List[int]] = 0,
        compute_type: str = "default",
        cpu_threads: int = 0,
        num_workers: int = 1,
        download_root: Optional[str] = None,
        local_files_only: bool = False,
        files: Optional[dict] = None,
        revision: Optional[str] = None,
        use_auth_token: Optional[Union[str, bool]] = None,
        **model_kwargs,
    ):
        """Loads a model: a name (tiny.en, base, ..., large-v3-turbo; downloaded into auris's model
        cache, or download_root, the first time) or the path of a CTranslate2, Hugging Face or
        whisper.cpp ggml model.

        device: "cpu", "cuda" or "auto" (CUDA where the CUDA plugin loads and finds a GPU, else
        the CPU; the choice is in self.device). compute_type: faster-whisper's names; "default"
        is float32 arithmetic with an fp16 cross-attention cache. cpu_threads: threads of each
        transcription (0: all cores). num_workers is accepted for compatibility: every call already
        runs on its own. files, a revision other than main, use_auth_token and CTranslate2's
        model_kwargs are faster-whisper's and are refused with the reason.
        """
        if files:
            raise ValueError("auris loads models from files on disk, not from memory (files=): write them to a "
                             "directory and pass its path")
        if revision not in (None, "main"):
            raise ValueError(f"auris downloads a hub repository's main revision, not revision={revision!r}: download "
                             "that revision yourself (huggingface-cli download --revision) and pass its path")
        if use_auth_token not in (None, False):
            raise ValueError("auris downloads public hub repositories only (use_auth_token): download a private one "
                             "yourself (huggingface-cli download) and pass its path")
        if model_kwargs:
            raise ValueError(f"CTranslate2's model options {', '.join(sorted(model_kwargs))} do not apply to auris "
                             "(cpu_threads sets each transcription's threads)")
        if device == "auto":
            device = "cuda" if _core.cuda_available() else "cpu"
        if compute_type not in _COMPUTE_TYPES:
            raise ValueError(f"unknown compute_type '{compute_type}': choose one of {', '.join(_COMPUTE_TYPES)}")
        if device_index not in (0, [0]):
            raise ValueError("auris runs a model on one device: device_index must be 0")
        if not 0 <= cpu_threads <= 1024:
            raise ValueError(f"cpu_threads must be 0 (all cores) to 1024, got {cpu_threads}")
        path = model_size_or_path
        if not os.path.exists(path) and (_core.is_registry_model(path) or _core.is_hub_repo_id(path)):
            path = download_model(path, cache_dir=download_root, local_files_only=local_files_only)
        engine_type = _COMPUTE_TYPES[compute_type]
        if compute_type == "int8_float16" and device == "cpu":
            engine_type = "int8"  # CTranslate2's rule: no float16 arithmetic on a CPU, so int8_float32
        self.model = _core.Model(engine_path(path), engine_type, device)
        self.local_files_only = local_files_only
        self.device = device
        self.cpu_threads = cpu_threads
        self.num_workers = num_workers

    @property
    def supported_languages(self) -> List[str]:
        return list(self.model.languages) if self.model.multilingual else ["en"]

    def detect_language(
        self,
        audio: Optional[Union[str, BinaryIO, "np.ndarray"]] = None,
        features: Optional["np.ndarray"] = None,
        vad_filter: bool = False,
        vad_parameters: Optional[Union[dict, VadOptions]] = None,
        language_detection_segments: int = 1,
        language_detection_threshold: Optional[float] = 0.5,
    ) -> Tuple[str, float, List[Tuple[str, float]]]:
        """faster-whisper's detect_language: (language, probability, every language's probability,
        most probable first), over the first 30 s of the audio (of its speech, with vad_filter), or
        over up to language_detection_segments windows of 30 s until one is more probable than
        language_detection_threshold (else the language most often on top)."""
        if features is not None:
            raise ValueError("auris computes the log-mel spectrogram itself: pass audio, not features")
        if audio is None:
            raise ValueError("detect_language needs the audio: a path, a binary file object or float32 samples")
        vad, _ = _vad_dict(vad_filter, vad_parameters, self.local_files_only)
        samples = _audio_input(audio)
        if isinstance(samples, str):
            samples = _core.load_audio(samples)
        options = {"vad": vad, "language_detection_segments": language_detection_segments,
                   "language_detection_threshold": 0.5 if language_detection_threshold is None
                   else language_detection_threshold}
        language, probability, all_probs = _core.detect_language(self.model, samples, options, self.cpu_threads)
        return language, probability, [(code, p) for code, p in all_probs]

    def transcribe(
        self,
        audio: Union[str, BinaryIO, "np.ndarray"],
        language: Optional[str] = None,
        task: str = "transcribe",
        log_progress: bool = False,
        beam_size: int = 5,
        best_of: int = 5,
        patience: float = 1,
        length_penalty: float = 1,
        repetition_penalty: float = 1,
        no_repeat_ngram_size: int = 0,
        temperature: Union[float, List[float], Tuple[float, ...]] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        compression_ratio_threshold: Optional[float] = 2.4,
        log_prob_threshold: Optional[float] = -1.0,
        no_speech_threshold: Optional[float] = 0.6,
        condition_on_previous_text: bool = True,
        prompt_reset_on_temperature: float = 0.5,
        initial_prompt: Optional[Union[str, Iterable[int]]] = None,
        prefix: Optional[str] = None,
        suppress_blank: bool = True,
        suppress_tokens: Optional[List[int]] = [-1],
        without_timestamps: bool = False,
        max_initial_timestamp: float = 1.0,
        word_timestamps: bool = False,
        prepend_punctuations: str = "\"'“¿([{-",
        append_punctuations: str = "\"'.。,，!！?？:：”)]}、",
        multilingual: bool = False,
        vad_filter: bool = False,
        vad_parameters: Optional[Union[dict, VadOptions]] = None,
        max_new_tokens: Optional[int] = None,
        chunk_length: Optional[int] = None,
        clip_timestamps: Union[str, List[float]] = "0",
        hallucination_silence_threshold: Optional[float] = None,
        hotwords: Optional[str] = None,
        language_detection_threshold: Optional[float] = 0.5,
        language_detection_segments: int = 1,
    ) -> Tuple[Iterable[Segment], TranscriptionInfo]:
        """Transcribes audio (a path, a binary file object, or float32 samples at 16 kHz).

        Returns (segments, info) as faster-whisper does: info is known at once (the speech found
        and the language detected on the first 30 s, or on up to language_detection_segments
        windows of 30 s until one is more probable than language_detection_threshold); segments
        is a generator, and the
        transcription runs as it is iterated.
        """
        return _transcribe(self, 0, **_arguments(locals()))


def _arguments(values: dict) -> dict:
    """A transcribe() call's arguments, passed on by name (the two signatures are faster-whisper's,
    spelled out for help() and type checkers, with the pipelines' different defaults)."""
    return {k: v for k, v in values.items() if k not in ("self", "__class__")}


class BatchedInferencePipeline:
    """faster-whisper's batched pipeline: Silero VAD cuts the audio into chunks of up to 30 s of
    speech, and batch_size of them are encoded and decoded together."""

    def __init__(self, model: WhisperModel):
        self.model = model

    def transcribe(
        self,
        audio: Union[str, BinaryIO, "np.ndarray"],
        language: Optional[str] = None,
        task: str = "transcribe",
        log_progress: bool = False,
        beam_size: int = 5,
        best_of: int = 5,
        patience: float = 1,
        length_penalty: float = 1,
        repetition_penalty: float = 1,
        no_repeat_ngram_size: int = 0,
        temperature: Union[float, List[float], Tuple[float, ...]] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        compression_ratio_threshold: Optional[float] = 2.4,
        log_prob_threshold: Optional[float] = -1.0,
        no_speech_threshold: Optional[float] = 0.6,
        condition_on_previous_text: bool = True,
        prompt_reset_on_temperature: float = 0.5,
        initial_prompt: Optional[Union[str, Iterable[int]]] = None,
        prefix: Optional[str] = None,
        suppress_blank: bool = True,
        suppress_tokens: Optional[List[int]] = [-1],
        without_timestamps: bool = True,
        max_initial_timestamp: float = 1.0,
        word_timestamps: bool = False,
        prepend_punctuations: str = "\"'“¿([{-",
        append_punctuations: str = "\"'.。,，!！?？:：”)]}、",
        multilingual: bool = False,
        vad_filter: bool = True,
        vad_parameters: Optional[Union[dict, VadOptions]] = None,
        max_new_tokens: Optional[int] = None,
        chunk_length: Optional[int] = None,
        clip_timestamps: Optional[List[dict]] = None,
        hallucination_silence_threshold: Optional[float] = None,
        batch_size: int = 8,
        hotwords: Optional[str] = None,
        language_detection_threshold: Optional[float] = 0.5,
        language_detection_segments: int = 1,
    ) -> Tuple[Iterable[Segment], TranscriptionInfo]:
        """As WhisperModel.transcribe, with batch_size chunks decoded together."""
        if not isinstance(batch_size, int) or not 1 <= batch_size <= 256:
            raise ValueError(f"batch_size must be an integer from 1 to 256, got {batch_size!r}")
        # faster-whisper's chunking: speech cut into pieces of at most chunk_length (30 s), at
        # silences of 160 ms unless the caller's parameters say otherwise; each piece is decoded in
        # a window of 30 s, Whisper's.
        if chunk_length is None:
            chunk_length = 30
        if isinstance(chunk_length, bool) or not isinstance(chunk_length, (int, float)) or not 1 <= chunk_length <= 30:
            raise ValueError(f"chunk_length must be 1 to 30 seconds (the speech in one window), got {chunk_length!r}")
        if vad_filter:
            if vad_parameters is None:
                vad_parameters = VadOptions(max_speech_duration_s=chunk_length, min_silence_duration_ms=160)
            elif isinstance(vad_parameters, dict):
                vad_parameters = {**vad_parameters, "max_speech_duration_s": chunk_length}
        chunk_length = None  # taken into the VAD's parameters
        kwargs = _arguments(locals())
        del kwargs["batch_size"]
        return _transcribe(self.model, batch_size, **kwargs)


def _transcribe(model: WhisperModel, batch_size: int, audio, language, task, log_progress, beam_size, best_of,
                patience, length_penalty, repetition_penalty, no_repeat_ngram_size, temperature,
                compression_ratio_threshold, log_prob_threshold, no_speech_threshold, condition_on_previous_text,
                prompt_reset_on_temperature, initial_prompt, prefix, suppress_blank, suppress_tokens,
                without_timestamps, max_initial_timestamp, word_timestamps, prepend_punctuations,
                append_punctuations, multilingual, vad_filter, vad_parameters, max_new_tokens, chunk_length,
                clip_timestamps, hallucination_silence_threshold, hotwords, language_detection_threshold,
                language_detection_segments):
    given = dict(locals())
    if given["chunk_length"] == 30:  # Whisper's own window: the one auris decodes anyway
        given["chunk_length"] = None
    for name, only in _FIXED.items():
        if given[name] != only:
            raise ValueError(f"{name}={given[name]!r} is not supported by auris (only {only!r})")
    if task not in ("transcribe", "translate"):
        raise ValueError(f"task must be 'transcribe' or 'translate', got '{task}'")
    if initial_prompt is not None and not isinstance(initial_prompt, str):
        initial_prompt = _token_ids(initial_prompt, "initial_prompt")
    for name, value in (("length_penalty", length_penalty), ("prompt_reset_on_temperature", prompt_reset_on_temperature)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not -1000 <= prompt_reset_on_temperature <= 1000:  # also NaN
        raise ValueError(f"prompt_reset_on_temperature must be a number from -1000 to 1000, got "
                         f"{prompt_reset_on_temperature!r}")
    if not -10 <= length_penalty <= 10:
        raise ValueError(f"length_penalty must be from -10 to 10 (CTranslate2's: 1 divides each candidate's "
                         f"log-probability by its length, 0 not at all), got {length_penalty!r}")
    if max_new_tokens is not None:
        if not isinstance(max_new_tokens, int) or isinstance(max_new_tokens, bool):
            raise TypeError(f"max_new_tokens must be an integer or None, got {type(max_new_tokens).__name__}")
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be a number of tokens from 1 (None: up to half the text context), "
                             f"got {max_new_tokens}")
    if not model.model.multilingual and language != "en" and language in model.model.languages:
        warnings.warn(f"The current model is English-only but the language parameter is set to '{language}'; "
                      "using 'en' instead.")  # faster-whisper's words
        language = "en"
    if multilingual is True and not model.model.multilingual:
        warnings.warn("The current model is English-only but the multilingual parameter is set to True; "
                      "setting to False instead.")  # faster-whisper's words
        multilingual = False
    if not isinstance(log_progress, bool):
        raise TypeError(f"log_progress must be True or False, got {type(log_progress).__name__}")
    temperatures = [float(temperature)] if isinstance(temperature, (int, float)) else [float(t) for t in temperature]
    if batch_size > 0:
        if clip_timestamps is not None and clip_timestamps != "0":
            raise ValueError("clip_timestamps in the batched pipeline (chunks given instead of VAD's) is not "
                             "supported by auris: use WhisperModel.transcribe(clip_timestamps=...)")
        clip_timestamps = "0"
    elif vad_filter and clip_timestamps != "0":
        vad_filter = False  # faster-whisper's rule: given clips are transcribed instead of VAD's speech
    clips = _clip_timestamps(clip_timestamps)
    vad, vad_options = _vad_dict(vad_filter, vad_parameters, model.local_files_only)
    samples = _audio_input(audio)
    options = _engine_options(
        task=task, language=language, beam_size=beam_size, best_of=best_of, patience=patience,
        length_penalty=length_penalty, repetition_penalty=repetition_penalty, no_repeat_ngram_size=no_repeat_ngram_size,
        max_new_tokens=max_new_tokens, prefix=prefix, suppress_blank=suppress_blank, suppress_tokens=suppress_tokens,
        without_timestamps=without_timestamps, max_initial_timestamp=max_initial_timestamp, temperatures=temperatures,
        compression_ratio_threshold=compression_ratio_threshold, log_prob_threshold=log_prob_threshold,
        no_speech_threshold=no_speech_threshold, condition_on_previous_text=condition_on_previous_text,
        prompt_reset_on_temperature=prompt_reset_on_temperature,
        initial_prompt=initial_prompt, word_timestamps=word_timestamps, prepend_punctuations=prepend_punctuations,
        append_punctuations=append_punctuations, hallucination_silence_threshold=hallucination_silence_threshold,
        clip_timestamps=clips, vad=vad, language_detection_segments=language_detection_segments,
        language_detection_threshold=language_detection_threshold, hotwords=hotwords, multilingual=multilingual)
    transcription = _core.Transcription(model.model, samples, options, model.cpu_threads, batch_size)
    transcription_options = TranscriptionOptions(
        beam_size=beam_size, best_of=best_of, patience=patience, length_penalty=length_penalty,
        repetition_penalty=repetition_penalty, no_repeat_ngram_size=no_repeat_ngram_size,
        log_prob_threshold=log_prob_threshold, no_speech_threshold=no_speech_threshold,
        compression_ratio_threshold=compression_ratio_threshold,
        condition_on_previous_text=condition_on_previous_text,
        prompt_reset_on_temperature=prompt_reset_on_temperature, temperatures=temperatures,
        initial_prompt=initial_prompt, prefix=prefix, suppress_blank=suppress_blank,
        suppress_tokens=suppress_tokens, without_timestamps=without_timestamps,
        max_initial_timestamp=max_initial_timestamp, word_timestamps=word_timestamps,
        prepend_punctuations=prepend_punctuations, append_punctuations=append_punctuations,
        multilingual=multilingual, max_new_tokens=max_new_tokens, clip_timestamps=clip_timestamps,
        hallucination_silence_threshold=hallucination_silence_threshold, hotwords=hotwords)
    info = TranscriptionInfo(
        language=transcription.language, language_probability=transcription.language_probability,
        duration=transcription.duration, duration_after_vad=transcription.duration_after_vad,
        all_language_probs=list(transcription.all_language_probs) or None,
        transcription_options=transcription_options, vad_options=vad_options)
    progress = None
    if log_progress:
        try:
            from tqdm import tqdm
        except ImportError:
            raise ValueError("log_progress draws faster-whisper's tqdm progress bar: pip install tqdm") from None
        progress = tqdm(total=round(info.duration, 2), unit="seconds")
    return _Segments(transcription, bool(word_timestamps), progress), info
