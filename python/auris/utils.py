"""The model registry and cache: faster-whisper's available_models, download_model, format_timestamp; and
format_transcript, the files `auris transcribe -f` writes."""

import os
from typing import Iterable, List, Optional

from auris import _core


def available_models() -> List[str]:
    """The names of the official models auris can download (tiny.en, base, ..., large-v3-turbo)."""
    return list(_core.registry_models())


def download_model(
    size_or_id: str,
    output_dir: Optional[str] = None,
    local_files_only: bool = False,
    cache_dir: Optional[str] = None,
) -> str:
    """Downloads an official model (CTranslate2 format), or the Whisper model of a Hugging Face Hub
    repository ("owner/name": a fine-tuned or converted model in CTranslate2 or Transformers format),
    and returns its directory.

    Models land in cache_dir (default: auris's model cache, $AURIS_MODEL_DIR or
    ~/.cache/auris/models); output_dir is where they go instead, if given. A model already there is
    not downloaded again. Every file is checked against the Hugging Face Hub's listing of it (size,
    and SHA-256 or Git blob id); an interrupted download continues where it stopped.
    """
    repo = not _core.is_registry_model(size_or_id) and _core.is_hub_repo_id(size_or_id)
    if not repo and not _core.is_registry_model(size_or_id):
        raise ValueError(f"unknown model '{size_or_id}': choose one of {', '.join(available_models())}, "
                         "or a hub repository id such as Systran/faster-whisper-small")
    directory = output_dir or cache_dir or _core.model_cache_dir()
    existing = _core.hub_repo_cache_path(size_or_id, directory) if repo else os.path.join(directory, size_or_id)
    if os.path.isdir(existing):
        return existing
    if local_files_only:
        raise FileNotFoundError(f"model '{size_or_id}' is not in {directory} and local_files_only=True")
    return _core.download_model(size_or_id, directory)


def format_timestamp(seconds: float, always_include_hours: bool = False, decimal_marker: str = ".") -> str:
    """'[HH:]MM:SS.mmm', as faster-whisper and openai/whisper write times."""
    if seconds < 0:
        raise ValueError("non-negative timestamp expected")
    milliseconds = round(seconds * 1000.0)
    hours, milliseconds = divmod(milliseconds, 3_600_000)
    minutes, milliseconds = divmod(milliseconds, 60_000)
    whole, milliseconds = divmod(milliseconds, 1_000)
    hours_marker = f"{hours:02d}:" if always_include_hours or hours > 0 else ""
    return f"{hours_marker}{minutes:02d}:{whole:02d}{decimal_marker}{milliseconds:03d}"


def format_transcript(segments: Iterable, language: str, output_format: str) -> str:
    """What `auris transcribe -f FORMAT` writes for these segments: "txt", "vtt", "srt", "tsv" or
    "json" (openai/whisper's writers; the json has each segment's words when they were asked for).
    language is TranscriptionInfo.language."""
    return _core.format_transcript(list(segments), language, output_format)
