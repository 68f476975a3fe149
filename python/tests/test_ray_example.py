"""examples/ray_transcribe.py on a local Ray (2 actors of 1 CPU) over 12 of the Hi-Fi TTS clips: every
output is `auris transcribe`'s, two clips with one name in two folders do not collide, a file that is
not audio fails alone (and the run exits 1), and a rerun skips every file and rewrites none."""

import shutil
import subprocess
import sys
import tempfile

import pytest

from conftest import REPO

ray = pytest.importorskip("ray", reason="needs Ray: pip install '.[test]'")

EXAMPLE = REPO / "examples" / "ray_transcribe.py"
SAME_NAME = "swag_06_tompkins_0883.wav"  # in both folders of the input tree


@pytest.fixture(scope="module")
def clips(data):
    found = sorted((data / "audio" / "hifitts-6097" / "audio").glob("*.wav"))
    if len(found) != 58:
        pytest.skip(f"needs the 58 Hi-Fi TTS clips in {data / 'audio' / 'hifitts-6097' / 'audio'}")
    # Enough for both actors to take several files each; every one of the 58 costs test time, not cover.
    return found[:11] + [c for c in found if c.name == SAME_NAME]


@pytest.fixture(scope="module")
def cli_outputs(cli, clips, cache_dir, tmp_path_factory):
    """Every format `auris transcribe` writes for each clip: one run for all of them."""
    out = tmp_path_factory.mktemp("cli")
    subprocess.run([str(cli), "transcribe", "-t", "1", "-m", "tiny.en", "-f", "all", "-o", str(out),
                    *map(str, clips)], check=True, capture_output=True, timeout=600)
    return out


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray of 2 CPUs that the example joins, as it would join a cluster; shut down after."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_USAGE_STATS_ENABLED", "0")  # the cluster's processes and the example's inherit it
        # Its own session directory, removed after: Ray's default (/tmp/ray) keeps every session. Short,
        # as Ray's socket paths must be.
        sessions = tempfile.mkdtemp(prefix="ray-")
        context = ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", _temp_dir=sessions)
        try:
            yield context.address_info["gcs_address"]
        finally:
            ray.shutdown()
            shutil.rmtree(sessions, ignore_errors=True)


@pytest.fixture(scope="module")
def inputs(clips, tmp_path_factory):
    """The clips split over two folders (one clip in both), and a file that is not audio."""
    root = tmp_path_factory.mktemp("inputs")
    half = len(clips) // 2
    for folder, part in (("a", clips[:half]), ("b", clips[half:])):
        (root / folder).mkdir()
        for clip in set(part) | {c for c in clips if c.name == SAME_NAME}:
            (root / folder / clip.name).symlink_to(clip)
    (root / "notes.wav").write_text("not audio at all")
    return root


def run_example(inputs, output_dir, address):
    return subprocess.run([sys.executable, str(EXAMPLE), str(inputs), "--output-dir", str(output_dir),
                           "--output-format", "json", "--actors", "2", "--cpus-per-actor", "1", "--address", address],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def first_run(inputs, ray_address, cache_dir, tmp_path_factory):
    output_dir = tmp_path_factory.mktemp("outputs")
    return run_example(inputs, output_dir, ray_address), output_dir


def audio_files(inputs):
    return sorted(p for p in inputs.rglob("*.wav") if p.is_symlink())


def test_every_output_is_the_clis(first_run, inputs, cli_outputs):
    run, output_dir = first_run
    files = len(audio_files(inputs))
    assert files == 13, "6 clips in each folder and one clip in both"
    assert f"files: {files} done, 0 skipped, 1 failed" in run.stdout, run.stdout + run.stderr
    expected = [output_dir / p.relative_to(inputs).with_suffix(".json") for p in audio_files(inputs)]
    assert sorted(output_dir.rglob("*.json")) == expected
    assert (output_dir / "a" / SAME_NAME).with_suffix(".json").exists()
    assert (output_dir / "b" / SAME_NAME).with_suffix(".json").exists()
    for path in expected:
        assert path.read_text() == (cli_outputs / path.name).read_text(), path
    assert not [p for p in output_dir.rglob("*") if p.is_file() and p.suffix != ".json"], "no temporary file left"


def test_a_file_that_is_not_audio_fails_alone(first_run, inputs):
    run, output_dir = first_run
    assert run.returncode == 1
    assert f"failed: {inputs / 'notes.wav'}: AurisError: " in run.stdout
    assert not (output_dir / "notes.json").exists()


def test_a_rerun_skips_every_file_and_rewrites_none(first_run, inputs, ray_address):
    _, output_dir = first_run
    before = {p: p.stat().st_mtime_ns for p in output_dir.rglob("*")}
    (inputs / "notes.wav").unlink()
    rerun = run_example(inputs, output_dir, ray_address)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"files: 0 done, {len(audio_files(inputs))} skipped, 0 failed" in rerun.stdout
    assert {p: p.stat().st_mtime_ns for p in output_dir.rglob("*")} == before
