"""Fixtures for the server's end-to-end tests: a real `auris serve` on a free loopback port.

The binary is $AURIS_BIN (default build/auris); models come from the usual cache
(scripts/fetch_models.sh tiny.en base). Audio comes from ../shared/data (skipped where absent).
"""
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
AURIS = pathlib.Path(os.environ.get("AURIS_BIN", REPO / "build" / "auris"))


def audio(relative):
    path = DATA / "audio" / relative
    if not path.exists():
        pytest.skip(f"{path} is missing: the tests read ../shared/data beside the repository")
    return path


class Server:
    """`auris serve ARGS --port 0`, its URL read from its first stderr line, its log kept."""

    def __init__(self, *args, env=None):
        self.log = []
        self.process = subprocess.Popen(
            [str(AURIS), "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env={**os.environ, **(env or {})})
        listening = threading.Event()
        self.url = None

        def read_stderr():
            for line in self.process.stderr:
                self.log.append(line)
                match = re.search(r"listening on (http://\S+)", line)
                if match and not self.url:
                    self.url = match.group(1)
                    listening.set()
            listening.set()

        self.reader = threading.Thread(target=read_stderr, daemon=True)
        self.reader.start()
        if not listening.wait(120) or not self.url:
            self.process.kill()
            raise RuntimeError("auris serve did not start:\n" + "".join(self.log))

    def stop(self, timeout=120):
        """SIGTERM, then the exit code (the server must exit 0 after finishing its requests)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        self.reader.join(5)
        return code


@pytest.fixture(scope="session")
def server():
    """One server for the session: tiny.en (the default) and base, batch 8, small limits for tests."""
    s = Server("--model", "tiny.en", "--model", "base", "--max-batch", "8", "--max-queue", "16",
               "--max-upload-mb", "20", "--request-timeout", "10", "--threads", "2")
    yield s
    code = s.stop()
    assert code == 0, "auris serve exited %s after SIGTERM:\n%s" % (code, "".join(s.log))


@pytest.fixture(scope="session")
def cli():
    """Runs `auris ARGS...` and returns its stdout (the reference the server must equal)."""
    def run(*args):
        done = subprocess.run([str(AURIS), *map(str, args)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout
    return run
