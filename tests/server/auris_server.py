"""`auris serve ARGS --port 0` as a child process, its URL read from its first stderr line, its log
kept: the server of the end-to-end tests (conftest.py) and of bench/server_load.py. Standard
library only."""
import os
import pathlib
import re
import signal
import subprocess
import threading

REPO = pathlib.Path(__file__).resolve().parents[2]
AURIS = pathlib.Path(os.environ.get("AURIS_BIN", REPO / "build" / "auris"))


class Server:
    def __init__(self, *args, env=None, start_timeout=300):
        self.log = []
        self.process = subprocess.Popen(
            [str(AURIS), "serve", "--port", "0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            # Offline: a model name not in the cache fails the start at once instead of downloading
            # into the user's cache from the tests.
            text=True, env={**os.environ, "AURIS_OFFLINE": "1", **(env or {})})
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
        if not listening.wait(start_timeout) or not self.url:
            self.process.kill()
            raise RuntimeError("auris serve did not start:\n" + "".join(self.log))

    def stop(self, timeout=600):
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
