#!/usr/bin/env bash
# Installs what is needed, checks the format of changed lines, builds everything
# and runs every test, builds and checks the .deb, then the engine tests again
# under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# clang-format on the lines this branch changed (nothing on main itself): seconds, before the long build.
scripts/format.sh --check
# A one-shot build: precompiled headers save more than ccache could.
scripts/build.sh -DDFC_PCH=ON
(cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j2 --timeout 900)
# The .deb from the same build (stripped by CPack): installed, run from /usr/bin, removed.
scripts/check-deb.sh build
scripts/test-sanitizers.sh
