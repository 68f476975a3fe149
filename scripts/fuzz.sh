#!/usr/bin/env bash
# Fuzzes what users hand auris with libFuzzer: model files (src/model/model_files_fuzz.cc, targets
# ct2, ct2-vocab, safetensors, hf-config, hf-vocab, ggml, vad), audio files
# (src/audio/audio_file_fuzz.cc, target audio), text to tokenize, as a prompt or hotwords
# (src/tokenizer/tokenizer_fuzz.cc, target text), and what clients send the server
# (src/server/server_input_fuzz.cc, targets form, realtime-event, realtime-audio). Builds them with
# clang and ASan + UBSan into build-fuzz/, writes seed corpora (the synthetic test model in every
# storage type, whisper.cpp's test files and the Silero VAD file from ../shared/data, one second of
# audio in a dozen formats from ffmpeg, texts in several scripts, form fields, realtime events and
# audio), then runs each target for SECONDS, as many at once as there are cores. Corpora stay in
# build-fuzz/corpus/ for the next run. A finding goes to build-fuzz/findings/ and ends the run with
# exit 1 (an earlier run's findings stay there, not counted). Not part of scripts/test.sh: a
# campaign, not a test (ctest only replays the seeds: tests/fuzz/replay_seeds.sh).
# Usage: scripts/fuzz.sh [SECONDS per target, default 300] [TARGET...]   (needs clang: apt-get install clang)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ct2 ct2-vocab safetensors hf-config hf-vocab ggml vad audio text form realtime-event realtime-audio)
out=build-fuzz
mkdir -p "$out/obj" "$out/findings"
touch "$out/run-start"  # this run's findings are the files newer than it
command -v clang++ >/dev/null || scripts/install_deps.sh clang

# The readers and what they link, compiled alone: the kernels need GCC's target pragmas, which clang
# ignores, so cpu_path() (half_float.cc's choice of F16C conversions) is answered by a stand-in.
model_sources=(src/model/model_files_fuzz.cc src/model/model_loader.cc src/model/ct2_loader.cc src/model/ggml_loader.cc
  src/model/huggingface_loader.cc src/model/huggingface_names.cc src/model/huggingface_writer.cc
  src/model/ggml_writer.cc src/model/safetensors.cc src/model/model_json.cc src/model/weight_layout.cc
  src/model/ggml_format.cc src/model/ggml_blocks.cc src/model/half_float.cc src/model/model_registry.cc
  src/model/model_dims.cc src/model/weights.cc src/model/bpe_merges.cc src/util/mapped_file.cc
  src/util/huge_pages.cc src/util/bounded_json.cc src/tokenizer/byte_unicode.cc src/vad/ggml_vad_file.cc src/audio/mel_filters.cc
  "$out/cpu_path_stand_in.cc")
audio_sources=(src/audio/audio_file_fuzz.cc src/audio/audio_file.cc src/audio/audio_stream.cc)
text_sources=(src/tokenizer/tokenizer_fuzz.cc src/tokenizer/tokenizer.cc src/tokenizer/bpe.cc src/tokenizer/word_split.cc
  src/tokenizer/tiktoken_file.cc src/tokenizer/languages.cc src/tokenizer/utf8.cc src/tokenizer/byte_unicode.cc
  src/text/unicode_text.cc src/decoding/strip_whitespace.cc src/util/mapped_file.cc src/util/huge_pages.cc)
server_sources=(src/server/server_input_fuzz.cc src/server/transcription_form.cc src/server/http_error.cc
  src/server/realtime_session_config.cc src/server/realtime_audio.cc src/util/bounded_json.cc src/tokenizer/languages.cc
  src/tokenizer/utf8.cc src/transcribe/temperature_schedule.cc "$out/vad_defaults_stand_in.cc")
# The server's form reads the batched pipeline's VAD defaults (batch_transcriber.cc, which links the
# whole engine): the fields are checked the same over any defaults.
# stand_in NAME TEXT: $out/NAME.cc holding TEXT, rewritten only when TEXT changes.
stand_in() {
  printf '%s\n' "$2" > "$out/$1.cc.new"
  if cmp -s "$out/$1.cc.new" "$out/$1.cc"; then rm "$out/$1.cc.new"; else mv "$out/$1.cc.new" "$out/$1.cc"; fi
}
stand_in cpu_path_stand_in '#include "kernels/cpu/cpu_path.h"
namespace auris { CpuPath cpu_path() { return CpuPath::kAvx2; } }'
stand_in vad_defaults_stand_in '#include "auris/batch.h"
namespace auris { VadParameters batched_vad_parameters() { return {}; } }'
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -Wno-unknown-attributes -fsanitize=fuzzer-no-link,address,undefined
  -fno-sanitize-recover=undefined -Iinclude -Isrc -Itests)
object_of() { echo "$out/obj/$(echo "$1" | tr / _).o"; }
# compile SOURCE: its object, unless the object is newer than it and than every header.
compile() {
  local object
  object=$(object_of "$1")
  if [ -f "$object" ] && [ "$object" -nt "$1" ] && [ -z "$(find src include tests -name '*.h' -newer "$object" | head -n 1)" ]; then
    return 0
  fi
  clang++ "${flags[@]}" -c "$1" -o "$object"
}
# link PROGRAM SOURCES...: compiles them, as many at once as there are cores, then links with libFuzzer.
link() {
  local program=$1 objects=() pending=0
  shift
  for source in "$@"; do
    objects+=("$(object_of "$source")")
    compile "$source" &
    pending=$((pending + 1))
    if [ "$pending" -ge "$(nproc)" ]; then wait -n; pending=$((pending - 1)); fi
  done
  wait
  clang++ -fsanitize=fuzzer,address,undefined "${objects[@]}" "${libraries[@]}" -o "$out/$program"
}
libraries=()
link model_files_fuzz "${model_sources[@]}"
libraries=(-lavformat -lavcodec -lswresample -lavutil)
link audio_file_fuzz "${audio_sources[@]}"
libraries=(-lpcre2-8 -licuuc -licui18n)
link tokenizer_fuzz "${text_sources[@]}"
libraries=(-lavcodec -lswresample -lavutil -lpcre2-8 -licuuc -licui18n)
link server_input_fuzz "${server_sources[@]}"

rm -rf "$out/seeds"
AURIS_FUZZ_SEEDS="$PWD/$out/seeds" "$out/model_files_fuzz"
AURIS_FUZZ_SEEDS="$PWD/$out/seeds" "$out/tokenizer_fuzz"
AURIS_FUZZ_SEEDS="$PWD/$out/seeds" "$out/server_input_fuzz"
mkdir -p "$out/seeds/vad" "$out/seeds/audio"
cp ../shared/data/ggml-format/*.bin "$out/seeds/ggml/"
cp ../shared/data/vad/*.bin "$out/seeds/vad/"
tone=(-f lavfi -i "sine=frequency=440:duration=1")
n=0
for spec in "wav -ar 16000" "wav -ar 44100 -ac 2 -c:a pcm_f32le" "wav -ar 8000 -c:a pcm_u8" "flac -ar 16000" \
    "mp3 -ar 22050" "ogg -c:a libvorbis" "opus -ar 48000" "m4a -c:a aac" "aiff -ar 16000" "au -ar 16000" \
    "mka -c:a pcm_s24le" "caf -ar 16000"; do
  read -r extension options <<< "$spec"
  n=$((n + 1))
  # shellcheck disable=SC2086
  ffmpeg -loglevel error -y "${tone[@]}" $options "$out/seeds/audio/tone$n.$extension" ||
    echo "(no $extension seed: this ffmpeg cannot write it)"
done
export AURIS_FUZZ_WORK="$PWD/$out/work"
mkdir -p "$AURIS_FUZZ_WORK"

# fuzz TARGET: one target's campaign.
fuzz() {
  local program=model_files_fuzz
  [ "$1" = audio ] && program=audio_file_fuzz
  [ "$1" = text ] && program=tokenizer_fuzz
  case $1 in form | realtime-*) program=server_input_fuzz ;; esac
  mkdir -p "$out/corpus/$1"
  AURIS_FUZZ_FORMAT=$1 "$out/$program" -max_total_time="$seconds" -max_len=4194304 -print_final_stats=1 \
    -artifact_prefix="$out/findings/$1-" "$out/corpus/$1" "$out/seeds/$1" > "$out/$1.log" 2>&1 || true
  echo "$1: $(awk '/stat::number_of_executed_units/ {print $2}' "$out/$1.log") inputs," \
       "$(find "$out/corpus/$1" -type f | wc -l) in the corpus, $(find "$out/findings" -name "$1-*" -newer "$out/run-start" | wc -l) findings"
}
running=0
for target in "${targets[@]}"; do
  fuzz "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$(nproc)" ]; then wait -n; running=$((running - 1)); fi
done
wait
rm -rf "$AURIS_FUZZ_WORK"
if [ -n "$(find "$out/findings" -type f -newer "$out/run-start")" ]; then
  echo "findings (replay one: AURIS_FUZZ_FORMAT=TARGET $out/model_files_fuzz FILE, $out/audio_file_fuzz FILE or"
  echo "$out/tokenizer_fuzz FILE, $out/server_input_fuzz FILE):"
  find "$out/findings" -type f -newer "$out/run-start"
  exit 1
fi
