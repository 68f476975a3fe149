"""`auris serve` against bad input, hostile clients and overload (docs/SERVER.md, "Errors").

Each case gets its status and OpenAI's error JSON with a message; afterwards the server still
answers /health and still transcribes jfk as the CLI does. Raw sockets where `requests` cannot
misbehave enough (a 1-GB Content-Length, a body one byte a second, a client that hangs up).

    build/pyenv/bin/python -m pytest tests/server/test_bad_input.py -v
"""
import concurrent.futures
import json
import os
import pathlib
import re
import select
import socket
import stat
import subprocess
import threading
import time
import urllib.parse

import pytest
import requests

from conftest import VAD_MODEL, Server, audio

TRANSCRIPTIONS = "/v1/audio/transcriptions"


# --- helpers -------------------------------------------------------------------------------------

def multipart(fields, file=None, boundary="auris-test-boundary-7d1c"):
    """(content type, body) of a multipart/form-data request; file is (filename, bytes) or None."""
    parts = []
    for name, value in fields.items():
        for v in value if isinstance(value, list) else [value]:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{v}\r\n'.encode())
    if file is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file[0]}"\r\n'
                     f'Content-Type: application/octet-stream\r\n\r\n'.encode() + file[1] + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


def connect(server, timeout=30):
    url = urllib.parse.urlsplit(server.url)
    return socket.create_connection((url.hostname, url.port), timeout=timeout)


def request_head(server, path, content_type, length=None, extra=""):
    url = urllib.parse.urlsplit(server.url)
    head = f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: {content_type}\r\n"
    if length is not None:
        head += f"Content-Length: {length}\r\n"
    return (head + extra + "\r\n").encode()


def read_response(sock, timeout):
    """(status, headers, body) of one HTTP/1.1 response; raises socket.timeout past `timeout` seconds."""
    deadline = time.monotonic() + timeout
    data = b""

    def more():
        nonlocal data
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection; got %r" % data[:300])
        data += chunk

    while b"\r\n\r\n" not in data:
        more()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    data = body
    if "content-length" in headers:
        while len(data) < int(headers["content-length"]):
            more()
        return status, headers, data[:int(headers["content-length"])]
    if headers.get("transfer-encoding", "").lower() == "chunked":
        out = b""
        while True:
            while b"\r\n" not in data:
                more()
            size_line, _, data = data.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(data) < size + 2:
                more()
            out, data = out + data[:size], data[size + 2:]
            if size == 0:
                return status, headers, out
    try:  # the body runs to the end of the connection
        while True:
            more()
    except ConnectionError:
        return status, headers, data


def check_error(status, body, expected_status, error_type, code=None):
    """The status, and OpenAI's {"error": {"message", "type", "param", "code"}}."""
    assert status == expected_status, f"got {status}, expected {expected_status}: {body[:500]!r}"
    payload = json.loads(body)
    error = payload["error"]
    assert isinstance(error.get("message"), str) and error["message"].strip(), payload
    assert error.get("type") == error_type, payload
    assert "param" in error and "code" in error, payload
    if code is not None:
        assert error["code"] == code, payload
    return error


def check_response(response, expected_status, error_type="invalid_request_error", code=None):
    return check_error(response.status_code, response.content, expected_status, error_type, code)


def upload_files(directory):
    return {p for p in pathlib.Path(directory).rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def jfk_text(cli):
    """The CLI's text of jfk (its stdout is the stripped text), which a healthy server must give."""
    return cli("transcribe", "--model", "tiny.en", "--batch-size", "8", "--threads", "2", audio("jfk.flac")).strip()


@pytest.fixture(scope="module")
def healthy(jfk_text):
    """healthy(server, transcribe=True): /health is 200 and (optionally) jfk still transcribes right."""
    jfk = audio("jfk.flac")

    def check(server, transcribe=True, headers=None):
        r = requests.get(server.url + "/health", timeout=10)
        assert r.status_code == 200 and r.json() == {"status": "ok"}, (r.status_code, r.text)
        if transcribe:
            r = requests.post(server.url + TRANSCRIPTIONS, files={"file": (jfk.name, jfk.read_bytes())},
                              data={"model": "tiny.en"}, headers=headers or {}, timeout=120)
            assert r.status_code == 200, (r.status_code, r.text)
            assert r.json() == {"text": jfk_text}
        assert server.process.poll() is None, "the server died:\n" + "".join(server.log[-30:])

    return check


@pytest.fixture(scope="module")
def upload_dir(server):
    """The session server's upload directory: read off /proc/PID/fd while an upload is half sent."""
    content_type, body = multipart({"model": "tiny.en"}, ("jfk.flac", audio("jfk.flac").read_bytes()))
    fd_dir = pathlib.Path(f"/proc/{server.process.pid}/fd")
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=len(body)) + body[:len(body) // 2])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for fd in fd_dir.iterdir():
                try:
                    target = pathlib.Path(os.readlink(fd))
                except OSError:
                    continue
                if target.parent.name.startswith("auris-serve-"):
                    mode = stat.S_IMODE(target.stat().st_mode)
                    dir_mode = stat.S_IMODE(target.parent.stat().st_mode)
                    assert mode & 0o077 == 0 and dir_mode & 0o077 == 0, (target, oct(mode), oct(dir_mode))
                    return target.parent
            time.sleep(0.05)
    pytest.fail("no upload file open in the server while an upload was half sent")


def post(server, data=None, files=None, **kwargs):
    return requests.post(server.url + TRANSCRIPTIONS, data=data, files=files, timeout=60, **kwargs)


def jfk_upload():
    jfk = audio("jfk.flac")
    return {"file": (jfk.name, jfk.read_bytes())}


@pytest.fixture(scope="module")
def mp3(tmp_path_factory):
    path = tmp_path_factory.mktemp("mp3") / "jfk.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(audio("jfk.flac")), str(path)], check=True)
    return path.read_bytes()


# --- bad uploads ---------------------------------------------------------------------------------

def test_uploads_are_private(upload_dir):
    """An upload in flight is a 0600 file in a 0700 directory (checked while finding that directory)."""
    assert upload_dir.is_dir()


@pytest.mark.parametrize("name, content", [
    ("notes.txt", b"this is not audio, just words in a file\n" * 200),
    ("random.wav", bytes(range(256)) * 64),
    ("empty.wav", b""),
])
def test_not_audio(server, healthy, name, content):
    check_response(post(server, {"model": "tiny.en"}, {"file": (name, content)}), 400)
    healthy(server)


def test_truncated_mp3(server, healthy, mp3):
    """300 bytes (inside the ID3 tag: nothing to decode) is a 400; 40% of the file decodes partly or is a 400."""
    check_response(post(server, {"model": "tiny.en"}, {"file": ("cut.mp3", mp3[:300])}), 400)
    r = post(server, {"model": "tiny.en"}, {"file": ("cut40.mp3", mp3[:len(mp3) * 4 // 10])})
    assert r.status_code in (200, 400), (r.status_code, r.text)
    if r.status_code == 400:
        check_response(r, 400)
    healthy(server)


def test_no_file_field(server, healthy):
    check_response(post(server, {"model": "tiny.en", "response_format": "json"}, {"other": ("x", b"y")}), 400)
    check_response(post(server, {"model": "tiny.en"}), 400)  # urlencoded: not multipart
    r = requests.post(server.url + TRANSCRIPTIONS, json={"model": "tiny.en", "file": "jfk.flac"}, timeout=30)
    check_response(r, 400)
    healthy(server)


@pytest.mark.parametrize("field, value", [
    ("response_format", "xml"),
    ("response_format", "diarized_json"),
    ("language", "xx"),
    ("temperature", "-1"),
    ("temperature", "1.5"),
    ("temperature", "banana"),
    ("beam_size", "0"),
    ("beam_size", "17"),
    ("timestamp_granularities[]", "sentence"),
    ("vad_threshold", "2"),
])
def test_bad_field(server, healthy, field, value):
    fields = {"model": "tiny.en", field: value}
    if field.startswith("vad_"):
        fields["vad_filter"] = "true"
    check_response(post(server, fields, jfk_upload()), 400)
    healthy(server, transcribe=False)


@pytest.mark.parametrize("field", ["prompt", "hotwords"])
def test_text_field_that_is_not_utf8(server, healthy, field):
    r = post(server, {"model": "tiny.en", field: b"\xff\xfe not text"}, jfk_upload())
    check_response(r, 400)
    assert "UTF-8" in r.json()["error"]["message"]
    assert r.json()["error"]["param"] == field
    healthy(server, transcribe=False)


@pytest.mark.parametrize("fields", [
    {f"f{i}": "1" for i in range(1001)},                    # a thousand and one fields
    {"prompt": ["x" * 65536] * 17},                           # 17 fields of 64 KiB: over 1 MiB in all
])
def test_text_fields_past_their_total(server, healthy, fields):
    """The text fields stay in memory (the file goes to disk): a form of a million one-byte fields
    held three times its upload limit before they were bounded in all."""
    r = post(server, {"model": "tiny.en", **fields}, jfk_upload())
    check_response(r, 400, code="invalid_value")
    assert "more than 1000 text fields or more than 1 MiB" in r.json()["error"]["message"]
    healthy(server, transcribe=False)
    assert post(server, {"model": "tiny.en", **{f"f{i}": "1" for i in range(900)}}, jfk_upload()).status_code == 200


@pytest.mark.parametrize("filename", ["a\r\nb.flac", "a\nb.flac"])
def test_filename_with_a_line_break(server, healthy, filename):
    """A raw line break in the quoted filename ends the part's header early, leaving a part with no
    name: the message says so (it said the nameless field was over 64 KiB), and the connection the
    client asked to close carries one Connection header, not two."""
    content_type, body = multipart({"model": "tiny.en"}, ("jfk.flac", audio("jfk.flac").read_bytes()))
    body = body.replace(b'filename="jfk.flac"', b'filename="' + filename.encode() + b'"')
    with connect(server) as sock:
        try:
            sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=len(body),
                                      extra="Connection: close\r\n") + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answers at the nameless part, and may close before the rest is sent
        raw = b""
        sock.settimeout(30)
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    check_error(status, payload, 400, "invalid_request_error")
    assert "no name" in json.loads(payload)["error"]["message"], payload
    connection_lines = [l for l in head.split(b"\r\n") if l.lower().startswith(b"connection:")]
    assert len(connection_lines) == 1, head
    healthy(server, transcribe=False)


def test_bad_fields_leave_the_server_working(server, healthy):
    healthy(server)


@pytest.mark.parametrize("model", ["/etc/passwd", "../tiny.en", "tiny.en/../base", "large-v3", "",
                                   str(pathlib.Path.home() / ".cache/auris/models/tiny.en")])
def test_unknown_model(server, healthy, model):
    r = post(server, {"model": model}, jfk_upload())
    if model == "":
        # An empty field is no model: the default one (or a 400); never a path, never a 5xx.
        assert r.status_code in (200, 400), (r.status_code, r.text)
        return
    check_response(r, 404, code="model_not_found")
    healthy(server, transcribe=False)


def test_model_path_is_never_opened(server, healthy, tmp_path):
    """A FIFO named like a served model: opening it would block the server until a writer comes."""
    fifo_dir = tmp_path / "models"
    fifo_dir.mkdir()
    fifo = fifo_dir / "tiny.en"
    os.mkfifo(fifo)
    try:
        for model in (str(fifo), str(fifo_dir / ".." / "models" / "tiny.en")):
            try:
                r = requests.post(server.url + TRANSCRIPTIONS, data={"model": model}, files=jfk_upload(), timeout=15)
            except requests.Timeout:
                pytest.fail(f"model={model!r}: no answer in 15 s (did the server open the FIFO?)")
            check_response(r, 404, code="model_not_found")
    finally:
        try:  # wake a reader blocked on the FIFO, if any
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    healthy(server)


# --- sizes and slow clients ----------------------------------------------------------------------

def test_huge_content_length_is_refused_before_the_body(server, healthy):
    """1 GB announced: 413 comes back though not one byte of the body was sent."""
    content_type, _ = multipart({"model": "tiny.en"})
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=1 << 30))
        status, headers, body = read_response(sock, timeout=10)
    check_error(status, body, 413, "invalid_request_error", "file_too_large")
    healthy(server)


@pytest.mark.parametrize("lengths", [["-5"], ["120", "130"], ["1e3"]])
def test_content_length_that_is_not_one_number(server, healthy, lengths):
    """-5 is not 2^64 - 5 (a 413), and two lengths are not the first one: both are bad requests."""
    content_type, _ = multipart({"model": "tiny.en"})
    extra = "".join(f"Content-Length: {v}\r\n" for v in lengths)
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, extra=extra))
        status, headers, body = read_response(sock, timeout=10)
    check_error(status, body, 400, "invalid_request_error")
    healthy(server)


def test_unread_body_is_not_taken_for_a_request(server):
    """After answering before the body (413 on Content-Length), the announced body's bytes are not read
    as the next request on the connection: the server closes it (else a body could smuggle a request)."""
    content_type, _ = multipart({"model": "tiny.en"})
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=1 << 30))
        status, headers, body = read_response(sock, timeout=10)
        check_error(status, body, 413, "invalid_request_error", "file_too_large")
        try:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")  # bytes of the 1-GB body
            second = read_response(sock, timeout=5)
        except (ConnectionError, socket.timeout, OSError):
            second = None
    assert second is None, (f"the 413's connection stayed open ({headers.get('connection')!r}, "
                            f"{headers.get('keep-alive')!r}) and the body's bytes were answered as a request: "
                            f"{second[0]} {second[2][:100]!r}")


@pytest.mark.parametrize("path", ["/v1/no-such-route", "/v1/audio/transcription"])
def test_a_body_sent_to_no_route_is_not_read(server, healthy, path):
    """A 1-GB body announced to a path that is no route: 404 before the body (the HTTP library's own
    404 held a whole body in memory first, and a chunked one without limit), and the connection is
    closed rather than the body read as requests."""
    content_type, _ = multipart({"model": "tiny.en"})
    for framing in ({"length": 1 << 30}, {"extra": "Transfer-Encoding: chunked\r\n"}):
        with connect(server) as sock:
            sock.sendall(request_head(server, path, content_type, **framing))
            status, headers, body = read_response(sock, timeout=10)
            assert status == 404 and headers.get("connection") == "close", (framing, status, headers, body[:200])
            assert json.loads(body)["error"]["message"].startswith("no such route")
    healthy(server)


@pytest.mark.parametrize("case", ["key", "size"])
def test_expect_100_continue_is_refused_before_the_body(healthy, tmp_path, case):
    """curl asks before a large upload (Expect: 100-continue): a wrong key or a size over the limit is
    answered with its error, not with 100 Continue and then the error once the upload came."""
    s = Server("--model", "tiny.en", "--api-key", "secret", "--max-upload-mb", "20", "--threads", "2",
               env={"TMPDIR": str(tmp_path)})
    try:
        content_type, _ = multipart({"model": "tiny.en"})
        key = "wrong" if case == "key" else "secret"
        length = 1000 if case == "key" else 1 << 30
        with connect(s) as sock:
            sock.sendall(request_head(s, TRANSCRIPTIONS, content_type, length=length,
                                      extra=f"Authorization: Bearer {key}\r\nExpect: 100-continue\r\n"))
            status, headers, body = read_response(sock, timeout=10)
        if case == "key":
            check_error(status, body, 401, "invalid_request_error", "invalid_api_key")
        else:
            check_error(status, body, 413, "invalid_request_error", "file_too_large")
        assert headers.get("connection") == "close", headers
        healthy(s, headers={"Authorization": "Bearer secret"})
    finally:
        code = s.stop()
    assert code == 0, f"exit {code} after SIGTERM:\n" + "".join(s.log[-30:])


def test_too_large_while_streaming_in(server, healthy):
    """No Content-Length (chunked): the server counts the upload as it comes (the fixture allows 20 MB)."""
    content_type, _ = multipart({"model": "tiny.en"})
    boundary = content_type.split("boundary=")[1]
    preamble = (f'--{boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ntiny.en\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n'
                f"Content-Type: application/octet-stream\r\n\r\n").encode()
    chunk = os.urandom(1 << 20)
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, extra="Transfer-Encoding: chunked\r\n")
                     + b"%x\r\n" % len(preamble) + preamble + b"\r\n")
        try:
            for _ in range(40):  # 40 MB at most
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                if select.select([sock], [], [], 0)[0]:
                    break
        # A server that has stopped reading to answer can leave a send waiting on full buffers
        # until the connection is closed: the answer is read below either way.
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
        status, headers, body = read_response(sock, timeout=10)
    check_error(status, body, 413, "invalid_request_error", "file_too_large")
    healthy(server)


def slow_body(server, results):
    """A body one byte a second: 408 once --request-timeout (10 s in the fixture) is over."""
    content_type, body = multipart({"model": "tiny.en"}, ("jfk.flac", audio("jfk.flac").read_bytes()))
    start = time.monotonic()
    with connect(server) as sock:
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=len(body)))
        sent = 0
        while time.monotonic() - start < 30:
            if select.select([sock], [], [], 1.0)[0]:
                break
            try:
                sock.sendall(body[sent:sent + 1])
                sent += 1
            except (BrokenPipeError, ConnectionResetError):
                break
        else:
            results["body"] = ("no answer in 30 s", sent)
            return
        try:
            results["body"] = (read_response(sock, timeout=5), time.monotonic() - start)
        except Exception as e:  # noqa: BLE001 - reported by the test
            results["body"] = (f"{type(e).__name__}: {e}", time.monotonic() - start)


def slow_headers(server, results):
    """Headers one byte a second (slowloris): the server answers 408 or hangs up; it never waits forever."""
    head = request_head(server, TRANSCRIPTIONS, "multipart/form-data; boundary=x", length=100) + b"x" * 100
    start = time.monotonic()
    with connect(server) as sock:
        for i in range(len(head)):
            if time.monotonic() - start > 30:
                results["headers"] = ("still open after 30 s", i)
                return
            if select.select([sock], [], [], 1.0)[0]:
                break
            try:
                sock.sendall(head[i:i + 1])
            except (BrokenPipeError, ConnectionResetError):
                break
        try:
            results["headers"] = (read_response(sock, timeout=5), time.monotonic() - start)
        except ConnectionError:
            results["headers"] = ("closed", time.monotonic() - start)
        except Exception as e:  # noqa: BLE001
            results["headers"] = (f"{type(e).__name__}: {e}", time.monotonic() - start)


def test_slow_clients(server, healthy):
    results = {}
    log_start = len(server.log)
    threads = [threading.Thread(target=f, args=(server, results)) for f in (slow_body, slow_headers)]
    for t in threads:
        t.start()
    # Meanwhile the server keeps serving others.
    time.sleep(2)
    healthy(server)
    for t in threads:
        t.join(40)
    problems = []
    answer, seconds = results["body"]
    if not isinstance(answer, tuple):
        problems.append(f"slow body: {answer} after {seconds:.1f} s")
    else:
        status, _, body = answer
        try:
            check_error(status, body, 408, "invalid_request_error", "timeout")
        except AssertionError as e:
            problems.append(f"slow body: {e}")
        if seconds >= 16:
            problems.append(f"slow body: 408 came after {seconds:.1f} s with --request-timeout 10")
    answer, seconds = results["headers"]
    if answer != "closed" and not isinstance(answer, tuple):
        problems.append(f"slow headers: {answer} after {seconds:.1f} s")
    elif isinstance(answer, tuple):
        try:
            check_error(answer[0], answer[2], 408, "invalid_request_error", "timeout")
        except AssertionError as e:
            problems.append(f"slow headers: {e}")
    if isinstance(results["body"][0], tuple):
        # The line may follow the answer by a moment: the server writes it after the 408, and the
        # log reaches us through a pipe and a reader thread.
        deadline = time.monotonic() + 5
        while True:
            logged = "".join(server.log[log_start:])
            if re.search(r'"POST /v1/audio/transcriptions" 408 ', logged):
                break
            if time.monotonic() > deadline:
                problems.append("the 408 has no access-log line:\n" + logged)
                break
            time.sleep(0.1)
    assert not problems, "\n".join(problems)
    healthy(server)


def test_slow_connections_do_not_starve_the_server():
    """20 connections trickling their headers a byte a second (more than the threads of a --max-queue 1
    server): once --request-timeout (3 s) is over they are cut, and /health answers."""
    s = Server("--model", "tiny.en", "--max-queue", "1", "--request-timeout", "3", "--threads", "2")
    stop = threading.Event()
    sockets = []

    def trickle():
        with connect(s) as sock:
            sockets.append(sock)
            for byte in b"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 100:
                if stop.is_set():
                    return
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    return
                time.sleep(1)

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(20)]
    try:
        for t in threads:
            t.start()
        time.sleep(2)
        start = time.monotonic()
        try:
            r = requests.get(s.url + "/health", timeout=15)
            answer = r.status_code
        except requests.RequestException as e:
            answer = type(e).__name__
        waited = time.monotonic() - start
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        code = s.stop()
    assert answer == 200, f"/health with 20 slow connections open: {answer} after {waited:.1f} s"
    assert code == 0, f"exit {code} after SIGTERM:\n" + "".join(s.log[-30:])


# --- clients that go away ------------------------------------------------------------------------

def in_flight(server):
    text = requests.get(server.url + "/metrics", timeout=10).text
    match = re.search(r"^auris_requests_in_flight(?:\{[^}]*\})? (\S+)$", text, re.M)
    assert match, "no auris_requests_in_flight in /metrics:\n" + text[:2000]
    return float(match.group(1))


def test_client_disconnects(server, healthy):
    """Hang up after sending a long-form request, and in the middle of an upload: the server carries on."""
    long_form = audio("longform/hifitts-dev-concat.flac").read_bytes()
    content_type, body = multipart({"model": "tiny.en"}, ("long.flac", long_form))
    with connect(server) as sock:  # the whole request, then gone
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=len(body)) + body)
        time.sleep(0.5)
    with connect(server) as sock:  # half the upload, then gone
        sock.sendall(request_head(server, TRANSCRIPTIONS, content_type, length=len(body)) + body[:len(body) // 2])
    healthy(server)
    # The abandoned transcription ends (its windows not started are cancelled).
    deadline = time.monotonic() + 60
    while in_flight(server) > 0:
        assert time.monotonic() < deadline, "the abandoned request is still in flight after 60 s"
        time.sleep(0.5)
    healthy(server)


# --- servers of their own ------------------------------------------------------------------------

def test_api_key(healthy, tmp_path):
    s = Server("--model", "tiny.en", "--api-key", "secret", "--threads", "2", env={"TMPDIR": str(tmp_path)})
    try:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "secret"},
                        {"Authorization": "Basic secret"}):
            r = requests.post(s.url + TRANSCRIPTIONS, data={"model": "tiny.en"}, files=jfk_upload(),
                              headers=headers, timeout=60)
            check_response(r, 401, code="invalid_api_key")
            r = requests.get(s.url + "/v1/models", headers=headers, timeout=10)
            check_response(r, 401, code="invalid_api_key")
        r = requests.get(s.url + "/v1/models", headers={"Authorization": "Bearer secret"}, timeout=10)
        assert r.status_code == 200 and [m["id"] for m in r.json()["data"]] == ["tiny.en"], r.text
        healthy(s, headers={"Authorization": "Bearer secret"})
    finally:
        code = s.stop()
    assert code == 0, f"exit {code} after SIGTERM:\n" + "".join(s.log[-30:])
    assert not upload_files(tmp_path), list(tmp_path.rglob("*"))


def test_audio_past_the_duration_limit(healthy, tmp_path, long_form_mp3):
    """--max-audio-minutes counts the decoded samples, not the header: a 232-s MP3 of 0.9 MB gets 413,
    with VAD too, and jfk (11 s) passes under the 3-minute limit."""
    if not VAD_MODEL.exists():
        pytest.skip(f"{VAD_MODEL} is missing")
    s = Server("--model", "tiny.en", "--max-audio-minutes", "3", "--threads", "2", "--vad-model", str(VAD_MODEL),
               env={"TMPDIR": str(tmp_path)})
    try:
        for fields in ({"model": "tiny.en"}, {"model": "tiny.en", "vad_filter": "true"}):
            r = requests.post(s.url + TRANSCRIPTIONS, data=fields, files={"file": ("long.mp3", long_form_mp3)}, timeout=60)
            error = check_response(r, 413, code="audio_too_long")
            assert error["param"] == "file" and "long.mp3 is longer than 3 minutes" in error["message"], error
        healthy(s)
    finally:
        code = s.stop()
    assert code == 0, f"exit {code} after SIGTERM:\n" + "".join(s.log[-30:])
    assert not upload_files(tmp_path), list(tmp_path.rglob("*"))


@pytest.fixture(scope="module")
def long_form_mp3(tmp_path_factory):
    """The 232-s long-form file as a 32-kbps MP3: the same audio in a third of the FLAC's 3 MB, so that
    1,000 uploads take seconds, not half a minute, on two cores."""
    path = tmp_path_factory.mktemp("long") / "long.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(audio("longform/hifitts-dev-concat.flac")), "-ac", "1",
                    "-ar", "16000", "-b:a", "32k", str(path)], check=True)
    return path.read_bytes()


def test_over_the_queue_limit(healthy, tmp_path, long_form_mp3):
    """--max-queue 2 --max-batch 1 and 1,000 long-form requests from 64 threads: 429s with Retry-After,
    no 5xx, hardly a connection error; afterwards it serves again and stops cleanly."""
    s = Server("--model", "tiny.en", "--max-queue", "2", "--max-batch", "1", "--threads", "2",
               env={"TMPDIR": str(tmp_path)})
    counts, retry_after, bad, lock = {}, [], [], threading.Lock()
    private = []  # (mode of a file, mode of its directory) seen while uploads are in flight
    stop_scanning = threading.Event()

    def scan():
        while not stop_scanning.wait(0.2):
            for p in tmp_path.rglob("*"):
                try:
                    if p.is_file():
                        private.append((stat.S_IMODE(p.stat().st_mode), stat.S_IMODE(p.parent.stat().st_mode), p))
                except FileNotFoundError:
                    pass

    def one(i):
        try:
            r = requests.post(s.url + TRANSCRIPTIONS, data={"model": "tiny.en"},
                              files={"file": ("long.mp3", long_form_mp3)}, timeout=(5, 5))
            key = r.status_code
            if r.status_code == 429:
                check_response(r, 429, "rate_limit_error", "queue_full")
                with lock:
                    retry_after.append(r.headers.get("Retry-After"))
            elif r.status_code >= 500:
                with lock:
                    bad.append((r.status_code, r.text[:300]))
        except requests.Timeout:
            key = "timeout"  # an admitted request, longer than the client waits
        except requests.ConnectionError as e:
            key = "connection error"
            with lock:
                bad.append(("connection error", str(e)[:300]))
        with lock:
            counts[key] = counts.get(key, 0) + 1

    scanner = threading.Thread(target=scan, daemon=True)
    scanner.start()
    try:
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(64) as pool:
            list(pool.map(one, range(1000)))
        flood_seconds = time.monotonic() - start
        stop_scanning.set()
        print(f"1000 requests in {flood_seconds:.1f} s: {counts}")
        assert not any(isinstance(k, int) and k >= 500 for k in counts), (counts, bad[:5])
        assert counts.get(429, 0) > 0, counts
        assert all(v is not None and re.fullmatch(r"\d+", v) for v in retry_after), set(retry_after)
        assert counts.get("connection error", 0) <= 10, (counts, bad[:5])
        for mode, dir_mode, path in private:
            assert mode & 0o077 == 0, f"{path} has mode {mode:o}"
            assert dir_mode & 0o077 == 0 or path.parent == tmp_path, f"{path.parent} has mode {dir_mode:o}"
        # Afterwards: abandoned requests drain, and it serves again (a 429 meanwhile says when to retry).
        deadline = time.monotonic() + 60
        while True:
            r = requests.post(s.url + TRANSCRIPTIONS, data={"model": "tiny.en"}, files=jfk_upload(), timeout=120)
            if r.status_code != 429:
                break
            assert time.monotonic() < deadline, "still 429 60 s after the flood: abandoned requests hold the queue"
            time.sleep(min(2, float(r.headers.get("Retry-After", 1))))
        assert r.status_code == 200, (r.status_code, r.text)
        healthy(s)
        metrics = requests.get(s.url + "/metrics", timeout=10).text
        assert re.search(r'^auris_requests_total\{status="429"\} (\d+)', metrics, re.M), metrics[:2000]
    finally:
        stop_scanning.set()
        code = s.stop()
    assert code == 0, f"exit {code} after SIGTERM:\n" + "".join(s.log[-30:])
    assert not upload_files(tmp_path), list(tmp_path.rglob("*"))


def test_no_upload_files_left(server, upload_dir):
    """Every upload file of the session server's requests is gone (bad, slow, abandoned ones too)."""
    deadline = time.monotonic() + 30
    while (in_flight(server) > 0 or upload_files(upload_dir)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not upload_files(upload_dir), sorted(map(str, upload_files(upload_dir)))
