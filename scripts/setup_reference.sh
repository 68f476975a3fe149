#!/usr/bin/env bash
# Installs the real reference packages into a virtual environment: Debian's CPU-only python3-torch,
# torchaudio and numba, then openai-whisper and tiktoken (transcription) and silero-vad (voice
# activity detection) from PyPI. Prints the environment's python path. Idempotent.
set -euo pipefail
venv="${AURIS_REFERENCE_VENV:-$HOME/.cache/auris/refenv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import whisper, tiktoken, silero_vad" 2>/dev/null; then
  apt-get update -qq >&2
  # python3-torchaudio: silero_vad imports it at load time (audio is read with ffmpeg, not through it).
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-torchaudio python3-numba python3-tqdm \
    python3-more-itertools python3-regex python3-requests python3-venv python3-numpy python3-packaging >&2
  /usr/bin/python3 -m venv --system-site-packages "$venv" >&2
  # --no-deps: openai-whisper's requirements pull triton and a CUDA torch, and silero-vad's a newer
  # torch and torchaudio; the CPU path needs none of them.
  "$venv/bin/pip" install -q --no-deps openai-whisper==20250625 silero-vad==6.2.0 >&2
  "$venv/bin/pip" install -q tiktoken==0.14.0 >&2
fi
echo "$venv/bin/python"
