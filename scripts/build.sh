#!/usr/bin/env bash
# Configures and builds into ./build (Release with debug info, warnings as errors).
# Extra arguments go to CMake's configure step (e.g. -DDFC_PCH=ON, as CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFC_WERROR=ON "$@" >/dev/null
cmake --build build -j"$(nproc)"
