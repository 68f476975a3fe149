#!/usr/bin/env bash
# Installs the peers that bench/speed.py runs beside auris, into their own virtual environment:
#   faster-whisper on CTranslate2 (PyPI wheels), and whisper.cpp through pywhispercpp, built here
#   from its source distribution so that ggml is compiled for this CPU (GGML_NATIVE).
# openai/whisper comes from scripts/setup_reference.sh. Prints the environment's python path.
set -euo pipefail
venv="${AURIS_BENCH_VENV:-$HOME/.cache/auris/benchenv}"
# bench/batch.py draws its scaling curve with Debian's matplotlib.
if ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >&2
fi
# The memory figures: peak RSS by /usr/bin/time -v, where it goes by heaptrack (docs/BENCHMARKS.md).
"$(dirname "$0")/install_deps.sh" time heaptrack >&2
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import faster_whisper, pywhispercpp.model" 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q faster-whisper==1.2.1 ctranslate2==4.8.5 psutil >&2
  # Only pywhispercpp itself from source; its build tools (cmake, pybind11) come as wheels.
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" GGML_NATIVE=1 \
    "$venv/bin/pip" install -q --no-binary pywhispercpp pywhispercpp==1.5.1 >&2
fi
echo "$venv/bin/python"
