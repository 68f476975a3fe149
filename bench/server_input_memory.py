"""What hostile inputs cost `auris serve`: each case against a fresh server (tiny.en), its answer and
the server's peak resident memory (VmHWM) before and after, and whether the server is still up.

- form: one POST of 1.5 million one-byte text fields and jfk (about 91 MB);
- realtime-values: one realtime event of 16 MiB, "[0,0,...]" (eight million values);
- realtime-deep: one realtime event nested a million deep in its `include` (2 MB);
- huge-metadata: a 60-byte WAV whose metadata chunk declares a 2-GB title.

    build/pyenv/bin/python bench/server_input_memory.py [--auris BUILD/auris] [--cases NAME...]

build/pyenv is scripts/install_server_test_deps.sh's (websockets). The figures of README's fuzzing
paragraph came from this script, at 07d33f1 (before the bounds) and at their commit.
"""
import argparse
import json
import os
import pathlib
import re
import socket
import struct
import sys
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "server"))
DATA = pathlib.Path(os.environ.get("AURIS_TEST_DATA", ROOT.parent / "shared" / "data"))


def peak_kib(server):
    with open(f"/proc/{server.process.pid}/status") as status:
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status.read(), re.M).group(1))


def form(server):
    boundary = "bnd"  # short: the 1.5 million parts stay under the 100-MB upload limit
    fields = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="f{i}"\r\n\r\n1\r\n'.encode()
                      for i in range(1_500_000))
    audio = (DATA / "audio" / "jfk.wav").read_bytes()
    body = (fields + f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="jfk.wav"\r\n\r\n'.encode()
            + audio + f"\r\n--{boundary}--\r\n".encode())
    url = urllib.parse.urlsplit(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=300) as sock:
        head = (f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n\r\n")
        try:
            sock.sendall(head.encode() + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the whole body was sent
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return f"{len(body) / 1e6:.1f} MB sent: " + answer.split(b"\r\n", 1)[0].decode()


def realtime(server, message):
    import websockets.sync.client
    url = server.url.replace("http://", "ws://") + "/v1/realtime?intent=transcription"
    try:
        with websockets.sync.client.connect(url, max_size=None) as ws:
            json.loads(ws.recv())
            ws.send(message)
            event = json.loads(ws.recv())
            return f"{len(message) / 2**20:.1f} MiB sent: {event['type']} {event.get('error', {}).get('code', '')}"
    except Exception as e:  # noqa: BLE001 - what happened is the result
        return f"{len(message) / 2**20:.1f} MiB sent: {type(e).__name__}: {e}"


def huge_metadata(server):
    """A 60-byte WAV whose metadata (LIST/INFO) declares a 2-GB title, uploaded for transcription."""
    wav = (b"RIFF" + struct.pack("<I", 0x7FFFFFF0) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16)
           + b"LIST" + struct.pack("<I", 0xF800001A) + b"INFOINAM" + struct.pack("<I", 0x7F000000) + b"a title")
    boundary = "bnd"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="title.wav"\r\n\r\n'.encode()
            + wav + f"\r\n--{boundary}--\r\n".encode())
    url = urllib.parse.urlsplit(server.url)
    start = time.monotonic()
    with socket.create_connection((url.hostname, url.port), timeout=300) as sock:
        sock.sendall((f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n"
                      f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
                     + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return f"{len(wav)} bytes sent: " + answer.split(b"\r\n", 1)[0].decode() + f" after {time.monotonic() - start:.2f} s"


CASES = {
    "form": form,
    "huge-metadata": huge_metadata,
    "realtime-values": lambda s: realtime(s, "[" + "0," * (8 * 1024 * 1024 - 2) + "0]"),
    "realtime-deep": lambda s: realtime(
        s, '{"type": "session.update", "session": {"include": [' + "[" * 1_000_000 + "]" * 1_000_000 + "]}}"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--auris", help="the auris binary (default: $AURIS_BIN or build/auris)")
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES), help="the cases to run (default: all)")
    args = parser.parse_args()
    if args.auris:
        os.environ["AURIS_BIN"] = str(pathlib.Path(args.auris).resolve())
    from auris_server import Server  # reads AURIS_BIN
    for name in args.cases:
        case = CASES[name]
        server = Server("--model", "tiny.en", "--threads", "2")
        try:
            before = peak_kib(server)
            result = case(server)
            alive = server.process.poll() is None
            after = peak_kib(server) if alive else None
        finally:
            code = server.stop()
        grown = f"peak {before / 1024:.0f} -> {after / 1024:.0f} MB" if alive else "the server died"
        print(f"{name}: {result}; {grown} (exit {code})", flush=True)


if __name__ == "__main__":
    main()
