#!/usr/bin/env bash
# Packs what a GPU machine lent through the device tool needs for auris's CUDA checks
# (tools/gpu/run_checks.sh), in two parts, since one call carries at most 64 MiB with the repository:
#  - binaries: the programs built here (build/), the libraries they link that a bare CUDA image
#    lacks, with empty stand-ins (stub_library.py) for FFmpeg's encoders, protocols and X11, which
#    decoding audio never calls (cuBLAS and the CUDA runtime are the machine's own), and a
#    multilingual model with zeroed weights whose vocabulary the random-weight large models take;
#  - data: tiny.en with int8 weights (int8_model.py) and the audio the checks read from ../shared/data.
# The machine keeps a call's unpacked files for the next call while it stays warm (30 s).
#
# Usage: tools/gpu/bundle.sh binaries|data [OUT_DIR]   (default .gpu, which .gitignore names)
# Writes OUT_DIR/binaries.tar.xz or OUT_DIR/data.tar.xz.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
part=${1:?binaries or data}
out=${2:-$repo/.gpu}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
python=${AURIS_NUMPY_PYTHON:-$HOME/.cache/auris/benchenv/bin/python3}  # scripts/setup_bench.sh's, with numpy

if [[ $part == data ]]; then
  data=$repo/../shared/data
  mkdir -p "$stage/models" "$stage/data/audio/longform"
  "$python" "$repo/tools/gpu/int8_model.py" "$HOME/.cache/auris/models/tiny.en" "$stage/models/tiny.en"
  cp -r "$data/audio/hifitts-6097" "$data/audio/jfk.flac" "$stage/data/audio/"
  cp "$data/audio/longform/hifitts-dev-concat."* "$stage/data/audio/longform/"
  tar -C "$stage" -cf - models data | xz -T2 -6 > "$out/data.tar.xz"
  echo "bundle.sh: $(du -h "$out/data.tar.xz" | cut -f1) in $out/data.tar.xz"
  exit 0
fi
[[ $part == binaries ]] || { echo "bundle.sh: give binaries or data" >&2; exit 2; }
mkdir -p "$stage/bin" "$stage/lib" "$stage/models"
"$repo/build/auris" convert base --random-weights tiny --to hf --f16 -o "$stage/models/vocabulary-base" 2>/dev/null
"$python" - "$stage/models/vocabulary-base/model.safetensors" <<'PY'
import struct, sys
path = sys.argv[1]
with open(path, "r+b") as f:
    (header,) = struct.unpack("<Q", f.read(8))
    f.seek(0, 2)
    size = f.tell()
    f.seek(8 + header)
    f.write(bytes(size - 8 - header))  # the weights do not matter, only the vocabulary
PY

binaries=(auris auris_tests libauris_cuda.so)
for b in "${binaries[@]}"; do cp "$repo/build/$b" "$stage/bin/"; done

# Real copies: what transcribing and the CPU engine run (libgme too: its demuxer probes every input
# and dereferences what a stand-in returns). Everything else the closure names is stubbed.
# cpp-httplib and what it links (OpenSSL, brotli) for `auris serve`.
keep='^lib(avcodec|avformat|avutil|swresample|dnnl|fftw3f|gomp|pcre2-8|icuuc|icudata|z|gme|cpp-httplib|ssl|crypto|brotli(common|dec|enc))\.so'
# The machine's own: glibc, the C++ runtime (newer there) and CUDA's libraries.
system='^(ld-linux|libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|libcudart|libcublas|libcublasLt)\.so'
ldd "$repo/build/auris" "$repo/build/auris_tests" "$repo/build/libauris_cuda.so" |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  while read -r path; do
    name=$(basename "$path")
    if [[ $name =~ $system ]]; then continue; fi
    if [[ $name =~ $keep ]]; then
      cp -L "$path" "$stage/lib/$name"
    else
      python3 "$repo/tools/gpu/stub_library.py" "$path" "$stage/lib"
    fi
  done

# Every library resolves into the bundle or to the machine's own set.
unresolved=$(LD_LIBRARY_PATH="$stage/lib" ldd "$stage/bin/auris" "$stage/bin/auris_tests" "$stage/bin/libauris_cuda.so" |
  awk '$2 == "=>" && $3 ~ /^\// {print $1 " " $3}' | grep -v " $stage/lib/" | grep -v -E "^$system" || true)
if [[ -n $unresolved ]]; then
  echo "bundle.sh: these would come from this machine, not the bundle:" >&2
  echo "$unresolved" >&2
  exit 1
fi
# The stand-ins must not break a run: the real binary, its libraries from the bundle, transcribes.
LD_LIBRARY_PATH="$stage/lib" "$stage/bin/auris" transcribe -m tiny.en --compute-type int8 "$repo/../shared/data/audio/jfk.flac" |
  grep -q "ask not what your country"
# And serves: a stand-in for the HTTP library would bind no port and answer nothing.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LD_LIBRARY_PATH="$stage/lib" "$stage/bin/auris" serve -m tiny.en --port "$port" 2>/dev/null &
server=$!
served=0
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null && { served=1; break; }
  sleep 0.2
done
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true
[[ $served == 1 ]] || { echo "bundle.sh: the bundled auris serve did not answer /health" >&2; exit 1; }

tar -C "$stage" -cf - bin lib models | xz -T2 -6 > "$out/binaries.tar.xz"
echo "bundle.sh: $(du -h "$out/binaries.tar.xz" | cut -f1) in $out/binaries.tar.xz ($(ls "$stage/lib" | wc -l) libraries)"
