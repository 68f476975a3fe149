"""auris.WhisperModel and BatchedInferencePipeline: faster-whisper's results and types, the CLI's
segments, a lazy generator that can be closed, one model shared by threads, and bad input raising
a Python exception that says what is wrong."""

import dataclasses
import hashlib
import io
import json
import os
import pathlib
import subprocess
import sys
import threading

import numpy as np
import pytest

import auris
from auris import BatchedInferencePipeline, Segment, TranscriptionInfo, WhisperModel, decode_audio
from conftest import cli_segments


def test_segments_and_info_equal_the_cli(tiny_en, jfk, cli):
    segments, info = tiny_en.transcribe(jfk, word_timestamps=True)
    assert isinstance(info, TranscriptionInfo)
    assert (info.language, info.language_probability) == ("en", 1.0)
    assert info.duration == pytest.approx(11.0, abs=0.01)
    assert info.duration_after_vad == info.duration
    assert info.transcription_options.beam_size == 5
    segments = list(segments)
    expected = cli_segments(cli, jfk, "-m", "tiny.en", "--compute-type", "float16", "--word-timestamps")
    assert [s.tokens for s in segments] == [s["tokens"] for s in expected]
    assert [(s.start, s.end, s.text) for s in segments] == [(s["start"], s["end"], s["text"]) for s in expected]
    assert [s.id for s in segments] == list(range(1, len(segments) + 1))  # faster-whisper counts from 1
    first = segments[0]
    assert isinstance(first, Segment) and dataclasses.is_dataclass(first)
    assert first.words[0].word == " And" and 0 <= first.words[0].probability <= 1
    assert first.temperature == 0.0
    with pytest.deprecated_call():  # faster-whisper's _asdict(), from its named-tuple days
        assert first._asdict() == dataclasses.asdict(first) and first.words[0]._asdict()["word"] == " And"


def test_arrays_file_objects_and_paths_give_the_same_segments(tiny_en, jfk):
    by_path = [s.text for s in tiny_en.transcribe(jfk, beam_size=1)[0]]
    samples = decode_audio(jfk)
    assert samples.dtype == np.float32 and samples.shape == (176000,)
    assert [s.text for s in tiny_en.transcribe(samples, beam_size=1)[0]] == by_path
    with open(jfk, "rb") as f:
        assert [s.text for s in tiny_en.transcribe(f, beam_size=1)[0]] == by_path
    with open(jfk, "rb") as f:
        assert [s.text for s in tiny_en.transcribe(io.BytesIO(f.read()), beam_size=1)[0]] == by_path
    assert [s.text for s in tiny_en.transcribe(pathlib.Path(jfk), beam_size=1)[0]] == by_path


def test_a_path_is_transcribed_without_importing_numpy(cache_dir, jfk):
    """The engine decodes a path itself, so a script that passes paths pays no NumPy import (a
    third of `import auris`'s time): the package's start stays near the CLI's."""
    script = ("import sys\n"
              "from auris import WhisperModel\n"
              f"segments, _ = WhisperModel('tiny.en').transcribe({jfk!r}, beam_size=1)\n"
              "print(''.join(s.text for s in segments).strip())\n"
              "print('numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    text, numpy_imported = out.strip().splitlines()
    assert "my fellow Americans" in text and numpy_imported == "False"


def test_segments_are_lazy_and_a_closed_generator_stops(tiny_en, data):
    long_form = str(data / "audio" / "longform" / "hifitts-dev-concat.flac")
    segments, info = tiny_en.transcribe(long_form, beam_size=1)
    assert info.duration > 200
    first = next(segments)
    assert first.start == 0.0
    segments.close()
    with pytest.raises(StopIteration):
        next(segments)


def test_vad_reports_the_speech_and_keeps_the_timeline(tiny_en, jfk, data, cli):
    vad = str(data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")
    padded = np.concatenate([np.zeros(16000 * 20, np.float32), decode_audio(jfk)])
    segments, info = tiny_en.transcribe(padded, beam_size=1, vad_filter=True, vad_parameters={"model": vad})
    assert info.duration == pytest.approx(31.0, abs=0.01)
    assert 10 < info.duration_after_vad < 12
    assert info.vad_options.model == vad
    segments = list(segments)
    assert segments[0].start >= 19.5, "times are on the original timeline"
    with pytest.raises(TypeError, match="unknown_knob"):
        tiny_en.transcribe(padded, vad_filter=True, vad_parameters={"unknown_knob": 1})


def _publish_on_file_hub(hub, repo, name, source):
    """Serves source as repo's file on a file:// stand-in for the Hugging Face Hub, with the listing
    (its size and SHA-256, as the Hub lists an LFS file) that the downloader checks it against."""
    content = pathlib.Path(source).read_bytes()
    served = hub / repo / "resolve" / "main" / name
    served.parent.mkdir(parents=True, exist_ok=True)
    served.write_bytes(content)
    listing = hub / "api" / "models" / repo / "tree" / "main"
    listing.parent.mkdir(parents=True, exist_ok=True)
    entries = json.loads(listing.read_text()) if listing.exists() else []
    entries.append({"type": "file", "path": name, "size": len(content), "oid": "0" * 40,
                    "lfs": {"oid": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 134}})
    listing.write_text(json.dumps(entries))


def test_vad_model_is_downloaded_the_first_time(tiny_en, cache_dir, jfk, data, tmp_path, monkeypatch):
    """vad_filter=True works on a fresh machine, as faster-whisper's, whose wheel carries its VAD."""
    _publish_on_file_hub(tmp_path / "hub", "ggml-org/whisper-vad", "ggml-silero-v6.2.0.bin",
                         data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")
    monkeypatch.setenv("AURIS_HUB_ENDPOINT", f"file://{tmp_path / 'hub'}")
    monkeypatch.setenv("AURIS_MODEL_DIR", str(tmp_path / "cache"))
    offline = WhisperModel(str(cache_dir / "tiny.en"), cpu_threads=1, local_files_only=True)
    with pytest.raises(auris.AurisError, match="auris download silero-vad"):
        offline.transcribe(jfk, vad_filter=True)
    assert not (tmp_path / "cache").exists()
    segments, info = tiny_en.transcribe(jfk, beam_size=1, vad_filter=True)
    assert "ask not what your country" in "".join(s.text for s in segments)
    assert (tmp_path / "cache" / "ggml-silero-v6.2.0.bin").read_bytes() == \
        (data / "vad" / "for-tests-silero-v6.2.0-ggml.bin").read_bytes()
    assert info.vad_options.model == "silero-vad"


def test_a_hub_repository_id_is_downloaded_as_faster_whisper_does(cache_dir, jfk, tmp_path, monkeypatch):
    """WhisperModel("owner/name") and download_model("owner/name"): a converted or fine-tuned model."""
    for name in ("config.json", "model.bin", "tokenizer.json", "vocabulary.txt"):
        _publish_on_file_hub(tmp_path / "hub", "someone/whisper-tiny-en-ct2", name, cache_dir / "tiny.en" / name)
    monkeypatch.setenv("AURIS_HUB_ENDPOINT", f"file://{tmp_path / 'hub'}")
    monkeypatch.setenv("AURIS_MODEL_DIR", str(tmp_path / "cache"))
    model = WhisperModel("someone/whisper-tiny-en-ct2", cpu_threads=1)
    segments, _ = model.transcribe(jfk, beam_size=1)
    assert "ask not what your country" in "".join(s.text for s in segments)
    assert auris.download_model("someone/whisper-tiny-en-ct2") == str(tmp_path / "cache" / "someone--whisper-tiny-en-ct2")
    with pytest.raises(ValueError, match="hub repository id"):
        auris.download_model("not a model")


def test_faster_whispers_penalties_and_hotwords_equal_the_clis(tiny_en, jfk, cli):
    segments, _ = tiny_en.transcribe(jfk, repetition_penalty=1.3, no_repeat_ngram_size=2, hotwords="Kennedy, Boston")
    expected = cli_segments(cli, jfk, "-m", "tiny.en", "--compute-type", "float16", "--repetition-penalty", "1.3",
                            "--no-repeat-ngram-size", "2", "--hotwords", "Kennedy, Boston")
    assert [s.tokens for s in segments] == [s["tokens"] for s in expected]


def test_prompts_of_token_ids_and_faster_whispers_ranking(tiny_en, jfk):
    first = next(tiny_en.transcribe(jfk, beam_size=1)[0])
    text_ids = [t for t in first.tokens if t < 50256]  # tiny.en's text tokens: the segment's words
    as_text = [s.tokens for s in tiny_en.transcribe(jfk, beam_size=1, initial_prompt=first.text)[0]]
    as_ids = [s.tokens for s in tiny_en.transcribe(jfk, beam_size=1, initial_prompt=iter(text_ids))[0]]
    assert as_ids == as_text
    # CTranslate2's length_penalty ranks the beams' finished candidates; the text stays jfk's here.
    segments, info = tiny_en.transcribe(jfk, length_penalty=np.float32(0.2), prompt_reset_on_temperature=0.0)
    assert "ask not what your country" in "".join(s.text for s in segments)
    assert info.transcription_options.length_penalty == np.float32(0.2)


def test_detect_language_is_faster_whispers(base, tiny_en, data):
    german = str(data / "audio" / "multilingual" / "test_de.wav")
    language, probability, all_probs = base.detect_language(german)
    assert language == "de" and probability > 0.9
    assert all_probs[0] == (language, probability) and len(all_probs) == len(base.supported_languages)
    assert [p for _, p in all_probs] == sorted((p for _, p in all_probs), reverse=True)
    # 30 s of silence, then German: the first window alone is unsure; the second decides.
    samples = np.concatenate([np.zeros(30 * 16000, np.float32), decode_audio(german)])
    first, first_probability, _ = base.detect_language(samples)
    assert first != "de" and first_probability < 0.5
    assert base.detect_language(samples, language_detection_segments=2)[0] == "de"
    # With VAD the silence is not heard at all.
    vad = {"model": str(data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")}
    assert base.detect_language(samples, vad_filter=True, vad_parameters=vad)[0] == "de"
    with pytest.raises(auris.AurisError, match="English-only"):
        tiny_en.detect_language(german)
    with pytest.raises(auris.AurisError, match="no speech"):
        base.detect_language(np.zeros(16000 * 5, np.float32), vad_filter=True, vad_parameters=vad)
    with pytest.raises(ValueError, match="features"):
        base.detect_language(features=np.zeros((80, 3000), np.float32))


def test_prefix_is_faster_whispers(tiny_en, jfk):
    # faster-whisper's own test: the prefix starts the first window's text, after <|0.00|>.
    segments, _ = tiny_en.transcribe(jfk, prefix="And so my fellow Americans")
    segments = list(segments)
    assert segments[0].text.startswith(" And so my fellow Americans"), segments[0].text
    assert "ask not what your country can do for you" in segments[0].text, segments[0].text
    assert segments[0].start == 0 and 10 < segments[-1].end <= 11


def test_language_detection_starts_at_the_first_clip(base, data):
    # faster-whisper detects from the first clip's start: here 30 s of silence are skipped.
    german = decode_audio(str(data / "audio" / "multilingual" / "test_de.wav"))
    samples = np.concatenate([np.zeros(30 * 16000, np.float32), german])
    _, info = base.transcribe(samples, clip_timestamps=[30], beam_size=1)
    assert info.language == "de"
    _, info = base.transcribe(samples, beam_size=1)
    assert info.language != "de"


def test_flags_and_numbers_are_not_taken_for_each_other(tiny_en, jfk):
    with pytest.raises(TypeError, match="multilingual"):
        tiny_en.transcribe(jfk, multilingual="false")  # a non-empty string was True
    with pytest.raises(TypeError, match="language_detection_segments must be an integer, got bool"):
        tiny_en.transcribe(jfk, language_detection_segments=True)
    with pytest.raises(TypeError, match="max_new_tokens"):
        tiny_en.transcribe(jfk, max_new_tokens="5")
    with pytest.raises(ValueError, match="does not fit a 32-bit integer"):
        tiny_en.transcribe(jfk, no_repeat_ngram_size=10**12)
    with pytest.warns(UserWarning, match="English-only"):
        tiny_en.transcribe(jfk, multilingual=True)


def test_log_progress_draws_a_bar_to_the_end(tiny_en, jfk, capfd):
    segments, _ = tiny_en.transcribe(jfk, beam_size=1, log_progress=True)
    texts = [s.text for s in segments]
    bar = capfd.readouterr().err
    assert texts and "100%" in bar and "seconds" in bar, bar


def test_the_batched_pipeline_equals_the_clis_batched_transcription(tiny_en, data, cli):
    vad = str(data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")
    long_form = str(data / "audio" / "longform" / "hifitts-dev-concat.flac")
    segments, info = BatchedInferencePipeline(tiny_en).transcribe(
        long_form, batch_size=4, vad_parameters={"model": vad, "min_silence_duration_ms": 160})
    expected = cli_segments(cli, long_form, "-m", "tiny.en", "--compute-type", "float16", "--batch-size", "4",
                            "--vad", "--vad-model", vad, "--without-timestamps")
    got = list(segments)
    assert [s.text for s in got] == [s["text"] for s in expected]
    assert [s.start for s in got] == [s["start"] for s in expected]
    assert info.duration_after_vad <= info.duration


def test_chunk_length_caps_the_batched_pipelines_speech_chunks(tiny_en, data, cli, jfk):
    vad = str(data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")
    long_form = str(data / "audio" / "longform" / "hifitts-dev-concat.flac")
    segments, _ = BatchedInferencePipeline(tiny_en).transcribe(
        long_form, batch_size=4, chunk_length=10, vad_parameters={"model": vad, "min_silence_duration_ms": 160})
    expected = cli_segments(cli, long_form, "-m", "tiny.en", "--compute-type", "float16", "--batch-size", "4",
                            "--vad", "--vad-model", vad, "--vad-max-speech-s", "10", "--without-timestamps")
    assert [s.text for s in segments] == [s["text"] for s in expected]
    # Whisper's own 30 s is accepted anywhere; other windows are not auris's to give.
    assert list(tiny_en.transcribe(jfk, chunk_length=30, beam_size=1)[0])
    with pytest.raises(ValueError, match="chunk_length"):
        tiny_en.transcribe(jfk, chunk_length=10)
    with pytest.raises(ValueError, match="chunk_length must be 1 to 30 seconds"):
        BatchedInferencePipeline(tiny_en).transcribe(jfk, chunk_length=40)


def test_the_batched_pipelines_segments_come_as_their_chunks_are_done(tiny_en, data):
    """The first segment comes while later chunks still decode, and closing the generator drops the
    chunks not yet started: it does not wait for the whole recording (timed against the full run in
    the same test, not against a clock)."""
    import time

    vad = str(data / "vad" / "for-tests-silero-v6.2.0-ggml.bin")
    long_form = str(data / "audio" / "longform" / "hifitts-dev-concat.flac")
    pipeline = BatchedInferencePipeline(tiny_en)
    options = dict(batch_size=1, beam_size=1, vad_parameters={"model": vad})  # 7 chunks, one at a time
    start = time.monotonic()
    everything = list(pipeline.transcribe(long_form, **options)[0])
    whole = time.monotonic() - start
    start = time.monotonic()
    segments, _ = pipeline.transcribe(long_form, **options)
    first = next(segments)
    segments.close()
    closed = time.monotonic() - start
    assert len(everything) >= 5 and first == everything[0]
    # About 2/7 of the whole: the first chunk, and the second, already running when it closed.
    assert closed < whole * 0.6, f"the first segment and close took {closed:.2f} s, the whole run {whole:.2f} s"
    assert list(pipeline.transcribe(long_form, **options)[0])[:3] == everything[:3]  # and it runs again


def test_faster_whispers_fallbacks_and_refusals(tiny_en, jfk, cache_dir):
    """faster-whisper's rules: a language on an English-only model warns and uses English; clips given
    with vad_filter are transcribed instead of VAD's speech; options it has and auris has not are
    refused with the reason, not ignored."""
    with pytest.warns(UserWarning, match="English-only but the language parameter is set to 'fr'"):
        segments, info = tiny_en.transcribe(jfk, language="fr", beam_size=1)
    assert info.language == "en" and "ask not" in "".join(s.text for s in segments)
    clipped, info = tiny_en.transcribe(jfk, beam_size=1, vad_filter=True, clip_timestamps=[0, 5])
    assert info.duration_after_vad == info.duration and info.vad_options is None
    assert [s.text for s in clipped] == [s.text for s in tiny_en.transcribe(jfk, beam_size=1, clip_timestamps=[0, 5])[0]]
    with pytest.raises(ValueError, match="clip_timestamps in the batched pipeline"):
        BatchedInferencePipeline(tiny_en).transcribe(jfk, clip_timestamps=[{"start": 0, "end": 5}])
    path = str(cache_dir / "tiny.en")
    for kwargs, said in (({"files": {"model.bin": b""}}, "not from memory"), ({"revision": "v2"}, "main revision"),
                         ({"use_auth_token": "hf_x"}, "public hub repositories"),
                         ({"flash_attention": True}, "flash_attention do not apply")):
        with pytest.raises(ValueError, match=said):
            WhisperModel(path, **kwargs)
    assert WhisperModel(path, compute_type="int8_float16", revision="main").model.compute_type == "int8"
    words = list(tiny_en.transcribe(jfk, beam_size=1, word_timestamps=True)[0])
    assert all(isinstance(s.words, list) for s in words)


def test_threads_share_one_model(tiny_en, data):
    clips = [str(data / "audio" / "hifitts-6097" / "audio" / f"{name}.wav")
             for name in ("swag_06_tompkins_0883", "roots_19_morris_0392")]
    alone = [[s.text for s in tiny_en.transcribe(c, beam_size=1)[0]] for c in clips]
    together = [None, None]

    def run(i):
        together[i] = [s.text for s in tiny_en.transcribe(clips[i], beam_size=1)[0]]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone


def test_utilities():
    assert "tiny.en" in auris.available_models() and "large-v3" in auris.available_models()
    assert auris.format_timestamp(3661.5) == "01:01:01.500"
    with pytest.raises(ValueError, match="unknown model"):
        auris.download_model("tiny-but-not-a-model")


# Bad input: an exception with the message, never a crash.

def test_a_missing_model_says_how_to_get_it(tmp_path):
    with pytest.raises(auris.AurisError, match="no-such-model"):
        WhisperModel(str(tmp_path / "no-such-model"))


def test_a_corrupt_model_and_a_corrupt_audio_file_raise(tmp_path, tiny_en):
    bad_model = tmp_path / "model.bin"
    bad_model.write_bytes(b"lmgg" + b"\0" * 64)
    with pytest.raises(auris.AurisError):
        WhisperModel(str(bad_model))
    bad_audio = tmp_path / "notes.wav"
    bad_audio.write_text("not audio at all")
    with pytest.raises(auris.AurisError, match="notes.wav"):
        tiny_en.transcribe(str(bad_audio))
    with pytest.raises(auris.AurisError):
        tiny_en.transcribe(str(tmp_path / "missing.flac"))
    # A file object's error names it, not the temporary file it was spooled to.
    with open(bad_audio, "rb") as f, pytest.raises(auris.AurisError, match="notes.wav") as raised:
        tiny_en.transcribe(f)
    assert "auris-audio-" not in str(raised.value)
    with pytest.raises(auris.AurisError, match="the file object"):
        tiny_en.transcribe(io.BytesIO(b"not audio at all"))


def test_split_stereo_gives_each_channel(jfk):
    """faster-whisper's decode_audio(split_stereo=True), for a call with a speaker on each channel:
    jfk.flac is stereo, and its channels differ; their mean is the mono decode, but for rounding."""
    left, right = decode_audio(jfk, split_stereo=True)
    assert left.dtype == right.dtype == np.float32 and left.shape == right.shape == (176000,)
    assert not np.array_equal(left, right)
    assert np.max(np.abs((left + right) / 2 - decode_audio(jfk))) <= 2 / 32768
    with open(jfk, "rb") as f:
        from_file_object = decode_audio(f, split_stereo=True)
    assert np.array_equal(from_file_object[0], left) and np.array_equal(from_file_object[1], right)


def test_float64_samples_are_taken_as_faster_whisper_takes_them(tiny_en, jfk):
    samples = decode_audio(jfk)
    as_float32 = [s.text for s in tiny_en.transcribe(samples, beam_size=1)[0]]
    assert [s.text for s in tiny_en.transcribe(samples.astype(np.float64), beam_size=1)[0]] == as_float32


@pytest.mark.parametrize("audio, message", [
    (np.zeros(16000, np.int16), "divided by 32768"),
    (np.zeros((2, 16000), np.float32), "one-dimensional"),
    (np.zeros(0, np.float32), "empty"),
])
def test_bad_arrays_raise_value_error(tiny_en, audio, message):
    with pytest.raises(ValueError, match=message):
        tiny_en.transcribe(audio)


def test_bad_options_raise(tiny_en, jfk):
    with pytest.raises(TypeError, match="not_an_option"):
        tiny_en.transcribe(jfk, not_an_option=1)
    with pytest.raises(ValueError, match="16000"):
        decode_audio(jfk, sampling_rate=8000)
    with pytest.raises(ValueError, match="length_penalty must be from -10 to 10"):
        tiny_en.transcribe(jfk, length_penalty=float("nan"))
    with pytest.raises(ValueError, match="prompt_reset_on_temperature"):
        tiny_en.transcribe(jfk, prompt_reset_on_temperature=float("inf"))
    with pytest.raises(auris.AurisError, match="initial prompt token 50256 is not a text token"):
        tiny_en.transcribe(jfk, initial_prompt=[1, 50256])
    with pytest.raises(TypeError, match="initial_prompt token ids must be integers"):
        tiny_en.transcribe(jfk, initial_prompt=[True])
    with pytest.raises(ValueError, match="initial_prompt token 1000000000000 is not a text token"):
        tiny_en.transcribe(jfk, initial_prompt=[10**12])  # was nanobind's "list of 32-bit integers"
    with pytest.raises(TypeError, match="sequence of token ids, got bytes"):
        tiny_en.transcribe(jfk, initial_prompt=b"hello")
    with pytest.raises(ValueError, match="prompt_reset_on_temperature must be a number from -1000 to 1000"):
        tiny_en.transcribe(jfk, prompt_reset_on_temperature=10**400)  # was an OverflowError naming nothing
    with pytest.raises(ValueError, match="max_new_tokens must be a number of tokens from 1"):
        tiny_en.transcribe(jfk, max_new_tokens=0)  # it gave the whole text, as None does
    with pytest.raises(auris.AurisError, match="repetition_penalty must be from 0.001 to 1000"):
        tiny_en.transcribe(jfk, repetition_penalty=0)
    with pytest.raises(auris.AurisError, match="language_detection_segments must be 1 to 100"):
        tiny_en.transcribe(jfk, language_detection_segments=0)
    with pytest.raises(ValueError, match="task"):
        tiny_en.transcribe(jfk, task="summarise")
    with pytest.raises(auris.AurisError, match="language"):
        tiny_en.transcribe(jfk, language="klingon")
    with pytest.raises(ValueError, match="compute_type"):
        WhisperModel("tiny.en", compute_type="float8")
    with pytest.raises(ValueError, match="batch_size"):
        BatchedInferencePipeline(tiny_en).transcribe(jfk, batch_size=0)
    # One NaN spoiled the whole window into confident words.
    with pytest.raises(auris.AurisError, match="NaN or an infinity at sample 1 "):
        tiny_en.transcribe(np.array([0.0, np.nan] + [0.0] * 16000, np.float32))
    # Each said "std::bad_cast", or transcribed (-1), or ran out of memory (10**9), or crashed OpenMP.
    with pytest.raises(TypeError, match="language must be a string, got int"):
        tiny_en.transcribe(jfk, language=5)
    with pytest.raises(ValueError, match="initial_prompt is not valid UTF-8"):
        tiny_en.transcribe(jfk, initial_prompt="\udcff abc")
    with pytest.raises(ValueError, match="beam_size must be 1 or more"):
        tiny_en.transcribe(jfk, beam_size=-1)
    with pytest.raises(auris.AurisError, match="beam_size must be 1 to 64"):
        tiny_en.transcribe(jfk, beam_size=10**9)
    with pytest.raises(ValueError, match="cpu_threads"):
        WhisperModel("tiny.en", cpu_threads=100000)
    with pytest.raises(TypeError, match="beam_size must be an integer, got float"):
        tiny_en.transcribe(jfk, beam_size=2.7)  # it was cut to 2
    # A NUL cut the path short in C++, so that "jfk.flac\0junk" transcribed jfk.flac.
    with pytest.raises(ValueError, match="null byte"):
        tiny_en.transcribe(str(jfk) + "\0junk")
    with pytest.raises(ValueError, match="not UTF-8"):
        decode_audio(os.fsdecode(b"/tmp/\xff\xfe.wav"))


def test_ctrl_c_stops_a_transcription(tmp_path, cache_dir, data):
    import signal
    import time

    long_form = str(data / "audio" / "longform" / "hifitts-dev-concat.flac")
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import signal, sys\n"
        # A shell's background job (a CI runner's, say) starts its children with SIGINT ignored,
        # and Python then keeps it ignored; a terminal's Ctrl-C is what this test is about.
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from auris import WhisperModel\n"
        f"segments, _ = WhisperModel('tiny.en').transcribe({long_form!r}, beam_size=5)\n"
        "next(segments)\n"
        "try:\n"
        "    print('started', flush=True)\n"
        "    for s in segments: pass\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    child.send_signal(signal.SIGINT)
    start = time.monotonic()
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 3 and out.strip() == "interrupted"
    assert time.monotonic() - start < 10, "stopped within a window, not at the end"


def test_importing_gives_the_thread_an_alternate_signal_stack(tmp_path):
    """CPython's handlers run on an alternate stack where the thread has one (SA_ONSTACK); oneDNN's
    sgemm kernels point rsp at the heap, so a Ctrl-C's frame pushed there would corrupt it
    (src/util/alternate_signal_stack.h). Before the import the thread has none; after it, it has."""
    script = tmp_path / "stack.py"
    script.write_text(
        "import ctypes\n"
        "class StackT(ctypes.Structure):\n"
        "    _fields_ = [('ss_sp', ctypes.c_void_p), ('ss_flags', ctypes.c_int), ('ss_size', ctypes.c_size_t)]\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def enabled():\n"
        "    s = StackT()\n"
        "    assert libc.sigaltstack(None, ctypes.byref(s)) == 0\n"
        "    return not (s.ss_flags & 2) and s.ss_size > 0  # SS_DISABLE\n"
        "before = enabled()\n"
        "import auris\n"
        "print(before, enabled())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONFAULTHANDLER"}  # faulthandler brings a stack of its own
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr


def test_the_wheel_brings_the_cuda_backend(cache_dir):
    """Built where the CUDA toolkit is, the package holds the CUDA plugin beside its extension, and
    device="cuda" loads it: without a GPU the error is the device's, not a missing backend."""
    plugin = os.path.join(os.path.dirname(auris.__file__), "libauris_cuda.so")
    if not os.path.exists(plugin):
        assert not os.path.exists("/usr/local/cuda/bin/nvcc"), f"the CUDA toolkit is here, but {plugin} is not"
        pytest.skip("built without the CUDA toolkit")
    try:
        WhisperModel(os.path.join(cache_dir, "tiny.en"), device="cuda")
    except auris.AurisError as e:
        assert "cannot load the CUDA backend" not in str(e) and "use device \"cpu\"" in str(e), str(e)


def test_auto_is_cuda_only_where_a_gpu_answers(cache_dir):
    """faster-whisper's default device="auto" picks CUDA where it can run, else the CPU."""
    from auris import _core
    model = WhisperModel(os.path.join(cache_dir, "tiny.en"), device="auto")
    assert model.device == ("cuda" if _core.cuda_available() else "cpu")
    if not os.path.exists("/dev/nvidiactl"):
        assert not _core.cuda_available(), "no GPU here, yet CUDA says it can run"


def test_format_transcript_writes_the_clis_files(tiny_en, jfk, cli, tmp_path):
    for words in (False, True):
        segments, info = tiny_en.transcribe(jfk, word_timestamps=words)
        segments = list(segments)
        out = tmp_path / f"words-{words}"
        subprocess.run([str(cli), "transcribe", "-t", "1", "-m", "tiny.en", "--compute-type", "float16", "-f", "all",
                        "-o", str(out), *(["--word-timestamps"] if words else []), str(jfk)],
                       check=True, capture_output=True)
        for output_format in ("txt", "vtt", "srt", "tsv", "json"):
            written = (out / f"jfk.{output_format}").read_text()
            assert auris.format_transcript(segments, info.language, output_format) == written, (output_format, words)
    with pytest.raises(auris.AurisError, match="docx"):
        auris.format_transcript(segments, info.language, "docx")
