"""What the Python package's tests share: the audio test data, a cached model, and the CLI whose
output the package must equal. Tests needing one that is absent skip and say what to do."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _data_dir():
    for candidate in (os.environ.get("AURIS_TEST_DATA"), REPO.parent / "shared" / "data"):
        if candidate and (Path(candidate) / "audio" / "jfk.flac").exists():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def data():
    d = _data_dir()
    if d is None:
        pytest.skip("needs the audio test data: set AURIS_TEST_DATA (see tests/test_support.h)")
    return d


@pytest.fixture(scope="session")
def jfk(data):
    return str(data / "audio" / "jfk.flac")


@pytest.fixture(scope="session")
def cache_dir():
    d = Path(os.environ.get("AURIS_MODEL_DIR", Path.home() / ".cache" / "auris" / "models"))
    if not (d / "tiny.en").exists():
        pytest.skip("needs tiny.en in the model cache: scripts/fetch_models.sh tiny.en")
    return d


@pytest.fixture(scope="session")
def tiny_en(cache_dir):
    from auris import WhisperModel

    return WhisperModel("tiny.en", cpu_threads=1)


@pytest.fixture(scope="session")
def base(cache_dir):
    from auris import WhisperModel

    if not (cache_dir / "base").exists():
        pytest.skip("needs base in the model cache: scripts/fetch_models.sh base")
    return WhisperModel("base", cpu_threads=1)


@pytest.fixture(scope="session")
def cli():
    path = Path(os.environ.get("AURIS_CLI", REPO / "build" / "auris"))
    if not path.exists():
        pytest.skip(f"needs the auris command at {path} (build it, or set AURIS_CLI)")
    return path


def cli_segments(cli, audio, *args):
    """The segments `auris transcribe` writes as JSON for one file."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([str(cli), "transcribe", "-t", "1", "-f", "json", "-o", out, *args, str(audio)],
                       check=True, capture_output=True)
        (written,) = Path(out).glob("*.json")
        return json.loads(written.read_text())["segments"]
