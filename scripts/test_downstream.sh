#!/usr/bin/env bash
# Installs auris from a build tree into a temporary prefix (cmake --install) and builds and runs
# programs against it as a user's project would: tests/downstream's C++ and C programs through
# find_package(auris CONFIG) (the shared library, and the static one with COMPONENTS static), and
# its C program through pkg-config. Checks that only the public headers are installed. Ends with
# one line: "downstream: PASS" or "downstream: FAIL: why".
# Usage: scripts/test_downstream.sh [BUILD_TREE]   (default: build; it must be configured)
# The programs transcribe jfk.flac with tiny.en; where either is absent they are built, not run.
# AURIS_KEEP_DOWNSTREAM=1 keeps the temporary prefix and build, and says where they are.
set -euo pipefail
cd "$(dirname "$0")/.."

tree=${1:-build}
model=${AURIS_MODEL_DIR:-$HOME/.cache/auris/models}/tiny.en
audio=${AURIS_TEST_DATA:-$PWD/../shared/data}/audio/jfk.flac
tmp=$(mktemp -d)
trap 'if [ -n "${AURIS_KEEP_DOWNSTREAM:-}" ]; then echo "downstream: kept $tmp"; else rm -rf "$tmp"; fi' EXIT
log=$tmp/log

fail() {
  echo "downstream: FAIL: $*"
  exit 1
}
# step WHAT COMMAND...: runs the command, its output in the log, printed if it fails.
step() {
  local what=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    fail "$what"
  fi
}

[ -f "$tree/CMakeCache.txt" ] || fail "$tree is not a configured build tree: cmake -S . -B $tree first"
step "building libauris in $tree" cmake --build "$tree" --target auris auris_shared -j"$(nproc)"
prefix=$tmp/prefix
step "cmake --install $tree --prefix $prefix" cmake --install "$tree" --prefix "$prefix"

# The headers: include/auris/*.h and nothing else.
extra=$(cd "$prefix/include" && find . -type f ! -path './auris/*.h')
[ -z "$extra" ] || fail "installed headers that are not public: $extra"
[ -f "$prefix/include/auris/auris.h" ] || fail "auris/auris.h was not installed"

step "configuring tests/downstream against $prefix" \
  cmake -S tests/downstream -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
step "building tests/downstream" cmake --build "$tmp/build" -j"$(nproc)"
pc_dir=$(dirname "$(find "$prefix" -name auris.pc)")
export PKG_CONFIG_PATH=$pc_dir
# shellcheck disable=SC2046
step "building tests/downstream/main.c with pkg-config" \
  cc -std=c99 -Wall -Werror tests/downstream/main.c -o "$tmp/c_api_pkg_config" $(pkg-config --cflags --libs auris) \
  -Wl,-rpath,"$(pkg-config --variable=libdir auris)"

if [ ! -e "$model" ] || [ ! -e "$audio" ]; then
  echo "downstream: PASS (built; not run: $model or $audio is missing, scripts/fetch_models.sh fetches the model)"
  exit 0
fi
phrase="ask not what your country can do for you"
for program in build/cpp_api build/c_api build/c_api_static c_api_pkg_config; do
  step "running $program" "$tmp/$program" "$model" "$audio"
  grep -q "$phrase" "$log" || { cat "$log"; fail "$program did not print \"$phrase\""; }
  if [ "$program" = build/cpp_api ] && ! grep -q "downloadable: .* models" "$log"; then
    cat "$log"
    fail "cpp_api did not list the downloadable models"
  fi
  if [ "$program" = build/cpp_api ] && ! grep -q "error: audio file not found" "$log"; then
    cat "$log"
    fail "cpp_api did not catch the auris::Error that libauris threw"
  fi
done
ldd "$tmp/build/c_api_static" | grep -q libauris && fail "c_api_static is linked to libauris.so, not libauris.a"
echo "downstream: PASS (C++ and C through find_package(auris), shared and static; C through pkg-config)"
