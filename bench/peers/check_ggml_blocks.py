"""Checks that a q8_0 or q4_0 ggml file auris wrote holds the bytes whisper.cpp's own `quantize` tool
would write: it rewrites auris's f16 file of the same model as that tool does (ftype + 1000 times the
quantisation version; every 2-D f16 tensor quantised by libggml's ggml_quantize_chunk, the rest as
they are) and compares the two files byte for byte. Needs the libggml-base that pywhispercpp
installed (bench/speed.py passes its site-packages directory).

Usage: check_ggml_blocks.py F16_FILE QUANTISED_FILE q8_0|q4_0 SITE_PACKAGES
Prints one line and exits 0 when the files are identical, 1 (naming the first tensor that differs)
when not."""
import ctypes
import os
import struct
import sys

import numpy as np

GGML_TYPE = {"q8_0": 8, "q4_0": 2}        # per-tensor ggml_type
GGML_FTYPE = {"q8_0": 7, "q4_0": 2}       # model-level ggml_ftype
QUANTISATION_VERSION = 2


def main():
    f16_path, quantised_path, name, site = sys.argv[1:5]
    qtype = GGML_TYPE[name]
    ggml = ctypes.CDLL(os.path.join(site, "libggml-base.so"))
    ggml.ggml_quantize_chunk.restype = ctypes.c_size_t
    ggml.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_int64, ctypes.c_void_p]
    ggml.ggml_quantize_init.argtypes = [ctypes.c_int]
    ggml.ggml_quantize_init(qtype)

    src = open(f16_path, "rb").read()
    pos = 0

    def take(n):
        nonlocal pos
        chunk = src[pos:pos + n]
        pos += n
        return chunk

    out = bytearray(take(4))
    hparams = list(struct.unpack("<11i", take(44)))
    if hparams[10] != 1:
        sys.exit(f"{f16_path}: not an f16 ggml file (ftype {hparams[10]})")
    hparams[10] = QUANTISATION_VERSION * 1000 + GGML_FTYPE[name]
    out += struct.pack("<11i", *hparams)
    n_mel, n_fft = struct.unpack("<2i", take(8))
    out += struct.pack("<2i", n_mel, n_fft) + take(4 * n_mel * n_fft)
    (n_vocab,) = struct.unpack("<i", take(4))
    out += struct.pack("<i", n_vocab)
    for _ in range(n_vocab):
        (length,) = struct.unpack("<I", take(4))
        out += struct.pack("<I", length) + take(length)
    tensors = []  # (name, offset in out) to name the first difference
    while pos < len(src):
        n_dims, name_length, ttype = struct.unpack("<3i", take(12))
        ne = struct.unpack(f"<{n_dims}i", take(4 * n_dims))
        tensor_name = take(name_length)
        count = int(np.prod(ne))
        data = take(count * (2 if ttype == 1 else 4))
        tensors.append((tensor_name.decode(), len(out)))
        if ttype == 1 and n_dims == 2:  # whisper.cpp's quantize: 2-D tensors only, f16 ones here
            x = np.ascontiguousarray(np.frombuffer(data, dtype=np.float16).astype(np.float32))
            dst = ctypes.create_string_buffer(count * 2)
            size = ggml.ggml_quantize_chunk(qtype, x.ctypes.data, dst, 0, ne[1], ne[0], None)
            out += struct.pack("<3i", n_dims, name_length, qtype) + struct.pack(f"<{n_dims}i", *ne) + tensor_name + dst.raw[:size]
        else:
            out += struct.pack("<3i", n_dims, name_length, ttype) + struct.pack(f"<{n_dims}i", *ne) + tensor_name + data

    ours = open(quantised_path, "rb").read()
    if ours == bytes(out):
        print(f"{quantised_path}: identical to whisper.cpp's quantize ({name}) of {f16_path}")
        return
    first = next((i for i, (a, b) in enumerate(zip(ours, out)) if a != b), min(len(ours), len(out)))
    where = max((t for t in tensors if t[1] <= first), key=lambda t: t[1], default=("the header", 0))[0]
    print(f"{quantised_path}: differs from whisper.cpp's quantize ({name}) at byte {first}, in {where} "
          f"({len(ours)} vs {len(out)} bytes)")
    sys.exit(1)


if __name__ == "__main__":
    main()
