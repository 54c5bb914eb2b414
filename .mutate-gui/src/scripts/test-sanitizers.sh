#!/usr/bin/env bash
# The engine and CLI tests again under AddressSanitizer + UndefinedBehaviorSanitizer
# (Debug build in ./build-asan, GUI and benchmarks off: only what the tests run).
# Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDFC_BUILD_GUI=OFF -DDFC_BUILD_BENCH=OFF -DDFC_WERROR=ON -DDFC_PCH=ON \
  "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
cmake --build build-asan -j"$(nproc)"
cd build-asan
# Leak checking needs ptrace, which some sandboxes forbid; memory errors and UB are what we gate on.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j2 --timeout 900
