#!/usr/bin/env bash
# The CPU speed benchmark in one command: installs the peers (scripts/setup_bench.sh) and the
# reference (scripts/setup_reference.sh), fetches the models, builds auris, and runs bench/speed.py,
# which prints the markdown tables of docs/BENCHMARKS.md and writes bench/results/speed.json.
# Arguments go to bench/speed.py (e.g. --models tiny.en --repeats 5). Takes about an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null 2>&1 && [ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
scripts/install_deps.sh >&2
scripts/fetch_models.sh tiny.en base >&2
bench_python=$(scripts/setup_bench.sh)
reference_python=$(scripts/setup_reference.sh)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target auris_cli auris_floors >&2
exec python3 bench/speed.py --bench-python "$bench_python" --reference-python "$reference_python" "$@"
