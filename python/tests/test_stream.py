"""auris.StreamingTranscriber: pushed audio comes back as committed words equal to `auris stream`'s
for the same steps, and bad input raises."""

import json
import subprocess

import numpy as np
import pytest

from auris import StreamingTranscriber, StreamUpdate, decode_audio


def test_pushed_audio_commits_what_the_cli_commits(tiny_en, jfk, cli):
    stream = StreamingTranscriber(tiny_en, beam_size=1, step_ms=1000)
    samples = decode_audio(jfk)
    committed, tentative_seen = [], False
    for start in range(0, len(samples), 16000):
        update = stream.push(samples[start:start + 16000])
        assert isinstance(update, StreamUpdate)
        committed += update.committed
        tentative_seen |= bool(update.tentative)
    last = stream.finish()
    assert last.utterance_ended and not last.tentative
    committed += last.committed
    assert tentative_seen
    assert all(a.start <= b.start for a, b in zip(committed, committed[1:]))

    out = subprocess.run([str(cli), "stream", "-m", "tiny.en", "-t", "1", "--beam-size", "0", "--step-ms", "1000",
                          "-f", "jsonl", jfk], check=True, capture_output=True, text=True).stdout
    events = [json.loads(line) for line in out.splitlines()]
    cli_words = [w["word"] for e in events if e["type"] == "committed" for w in e["words"]]
    assert [w.word for w in committed] == cli_words
    assert stream.stats["decodes"] >= 11


def test_bad_audio_raises(tiny_en):
    stream = StreamingTranscriber(tiny_en)
    with pytest.raises(ValueError, match="float32"):
        stream.push(np.zeros(1600, dtype=np.int16))
    with pytest.raises(ValueError, match="1-D"):
        stream.push(np.zeros((2, 1600), dtype=np.float32))
    with pytest.raises(RuntimeError, match="NaN"):
        stream.push(np.full(1600, np.nan, dtype=np.float32))
    with pytest.raises(ValueError, match="task"):
        StreamingTranscriber(tiny_en, task="summarize")


def test_two_threads_take_turns_on_one_stream(tiny_en, jfk):
    """A thread pushing while another finishes: one waits for the other, neither holds the GIL while
    it waits (that deadlocked: the decoding thread could not take the GIL back)."""
    import threading

    stream = StreamingTranscriber(tiny_en, beam_size=1, step_ms=500)
    samples = decode_audio(jfk)
    failures = []

    def push_all():
        try:
            for start in range(0, len(samples), 8000):
                stream.push(samples[start:start + 8000])
                stream.stats  # read beside the other thread's decodes
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    pusher = threading.Thread(target=push_all, daemon=True)
    pusher.start()
    finished = []
    finisher = threading.Thread(target=lambda: finished.append(stream.finish()), daemon=True)
    finisher.start()
    pusher.join(120)
    finisher.join(120)
    assert not pusher.is_alive() and not finisher.is_alive(), "the two threads deadlocked"
    assert not failures, failures
    assert len(finished) == 1
