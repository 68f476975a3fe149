#!/usr/bin/env bash
# A fresh virtual environment build/python-venv with what the Python package needs at run time and
# for its tests (pyproject.toml's dependencies and its `test` extra), but not the package itself:
# scripts/test_python.sh installs that. Apart, so that scripts/test.sh fetches these from PyPI while
# the engine compiles. Needs root (or sudo) for python3-dev and python3-venv.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh python3-dev python3-venv
venv=build/python-venv
rm -rf "$venv"
python3 -m venv "$venv"
mapfile -t requirements < <("$venv/bin/python" - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["test"]))
PY
)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}"
