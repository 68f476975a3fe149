#!/usr/bin/env bash
# Installs what the server's end-to-end tests (tests/server) need: Debian's chromium and its driver
# for the page's browser test, and a virtual environment build/pyenv with the official OpenAI
# client, pytest and Selenium (tests/server/requirements.txt). Idempotent; needs root (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh chromium chromium-driver python3-venv
[ -x build/pyenv/bin/python ] || python3 -m venv build/pyenv
build/pyenv/bin/python -m pip install -q --disable-pip-version-check -r tests/server/requirements.txt
