#!/usr/bin/env bash
# Configures and builds into ./build (Release with debug info, warnings as errors).
# Leading --target NAME arguments build only those targets (the main job builds
# dfc and dfstudio); the rest go to CMake's configure step (e.g. -DDFC_PCH=ON, as CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
while [ "${1:-}" = "--target" ]; do
  targets+=(--target "$2")
  shift 2
done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFC_WERROR=ON "$@" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
