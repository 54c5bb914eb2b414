#!/usr/bin/env bash
# Installs what is needed, builds everything and runs every test, then the
# engine tests again under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j2 --timeout 900)
scripts/test-sanitizers.sh
