#!/usr/bin/env bash
# The main job: install, build dfc and dfstudio (only those: the tests build in
# scripts/test.sh), compile LeNet (-o0), train it one epoch on Fashion-MNIST,
# record everything, print a summary saying what was measured, what was
# written and how to open it, and open dfstudio on it when there is a display.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target dfc --target dfstudio
DFC=build/app/dfc/dfc
STUDIO=build/app/dfstudio/dfstudio
OUT=out/lenet
mkdir -p "$OUT"
LOG=$OUT/main-job.log
$DFC compile --model lenet --pef-name lenet -o0 -v 2>&1 | tee "$LOG"
$DFC run --pef $OUT/lenet.pef -e 1 --data-folder /usr/share/datasets/fashion-mnist 2>&1 | tee -a "$LOG"
$DFC report $OUT/lenet.pef 2>&1 | tee -a "$LOG"

# What the run printed, picked out of the log for the summary.
accuracy=$(grep -o 'Test Accuracy: [0-9.]*%' "$LOG" | tail -n 1 | cut -d' ' -f3)
throughput=$(grep -o '[0-9.]* samples/s on [0-9]* threads\?' "$LOG" | tail -n 1)
sections=$(grep -o 'wrote .*section_report.csv ([0-9]* sections' "$LOG" | grep -o '[0-9]* sections' || true)
store=${XDG_DATA_HOME:-$HOME/.local/share}/dataflow-studio/runs.sqlite
echo
echo "== Main job done: LeNet trained one epoch on Fashion-MNIST (compiled -o0: one operator per section${sections:+, $sections}) =="
echo "  test accuracy   ${accuracy:-?} (on the test split, after one epoch)"
echo "  training speed  ${throughput:-?} (the host CPU running every section)"
echo "  files written"
row() { printf '    %-48s %s\n' "$1" "$2"; }
row "$OUT/lenet.pef" "the compiled model (graph, sections, schedule, bitfiles)"
row "$OUT/lenet_chrome_tracing_report.json" "the run's trace, one slice per section call"
row "$OUT/section_report.csv" "per section: estimated chip time beside measured host time"
row "$LOG" "everything printed above"
row "$store" "the run store: every compile and run"
echo "  open them"
row "$STUDIO $OUT/lenet.pef" "graph, timeline, schedule (Runs screen: the store)"
row "https://ui.perfetto.dev or chrome://tracing" "open the trace .json there"
row "$DFC inspect $OUT/lenet.pef" "sections, placement, estimates in the terminal"
echo "  next: README.md (a first session), docs/cli.md (every command), docs/dfstudio.md (the screens)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$STUDIO" ]; then
  "$STUDIO" $OUT/lenet.pef &
  echo "dfstudio started"
else
  echo "no display: run '$STUDIO $OUT/lenet.pef' on a desktop to see it"
fi
