"""Fixtures for the server's end-to-end tests: a real `auris serve` on a free loopback port.

The binary is $AURIS_BIN (default build/auris); models come from the usual cache
(scripts/fetch_models.sh tiny.en base). Audio comes from ../shared/data (skipped where absent).
"""
import os
import pathlib
import subprocess

import pytest

from auris_server import AURIS, REPO, Server  # noqa: F401 (the tests import them from here)

DATA = REPO.parent / "shared" / "data"
VAD_MODEL = DATA / "vad" / "for-tests-silero-v6.2.0-ggml.bin"


def audio(relative):
    path = DATA / "audio" / relative
    if not path.exists():
        pytest.skip(f"{path} is missing: the tests read ../shared/data beside the repository")
    return path


@pytest.fixture(scope="session")
def server():
    """One server for the session: tiny.en (the default) and base, batch 8, small limits for tests,
    and the test Silero VAD file where ../shared/data has it."""
    cache = pathlib.Path(os.environ.get("AURIS_MODEL_DIR", pathlib.Path.home() / ".cache" / "auris" / "models"))
    missing = [m for m in ("tiny.en", "base") if not (cache / m / "model.bin").exists()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not in {cache}: run scripts/fetch_models.sh")
    vad = ["--vad-model", str(VAD_MODEL)] if VAD_MODEL.exists() else []
    s = Server("--model", "tiny.en", "--model", "base", "--max-batch", "8", "--max-queue", "16",
               "--max-upload-mb", "20", "--request-timeout", "10", "--threads", "2", *vad)
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
