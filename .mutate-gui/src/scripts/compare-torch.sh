#!/usr/bin/env bash
# dfc against PyTorch eager (Debian's python3-torch) on the same models, batch,
# optimizer and thread count, interleaved in one run: scripts/compare_torch.py.
# Skips (exit 0) when python3-torch is not installed; CI does not need it.
#   scripts/compare-torch.sh [--case lenet|gpt2|resnet18-b1|resnet18-b8|bert]... [--threads N]... [--repeats N]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" > /dev/null && "$candidate" -c 'import torch' 2> /dev/null; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  echo "compare-torch: python3-torch is not installed (apt-get install python3-torch); skipping"
  exit 0
fi
BENCH=${BENCH:-build/bench/bench_runtime}
if [ ! -x "$BENCH" ]; then
  cmake --build build --target bench_runtime
fi
exec "$PY" scripts/compare_torch.py --bench "$BENCH" "$@"
