#!/usr/bin/env bash
# Installs the Debian packages auris builds and tests with, or the packages named as arguments.
# Idempotent; needs root (or sudo).
set -euo pipefail
packages=(build-essential cmake pkg-config git python3 python3-pip
  libdnnl-dev libfftw3-dev libavformat-dev libavdevice-dev libavcodec-dev libswresample-dev libavutil-dev
  ffmpeg nlohmann-json3-dev libcli11-dev libpcre2-dev zlib1g-dev libcurl4-openssl-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-openmp-dev libicu-dev
  libcpp-httplib-dev libboost-dev sox ccache)  # libboost-dev: Boost.Beast, the server's WebSocket; sox: the VAD tests' noise and tones; ccache: scripts/test.sh's compiler cache
[ $# -gt 0 ] && packages=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
