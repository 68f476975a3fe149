"""The C API through Python's ctypes alone (no extension module): what a binding in any language
sees. Usage: ctypes_test.py LIBAURIS MODEL AUDIO (jfk.flac); exits 77 (skipped) when the model or
the audio is absent."""
import ctypes
import os
import sys

OK, INVALID_ARGUMENT, MODEL_ERROR, AUDIO_ERROR, CANCELLED, INTERNAL_ERROR = range(6)


class Word(ctypes.Structure):
    _fields_ = [("word", ctypes.c_char_p), ("start", ctypes.c_double), ("end", ctypes.c_double),
                ("probability", ctypes.c_double)]


class SegmentView(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("start", ctypes.c_double), ("end", ctypes.c_double),
                ("text", ctypes.c_char_p), ("avg_logprob", ctypes.c_double), ("no_speech_prob", ctypes.c_double),
                ("word_count", ctypes.c_size_t), ("words", ctypes.POINTER(Word))]


ON_SEGMENT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(SegmentView), ctypes.c_void_p)
ON_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.c_double, ctypes.c_void_p)


class Options(ctypes.Structure):
    _fields_ = [("language", ctypes.c_char_p), ("task", ctypes.c_char_p), ("beam_size", ctypes.c_int),
                ("best_of", ctypes.c_int), ("temperature", ctypes.c_double),
                ("temperature_increment", ctypes.c_double), ("word_timestamps", ctypes.c_int),
                ("initial_prompt", ctypes.c_char_p), ("condition_on_previous_text", ctypes.c_int),
                ("vad", ctypes.c_int), ("vad_model", ctypes.c_char_p), ("threads", ctypes.c_int),
                ("on_segment", ON_SEGMENT), ("on_progress", ON_PROGRESS), ("user_data", ctypes.c_void_p),
                ("hotwords", ctypes.c_char_p), ("language_detection_segments", ctypes.c_int),
                ("language_detection_threshold", ctypes.c_double), ("multilingual", ctypes.c_int),
                ("repetition_penalty", ctypes.c_double), ("no_repeat_ngram_size", ctypes.c_int)]


def bind(path):
    lib = ctypes.CDLL(path)
    model_p, result_p, options_p = ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(Options)
    signatures = {
        "auris_last_error": (ctypes.c_char_p, []),
        "auris_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "auris_model_load": (model_p, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
        "auris_model_free": (None, [model_p]),
        "auris_transcribe_options_init": (None, [options_p]),
        "auris_transcribe_file": (ctypes.c_int, [model_p, ctypes.c_char_p, options_p, ctypes.POINTER(result_p)]),
        "auris_transcribe_pcm": (ctypes.c_int, [model_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t, ctypes.c_int,
                                                options_p, ctypes.POINTER(result_p)]),
        "auris_result_segment_count": (ctypes.c_size_t, [result_p]),
        "auris_result_segment": (ctypes.c_int, [result_p, ctypes.c_size_t, ctypes.POINTER(SegmentView)]),
        "auris_result_text": (ctypes.c_char_p, [result_p]),
        "auris_result_language": (ctypes.c_char_p, [result_p]),
        "auris_result_duration": (ctypes.c_double, [result_p]),
        "auris_result_free": (None, [result_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


failures = 0


def check(condition, what):
    global failures
    if not condition:
        print(f"check failed: {what}", file=sys.stderr)
        failures += 1


def options(lib, **fields):
    o = Options()
    lib.auris_transcribe_options_init(ctypes.byref(o))
    for name, value in fields.items():
        setattr(o, name, value)
    return o


def segments(lib, result):
    for i in range(lib.auris_result_segment_count(result)):
        view = SegmentView()
        check(lib.auris_result_segment(result, i, ctypes.byref(view)) == OK, f"segment {i}")
        yield view


def main():
    if len(sys.argv) != 4:
        sys.exit(f"usage: {sys.argv[0]} LIBAURIS MODEL AUDIO")
    library, model_path, audio = sys.argv[1:]
    if not os.path.exists(model_path) or not os.path.exists(audio):
        print(f"skipped: {model_path} or {audio} is missing (scripts/fetch_models.sh fetches the model)")
        sys.exit(77)
    lib = bind(library)
    status = ctypes.c_int(-1)
    model = lib.auris_model_load(model_path.encode(), None, None, ctypes.byref(status))
    if not model:
        sys.exit(f"FAIL: cannot load {model_path}: {lib.auris_last_error().decode()}")

    result = ctypes.c_void_p()
    status = lib.auris_transcribe_file(model, audio.encode(), None, ctypes.byref(result))
    check(status == OK, f"transcription: {lib.auris_status_name(status)} {lib.auris_last_error()}")
    text = lib.auris_result_text(result).decode()
    print(f"text:{text}")
    check("ask not what your country can do for you" in text, "the text")
    check(lib.auris_result_language(result) == b"en", "the language")
    check(10.9 < lib.auris_result_duration(result) < 11.1, "the duration")
    first = next(segments(lib, result))
    check(first.start >= 0 and first.end > first.start and first.text, "the first segment")
    lib.auris_result_free(result)

    # Words, through the view's array; greedy to be quick.
    o = options(lib, beam_size=0, word_timestamps=1)
    check(lib.auris_transcribe_file(model, audio.encode(), ctypes.byref(o), ctypes.byref(result)) == OK, "words")
    words = [v.words[i].word.decode() for v in segments(lib, result) for i in range(v.word_count)]
    check(words.count(" country") == 2, f"the words: {words}")
    lib.auris_result_free(result)

    # The struct's last fields, where init puts their defaults: the layout above is the header's.
    o = options(lib)
    check((o.language_detection_segments, o.language_detection_threshold, o.repetition_penalty,
           o.no_repeat_ngram_size, o.hotwords) == (1, 0.5, 1.0, 0, None), "the defaults of the last fields")
    o = options(lib, beam_size=0, no_repeat_ngram_size=1)
    check(lib.auris_transcribe_file(model, audio.encode(), ctypes.byref(o), ctypes.byref(result)) == OK, "n-grams")
    check(lib.auris_result_text(result).decode().count(" country") == 1, "no token twice")
    lib.auris_result_free(result)

    # Samples from a Python buffer: one second of digital silence gives no segments.
    silence = (ctypes.c_float * 16000)()
    check(lib.auris_transcribe_pcm(model, silence, 16000, 16000, None, ctypes.byref(result)) == OK, "pcm")
    check(lib.auris_result_segment_count(result) == 0, "silence has no segments")
    lib.auris_result_free(result)
    check(lib.auris_transcribe_pcm(model, silence, 16000, 8000, None, ctypes.byref(result)) == INVALID_ARGUMENT,
          "8 kHz is refused")

    status = lib.auris_transcribe_file(model, b"/nonexistent/speech.flac", None, ctypes.byref(result))
    message = lib.auris_last_error().decode()
    print(f"a missing file: {lib.auris_status_name(status).decode()}: {message}")
    check(status == AUDIO_ERROR and not result and "/nonexistent/speech.flac" in message, "a missing file")
    o = options(lib, language=b"klingon")
    check(lib.auris_transcribe_file(model, audio.encode(), ctypes.byref(o), ctypes.byref(result)) == INVALID_ARGUMENT,
          "an unknown language")
    check(b"klingon" in lib.auris_last_error(), "the message names the language")

    calls = []
    o = options(lib, on_segment=ON_SEGMENT(lambda segment, user: calls.append(segment.contents.text) or 1))
    status = lib.auris_transcribe_file(model, audio.encode(), ctypes.byref(o), ctypes.byref(result))
    check(status == CANCELLED and len(calls) == 1 and not result, f"cancel from on_segment: {status}, {calls}")
    progress = []
    o = options(lib, on_progress=ON_PROGRESS(lambda done, total, user: progress.append(done) or 1))
    status = lib.auris_transcribe_file(model, audio.encode(), ctypes.byref(o), ctypes.byref(result))
    check(status == CANCELLED and len(progress) == 1, f"cancel from on_progress: {status}, {progress}")

    lib.auris_model_free(model)
    print(f"{'FAIL' if failures else 'PASS'}: {failures} failed checks")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
