"""`auris serve` through OpenAI's own Python client (unmodified): every answer equals the CLI's.

The reference is the batched CLI, `auris transcribe --model M --batch-size 8 FILE -f all -o DIR`
with the same options (docs/SERVER.md): `text`, `srt`, `vtt` equal its files byte for byte; `json`'s
text is its json's "text" stripped; `verbose_json`'s segments (and words) are its json's, floats
within 1e-3; the language is spelled out ("english").

    build/pyenv/bin/python -m pytest tests/server/test_openai_client.py -v
"""
import concurrent.futures
import json
import math
import subprocess

import pytest
import requests
from openai import NotFoundError, OpenAI

from conftest import AURIS, VAD_MODEL, audio

TOLERANCE = 1e-3
SEGMENT_FIELDS = ("id", "seek", "start", "end", "text", "tokens", "temperature", "avg_logprob",
                  "compression_ratio", "no_speech_prob")
VERBOSE_FIELDS = ("task", "language", "language_probability", "duration", "duration_after_vad", "text",
                  "segments", "words")


@pytest.fixture(scope="module")
def client(server):
    # No retries: a 408, 429 or 5xx must fail the test, not be papered over by the client.
    return OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=300)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """reference(model, [files], *options) -> {file: {"txt", "srt", "vtt", "json"}} from one CLI run."""
    cache = {}

    def run(model, files, *options):
        key = (model, tuple(map(str, files)), options)
        if key not in cache:
            out = tmp_path_factory.mktemp("cli")
            done = subprocess.run(
                [str(AURIS), "transcribe", "--model", model, "--batch-size", "8", "--threads", "2", *options,
                 *map(str, files), "-f", "all", "-o", str(out)],
                capture_output=True, timeout=600)
            assert done.returncode == 0, done.stderr.decode(errors="replace")
            cache[key] = {
                f: {fmt: (out / f"{f.stem}.{fmt}").read_bytes().decode("utf-8")
                    for fmt in ("txt", "srt", "vtt", "json")}
                for f in files}
            for f in files:
                cache[key][f]["json"] = json.loads(cache[key][f]["json"])
        return cache[key]

    return run


def upload(path):
    return (path.name, path.read_bytes())


def duration_of(path):
    done = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", str(path)],
                          capture_output=True, text=True, check=True)
    return float(done.stdout)


def assert_close(actual, expected, what):
    assert isinstance(actual, (int, float)) and not isinstance(actual, bool), f"{what}: {actual!r} is not a number"
    assert math.isclose(actual, expected, abs_tol=TOLERANCE), f"{what}: server {actual!r}, CLI {expected!r}"


def assert_segments_equal(served, cli_segments, words):
    assert len(served) == len(cli_segments), (
        f"{len(served)} segments served, the CLI has {len(cli_segments)}:\n"
        f"server {[s.get('text') for s in served]}\nCLI    {[s['text'] for s in cli_segments]}")
    for i, (s, c) in enumerate(zip(served, cli_segments)):
        for field in SEGMENT_FIELDS:
            assert field in s, f"segment {i} lacks {field!r}: {s}"
        assert s["id"] == c["id"] and s["seek"] == c["seek"], (i, s, c)
        assert s["text"] == c["text"], f"segment {i}"
        assert s["tokens"] == c["tokens"], f"segment {i}"
        for field in ("start", "end", "temperature", "avg_logprob", "compression_ratio", "no_speech_prob"):
            assert_close(s[field], c[field], f"segment {i} {field}")
        if words:
            assert len(s["words"]) == len(c["words"]), (i, s["words"], c["words"])
            for j, (w, cw) in enumerate(zip(s["words"], c["words"])):
                assert w["word"] == cw["word"], f"segment {i} word {j}"
                for field in ("start", "end", "probability"):
                    assert_close(w[field], cw[field], f"segment {i} word {j} {field}")


def check_verbose(body, cli_json, *, task, language, path, words=False):
    for field in VERBOSE_FIELDS:
        # OpenAI sends `words` only when asked for them; without word timestamps it may be left out.
        assert field in body or (field == "words" and not words), f"verbose_json lacks {field!r}: {sorted(body)}"
    if not words:
        assert not body.get("words"), body["words"]
    assert body["task"] == task
    assert body["language"] == language
    assert body["text"].strip() == cli_json["text"].strip()
    assert abs(body["duration"] - duration_of(path)) < 0.05, (body["duration"], duration_of(path))
    assert 0 <= body["language_probability"] <= 1
    assert_segments_equal(body["segments"], cli_json["segments"], words)
    if words:
        every = [w for s in cli_json["segments"] for w in s["words"]]
        assert len(body["words"]) == len(every), (body["words"], every)
        for j, (w, cw) in enumerate(zip(body["words"], every)):
            assert w["word"] == cw["word"], f"word {j}"
            assert_close(w["start"], cw["start"], f"word {j} start")
            assert_close(w["end"], cw["end"], f"word {j} end")


@pytest.mark.parametrize("response_format", ["json", "text", "srt", "vtt", "verbose_json"])
def test_every_response_format_equals_the_cli(client, reference, response_format):
    jfk = audio("jfk.flac")
    cli = reference("tiny.en", [jfk])[jfk]
    raw = client.audio.transcriptions.with_raw_response.create(
        file=upload(jfk), model="tiny.en", response_format=response_format)
    assert raw.http_response.status_code == 200
    result = raw.parse()  # what a user of the client gets
    if response_format == "json":
        assert result.text == cli["json"]["text"].strip()
        assert raw.http_response.json() == {"text": result.text}
    elif response_format == "verbose_json":
        assert result.text.strip() == cli["json"]["text"].strip()
        assert result.language == "english"
        check_verbose(raw.http_response.json(), cli["json"], task="transcribe", language="english", path=jfk)
    else:
        expected = cli["txt" if response_format == "text" else response_format]
        assert result == expected
        assert raw.http_response.content == expected.encode("utf-8")  # byte for byte


def test_whisper_1_is_the_default_model(client, reference):
    jfk = audio("jfk.flac")
    result = client.audio.transcriptions.create(file=upload(jfk), model="whisper-1")
    assert result.text == reference("tiny.en", [jfk])[jfk]["json"]["text"].strip()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # openai-python marks translations deprecated
def test_translation_with_base(client, reference):
    german = audio("multilingual/test_de.wav")
    cli = reference("base", [german], "--task", "translate")[german]
    raw = client.audio.translations.with_raw_response.create(
        file=upload(german), model="base", response_format="verbose_json")
    assert raw.http_response.status_code == 200
    result = raw.parse()
    assert result.text.strip() == cli["json"]["text"].strip()
    check_verbose(raw.http_response.json(), cli["json"], task="translate", language="german", path=german)
    text = client.audio.translations.create(file=upload(german), model="base", response_format="text")
    assert text == cli["txt"]
    srt = client.audio.translations.create(file=upload(german), model="base", response_format="srt")
    assert srt == cli["srt"]


def test_language_with_base(client, reference):
    french = audio("multilingual/test_fr.wav")
    cli = reference("base", [french], "--language", "fr")[french]
    raw = client.audio.transcriptions.with_raw_response.create(
        file=upload(french), model="base", language="fr", response_format="verbose_json")
    assert raw.http_response.status_code == 200
    check_verbose(raw.http_response.json(), cli["json"], task="transcribe", language="french", path=french)


def test_word_timestamps(client, reference):
    jfk = audio("jfk.flac")
    cli = reference("tiny.en", [jfk], "--word-timestamps")[jfk]
    assert all(s.get("words") for s in cli["json"]["segments"]), "the CLI gave no words"
    raw = client.audio.transcriptions.with_raw_response.create(
        file=upload(jfk), model="tiny.en", response_format="verbose_json",
        timestamp_granularities=["word", "segment"])
    assert raw.http_response.status_code == 200
    result = raw.parse()
    assert result.words and result.words[0].word == raw.http_response.json()["words"][0]["word"]
    check_verbose(raw.http_response.json(), cli["json"], task="transcribe", language="english", path=jfk,
                  words=True)


def test_prompt_beam_size_and_temperature(client, reference):
    """`prompt` is --initial-prompt; `beam_size` (whisper.cpp's and speaches' field) is --beam-size."""
    jfk = audio("jfk.flac")
    prompt = "President Kennedy's inaugural address."
    cli = reference("tiny.en", [jfk], "--initial-prompt", prompt, "--beam-size", "1")[jfk]
    result = client.audio.transcriptions.create(
        file=upload(jfk), model="tiny.en", prompt=prompt, temperature=0, response_format="verbose_json",
        extra_body={"beam_size": 1})
    assert result.text.strip() == cli["json"]["text"].strip()
    assert [s.text for s in result.segments] == [s["text"] for s in cli["json"]["segments"]]
    assert [s.tokens for s in result.segments] == [s["tokens"] for s in cli["json"]["segments"]]


@pytest.mark.parametrize("strategy, cli_options", [
    ("auto", ()),  # the batched pipeline's VAD defaults
    ({"type": "server_vad", "threshold": 0.4, "prefix_padding_ms": 300, "silence_duration_ms": 500},
     ("--vad-threshold", "0.4", "--vad-speech-pad-ms", "300", "--vad-min-silence-ms", "500")),
])
def test_chunking_strategy_is_the_clis_vad(client, reference, strategy, cli_options):
    """OpenAI's chunking_strategy: "auto" or a server_vad object transcribe the speech Silero VAD finds."""
    if not VAD_MODEL.exists():
        pytest.skip(f"{VAD_MODEL} is missing")
    path = audio("longform/hifitts-dev-concat.flac")
    cli = reference("tiny.en", [path], "--vad", "--vad-model", str(VAD_MODEL), *cli_options)[path]
    result = client.audio.transcriptions.create(file=upload(path), model="tiny.en", response_format="verbose_json",
                                                chunking_strategy=strategy)
    body = result.model_dump()
    assert body["duration_after_vad"] < body["duration"] - 15, "the 20-s silence is not transcribed"
    assert_segments_equal(body["segments"], cli["json"]["segments"], words=False)


def test_keywords_are_hotwords(client, reference):
    """OpenAI's keywords guide the transcription as faster-whisper's hotwords, joined with commas."""
    jfk = audio("jfk.flac")
    cli = reference("tiny.en", [jfk], "--hotwords", "Kennedy, inaugural")[jfk]
    result = client.audio.transcriptions.create(file=upload(jfk), model="tiny.en", response_format="verbose_json",
                                                keywords=["Kennedy", "inaugural"])
    assert [s.tokens for s in result.segments] == [s["tokens"] for s in cli["json"]["segments"]]


def test_stream(client, reference):
    """stream=True: the client parses the events; the deltas add up to the final text, the CLI's."""
    jfk = audio("jfk.flac")
    cli = reference("tiny.en", [jfk])[jfk]["json"]
    stream = client.audio.transcriptions.create(file=upload(jfk), model="tiny.en", stream=True)
    assert stream.response.headers["content-type"].startswith("text/event-stream")
    events = list(stream)  # ends when the server ends the response (openai-python needs no [DONE])
    types = [e.type for e in events]
    assert types and types[-1] == "transcript.text.done", types
    assert set(types[:-1]) == {"transcript.text.delta"}, types
    deltas = [e.delta for e in events[:-1]]
    done = events[-1]
    assert "".join(deltas).strip() == done.text == cli["text"].strip()
    # auris's addition: each delta carries its segment, in order, the CLI's segments.
    segments = [e.model_extra["segment"] for e in events[:-1]]
    assert [s["text"] for s in segments] == [s["text"] for s in cli["segments"]] == deltas
    for s, c in zip(segments, cli["segments"]):
        assert s["id"] == c["id"]
        assert_close(s["start"], c["start"], "start")
        assert_close(s["end"], c["end"], "end")
    assert done.model_extra.get("language") == "en"
    assert abs(done.model_extra["duration"] - duration_of(jfk)) < 0.05


def test_stream_wire_format(server, reference):
    """The bytes: `data: {json}` events separated by blank lines, nothing else."""
    jfk = audio("jfk.flac")
    cli = reference("tiny.en", [jfk])[jfk]["json"]
    r = requests.post(server.url + "/v1/audio/transcriptions", files={"file": upload(jfk)},
                      data={"model": "tiny.en", "stream": "true"}, timeout=120)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    blocks = r.content.decode("utf-8").split("\n\n")
    assert blocks[-1] == "", repr(r.content[-200:])
    events = []
    for block in blocks[:-1]:
        assert block.startswith("data: ") and "\n" not in block, repr(block)
        events.append(json.loads(block[len("data: "):]))
    assert events[-1]["type"] == "transcript.text.done" and events[-1]["text"] == cli["text"].strip()


def test_concurrent_requests_equal_the_cli(client, reference):
    """Concurrent requests share the batched engine; each answer is still the CLI's for its file."""
    manifest = audio("hifitts-6097/manifest.jsonl")
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    files = [audio("jfk.flac")] + [manifest.parent / r["audio_filepath"] for r in rows[:7]]
    cli = reference("tiny.en", files)

    def transcribe(path):
        return client.audio.transcriptions.create(file=upload(path), model="tiny.en").text

    with concurrent.futures.ThreadPoolExecutor(len(files)) as pool:
        texts = list(pool.map(transcribe, files))
    for path, text in zip(files, texts):
        assert text == cli[path]["json"]["text"].strip(), path.name


def test_models_list(client):
    models = client.models.list()
    ids = [m.id for m in models]
    assert sorted(ids) == ["base", "tiny.en"], ids
    for m in models:
        assert m.object == "model" and m.owned_by == "auris"
    retrieved = client.models.retrieve("tiny.en")
    assert (retrieved.id, retrieved.object, retrieved.owned_by) == ("tiny.en", "model", "auris")
    with pytest.raises(NotFoundError) as error:
        client.models.retrieve("whisper-1")
    assert error.value.status_code == 404 and error.value.code == "model_not_found", error.value
    assert "'whisper-1' does not exist on this server" in str(error.value)
