"""`GET /v1/realtime` end to end: OpenAI's realtime transcription sessions over a WebSocket on the
server's port, driven by the official `openai` client (client.realtime.connect, intent=transcription)
on loopback. A committed buffer and server-VAD turns give the transcript as deltas then a completed
event; G.711 and the beta API's session shape work; bad chunks get error events and the session goes
on; clients that vanish free their session; past --max-sessions the upgrade gets 429; SIGTERM
completes the open items and closes with 1001."""
import base64
import json
import re
import socket
import subprocess
import time

import pytest
import requests
import websockets.exceptions
import websockets.sync.client
from openai import OpenAI

from conftest import DATA, Server, audio

JFK = "and so my fellow americans ask not what your country can do for you ask what you can do for your country"
COMPLETED = "conversation.item.input_audio_transcription.completed"


def words(text):
    return re.sub(r"[^a-z0-9' ]", " ", text.lower()).split()


def raw(path, *ffmpeg_args):
    """The file decoded by FFmpeg to raw audio (the args pick the format)."""
    return subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), *ffmpeg_args, "-"],
                          capture_output=True, check=True).stdout


def pcm24k(path, silence_after=0.0):
    return raw(path, "-af", f"apad=pad_dur={silence_after}", "-ar", "24000", "-ac", "1", "-f", "s16le")


def vad_model():
    path = DATA / "vad" / "for-tests-silero-v6.2.0-ggml.bin"
    if not path.exists():
        pytest.skip(f"{path} is missing")
    return str(path)


@pytest.fixture(scope="module")
def realtime_server():
    s = Server("--model", "tiny.en", "--max-sessions", "2", "--threads", "2", "--vad-model", vad_model())
    yield s
    assert s.stop() == 0, "".join(s.log)


def client_for(server, api_key="unused"):
    return OpenAI(base_url=server.url + "/v1", api_key=api_key)


def connect(server):
    return client_for(server).realtime.connect(extra_query={"intent": "transcription"})


def send_audio(connection, data, chunk_bytes=4800):
    for i in range(0, len(data), chunk_bytes):
        connection.input_audio_buffer.append(audio=base64.b64encode(data[i:i + chunk_bytes]).decode())


def events_until(connection, type_, count=1, timeout=120):
    """Every event up to the count-th of the given type."""
    events, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = connection.recv()
        events.append(event)
        if sum(e.type == type_ for e in events) == count:
            return events
    raise AssertionError(f"no {type_} in {timeout} s: {[e.type for e in events]}")


def realtime_sessions(server):
    metrics = requests.get(server.url + "/metrics", timeout=10).text
    return int(re.search(r"^auris_realtime_sessions (\d+)", metrics, re.M).group(1))


def test_a_committed_buffer_is_transcribed(realtime_server):
    with connect(realtime_server) as connection:
        created = connection.recv()
        assert created.type == "session.created"
        assert created.session.type == "transcription"
        connection.session.update(session={
            "type": "transcription",
            "audio": {"input": {"format": {"type": "audio/pcm", "rate": 24000},
                                "transcription": {"model": "whisper-1", "language": "en"},
                                "turn_detection": None}}})
        send_audio(connection, pcm24k(audio("jfk.flac")))
        connection.input_audio_buffer.commit()
        events = events_until(connection, COMPLETED)
    types = [e.type for e in events]
    assert types[0] == "session.updated"
    assert events[0].session.audio.input.turn_detection is None
    assert types[-2:] == ["input_audio_buffer.committed", COMPLETED]
    deltas = [e for e in events if e.type == "conversation.item.input_audio_transcription.delta"]
    assert deltas, types
    completed = events[-1]
    assert all(d.item_id == completed.item_id for d in deltas)
    assert "".join(d.delta for d in deltas) == completed.transcript
    assert words(completed.transcript) == JFK.split()
    assert completed.usage.seconds == pytest.approx(11.0, abs=0.1)


def test_server_vad_turns_with_g711_and_the_beta_session_shape(realtime_server):
    mulaw = raw(audio("jfk.flac"), "-af", "apad=pad_dur=2", "-ar", "8000", "-ac", "1", "-f", "mulaw")
    with connect(realtime_server) as connection:
        connection.recv()
        connection.send({"type": "transcription_session.update",
                         "session": {"input_audio_format": "g711_ulaw",
                                     "turn_detection": {"type": "server_vad", "silence_duration_ms": 800}}})
        updated = connection.recv()
        assert updated.type == "transcription_session.updated", updated
        send_audio(connection, mulaw, chunk_bytes=1600)
        events = events_until(connection, "input_audio_buffer.speech_stopped")
        events += events_until(connection, COMPLETED)
    types = [e.type for e in events]
    assert types[0] == "input_audio_buffer.speech_started"
    assert events[0].audio_start_ms < 1000
    transcripts = [e.transcript for e in events if e.type == COMPLETED]
    # 8-kHz telephone audio through tiny.en: the first turn, not word for word ("so am I fellow").
    assert {"fellow", "americans"} <= set(words(transcripts[0])), transcripts


def test_bad_chunks_get_errors_and_the_session_goes_on(realtime_server):
    with connect(realtime_server) as connection:
        connection.recv()
        connection.session.update(session={"type": "transcription", "audio": {"input": {"turn_detection": None}}})
        assert connection.recv().type == "session.updated"
        connection.send({"type": "input_audio_buffer.append", "audio": "this is not base64!", "event_id": "bad"})
        error = connection.recv()
        assert error.type == "error" and error.error.code == "invalid_audio" and error.error.event_id == "bad", error
        connection.send({"type": "input_audio_buffer.append", "audio": 42})
        assert connection.recv().error.code == "missing_audio"
        connection.send({"type": "response.create"})
        assert connection.recv().error.code == "unsupported_event"
        send_audio(connection, pcm24k(audio("jfk.flac")))
        connection.input_audio_buffer.commit()
        events = events_until(connection, COMPLETED)
    assert words(events[-1].transcript) == JFK.split()


def peak_memory_kib(server):
    with open(f"/proc/{server.process.pid}/status") as status:
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status.read(), re.M).group(1))


def test_hostile_events_get_errors_and_the_session_goes_on(realtime_server):
    url = realtime_server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
    with websockets.sync.client.connect(url, max_size=None) as ws:
        assert json.loads(ws.recv())["type"] == "session.created"
        # Printed back in the error about `include`, it would recurse a million deep and end the server.
        n = 1_000_000
        ws.send('{"type": "session.update", "session": {"include": [' + "[" * n + "]" * n + "]}}")
        error = json.loads(ws.recv())
        assert error["type"] == "error" and error["error"]["code"] == "invalid_json", error
        assert "nested deeper than 64 levels" in error["error"]["message"]
        # 16 MiB of "[0,0,...": eight million values held 270 MB once parsed.
        before = peak_memory_kib(realtime_server)
        ws.send("[" + "0," * (8 * 1024 * 1024 - 2) + "0]")
        error = json.loads(ws.recv())
        assert error["error"]["code"] == "invalid_json" and "more than 4096 values" in error["error"]["message"], error
        assert peak_memory_kib(realtime_server) - before < 100 * 1024
        ws.send(json.dumps({"type": "session.update", "session": {"include": ["auris.tentative"]}}))
        assert json.loads(ws.recv())["type"] == "session.updated"
    assert requests.get(realtime_server.url + "/health", timeout=10).status_code == 200


def test_clients_that_vanish_free_their_session(realtime_server):
    url = realtime_server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
    data = pcm24k(audio("jfk.flac"))
    for _ in range(3):  # more than --max-sessions: each place must come back
        ws = websockets.sync.client.connect(url)
        assert json.loads(ws.recv())["type"] == "session.created"
        ws.send(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(data[:96000]).decode()}))
        ws.socket.shutdown(socket.SHUT_RDWR)  # gone mid-stream, without a close frame
        ws.socket.close()
        deadline = time.monotonic() + 30
        while realtime_sessions(realtime_server) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert realtime_sessions(realtime_server) == 0
    assert requests.get(realtime_server.url + "/health", timeout=10).status_code == 200


def test_sessions_past_the_limit_get_429(realtime_server):
    url = realtime_server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
    open_ = [websockets.sync.client.connect(url) for _ in range(2)]
    try:
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            websockets.sync.client.connect(url)
        assert refused.value.response.status_code == 429
        assert json.loads(refused.value.response.body)["error"]["code"] == "too_many_sessions"
    finally:
        for ws in open_:
            ws.close()


def test_upgrade_errors(realtime_server):
    plain = requests.get(realtime_server.url + "/v1/realtime", timeout=10)
    assert plain.status_code == 426 and plain.json()["error"]["code"] == "upgrade_required"
    base = realtime_server.url.replace("http://", "ws://") + "/v1/realtime"
    for query, status in (("?model=large-v3", 404), ("?intent=conversation", 400)):
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            websockets.sync.client.connect(base + query)
        assert refused.value.response.status_code == status


def test_api_key_and_sigterm_completes_open_items():
    server = Server("--model", "tiny.en", "--api-key", "sesame", "--threads", "2")
    try:
        with pytest.raises(Exception) as refused:
            with client_for(server, "wrong").realtime.connect(extra_query={"intent": "transcription"}) as c:
                c.recv()
        assert "401" in str(refused.value)
        # A browser cannot send the header: the key as OpenAI's subprotocol, "realtime" named in the answer.
        url = server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
        with websockets.sync.client.connect(url, subprotocols=["realtime", "openai-insecure-api-key.sesame"]) as ws:
            assert ws.subprotocol == "realtime"
            assert json.loads(ws.recv())["type"] == "session.created"
        with client_for(server, "sesame").realtime.connect(extra_query={"intent": "transcription"}) as connection:
            connection.recv()
            connection.session.update(session={"type": "transcription", "audio": {"input": {"turn_detection": None}}})
            connection.recv()
            send_audio(connection, pcm24k(audio("jfk.flac")))
            time.sleep(1)
            server.process.send_signal(15)
            events = events_until(connection, COMPLETED, timeout=60)
            assert words(events[-1].transcript)[:4] == ["and", "so", "my", "fellow"]
            with pytest.raises(Exception):  # then the server closes the session: 1001, going away
                connection.recv()
        assert server.process.wait(60) == 0
    finally:
        server.stop()
