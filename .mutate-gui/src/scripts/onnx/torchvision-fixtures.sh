#!/usr/bin/env bash
# torchvision's fcn_resnet50 (128x128) and swin_t (224x224) with random
# weights, exported by scripts/export_torch_models.py --large into WORKDIR
# (100+ MB each, so never committed) and checked against PyTorch's own outputs
# by this build's `dfc conformance`.
# fcn_resnet50's scores reach ~300: an absolute floor of 1e-3 (3e-6 of the
# largest) lets the elements near zero pass; swin_t meets the default bar.
# Usage: torchvision-fixtures.sh DFC WORKDIR
set -euo pipefail
dfc=${1:?dfc binary} work=${2:?work dir}
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work" && mkdir -p "$work/export" "$work/fcn" "$work/swin"
/usr/bin/python3 "$here/export_torch_models.py" --large "$work/export" 2>&1 | grep -v -i warn || true
mv "$work/export/fcn_resnet50" "$work/fcn/" && mv "$work/export/swin_t" "$work/swin/"
status=0
check() {  # dfc conformance exits 0 on an unsupported case: here the case must pass
  local out
  out=$("$dfc" conformance "$@" 2>&1) || true
  echo "$out"
  echo "$out" | tail -n 1 | grep -q '^1 passed, 0 failed' || status=1
}
check "$work/fcn" --atol 1e-3
check "$work/swin"
rm -rf "$work"
exit $status
