#!/usr/bin/env python3
"""Rewrites a CTranslate2 Whisper model.bin with its 2-D weights in int8 (one scale per output row,
as CTranslate2's own int8 conversion stores them), so that a real model fits in the 64 MiB a GPU
machine's call carries: tiny.en (stored in float16) goes from 76 MB to about 40 MB. Both engines then load the same
dequantised fp32 weights, so comparing the CPU's and the GPU's tokens stays exact.

Usage: int8_model.py SRC_MODEL_DIR DST_MODEL_DIR
"""
import os
import shutil
import struct
import sys

import numpy as np

DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_name(f):
    (n,) = struct.unpack("<H", f.read(2))
    return f.read(n)[:-1].decode()


def write_name(out, name):
    raw = name.encode() + b"\0"
    out += struct.pack("<H", len(raw)) + raw


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(src):
        if name != "model.bin":
            shutil.copy(os.path.join(src, name), dst)
    with open(os.path.join(src, "model.bin"), "rb") as f:
        (version,) = struct.unpack("<I", f.read(4))
        if version < 4:
            sys.exit(f"binary version {version}: convert with a newer ctranslate2 (4 or later writes dtypes)")
        spec = read_name(f)
        (revision, count) = struct.unpack("<II", f.read(8))
        variables = []
        for _ in range(count):
            name = read_name(f)
            (rank,) = struct.unpack("<B", f.read(1))
            shape = struct.unpack(f"<{rank}I", f.read(4 * rank))
            dtype, nbytes = struct.unpack("<BI", f.read(5))
            data = np.frombuffer(f.read(nbytes), dtype=DTYPES[dtype]).reshape(shape)
            variables.append((name, data))
        rest = f.read()  # the aliases, unchanged
    out = bytearray(struct.pack("<I", version))
    write_name(out, spec)
    written = []
    for name, data in variables:
        if data.dtype in (np.float32, np.float16) and data.ndim == 2 and name.endswith("weight") and data.shape[0] > 1:
            data = data.astype(np.float32)
            peak = np.abs(data).max(axis=1)
            scale = np.where(peak > 0, 127.0 / np.maximum(peak, 1e-30), 1.0).astype(np.float32)
            written.append((name, np.clip(np.rint(data * scale[:, None]), -127, 127).astype(np.int8)))
            written.append((name + "_scale", scale))
        else:
            written.append((name, data))
    out += struct.pack("<II", revision, len(written))
    codes = {np.dtype(v): k for k, v in DTYPES.items()}
    for name, data in written:
        write_name(out, name)
        out += struct.pack(f"<B{data.ndim}I", data.ndim, *data.shape)
        out += struct.pack("<BI", codes[data.dtype], data.nbytes)
        out += data.tobytes()
    out += rest
    with open(os.path.join(dst, "model.bin"), "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
