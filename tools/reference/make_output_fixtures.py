"""Writes tests/fixtures/output/*.json from openai/whisper's real transcript writers (utils.py).

Run from the repository root:
    PY=$(scripts/setup_reference.sh) && $PY tools/reference/make_output_fixtures.py

Each results_<name>.json holds one synthetic transcribe() result (segments with and without word
timings, non-ASCII text, long text that needs wrapping, hour-long timestamps, empty segments, no
segments) and what WriteTXT, WriteTSV and WriteJSON write for it, plus WriteVTT and WriteSRT output
for every combination of max_line_width, max_line_count, max_words_per_line and highlight_words
(each case names its expected text by index into subtitle_outputs, as many combinations agree).
primitives.json holds format_timestamp, highlight_words' re.sub underlining, TSV's round(1000 * t), json.dump's float formatting and
the audio basename rule (os.path.splitext(os.path.basename(path))[0]) on edge cases, and the file
names get_writer("all") produces. The C++ tests (src/output/*_test.cc) compare byte for byte.
"""

import io
import itertools
import json
import math
import os
import random
import re
import struct
import tempfile

from whisper.utils import (
    WriteJSON,
    WriteSRT,
    WriteTSV,
    WriteTXT,
    WriteVTT,
    format_timestamp,
    get_writer,
)

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "output")


def segment(id, seek, start, end, text, tokens, words=None, temperature=0.0, avg_logprob=-0.25,
            compression_ratio=1.3, no_speech_prob=0.01):
    # Key order and types as transcribe() builds them: floats stay floats (json writes "0.0").
    s = {
        "id": id,
        "seek": seek,
        "start": float(start),
        "end": float(end),
        "text": text,
        "tokens": list(tokens),
        "temperature": float(temperature),
        "avg_logprob": float(avg_logprob),
        "compression_ratio": float(compression_ratio),
        "no_speech_prob": float(no_speech_prob),
    }
    if words is not None:
        s["words"] = [
            {"word": w, "start": float(a), "end": float(b), "probability": float(p)} for w, a, b, p in words
        ]
    return s


def result(segments, language="en"):
    return {"text": "".join(s["text"] for s in segments), "segments": segments, "language": language}


def results_without_words():
    return result([
        segment(0, 0, 0.0, 2.5, " And so my fellow Americans,", [400, 370, 452, 7177, 6280, 11], avg_logprob=-0.28469,
                compression_ratio=1.2121212121212122, no_speech_prob=1e-05),
        segment(1, 0, 2.5, 7.28, "  ask not -->  what\tyour country ", [1029, 406], temperature=0.2,
                avg_logprob=-1.0000000000000002, no_speech_prob=0.30000000000000004),
        segment(2, 728, 7.28, 7.28, "", [], avg_logprob=-3.5),
        segment(3, 728, 7.28, 11.0, "\u3000Ça va? 日本語の字幕 😀 \"quoted\" back\\slash\u00a0", [50363, 1, 2, 3],
                temperature=1.0, compression_ratio=24.000000000000004, no_speech_prob=0.9999999),
        segment(4, 1100, 11.0, 29.999, " can do for you.\n", [460, 360, 337, 345, 13], avg_logprob=-0.1,
                compression_ratio=0.5, no_speech_prob=5e-324),
    ])


def results_with_words():
    segs = [
        segment(0, 0, 0.32, 2.66, " And so my fellow Americans,", [400, 370], words=[
            (" And", 0.32, 0.68, 0.9012345678901234), (" so", 0.68, 1.1, 0.5), (" my", 1.1, 1.4, 0.75),
            (" fellow", 1.4, 1.74, 0.999), (" Americans,", 1.74, 2.66, 0.12)]),
        segment(1, 0, 3.3, 4.38, " ask not", [1029, 406], words=[(" ask", 3.3, 3.9, 0.8), (" not", 3.9, 4.38, 0.7)]),
        segment(2, 0, 4.38, 4.38, "", [], words=[]),
        segment(3, 0, 9.5, 11.02, " what your country can do for you,", [644, 534], words=[
            (" what", 9.5, 9.9, 0.6), (" your", 9.9, 10.1, 0.6), (" country", 10.1, 10.5, 0.6),
            (" can", 10.5, 10.6, 0.6), (" do", 10.6, 10.7, 0.6), (" for", 10.7, 10.8, 0.6), (" you,", 10.8, 11.02, 0.6)]),
        segment(4, 1102, 11.02, 11.5, " ask -->", [1029], words=[(" ask", 11.02, 11.3, 0.4), (" -->", 11.3, 11.5, 0.3)]),
    ]
    return result(segs)


def results_non_ascii():
    segs = [
        segment(0, 0, 0.0, 3.0, " Ça va très bien, naïve café", [1, 2, 3], words=[
            (" Ça", 0.0, 0.4, 0.9), (" va", 0.4, 0.8, 0.9), (" très", 0.8, 1.2, 0.9), (" bien,", 1.2, 1.9, 0.9),
            (" naïve", 1.9, 2.4, 0.9), (" café", 2.4, 3.0, 0.9)], no_speech_prob=0.1),
        segment(1, 300, 3.0, 5.0, "日本語の字幕です。😀🎉", [4, 5], words=[
            ("日本語", 3.0, 3.5, 0.8), ("の", 3.5, 3.7, 0.8), ("字幕", 3.7, 4.2, 0.8), ("です。", 4.2, 4.6, 0.8),
            ("😀🎉", 4.6, 5.0, 0.8)], no_speech_prob=0.2),
        segment(2, 500, 5.0, 6.0, "\u00a0spaced\u3000out ", [6], words=[
            ("\u00a0spaced", 5.0, 5.5, 0.7), ("\u3000out", 5.5, 5.9, 0.7), (" ", 5.9, 6.0, 0.1)]),
    ]
    return result(segs, language="fr")


def results_long_random():
    rng = random.Random(1234)
    vocab = ["the", "a", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "extraordinarily",
             "internationalisation", "I", "x", "über", "naïveté", "well,", "really?", "yes.", "42", "O'Neil"]
    segs, t, seek = [], 0.0, 0
    for i in range(4):
        words, start = [], t
        for _ in range(rng.randint(5, 12)):
            if rng.random() < 0.12:
                t += rng.choice([2.9, 3.05, 4.0])  # around the 3-second long-pause rule
            dur = round(rng.uniform(0.05, 0.9), 2)
            words.append((" " + rng.choice(vocab), round(t, 2), round(t + dur, 2), round(rng.random(), 4)))
            t = round(t + dur, 2)
        text = "".join(w[0] for w in words)
        segs.append(segment(i, seek, words[0][1], words[-1][2], text, range(i * 10, i * 10 + len(words)),
                            words=words, avg_logprob=-rng.random(), compression_ratio=1 + rng.random(),
                            no_speech_prob=rng.random() / 10))
        seek = int(t * 100)
    return result(segs)


def results_hours():
    segs = [
        segment(0, 359900, 3599.9994, 3599.9996, " Rounding up to the hour.", [1], words=[
            (" Rounding", 3599.9994, 3599.9995, 0.5), (" up", 3599.9995, 3599.99951, 0.5),
            (" to", 3599.99951, 3600.0, 0.5), (" the", 3600.0, 3600.0005, 0.5), (" hour.", 3600.0015, 3600.0025, 0.5)]),
        segment(1, 360000, 3725.5, 7322.123, " Two hours later", [2], words=[
            (" Two", 3725.5, 3726.0, 0.5), (" hours", 3726.0, 7200.0, 0.5), (" later", 7200.0, 7322.123, 0.5)]),
        segment(2, 3600000, 36000.0, 360001.0, " a hundred hours", [3], words=[
            (" a", 36000.0, 36000.5, 0.5), (" hundred", 359999.0, 360000.0, 0.5), (" hours", 360000.0, 360001.0, 0.5)]),
    ]
    return result(segs)


def results_hours_without_words():
    r = results_hours()
    for s in r["segments"]:
        del s["words"]
    return r


def results_empty():
    return result([])


def results_empty_segments():
    return result([
        segment(0, 0, 0.0, 0.0, "", []),
        segment(1, 0, 0.0, 30.0, " ", [220]),
    ])


RESULTS = {
    "without_words": results_without_words,
    "with_words": results_with_words,
    "non_ascii": results_non_ascii,
    "long_random": results_long_random,
    "hours": results_hours,
    "hours_without_words": results_hours_without_words,
    "empty": results_empty,
    "empty_segments": results_empty_segments,
}

SUBTITLE_OPTIONS = {
    "max_line_width": [None, 0, 1, 16, 42],
    "max_line_count": [None, 1, 2],
    "max_words_per_line": [None, 1, 3],
    "highlight_words": [False, True],
}


def write(writer_class, r, **kwargs):
    buffer = io.StringIO()
    writer_class(".").write_result(r, file=buffer, **kwargs)
    return buffer.getvalue()


def subtitle_cases(r, has_words, outputs):
    """Each case names its expected vtt and srt by index into outputs (many combinations agree)."""

    def index_of(text):
        if text not in outputs:
            outputs.append(text)
        return outputs.index(text)

    names = list(SUBTITLE_OPTIONS)
    cases = []
    for values in itertools.product(*SUBTITLE_OPTIONS.values()):
        options = dict(zip(names, values))
        if not has_words and options != {n: SUBTITLE_OPTIONS[n][0] for n in names}:
            continue  # the options only apply to word timings; one case is enough without them
        cases.append({"options": options, "vtt": index_of(write(WriteVTT, r, **options)),
                      "srt": index_of(write(WriteSRT, r, **options))})
    return cases


def make_result_fixture(name, r):
    has_words = bool(r["segments"]) and "words" in r["segments"][0]
    outputs = []
    fixture = {
        "result": r,
        "txt": write(WriteTXT, r),
        "tsv": write(WriteTSV, r),
        "json": write(WriteJSON, r),
        "subtitles": subtitle_cases(r, has_words, outputs),
        "subtitle_outputs": outputs,
    }
    path = os.path.join(OUT_DIR, f"results_{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, indent=0)
        f.write("\n")
    return path


def interesting_doubles():
    rng = random.Random(99)
    values = [0.0, -0.0, 1.0, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 1e-05, 1e-04, 0.0001, 0.00012345, 1e-07,
              1.5e-07, 123.456, 1e15, 1e16, 1e17, 123456789012345.6, 1234567890123456.7, 12345678901234567.0,
              9007199254740993.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e100, 1e-100,
              -1.0, -0.28469, -1.0000000000000002, 29.999, 7.28, 3599.9995, 0.30000000000000004, 1e22, 1e21,
              float("inf"), -float("inf"), float("nan")]
    for _ in range(400):
        (x,) = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))
        if math.isfinite(x):
            values.append(x)
    for _ in range(200):
        values.append(rng.uniform(-100, 4000))
        values.append(round(rng.uniform(0, 4000), 2))
    return values


def make_primitives():
    seconds = [0.0, 0.0004, 0.0005, 0.0015, 0.0025, 0.001, 0.5, 1.0005, 2.0005, 7.28, 29.999, 59.9994,
               59.9995, 59.9996, 60.0, 61.25, 599.999, 3599.9994, 3599.9995, 3599.9996, 3600.0, 3661.001,
               35999.999, 36000.0, 359999.9999, 360000.0, 1234567.891]
    rng = random.Random(7)
    seconds += [round(rng.uniform(0, 8000), rng.choice([1, 2, 3, 4, 6])) for _ in range(200)]
    timestamps = [
        {"seconds": s.hex(), "always_include_hours": h, "decimal_marker": m,
         "text": format_timestamp(s, always_include_hours=h, decimal_marker=m)}
        for s in seconds for h, m in [(False, "."), (True, ",")]
    ]
    tsv_milliseconds = [{"seconds": s.hex(), "milliseconds": round(1000 * s)} for s in seconds]
    floats = []
    for x in interesting_doubles():
        floats.append({"bits": struct.unpack("<Q", struct.pack("<d", x))[0], "json": json.dumps(x)})
    paths = ["jfk.flac", "/data/jfk.flac", "dir/a.b.c.wav", "noext", ".hidden", "..double", "dir/.hidden.mp3",
             "a.", "dir.with.dots/file", "-", "dir/", "x/y/z.tar.gz", "日本語.m4a", "./rel/../name.ogg"]
    basenames = {p: os.path.splitext(os.path.basename(p))[0] for p in paths}
    with tempfile.TemporaryDirectory() as d:
        get_writer("all", d)(results_with_words(), "some/dir/talk.final.flac")
        all_files = sorted(os.listdir(d))
    # highlight_words' underlining, on the odd words the subtitle iterator can produce
    words = ["word", " word", "\nword", " \n word", "", " ", "\n", "a\nb", "ab\n", " ab\n", "ab\n\n", "\u3000日本",
             "\u00a0\u2003x y", "x\u3000", "\n\n", " \n", "\u0085a", "\u200bzero-width"]
    underlined = {w: re.sub(r"^(\s*)(.*)$", r"\1<u>\2</u>", w) for w in words}
    primitives = {
        "timestamps": timestamps,
        "underlined_words": underlined,
        "tsv_milliseconds": tsv_milliseconds,
        "json_floats": floats,
        "audio_basenames": basenames,
        "all_files": all_files,
    }
    path = os.path.join(OUT_DIR, "primitives.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(primitives, f, ensure_ascii=False, indent=0)
        f.write("\n")
    return path


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    paths = [make_result_fixture(name, make()) for name, make in RESULTS.items()]
    paths.append(make_primitives())
    for p in paths:
        print(f"{os.path.getsize(p):8d}  {os.path.relpath(p)}")


if __name__ == "__main__":
    main()
