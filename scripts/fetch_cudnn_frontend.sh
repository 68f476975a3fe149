#!/usr/bin/env bash
# Fetches cuDNN's frontend (NVIDIA's header-only C++ API over cuDNN's graph backend) for the CUDA
# plugin's cuDNN attention (src/kernels/cuda/cudnn_attention.h): its headers, from the PyPI wheel
# nvidia-cudnn-frontend, pinned and checked by SHA-256, into ~/.cache/auris/deps, where CMake looks
# (AURIS_CUDNN_FRONTEND_DIR). Without them the plugin builds without that path and says so.
# Idempotent. Usage: scripts/fetch_cudnn_frontend.sh [DEST]
set -euo pipefail
version=1.32.0
wheel=nvidia_cudnn_frontend-$version-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
sha256=c6006556017a4d1c914c52a556c71b1267f2d6a0500f742e7b4edef539878df0
dest=${1:-$HOME/.cache/auris/deps/cudnn-frontend-$version}
[[ -f $dest/include/cudnn_frontend.h ]] && exit 0
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# One wheel whatever this machine's Python: the headers are the same in every one.
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
  --platform manylinux_2_28_x86_64 -d "$stage" "nvidia-cudnn-frontend==$version"
echo "$sha256  $stage/$wheel" | sha256sum -c --quiet -
python3 -m zipfile -e "$stage/$wheel" "$stage/unpacked"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
cp -r "$stage/unpacked/include" "$dest.tmp/"
cp "$stage/unpacked/nvidia_cudnn_frontend-$version.dist-info/licenses/LICENSE.txt" "$dest.tmp/"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "fetch_cudnn_frontend.sh: cuDNN frontend $version headers in $dest"
