#!/usr/bin/env bash
# Screenshot gallery: every dfstudio screen on real inputs, rendered offscreen
# by the app itself (dfstudio --screenshot grabs the window once loads and
# layout are done), so no X server is needed. Inputs: LeNet (-o0, trained on
# a slice of Fashion-MNIST), gpt2 with hypersections (24 layers, -o3), ResNet-18
# (-o3), the Llama-2-7B training shape (-o3, sn40l; its graph unfolded whole,
# at fit and at a readable zoom; its chip), gpt2 24 layers at -o1 (its chip,
# Memory and Roofline screens), gpt2-mini at -o1 and -o3 (each run a few
# steps) for Compare and its graph diff, a cut-off copy of LeNet's trace, and a
# PyTorch profiler trace when python3-torch is installed (skipped otherwise).
# The first pictures open files as a user does, with no --screen: where each
# kind of file lands. The recompile-with-decisions flow (menu, the dialog
# asking where files go, badges, the compare) is drawn by its GUI test.
#   scripts/screenshots.sh [OUT_DIR]     (default out/screenshots)
#   ONLY='open_ compare' scripts/screenshots.sh   (only pictures whose name starts so)
# Look at every picture: the gallery is index.html in OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-out/screenshots}
BUILD=${BUILD:-build}
DFC=$BUILD/app/dfc/dfc
STUDIO=$BUILD/app/dfstudio/dfstudio
WORK=$OUT/inputs
mkdir -p "$OUT" "$WORK"
export QT_QPA_PLATFORM=offscreen
DB=$WORK/runs.sqlite
[ -x "$DFC" ] && [ -x "$STUDIO" ] || { echo "build dfc and dfstudio first (scripts/build.sh)" >&2; exit 2; }

compile() {  # name, then dfc compile flags
  local name=$1; shift
  [ -f "$WORK/$name/$name.pef" ] || "$DFC" compile --pef-name "$name" --output-folder "$WORK/$name" --db "$DB" "$@" >/dev/null
}
compile lenet --model lenet -o0
# gpt2-mini at -o1 (dozens of fused sections) and -o3 (forward, backward, optimizer), each run a few steps.
for level in 1 3; do
  compile "gpt2mini_o$level" --model gpt2-mini -o$level
  [ -f "$WORK/gpt2mini_o$level/gpt2mini_o${level}_chrome_tracing_report.json" ] ||
    "$DFC" run --pef "$WORK/gpt2mini_o$level/gpt2mini_o$level.pef" --train-limit 96 --test-limit 32 --db "$DB" >/dev/null
done
[ -f "$WORK/lenet/lenet_chrome_tracing_report.json" ] ||
  "$DFC" run --pef "$WORK/lenet/lenet.pef" --train-limit 3200 --test-limit 640 --db "$DB" >/dev/null
compile gpt2 --model gpt2 --num-layers 24 -o3 --enable-hypersection
compile resnet18 --model resnet18 -o3
compile llama7b --model llama -o3 --enable-hypersection --arch sn40l --max-memory 1T
# A second LeNet, fused (-o3), run a different number of steps: Compare's per-step figures.
compile lenet_o3 --model lenet -o3
[ -f "$WORK/lenet_o3/lenet_o3_chrome_tracing_report.json" ] ||
  "$DFC" run --pef "$WORK/lenet_o3/lenet_o3.pef" --train-limit 640 --test-limit 320 --db "$DB" >/dev/null
# measure-performance runs of both LeNets, a second apart: the Runs screen lists and charts them over time
# and shows the newest -o3 run's host time by kernel.
[ -f "$WORK/lenet_o3/lenet_o3_performance.json" ] || for i in 1 2 3; do
  "$DFC" measure-performance --pef "$WORK/lenet/lenet.pef" --steps 20 --warmup 2 --db "$DB" >/dev/null
  "$DFC" measure-performance --pef "$WORK/lenet_o3/lenet_o3.pef" --steps 20 --warmup 2 --op-profile --db "$DB" >/dev/null
  sleep 1
done
# A trace cut off mid-file (the copy of a run that was killed).
TRACE=$WORK/lenet/lenet_chrome_tracing_report.json
head -c $(( $(stat -c %s "$TRACE") * 2 / 3 )) "$TRACE" > "$WORK/cut_trace.json"
# The first Python that has torch: a pyenv or venv python3 on PATH may lack
# the distribution's python3-torch, which only /usr/bin/python3 sees.
TORCH_PY=
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import torch' 2>/dev/null; then TORCH_PY=$py; break; fi
done
if [ -n "$TORCH_PY" ]; then
  [ -f "$WORK/pytorch_trace.json" ] || "$TORCH_PY" - "$WORK/pytorch_trace.json" <<'PY'
import sys, torch
model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 26 * 26, 10))
x = torch.randn(16, 1, 28, 28)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
    for _ in range(5):
        model(x).sum().backward()
prof.export_chrome_trace(sys.argv[1])
PY
else
  echo "python3-torch is not installed: no PyTorch profiler trace (skipped)"
fi
# The shape Kineto (the PyTorch profiler on GPUs) writes: ProfilerStep > module > aten ops on the
# main thread, kernels on a GPU stream, absolute microsecond times, args of its own.
[ -f "$WORK/pytorch_like_trace.json" ] || python3 - "$WORK/pytorch_like_trace.json" <<'PY'
import json, sys
ev, t, base = [], 0.0, 1.7e12
ev.append({"ph": "M", "name": "process_name", "pid": 4242, "tid": 0, "args": {"name": "python3"}})
ev.append({"ph": "M", "name": "thread_name", "pid": 4242, "tid": 4242, "args": {"name": "thread 4242 (python3)"}})
for step in range(6):
    start = t
    for layer, op in enumerate(["aten::conv2d", "aten::relu", "aten::linear"]):
        d = 40.0 + 10 * layer
        ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 4242, "tid": 4242, "ts": base + t, "dur": d,
                   "args": {"External id": 100 * step + layer, "Input Dims": [[16, 1, 28, 28]], "Input type": ["float"]}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::addmm" if layer == 2 else "aten::empty", "pid": 4242,
                   "tid": 4242, "ts": base + t + 5, "dur": d / 2, "args": {"External id": 100 * step + layer + 50}})
        ev.append({"ph": "X", "cat": "kernel", "name": "sgemm_128x64", "pid": 0, "tid": 7, "ts": base + t + 8,
                   "dur": d / 3, "args": {"stream": 7, "correlation": 100 * step + layer, "grid": [128, 1, 1]}})
        t += d + 2
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 4242, "tid": 4242,
               "ts": base + start - 1, "dur": t - start + 2, "args": {"External id": 0}})
    t += 10
json.dump({"schemaVersion": 1, "traceEvents": ev, "traceName": "pytorch_like"}, open(sys.argv[1], "w"), indent=1)
PY

wanted() {  # ONLY='a b': only pictures whose names start with a or b
  [ -z "${ONLY:-}" ] && return 0
  for prefix in $ONLY; do [[ $1 == "$prefix"* ]] && return 0; done
  return 1
}
shot() {  # picture name, screen ("" = where the file opens by itself), file, then more dfstudio flags
  local name=$1 screen=$2 file=$3; shift 3
  wanted "$name" || return 0
  local where=()
  [ -n "$screen" ] && where=(--screen "$screen")
  "$STUDIO" --db "$DB" "${where[@]}" --screenshot "$OUT/$name.png" "$@" "$file" 2>/dev/null || echo "failed: $name" >&2
  echo "$name"
}
: > "$OUT/list.txt"
# Where each kind of file opens, as a user opens it: a PEF (with its run), a trace alone, a PEF never run.
shot open_pef_lenet "" "$WORK/lenet/lenet.pef" >> "$OUT/list.txt"
shot open_trace_alone "" "$WORK/lenet/lenet_chrome_tracing_report.json" >> "$OUT/list.txt"
shot open_pef_never_run "" "$WORK/gpt2/gpt2.pef" >> "$OUT/list.txt"
shot open_pef_compile_form compile "$WORK/gpt2mini_o1/gpt2mini_o1.pef" >> "$OUT/list.txt"
# Compare by provenance: gpt2-mini -o1 against -o3, the table of section groups beside the graph diff, and the
# two graphs side by side with the forward group selected on both.
shot compare_o1_vs_o3_diff compare "$WORK/gpt2mini_o1/gpt2mini_o1.pef" \
  --compare-with "$WORK/gpt2mini_o3/gpt2mini_o3.pef" --compare-view diff >> "$OUT/list.txt"
shot compare_o1_vs_o3_sides compare "$WORK/gpt2mini_o1/gpt2mini_o1.pef" \
  --compare-with "$WORK/gpt2mini_o3/gpt2mini_o3.pef" --compare-view sides --compare-group 0 >> "$OUT/list.txt"
# Colour by cost against colour by identity on the 24-layer gpt2 (more hypersections than the palette).
shot gpt2_cost_colours schedule "$WORK/gpt2/gpt2.pef" --color-by cost >> "$OUT/list.txt"
shot gpt2_identity_colours schedule "$WORK/gpt2/gpt2.pef" --color-by hypersection >> "$OUT/list.txt"
# The recompile-with-decisions flow (its GUI test draws each step into OUT).
if wanted decisions_ && [ -x "$BUILD/tests/test_gui" ]; then
  DFC_GUI_SCREENSHOT_DIR=$OUT "$BUILD/tests/test_gui" "[decisions]" >/dev/null 2>&1 || echo "failed: decisions flow" >&2
  for name in decisions_menu decisions_badges decisions_dialog decisions_compare; do
    [ -f "$OUT/$name.png" ] && echo "$name" >> "$OUT/list.txt"
  done
fi
# The Compile screen running an inference PEF on given inputs (its GUI test draws it into OUT).
if wanted compile_run_inputs && [ -x "$BUILD/tests/test_gui" ]; then
  DFC_GUI_SCREENSHOT_DIR=$OUT "$BUILD/tests/test_gui" "[run-inputs]" >/dev/null 2>&1 || echo "failed: run inputs" >&2
  [ -f "$OUT/compile_run_inputs.png" ] && echo compile_run_inputs >> "$OUT/list.txt"
fi
for input in lenet gpt2 resnet18; do
  for screen in $("$STUDIO" --list-screens); do  # the screens table (app/dfstudio/Screens.cpp)
    shot "${input}_$screen" "$screen" "$WORK/$input/$input.pef" >> "$OUT/list.txt"
  done
done
# Memory and Roofline (issue 35) at the scales the issue names: gpt2 with 24 layers at -o1 (hundreds of
# fused sections) and the Llama-7B training shape; LeNet's (with its run: host points) come from the loop above.
compile gpt2_o1 --model gpt2 --num-layers 24 -o1
for screen in memory roofline; do
  shot "gpt2_o1_$screen" "$screen" "$WORK/gpt2_o1/gpt2_o1.pef" >> "$OUT/list.txt"
  shot "llama7b_$screen" "$screen" "$WORK/llama7b/llama7b.pef" >> "$OUT/list.txt"
done
shot lenet_o0_vs_o3_compare compare "$WORK/lenet/lenet.pef" --compare-with "$WORK/lenet_o3/lenet_o3.pef" >> "$OUT/list.txt"
# Human decisions (--mac-human-decision): LeNet -o0 against the same with conv layers pinned together and a cut.
compile lenet_decided --model lenet -o0 --mac-human-decision tests/data/decisions/lenet.yaml
shot lenet_o0_vs_decided_compare compare "$WORK/lenet/lenet.pef" \
  --compare-with "$WORK/lenet_decided/lenet_decided.pef" >> "$OUT/list.txt"
# The data overlays: chip use of each node's sections (placed, else estimated).
shot lenet_pcu_use graph "$WORK/lenet/lenet.pef" --color-by pcu-use >> "$OUT/list.txt"
shot gpt2_pmu_use graph "$WORK/gpt2/gpt2.pef" --color-by pmu-use >> "$OUT/list.txt"
# At LLM scale (issue 31): the 24-layer gpt2 folded by layer; the Llama-7B shape's 4,900 operators all unfolded,
# fitted, and at a readable zoom (the top of its first layer).
shot gpt2_folded_layers graph "$WORK/gpt2/gpt2.pef" --color-by hyperfunction >> "$OUT/list.txt"
shot llama7b_unfolded_fit graph "$WORK/llama7b/llama7b.pef" --unfold-all --graph-zoom fit >> "$OUT/list.txt"
shot llama7b_unfolded_readable graph "$WORK/llama7b/llama7b.pef" --unfold-all --graph-zoom readable >> "$OUT/list.txt"
# The Chip screen (issue 35): the placed grid of the section with the most units, links by routed load, and the
# step's heat map of unit use; LeNet, the 24-layer gpt2 at -o1 (many small sections) and the Llama-7B shape.
compile gpt2_o1 --model gpt2 --num-layers 24 -o1
shot lenet_chip_step chip "$WORK/lenet/lenet.pef" --chip-section step >> "$OUT/list.txt"
shot gpt2_o1_chip chip "$WORK/gpt2_o1/gpt2_o1.pef" >> "$OUT/list.txt"
shot gpt2_o1_chip_step chip "$WORK/gpt2_o1/gpt2_o1.pef" --chip-section step >> "$OUT/list.txt"
shot llama7b_chip chip "$WORK/llama7b/llama7b.pef" >> "$OUT/list.txt"
shot llama7b_chip_step chip "$WORK/llama7b/llama7b.pef" --chip-section step >> "$OUT/list.txt"
# Pinned rows (Perfetto's pinned tracks): the loss and fc3 rows under the ruler.
shot lenet_pinned_rows graph "$WORK/lenet/lenet.pef" --pin-row loss --pin-row fc3 >> "$OUT/list.txt"
shot cut_trace_graph graph "$WORK/cut_trace.json" >> "$OUT/list.txt"
# A clicked section call: its per-call args, self time, parent and the section's figures from the
# trace's sections table in the details pane; a search with every hit in view marked (issue 38).
shot lenet_clicked_slice graph "$WORK/lenet/lenet.pef" --select-slice hs35_conv2d_grad_weight >> "$OUT/list.txt"
shot lenet_search_marks graph "$WORK/lenet/lenet.pef" --find grad_input >> "$OUT/list.txt"
# LeNet's trace beside the PEF recompiled with decisions (never run): shown, not cross-linked, and
# the banner says whose trace it is (the click selects nothing in the graph).
compile lenet_decided --model lenet -o0 --mac-human-decision tests/data/decisions/lenet.yaml
shot lenet_trace_of_other_pef graph "$WORK/lenet_decided/lenet_decided.pef" \
  "$WORK/lenet/lenet_chrome_tracing_report.json" --select-slice hs1_ >> "$OUT/list.txt"
# Data parallel: two ranks under mpirun, their merged trace (one process group per rank).
if command -v mpirun >/dev/null; then
  compile lenet_dp --model lenet -b 16 -o3 --data-parallel -ws 2
  [ -f "$WORK/lenet_dp/lenet_dp_chrome_tracing_report.json" ] ||
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe --allow-run-as-root -np 2 \
      "$DFC" run --pef "$WORK/lenet_dp/lenet_dp.pef" --data-parallel --threads 1 --train-limit 640 --test-limit 320 \
      --db "$DB" >/dev/null
  shot lenet_dp_two_ranks graph "$WORK/lenet_dp/lenet_dp_chrome_tracing_report.json" >> "$OUT/list.txt"
fi
if [ -f "$WORK/pytorch_trace.json" ]; then
  shot pytorch_graph graph "$WORK/pytorch_trace.json" >> "$OUT/list.txt"
  shot pytorch_clicked_slice graph "$WORK/pytorch_trace.json" --select-slice aten::conv2d >> "$OUT/list.txt"
fi
shot kineto_like_clicked_slice graph "$WORK/pytorch_like_trace.json" --select-slice aten::linear >> "$OUT/list.txt"
{
  echo "<html><body><h1>dfstudio screenshots</h1>"
  while read -r name; do echo "<h2>$name</h2><img src=\"$name.png\" width=\"1200\">"; done < "$OUT/list.txt"
  echo "</body></html>"
} > "$OUT/index.html"
echo "wrote $(wc -l < "$OUT/list.txt") screenshots and $OUT/index.html"
