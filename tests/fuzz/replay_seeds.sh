#!/usr/bin/env bash
# ctest's replay of the fuzz targets (tests/fuzz/replay.cc): the model target writes its seeds (the
# synthetic model in every format and storage type) and replays each format's; the audio target
# replays the test data's audio files; the tokenizer target writes and replays its seed texts; the
# server target writes and replays its form fields, realtime events and realtime audio. Any input
# that crashes, trips a sanitizer, or breaks what its target checks fails the test.
# Usage: replay_seeds.sh MODEL_TARGET AUDIO_TARGET TOKENIZER_TARGET SERVER_TARGET DATA_DIR
#        ($AURIS_TEST_DATA, when set, is DATA_DIR)
set -euo pipefail
model_target=$1 audio_target=$2 tokenizer_target=$3 server_target=$4 data=${AURIS_TEST_DATA:-$5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AURIS_FUZZ_WORK=$work
AURIS_FUZZ_SEEDS="$work/seeds" "$model_target"
for format in ct2 ct2-vocab safetensors hf-config hf-vocab ggml; do
  AURIS_FUZZ_FORMAT=$format "$model_target" "$work/seeds/$format"/*
done
AURIS_FUZZ_SEEDS="$work/seeds" "$server_target"
for format in form realtime-event realtime-audio; do
  AURIS_FUZZ_FORMAT=$format "$server_target" "$work/seeds/$format"/*
done
# What the fuzzer found (tests/fuzz/regressions/TARGET-what.ext), replayed as found.
"$audio_target" "$(dirname "$0")"/regressions/audio-*
if [ -d "$data/audio" ]; then
  AURIS_FUZZ_FORMAT=vad "$model_target" "$data"/vad/*.bin
  "$audio_target" "$data/audio/jfk.wav" "$data/audio/jfk.flac" "$data"/audio/digits-8k/*.wav
  AURIS_FUZZ_SEEDS="$work/seeds" "$tokenizer_target"
  AURIS_TEST_DATA=$data "$tokenizer_target" "$work/seeds/text"/*
else
  echo "replay_seeds.sh: no test data at $data: the VAD file, the audio and the text were not replayed"
fi
