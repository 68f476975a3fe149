"""Builds an openai/whisper `Whisper` model (fp32, CPU, eval) from a CTranslate2 Whisper model directory.

The CTranslate2 test models (scripts/fetch_models.sh) are the only weights the project has, so the
golden reference runs the real openai/whisper code on exactly those weights: model.bin is parsed here
(no ctranslate2 dependency), fp16 is widened to fp32, and the variables are renamed and split into
openai/whisper's state_dict layout.

Usage as a module:  model = load_ct2_as_openai("~/.cache/auris/models/tiny.en")
"""

import json
import os
import struct

import numpy as np
import torch

# CTranslate2 dtype codes -> numpy dtypes (bf16 handled separately: numpy has no bfloat16).
_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
_BF16 = 5


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def unpack(self, fmt: str):
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return values

    def string(self) -> str:
        (length,) = self.unpack("<H")
        raw = self.data[self.pos : self.pos + length]
        self.pos += length
        return raw.rstrip(b"\0").decode("utf-8")

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("model.bin is truncated")
        raw = self.data[self.pos : self.pos + n]
        self.pos += n
        return raw


def read_ct2_model_bin(path: str) -> dict:
    """Returns {name: numpy array} for every variable in a CTranslate2 model.bin (aliases resolved)."""
    with open(path, "rb") as f:
        r = _Reader(f.read())
    (version,) = r.unpack("<I")
    if version < 5:
        raise ValueError(f"{path}: unsupported CTranslate2 model.bin version {version}")
    spec = r.string()
    if spec != "WhisperSpec":
        raise ValueError(f"{path}: spec is {spec!r}, expected WhisperSpec")
    r.unpack("<I")  # revision
    (n_vars,) = r.unpack("<I")
    variables = {}
    for _ in range(n_vars):
        name = r.string()
        (rank,) = r.unpack("<B")
        dims = r.unpack(f"<{rank}I")
        (dtype,) = r.unpack("<B")
        (nbytes,) = r.unpack("<I")
        raw = r.take(nbytes)
        if dtype == _BF16:
            bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            array = bits.view(np.float32)
        else:
            array = np.frombuffer(raw, dtype=_DTYPES[dtype])
        variables[name] = array.reshape(dims)
    (n_aliases,) = r.unpack("<I")
    for _ in range(n_aliases):
        alias = r.string()
        target = r.string()
        variables[alias] = variables[target]
    if r.pos != len(r.data):
        raise ValueError(f"{path}: {len(r.data) - r.pos} trailing bytes")
    return variables


def _f32(array) -> torch.Tensor:
    return torch.from_numpy(np.asarray(array, dtype=np.float32).copy())


def _count_layers(variables: dict, prefix: str) -> int:
    n = 0
    while f"{prefix}/layer_{n}/ffn/linear_0/weight" in variables:
        n += 1
    return n


def _scalar(variables: dict, name: str, default: int) -> int:
    return int(variables[name].reshape(-1)[0]) if name in variables else default


def _self_attention(sd, v, src, dst, d):
    qkv_w, qkv_b = v[f"{src}/linear_0/weight"], v[f"{src}/linear_0/bias"]
    sd[f"{dst}.query.weight"] = _f32(qkv_w[:d])
    sd[f"{dst}.key.weight"] = _f32(qkv_w[d : 2 * d])
    sd[f"{dst}.value.weight"] = _f32(qkv_w[2 * d :])
    sd[f"{dst}.query.bias"] = _f32(qkv_b[:d])
    # openai/whisper's key projection has no bias; the converter stores zeros there.
    if np.any(qkv_b[d : 2 * d] != 0):
        raise ValueError(f"{src}: non-zero key bias cannot be represented in openai/whisper")
    sd[f"{dst}.value.bias"] = _f32(qkv_b[2 * d :])
    sd[f"{dst}.out.weight"] = _f32(v[f"{src}/linear_1/weight"])
    sd[f"{dst}.out.bias"] = _f32(v[f"{src}/linear_1/bias"])


def _cross_attention(sd, v, src, dst, d):
    sd[f"{dst}.query.weight"] = _f32(v[f"{src}/linear_0/weight"])
    sd[f"{dst}.query.bias"] = _f32(v[f"{src}/linear_0/bias"])
    kv_w, kv_b = v[f"{src}/linear_1/weight"], v[f"{src}/linear_1/bias"]
    sd[f"{dst}.key.weight"] = _f32(kv_w[:d])
    if np.any(kv_b[:d] != 0):
        raise ValueError(f"{src}: non-zero key bias cannot be represented in openai/whisper")
    sd[f"{dst}.value.weight"] = _f32(kv_w[d:])
    sd[f"{dst}.value.bias"] = _f32(kv_b[d:])
    sd[f"{dst}.out.weight"] = _f32(v[f"{src}/linear_2/weight"])
    sd[f"{dst}.out.bias"] = _f32(v[f"{src}/linear_2/bias"])


def _layer_norm(sd, v, src, dst):
    sd[f"{dst}.weight"] = _f32(v[f"{src}/gamma"])
    sd[f"{dst}.bias"] = _f32(v[f"{src}/beta"])


def _ffn(sd, v, src, dst):
    _layer_norm(sd, v, f"{src}/layer_norm", f"{dst}.mlp_ln")
    sd[f"{dst}.mlp.0.weight"] = _f32(v[f"{src}/linear_0/weight"])
    sd[f"{dst}.mlp.0.bias"] = _f32(v[f"{src}/linear_0/bias"])
    sd[f"{dst}.mlp.2.weight"] = _f32(v[f"{src}/linear_1/weight"])
    sd[f"{dst}.mlp.2.bias"] = _f32(v[f"{src}/linear_1/bias"])


def ct2_to_state_dict(v: dict):
    """Maps CTranslate2 Whisper variables to (ModelDimensions kwargs, openai/whisper state_dict)."""
    n_audio_state = v["encoder/conv1/weight"].shape[0]
    n_text_state = v["decoder/embeddings/weight"].shape[1]
    dims = dict(
        n_mels=v["encoder/conv1/weight"].shape[1],
        n_audio_ctx=v["encoder/position_encodings/encodings"].shape[0],
        n_audio_state=n_audio_state,
        n_audio_head=_scalar(v, "encoder/num_heads", n_audio_state // 64),
        n_audio_layer=_count_layers(v, "encoder"),
        n_vocab=v["decoder/embeddings/weight"].shape[0],
        n_text_ctx=v["decoder/position_encodings/encodings"].shape[0],
        n_text_state=n_text_state,
        n_text_head=_scalar(v, "decoder/num_heads", n_text_state // 64),
        n_text_layer=_count_layers(v, "decoder"),
    )
    sd = {}
    sd["encoder.conv1.weight"] = _f32(v["encoder/conv1/weight"])
    sd["encoder.conv1.bias"] = _f32(v["encoder/conv1/bias"])
    sd["encoder.conv2.weight"] = _f32(v["encoder/conv2/weight"])
    sd["encoder.conv2.bias"] = _f32(v["encoder/conv2/bias"])
    # Official checkpoints also carry the (fp16-rounded) sinusoids; use the stored ones likewise.
    sd["encoder.positional_embedding"] = _f32(v["encoder/position_encodings/encodings"])
    for i in range(dims["n_audio_layer"]):
        src, dst = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        _layer_norm(sd, v, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        _self_attention(sd, v, f"{src}/self_attention", f"{dst}.attn", n_audio_state)
        _ffn(sd, v, f"{src}/ffn", dst)
    _layer_norm(sd, v, "encoder/layer_norm", "encoder.ln_post")

    sd["decoder.token_embedding.weight"] = _f32(v["decoder/embeddings/weight"])
    sd["decoder.positional_embedding"] = _f32(v["decoder/position_encodings/encodings"])
    for i in range(dims["n_text_layer"]):
        src, dst = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        _layer_norm(sd, v, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        _self_attention(sd, v, f"{src}/self_attention", f"{dst}.attn", n_text_state)
        _layer_norm(sd, v, f"{src}/attention/layer_norm", f"{dst}.cross_attn_ln")
        _cross_attention(sd, v, f"{src}/attention", f"{dst}.cross_attn", n_text_state)
        _ffn(sd, v, f"{src}/ffn", dst)
    _layer_norm(sd, v, "decoder/layer_norm", "decoder.ln")
    return dims, sd


def load_ct2_as_openai(model_dir: str, model_bin: str = None):
    """Returns a whisper.model.Whisper (fp32, CPU, eval) holding the weights of a CTranslate2 model.

    model_bin overrides <model_dir>/model.bin (to try another copy of the same model).
    """
    from whisper.model import ModelDimensions, Whisper

    model_dir = os.path.expanduser(model_dir)
    variables = read_ct2_model_bin(model_bin or os.path.join(model_dir, "model.bin"))
    dims, state_dict = ct2_to_state_dict(variables)
    model = Whisper(ModelDimensions(**dims))
    model.load_state_dict(state_dict, strict=True)

    config_path = os.path.join(model_dir, "config.json")
    if os.path.exists(config_path):
        with open(config_path) as f:
            heads = json.load(f).get("alignment_heads")
        if heads:
            mask = torch.zeros(dims["n_text_layer"], dims["n_text_head"], dtype=torch.bool)
            for layer, head in heads:
                mask[layer, head] = True
            # Same buffer set_alignment_heads() registers, without the gzip+base85 round trip.
            model.register_buffer("alignment_heads", mask.to_sparse(), persistent=False)
    return model.float().eval()
