#!/usr/bin/env bash
# Installs the streaming peer that bench/stream_latency.py --peer runs beside `auris stream`:
# ufal/whisper_streaming (LocalAgreement-2 policy, OnlineASRProcessor) on faster-whisper, in its own
# virtual environment. Prints the environment's python path.
#
# whisper_streaming has no packaging: it is the single module whisper_online.py, taken at a pinned
# commit and checked against its sha256. (The PyPI package "whisper-streaming" 0.1.0 is a rewrite,
# not this code: no process_iter/finish, and its default sentence trimming raises.) Where GitHub is
# out of reach, AURIS_WHISPER_ONLINE_PY may name a local copy of that file; it is checked the same way,
# e.g. git --git-dir=<clone>/.git show $commit:whisper_online.py > /tmp/whisper_online.py
set -euo pipefail
venv="${AURIS_STREAM_PEER_VENV:-$HOME/.cache/auris/streamenv}"
commit=1f25a1a48bd9807159989e6596178c69e797ac75
sha256=f0a7bd26bff879cf1e2ee4589bd88c38275c678d8773a47563ceb0e7d970b850
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import whisper_online, faster_whisper" 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv" >&2
  # faster-whisper and CTranslate2 as in scripts/setup_bench.sh; whisper_online.py imports librosa
  # and soundfile at load time.
  "$venv/bin/pip" install -q faster-whisper==1.2.1 ctranslate2==4.8.5 librosa==0.11.0 soundfile==0.14.0 >&2
  site="$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")"
  if [ -n "${AURIS_WHISPER_ONLINE_PY:-}" ]; then
    cp "$AURIS_WHISPER_ONLINE_PY" "$site/whisper_online.py.partial"
  else
    curl -fsSL -o "$site/whisper_online.py.partial" \
      "https://raw.githubusercontent.com/ufal/whisper_streaming/$commit/whisper_online.py" ||
      { echo "setup_stream_peer: GitHub unreachable; set AURIS_WHISPER_ONLINE_PY to a local copy" >&2; exit 1; }
  fi
  echo "$sha256  $site/whisper_online.py.partial" | sha256sum --check --status || {
    echo "setup_stream_peer: whisper_online.py is not the one of commit $commit (sha256 $sha256)" >&2
    rm -f "$site/whisper_online.py.partial"
    exit 1
  }
  mv "$site/whisper_online.py.partial" "$site/whisper_online.py"
fi
echo "$venv/bin/python"
