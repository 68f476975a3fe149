#!/usr/bin/env bash
# Installs what the server's end-to-end tests (tests/server) need: Debian's chromium and its driver
# for the page's browser test, and a virtual environment build/pyenv with the official OpenAI
# client, pytest and Selenium (tests/server/requirements.txt). Idempotent; needs root (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(chromium chromium-driver python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -x build/pyenv/bin/python ] || python3 -m venv build/pyenv
build/pyenv/bin/python -m pip install -q --disable-pip-version-check -r tests/server/requirements.txt
