"""Audio decoding: faster-whisper's decode_audio, on auris's FFmpeg decoder."""

import os
import tempfile
from typing import TYPE_CHECKING, BinaryIO, Tuple, Union

from auris import _core

if TYPE_CHECKING:
    import numpy as np

SAMPLE_RATE = 16000


def engine_path(path: Union[str, "os.PathLike"]) -> str:
    """A path as the engine opens it: UTF-8 text. A NUL would cut it short in C++, and a name that is
    no UTF-8 text (os.fsdecode's surrogates) cannot be passed at all: both are refused here."""
    path = os.fsdecode(os.fspath(path))
    if "\0" in path:
        raise ValueError("embedded null byte in the path")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"the path {path!r} is not UTF-8 text, which auris needs to open it: rename the file") from None
    return path


def decode_audio(
    input_file: Union[str, "os.PathLike[str]", BinaryIO],
    sampling_rate: int = SAMPLE_RATE,
    split_stereo: bool = False,
) -> Union["np.ndarray", Tuple["np.ndarray", "np.ndarray"]]:
    """Decodes an audio or video file (a path or a binary file object) to mono float32 at 16 kHz;
    with split_stereo, to a (left, right) pair of them (the audio converted to stereo, then split:
    a phone call's two speakers, one a channel)."""
    if sampling_rate != SAMPLE_RATE:
        raise ValueError(f"auris decodes to 16000 Hz, the rate Whisper takes; got sampling_rate={sampling_rate}")
    load = _core.load_stereo_audio if split_stereo else _core.load_audio
    if isinstance(input_file, (str, os.PathLike)):
        return load(engine_path(input_file))
    if not hasattr(input_file, "read"):
        raise TypeError(f"audio must be a path, a binary file object or a float32 NumPy array, not {type(input_file).__name__}")
    data = input_file.read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("the file object must be opened in binary mode ('rb')")
    # FFmpeg probes and seeks: a private temporary file is the one input every container allows.
    with tempfile.NamedTemporaryFile(prefix="auris-audio-") as spool:
        spool.write(data)
        spool.flush()
        try:
            return load(spool.name)
        except _core.AurisError as e:
            # The message names the spool, which the caller never saw: name their file object instead.
            name = getattr(input_file, "name", None)
            shown = name if isinstance(name, str) else "the file object"
            raise _core.AurisError(str(e).replace(spool.name, shown)) from None
