#!/usr/bin/env bash
# Accuracy against the reference: WER of auris on the 58 Hi-Fi TTS utterances and on the 232-s
# long-form file, next to openai/whisper's WER on the same weights with the same options (read from
# the golden fixtures that tools/reference/golden_longform.py wrote), both scored with openai's
# EnglishTextNormalizer. Options: transcribe() defaults (greedy, temperature fallback). Every compute
# type is scored (AURIS_COMPUTE_TYPES, default "float32 float16 bfloat16 int8"): the reduced ones are judged
# by their WER next to float32's.
# Usage: bench/accuracy.sh [MODEL...]   (default: tiny.en base; needs scripts/fetch_models.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/audio
auris=${AURIS_BIN:-./build/auris}
[ -x "$auris" ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j"$(nproc)" --target auris_cli >&2; }
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(tiny.en base)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$data/hifitts-6097/manifest.jsonl" "$work" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
with open(sys.argv[2] + "/utterances.list", "w") as f:
    f.writelines(sys.argv[1].rsplit("/", 1)[0] + "/" + r["audio_filepath"] + "\n" for r in rows)
with open(sys.argv[2] + "/utterances.ref", "w") as f:
    f.writelines(r["text_no_preprocessing"].replace("\n", " ") + "\n" for r in rows)
PY
tr '\n' ' ' < "$data/longform/hifitts-dev-concat.txt" > "$work/longform.ref"; echo >> "$work/longform.ref"

reference_wer() {  # reference_wer MODEL FILE: openai's WER from the fixture
  python3 -c "import json,sys; print('%.4f' % json.load(open(sys.argv[1]))['wer']['wer'])" \
    "tests/fixtures/longform/$1/$2"
}

read -r -a compute_types <<< "${AURIS_COMPUTE_TYPES:-float32 float16 bfloat16 int8}"
printf "%-8s %-9s %-22s %10s %10s %8s\n" model compute set auris openai diff
for model in "${models[@]}"; do
  for ct in "${compute_types[@]}"; do
    mapfile -t files < "$work/utterances.list"
    "$auris" transcribe --model "$model" --compute-type "$ct" --beam-size 0 "${files[@]}" > "$work/utterances.$model.hyp"
    "$auris" transcribe --model "$model" --compute-type "$ct" --beam-size 0 "$data/longform/hifitts-dev-concat.flac" \
      > "$work/longform.$model.hyp"
    for set in utterances longform; do
      ours=$("$auris" wer "$work/$set.ref" "$work/$set.$model.hyp" | awk '{print $2}')
      fixture=$([ "$set" = utterances ] && echo hifitts-utterances.json || echo hifitts-dev-concat.greedy_fallback.json)
      theirs=$(reference_wer "$model" "$fixture")
      printf "%-8s %-9s %-22s %10s %10s %+8.4f\n" "$model" "$ct" "hifitts $set" "$ours" "$theirs" \
        "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { print a - b }')"
    done
  done
done
