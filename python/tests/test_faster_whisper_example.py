"""faster-whisper's README example, run as written but for the import, the model, the device and
the file (tiny.en on the CPU here), gives the segments `auris transcribe` gives."""

import subprocess
import sys

from conftest import cli_segments

# From https://github.com/SYSTRAN/faster-whisper#faster-whisper (README, "Usage").
README_EXAMPLE = '''
from faster_whisper import WhisperModel

model_size = "large-v3"

# Run on GPU with FP16
model = WhisperModel(model_size, device="cuda", compute_type="float16")

# or run on GPU with INT8
# model = WhisperModel(model_size, device="cuda", compute_type="int8_float16")
# or run on CPU with INT8
# model = WhisperModel(model_size, device="cpu", compute_type="int8")

segments, info = model.transcribe("audio.mp3", beam_size=5)

print("Detected language '%s' with probability %f" % (info.language, info.language_probability))

for segment in segments:
    print("[%.2fs -> %.2fs] %s" % (segment.start, segment.end, segment.text))
'''


def test_the_readme_example_gives_the_clis_segments(tmp_path, cache_dir, cli, data):
    clip = str(data / "audio" / "hifitts-6097" / "audio" / "swag_06_tompkins_0883.wav")
    script = (README_EXAMPLE.replace("from faster_whisper import", "from auris import")
              .replace('"large-v3"', '"tiny.en"')
              .replace('device="cuda"', 'device="cpu"')
              .replace('"audio.mp3"', repr(clip)))
    (tmp_path / "example.py").write_text(script)
    out = subprocess.run([sys.executable, str(tmp_path / "example.py")], check=True, capture_output=True, text=True,
                         timeout=600).stdout.splitlines()
    assert out[0] == "Detected language 'en' with probability 1.000000"
    expected = cli_segments(cli, clip, "-m", "tiny.en", "--compute-type", "float16", "--beam-size", "5")
    assert len(expected) > 0
    assert out[1:] == ["[%.2fs -> %.2fs] %s" % (s["start"], s["end"], s["text"]) for s in expected]
