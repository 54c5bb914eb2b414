#!/usr/bin/env bash
# Fuzzes one reader with libFuzzer (clang-14, ASan + UBSan) for SECONDS:
#
#   scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
#   TARGET: pef_reader onnx_importer onnx_test_data dfir_parser yaml_loaders chrome_trace_reader decisions_reader run_store gzip_trace npy_reader
#
# Builds into ./build-fuzz (-DDFC_BUILD_FUZZERS=ON), seeds the corpus from the
# project's own files (PEFs and a trace written by the fuzz build's dfc, the
# ONNX test models, golden .dfir files and IR dumps, the arch and rule YAML),
# keeps the corpus in build-fuzz/corpus/TARGET between runs and writes crashes
# to build-fuzz/crashes/TARGET/. A crash fixed is kept as a regression input:
# copy it to tests/data/fuzz/TARGET/ (test_fuzz replays those in every build).
# One fuzzer at a time, one job: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0"
  exit 2
fi
target=$1
seconds=$2
shift 2
case "$target" in
  pef_reader|onnx_importer|onnx_test_data|dfir_parser|yaml_loaders|chrome_trace_reader|decisions_reader|run_store|gzip_trace|npy_reader) ;;
  *) echo "fuzz.sh: unknown target '$target'" >&2; exit 2 ;;
esac
command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 missing (scripts/install-deps.sh)" >&2; exit 2; }

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DDFC_BUILD_GUI=OFF -DDFC_BUILD_TESTS=OFF -DDFC_BUILD_FUZZERS=ON \
  "-DCMAKE_C_FLAGS=$san" "-DCMAKE_CXX_FLAGS=$san -fsanitize=fuzzer-no-link" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
# gzip_trace and npy_reader seed themselves (no PEF to compile): only their target is built.
if [ "$target" = gzip_trace ] || [ "$target" = npy_reader ]; then
  cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$target"
else
  cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$target" dfc
fi

export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
seeds=build-fuzz/seeds/$target
corpus=build-fuzz/corpus/$target
crashes=build-fuzz/crashes/$target
mkdir -p "$seeds" "$corpus" "$crashes"
dfc=build-fuzz/app/dfc/dfc
work=build-fuzz/seed-work

# PEFs of each optimization level and task (a decode step with its KV caches
# and meta fields too), and one run's chrome trace.
make_outputs() {
  [ -f "$work/done" ] && [ -d "$work/decode" ] && [ -d "$work/chips" ] && return
  rm -rf "$work"
  mkdir -p "$work"
  "$dfc" compile --model logreg -o0 -b 4 --db - --output-folder "$work/logreg" --debug >/dev/null
  "$dfc" compile --model mlp -o1 -b 2 --inference --db - --output-folder "$work/mlp" >/dev/null
  "$dfc" compile --model lenet -o3 -b 2 --db - --output-folder "$work/lenet" >/dev/null
  "$dfc" compile --model gpt2-mini -o3 -b 1 --seq-len 8 --num-layers 1 --db - --output-folder "$work/gpt2" >/dev/null
  "$dfc" compile --model llama-tiny -o1 -b 1 --inference --decode --kv-cache-len 8 --db - --output-folder "$work/decode" >/dev/null
  # Bitfiles whose routed network spans tiles and chips (PEF 1.4's links, checked per chip by the reader).
  "$dfc" compile --model mlp -o3 -b 2 --inference --n-chips 2 --num-tiles 2 --db - --output-folder "$work/chips" >/dev/null
  "$dfc" run -p "$work/logreg/logreg.pef" --train-limit 8 --test-limit 8 --db - >/dev/null
  touch "$work/done"
}

case "$target" in
  pef_reader)  # named by folder: two folders (mlp, chips) hold an mlp.pef
    make_outputs; for f in "$work"/*/*.pef; do cp "$f" "$seeds/$(basename "$(dirname "$f")")_$(basename "$f")"; done ;;
  onnx_importer) find tests/data/onnx -name '*.onnx' | while read -r f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done ;;
  onnx_test_data) cp tests/data/fuzz/onnx_test_data/* "$seeds/" ;;  # a form byte (0 tensor, 1 sequence, 2 optional), then the proto
  dfir_parser) make_outputs; cp tests/golden/*/*.dfir "$work"/logreg/*.dfir "$seeds/" 2>/dev/null || true ;;
  yaml_loaders)
    cp resources/arch/*.yaml "$seeds/"; for f in resources/fusion_rules/*.yaml; do cp "$f" "$seeds/rules_$(basename "$f")"; done
    # Anchors and aliases, nested maps, tags and duplicate keys: what a careless config holds.
    printf 'router: &r\n  link_tracks: 2\n  max_iterations: 30\nplacer: {anneal: false, max_moves: 1000}\n' > "$seeds/config_alias.yaml"
    printf 'router.box_margin: !!str 5\nrouter.box_margin: 3\ncost: {target_cycles: 1e3}\n' > "$seeds/config_tags.yaml" ;;
  chrome_trace_reader) make_outputs; cp "$work"/logreg/*_chrome_tracing_report.json "$seeds/" ;;
  decisions_reader)
    cp tests/data/decisions/* "$seeds/"
    printf -- '- together: &p [h.0/*, h.1/*]\n- cut_before: *p\n- nodes: *p\n  chip: 1\n' > "$seeds/aliases.yaml" ;;
  run_store)  # a store with a compile, a run, section calls and metrics; and versions of it a careless hand edited
    make_outputs
    rm -f "$work/store.sqlite"
    "$dfc" compile --model logreg -o0 -b 4 --db "$work/store.sqlite" --output-folder "$work/store" >/dev/null
    "$dfc" run -p "$work/store/logreg.pef" --train-limit 8 --test-limit 8 --db "$work/store.sqlite" >/dev/null
    cp "$work/store.sqlite" "$seeds/store.sqlite"
    cp "$work/store.sqlite" "$seeds/version-9.sqlite" && sqlite3 "$seeds/version-9.sqlite" "UPDATE schema_version SET version=9"
    cp "$work/store.sqlite" "$seeds/trigger.sqlite" &&
      sqlite3 "$seeds/trigger.sqlite" "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM metrics; END" ;;
  # Gzip traces: the project's trace samples compressed, one of them as two
  # members (cat a.gz b.gz), one with B/E events that nest deep.
  gzip_trace)
    for f in tests/data/fuzz/chrome_trace_reader/* tests/data/traces/*.json; do
      [ -f "$f" ] && gzip -c "$f" > "$seeds/$(basename "$f").gz"
    done
    printf '{"traceEvents":[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},' | gzip -c > "$seeds/two-members.gz"
    printf '{"ph":"E","pid":1,"tid":1,"ts":5}],"otherData":{"pef_hash":"00"}}' | gzip -c >> "$seeds/two-members.gz"
    python3 -c 'import sys; n=2000; sys.stdout.write("[" + ",".join(["{\"ph\":\"B\",\"name\":\"b%d\",\"pid\":1,\"tid\":1,\"ts\":%d}" % (i % 7, i) for i in range(n)] + ["{\"ph\":\"E\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":%d}" % (n + i) for i in range(n)]) + "]")' |
      gzip -c > "$seeds/deep-begin-end.gz" ;;
  # .npy files numpy writes: each element type, a scalar, an empty array, a
  # version 2.0 header, and the regression inputs kept for this reader.
  npy_reader)
    cp tests/data/fuzz/npy_reader/* "$seeds/" 2>/dev/null || true
    /usr/bin/python3 -c 'import numpy as np, sys
d = sys.argv[1]
for t in ["<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"]:
    np.save(d + "/" + t[1:] + ".npy", np.arange(6).reshape(2, 3).astype(t))
np.save(d + "/scalar.npy", np.float32(1.5)); np.save(d + "/empty.npy", np.zeros((0, 4), "<f4"))
np.lib.format.write_array(open(d + "/v2.npy", "wb"), np.ones((2, 2), "<f4"), version=(2, 0))' "$seeds" ;;
esac

echo "fuzzing $target for $seconds s (seeds: $(ls "$seeds" | wc -l), corpus: $(ls "$corpus" | wc -l))"
"build-fuzz/tests/fuzz/fuzz_$target" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$crashes/" "$@"
