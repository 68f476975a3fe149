#!/usr/bin/env python3
"""Where a stream's committed words differ from the offline transcript of the same file.

Reads one `auris stream -f jsonl` events file (bench/stream_latency.py --events DIR keeps them) and
the offline transcript (`auris transcribe` of the same audio, model and compute type), aligns the
committed words with the offline ones (difflib, words lower-cased without punctuation), and prints
each differing span with how its words were committed: "close" when the commit came with an
utterance's end (live VAD), "agree" when two decodes agreed on it; then its seconds from the word's
end to its commit and the decoder's probability.

Usage: bench/stream_word_diff.py EVENTS.jsonl OFFLINE.txt
"""
import difflib
import json
import re
import sys


def norm(word):
    return re.sub(r"[^a-z0-9']", "", word.lower())


def main():
    events = [json.loads(line) for line in open(sys.argv[1])]
    committed = []  # (word, kind, seconds after its end, probability)
    for i, e in enumerate(events):
        if e["type"] != "committed":
            continue
        near = events[max(0, i - 2):i + 3]
        close = any(x["type"] == "utterance_end" and abs(x["time"] - e["time"]) < 0.01 for x in near)
        for w in e["words"]:
            if norm(w["word"]):
                committed.append((norm(w["word"]), "close" if close else "agree", w["end"], e["time"], w["probability"]))
    offline = [norm(w) for w in open(sys.argv[2]).read().split() if norm(w)]
    words = [c[0] for c in committed]
    print(f"{len(committed)} committed words, {sum(c[1] == 'close' for c in committed)} of them at a close")
    spans = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=offline, b=words, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        spans += 1
        detail = ", ".join(f"{w} ({kind}, {t - end:.2f} s, p {p:.3f})" for w, kind, end, t, p in committed[j1:j2])
        print(f"{tag:8} offline [{' '.join(offline[i1:i2])}] stream [{detail}]")
    print(f"{spans} differing spans")


if __name__ == "__main__":
    main()
