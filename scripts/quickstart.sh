#!/usr/bin/env bash
# From a fresh clone to a transcript: installs the build dependencies, builds auris, fetches the
# default model (tiny.en) into the cache and transcribes a sample.
# Usage: scripts/quickstart.sh [AUDIO_FILE]   (default: ../shared/data/audio/jfk.flac)
set -euo pipefail
cd "$(dirname "$0")/.."
audio="${1:-../shared/data/audio/jfk.flac}"

scripts/install_deps.sh
scripts/fetch_models.sh tiny.en >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target auris_cli >&2
./build/auris transcribe --model tiny.en "$audio"
