#!/usr/bin/env bash
# The Python package as a user gets it: a fresh virtual environment (scripts/prepare_python_venv.sh
# with the package's dependencies), `pip install .` (scikit-build-core
# builds the engine and auris._core; through ccache when scripts/test.sh set it up), then its tests
# (python/tests, pytest) against the CLI of the Release tree.
# Usage: scripts/test_python.sh [BUILD_TREE]   (default: build, for its auris command)
set -euo pipefail
cd "$(dirname "$0")/.."

tree=${1:-build}
venv=build/python-venv
# scripts/test.sh prepares the venv while the engine compiles, and says so.
[ "${AURIS_PYTHON_VENV_READY:-0}" = "1" ] || scripts/prepare_python_venv.sh
# The Release tree's compilers: ccache keys on the compiler's name too (c++ is not g++), so with them
# the library's objects come from the cache.
if [ -f "$tree/CMakeCache.txt" ]; then
  CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$tree/CMakeCache.txt")
  CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$tree/CMakeCache.txt")
  export CXX CC
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check ".[test]"
# From outside the source tree, so that `import auris` is the installed package, not python/auris.
cd python/tests
AURIS_CLI="$OLDPWD/$tree/auris" "../../$venv/bin/python" -m pytest -q -p no:cacheprovider .
