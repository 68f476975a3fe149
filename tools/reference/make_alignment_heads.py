"""Prints openai/whisper's alignment heads as C++ initialisers for src/model/model_registry.cc.

openai/whisper ships them as base85+gzip boolean masks over (decoder layer, head) in
whisper/__init__.py (_ALIGNMENT_HEADS); this decodes them to (layer, head) pairs.

Run: PY=$(scripts/setup_reference.sh); $PY tools/reference/make_alignment_heads.py
"""
import base64
import gzip

import numpy as np
import whisper

HEADS = {"tiny": 6, "base": 8, "small": 12, "medium": 16, "large": 20}


def main():
    for name, dump in whisper._ALIGNMENT_HEADS.items():
        if name in ("large", "turbo"):
            continue  # aliases of large-v3 / large-v3-turbo
        mask = np.frombuffer(gzip.decompress(base64.b85decode(dump)), dtype=bool)
        n_head = HEADS[name.split(".")[0].split("-")[0]]
        pairs = [(int(i) // n_head, int(i) % n_head) for i in np.nonzero(mask)[0]]
        body = ", ".join(f"{{{layer}, {head}}}" for layer, head in pairs)
        print(f'    {{"{name}", {{{body}}}}},')


if __name__ == "__main__":
    main()
