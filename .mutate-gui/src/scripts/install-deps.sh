#!/usr/bin/env bash
# Installs the Debian 12 packages Dataflow Studio builds, runs and tests with.
set -euo pipefail
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libgl-dev libgraphviz-dev graphviz
  libsqlite3-dev sqlite3 catch2 libspdlog-dev libopenblas-dev libdnnl-dev libyaml-cpp-dev libsimdjson-dev zlib1g-dev
  dataset-fashion-mnist
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx python3-numpy
  python3-torch python3-torchvision
  xvfb xauth
  clang-14 libclang-rt-14-dev clang-format
  appstream desktop-file-utils
  openmpi-bin libopenmpi-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
