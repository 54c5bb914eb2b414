#!/usr/bin/env bash
# dfc against ONNX Runtime (onnxruntime-node from npm) on the same .onnx files
# (exported by python3-torch), batch and thread count, interleaved in one run:
# scripts/compare_ort.py. Skips (exit 0) without node/npm or python3-torch;
# CI does not need it. onnxruntime-node and the models go to .compare-ort/ (ignored).
#   scripts/compare-ort.sh [--case NAME]... [--threads N]... [--repeats N] [--opt o0|o1|o3]
set -euo pipefail
cd "$(dirname "$0")/.."
ORT_VERSION=${ORT_VERSION:-1.30.0}
CACHE=.compare-ort
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "compare-ort: node and npm are not installed (apt-get install nodejs npm); skipping"
  exit 0
fi
PY=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" > /dev/null && "$candidate" -c 'import torch, torchvision, onnx' 2> /dev/null; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  echo "compare-ort: python3-torch, python3-torchvision or python3-onnx is not installed; skipping"
  exit 0
fi
MODULE=$PWD/$CACHE/node/node_modules/onnxruntime-node
if [ ! -d "$MODULE" ]; then
  mkdir -p $CACHE/node
  echo '{"private": true}' > $CACHE/node/package.json
  # --ignore-scripts: the postinstall step fetches GPU binaries from GitHub; the CPU binding ships in the package.
  if ! npm install --prefix $CACHE/node --no-save --ignore-scripts --no-audit --no-fund \
    "onnxruntime-node@$ORT_VERSION" > $CACHE/npm.log 2>&1; then
    echo "compare-ort: npm install onnxruntime-node@$ORT_VERSION failed (see $CACHE/npm.log); skipping"
    exit 0
  fi
fi
if ! node -e "require('$MODULE')" 2> $CACHE/node-load.log; then
  echo "compare-ort: the onnxruntime-node CPU binding does not load (see $CACHE/node-load.log); skipping"
  exit 0
fi
DFC=${DFC:-build/app/dfc/dfc}
if [ ! -x "$DFC" ]; then
  cmake --build build --target dfc  # build/app/dfc/dfc
fi
exec "$PY" scripts/compare_ort.py --dfc "$DFC" --ort-module "$MODULE" --models $CACHE/models "$@"
