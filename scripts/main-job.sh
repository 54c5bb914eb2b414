#!/usr/bin/env bash
# The main job: install, build, compile LeNet (-o0), train it one epoch on
# Fashion-MNIST, record everything, print a summary and open dfstudio on it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
DFC=build/app/dfc/dfc
$DFC compile --model lenet --pef-name lenet -o0 -v
$DFC run --pef out/lenet/lenet.pef -e 1 --data-folder /usr/share/datasets/fashion-mnist
$DFC inspect out/lenet/lenet.pef | tail -n 1
$DFC report out/lenet/lenet.pef
echo "Trace (open in Perfetto, chrome://tracing or dfstudio): out/lenet/lenet_chrome_tracing_report.json"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/dfstudio/dfstudio ]; then
  build/app/dfstudio/dfstudio out/lenet/lenet.pef &
  echo "dfstudio started"
else
  echo "no display: run 'build/app/dfstudio/dfstudio out/lenet/lenet.pef' on a desktop to see it"
fi
