#!/usr/bin/env bash
# Installs the real openai/whisper package (the golden reference) into a virtual environment:
# Debian's CPU-only python3-torch and numba, then openai-whisper and tiktoken from PyPI.
# Prints the environment's python path. Idempotent.
set -euo pipefail
venv="${AURIS_REFERENCE_VENV:-$HOME/.cache/auris/refenv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import whisper, tiktoken" 2>/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-numba python3-tqdm \
    python3-more-itertools python3-regex python3-requests python3-venv python3-numpy >&2
  /usr/bin/python3 -m venv --system-site-packages "$venv" >&2
  # --no-deps: openai-whisper's requirements pull triton and a CUDA torch; the CPU path needs neither.
  "$venv/bin/pip" install -q --no-deps openai-whisper==20250625 >&2
  "$venv/bin/pip" install -q tiktoken==0.14.0 >&2
fi
echo "$venv/bin/python"
