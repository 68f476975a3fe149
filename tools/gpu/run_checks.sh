#!/usr/bin/env bash
# Runs on a GPU machine lent through the device tool, in the repository's copy there, after
# tools/gpu/bundle.sh packed what it needs here. Two parts, one call each, the second while the
# machine is still warm (it keeps the first call's unpacked files):
#   speed   (carry .gpu/binaries.tar.xz): the CUDA kernel tests, then bench/gpu_speed.py on random
#           weights of the large-v3 and large-v3-turbo shapes beside transformers, with the fused
#           decode step and it with programmatic launch as rows of their own, the encoder attention
#           fused and through cuDNN for large-v3 (G2's model, first: its rows matter most) and the
#           step's tail on the host for turbo (the cross K/V recompute ablation, measured on the
#           H200, is left out for time; torch.compile, which crashed there, runs last);
#   engine  (carry .gpu/data.tar.xz): the CUDA engine's tests on tiny.en against the CPU engine, the
#           word error rate of each compute type on CUDA over the 58 Hi-Fi TTS utterances, their
#           batched wall time at batch 1, 8 and 32 (and on large-v3-turbo's shapes, with the speed
#           call's random weights), `auris serve` under 32 clients against one (bench/server_load.py),
#           and an Nsight Compute profile of a large-v3 encoder window, fused and through cuDNN (the
#           cuBLAS path's is bench/results/ncu_encoder_large-v3_cublas_h200.csv).
# Results go to $OUT (the device tool's folder that comes back).
#
# Usage: tools/gpu/run_checks.sh speed|engine [seconds the speed runs may take, default 480]
set -uo pipefail
part=${1:?speed or engine}
budget=${2:-480}
work=/root/auris-gpu
out=${OUT:-$work/out}
mkdir -p "$work" "$out"
log() { echo "[$(date +%T)] $*"; }
unpack() { python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$work"; }

cuda_libs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib; do
  [[ -e $d/libcublasLt.so.13 ]] && { cuda_libs=$d; break; }
done
found=$(find /usr /opt -name 'libcublasLt.so.13' 2>/dev/null | head -1)
[[ -z $cuda_libs && -n $found ]] && cuda_libs=$(dirname "$found")
# cuDNN, for --cudnn-encoder-attention (opened at run time): the toolkit's, or the one PyTorch's
# wheels bring; none, and its tests skip and its rows fail saying so.
cudnn_libs=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
if [[ ! -e $cudnn_libs/libcudnn.so.9 ]]; then
  found=$(find /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt -name 'libcudnn.so.9' 2>/dev/null | head -1)
  cudnn_libs=${found:+$(dirname "$found")}
fi
export AURIS_MODEL_DIR=$work/models AURIS_TEST_DATA=$work/data AURIS_CUDA_PLUGIN=$work/bin/libauris_cuda.so
# The bundle's libraries for auris's programs alone: Python must keep its own (the stand-ins would
# answer its liblzma and libssl calls with zeros).
for program in auris auris_tests; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$work/lib:$cuda_libs:$cudnn_libs" "$work/bin/$program" > "$work/$program"
  chmod +x "$work/$program"
done
auris=$work/auris

if [[ $part == speed ]]; then
  log "unpacking binaries"; unpack .gpu/binaries.tar.xz
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; echo "cuBLAS from $cuda_libs, cuDNN from ${cudnn_libs:-nowhere}";
    python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } \
    2>&1 | tee "$out/machine.txt"
  log "kernel tests"
  timeout 150 "$work/auris_tests" --gtest_filter='CudaKernels.*' > "$out/kernel_tests.log" 2>&1
  grep -E '^\[  (PASSED|FAILED) |FAILED|largest' "$out/kernel_tests.log" | head -40
  log "a 45-s tone: two windows a pass"
  python3 - "$work/tone.wav" <<'PY'
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 16000))) for i in range(45 * 16000)))
PY
  log "speed: large-v3, then large-v3-turbo with every transformers configuration"
  timeout "$budget" bash -c "
    python3 bench/gpu_speed.py --models large-v3 --repeats 2 --steps 40 --transformers sdpa eager --peer-timeout 100 \
      --ablations fused cudnn fused-step overlapped \
      --vocab-from $work/models/vocabulary-base --audio $work/tone.wav --auris $auris --work $work/models --out $out/gpu_speed_large-v3.json
    python3 bench/gpu_speed.py --models large-v3-turbo --repeats 3 --steps 60 --transformers eager sdpa compiled --peer-timeout 100 \
      --ablations host-tail fused-step overlapped \
      --vocab-from $work/models/vocabulary-base --audio $work/tone.wav --auris $auris --work $work/models --out $out/gpu_speed_turbo.json
  " > "$out/gpu_speed.log" 2>&1
  grep -v '^ *"' "$out/gpu_speed.log" | tail -40
  log "done"
  exit 0
fi

[[ $part == engine ]] || { echo "run_checks.sh: give speed or engine" >&2; exit 2; }
log "unpacking data"; unpack .gpu/data.tar.xz
[[ -x $work/bin/auris ]] || { echo "run_checks.sh: no binaries: the speed call's files are gone (the machine went back)"; exit 1; }
log "engine tests"
timeout 200 "$work/auris_tests" --gtest_filter='CudaEngine.*' > "$out/engine_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED) |FAILED|Failure|Expected|Which is' "$out/engine_tests.log" | head -40
log "word error rate per compute type on CUDA (tiny.en, int8-rounded weights), float32 on the CPU beside them"
manifest=$work/data/audio/hifitts-6097/manifest.jsonl
python3 - "$manifest" "$work" <<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
base = os.path.dirname(sys.argv[1])
open(sys.argv[2] + "/utterances.list", "w").writelines(base + "/" + r["audio_filepath"] + "\n" for r in rows)
open(sys.argv[2] + "/utterances.ref", "w").writelines(r["text_no_preprocessing"].replace("\n", " ") + "\n" for r in rows)
PY
mapfile -t files < "$work/utterances.list"
{
  for run in "cpu float32" "cuda float32" "cuda float16" "cuda bfloat16"; do
    read -r device ct <<< "$run"
    "$auris" transcribe -m tiny.en --device "$device" --compute-type "$ct" --beam-size 0 "${files[@]}" > "$work/hyp.$device.$ct" 2>"$work/err.$device.$ct" \
      || { echo "$device $ct: failed: $(tail -3 "$work/err.$device.$ct")"; continue; }
    echo "$device $ct utterances $("$auris" wer "$work/utterances.ref" "$work/hyp.$device.$ct")"
    "$auris" transcribe -m tiny.en --device "$device" --compute-type "$ct" --beam-size 0 "$work/data/audio/longform/hifitts-dev-concat.flac" \
      > "$work/long.$device.$ct" 2>/dev/null && tr '\n' ' ' < "$work/long.$device.$ct" > "$work/long1.$device.$ct" && echo >> "$work/long1.$device.$ct" &&
      { tr '\n' ' ' < "$work/data/audio/longform/hifitts-dev-concat.txt"; echo; } > "$work/long.ref" &&
      echo "$device $ct longform $("$auris" wer "$work/long.ref" "$work/long1.$device.$ct")"
  done
} 2>&1 | tee "$out/wer.txt"
log "batched transcription on CUDA (every window's rows in one step): the 58 utterances at batch 1, 8 and 32"
for b in 1 8 32; do
  start=$(date +%s.%N)
  "$auris" transcribe -m tiny.en --device cuda --batch-size "$b" "${files[@]}" > "$work/batch.$b" 2>"$work/batch_err.$b" \
    || { echo "batch $b: failed: $(tail -3 "$work/batch_err.$b")"; continue; }
  echo "batch $b: $(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 2))" "$(date +%s.%N)" "$start") s wall," \
       "WER $("$auris" wer "$work/utterances.ref" "$work/batch.$b")"
done 2>&1 | tee "$out/batch_cuda.txt"
log "the server on CUDA (issue 30's S2): 32 clients, then one, 20 s each, every transcript against the CLI's"
AURIS_BIN=$auris timeout 150 python3 bench/server_load.py --model tiny.en --device cuda --compute-type float16 \
  --max-batch 32 --clients 32 --seconds 20 --output "$out/server_load_cuda.json" > "$out/server_load_cuda.log" 2>&1
grep -E 'auris (load|single)|ratio|mismatch|fail|Error' "$out/server_load_cuda.log" | head -20
if [[ -d $work/models/large-v3-turbo && -f $work/tone.wav ]]; then
  log "batched throughput on large-v3-turbo's shapes (the speed call's random weights): 16 copies of the 45-s tone at batch 1, 8 and 32"
  tones=(); for _ in $(seq 16); do tones+=("$work/tone.wav"); done
  for b in 1 8 32; do
    start=$(date +%s.%N)
    "$auris" transcribe -m "$work/models/large-v3-turbo" --device cuda --compute-type float16 --batch-size "$b" --beam-size 0 \
      --temperature 0 --temperature-increment-on-fallback 0 --print-timings "${tones[@]}" > /dev/null 2>"$work/turbo_batch.$b" \
      || { echo "batch $b: failed: $(tail -3 "$work/turbo_batch.$b")"; continue; }
    python3 - "$b" "$(date +%s.%N)" "$start" "$work/turbo_batch.$b" <<'PY'
import json, sys
b, end, start, log = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
t = json.loads(open(log).read().split("auris: timings ", 1)[1].splitlines()[0])
wall = end - start
print(f"batch {b}: {wall:.2f} s wall, {16 * 45 / wall:.1f} audio s per wall s, {t['decode_steps']} steps of "
      f"{t['mean_rows_per_step']:.1f} rows, {t['decode_ms_per_step']:.3f} ms a step, {t['device_step_tails']} tails on the device")
PY
  done 2>&1 | tee "$out/batch_turbo.txt"
fi
if [[ -d $work/models/large-v3 && -f $work/tone.wav ]]; then
  log "where a large-v3 encoder window goes (bench/ncu_summary.py --encoder reads the files)"
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for path in fused cudnn; do
    timeout 120 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --launch-count 330 \
      "$auris" transcribe -m "$work/models/large-v3" --device cuda --compute-type float16 --beam-size 0 --temperature 0 \
      --temperature-increment-on-fallback 0 "--$path-encoder-attention" "$work/tone.wav" > "$out/ncu_encoder_$path.csv" 2>&1
    rows=$(( $(grep -c '^"' "$out/ncu_encoder_$path.csv") - 1 ))  # less the header
    echo "$path: $rows kernel rows"
    (( rows > 0 )) || { echo "ncu profiled nothing: $(grep -v '^"' "$out/ncu_encoder_$path.csv" | tail -2)"; break; }
  done
fi
log "done"
