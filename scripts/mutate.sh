#!/usr/bin/env bash
# Mutation testing by hand (not in CI): plants one plausible bug at a time in a
# scratch copy of the tree, rebuilds the test targets that should notice it,
# runs those tests, and tabulates which mutants the suite kills.
#
# Usage: scripts/mutate.sh [--list FILE] [--only ID[,ID...]] [--dir DIR] [--timeout S] [--jobs N] [--gui]
#   --list     the mutants (default scripts/mutants.txt; the format is described there)
#   --only     run just these mutant ids
#   --dir      scratch folder (default $DFC_MUTATE_DIR or .mutate/ in this tree, which
#              git ignores); its src/build is kept between runs, and the layout (build
#              inside the copy, -Werror as CI builds) lets ccache reuse the objects of
#              your own build/ when both lie under ccache's base_dir
#   --timeout  seconds per test (default 600; a mutant that hangs a test is killed)
#   --jobs     build and test parallelism (default 2)
#   --gui      build the GUI too (its own scratch build, DIR/src/build-gui), so mutants
#              can be planted in views/ and app/dfstudio and killed by the "gui" tests
# Every binary a test may execute is rebuilt with each mutant (the dfc CLI always,
# dfstudio with --gui), and every failing test is recorded, not only the first.
# Your working tree is only read: the copy under DIR/src is what gets mutated,
# and a trap restores the mutated file there on any exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/scripts/mutants.txt
only=""
dir=${DFC_MUTATE_DIR:-$root/.mutate}
timeout=600
jobs=2
gui=OFF
while [ $# -gt 0 ]; do
  case $1 in
    --list) list=$(realpath "$2"); shift 2 ;;
    --only) only=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --gui) gui=ON; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "mutate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
src=$dir/src
build=$src/build
[ "$gui" = ON ] && build=$src/build-gui
results=$dir/results.tsv
mkdir -p "$src" "$build"

# The mutant list as records (fields separated by \x1f): id, file, find, replace, tests, why.
# mutate_tool.py also applies and reverts one mutant (exact text, found exactly once).
tool=$root/scripts/mutate_tool.py
python3 "$tool" check "$list" "$root"
records=$(python3 "$tool" parse "$list" "$only")
[ -n "$records" ] || { echo "mutate.sh: no mutants selected from $list" >&2; exit 2; }

# The mutated file is restored from its own copy taken before the mutant went
# in (never from your tree, which may change while a run goes on), and touched
# so that ninja rebuilds it; a run killed without its trap is restored so too.
dirty=$dir/dirty
pristine=$dir/pristine
restore_dirty() {
  if [ -s "$dirty" ]; then
    local f
    f=$(cat "$dirty")
    [ -f "$pristine" ] && cp "$pristine" "$src/$f" && touch "$src/$f"
    rm -f "$dirty"
  fi
}
trap restore_dirty EXIT
trap 'restore_dirty; exit 130' INT TERM

restore_dirty
echo "== copying the tree to $src"
(cd "$root" && git ls-files -co --exclude-standard -z) | python3 "$tool" sync "$root" "$src"

echo "== configuring $build"
# lld links the test binaries several times faster than ld.bfd (the link is most
# of a mutant's rebuild); the objects and so the verdicts are the same either way.
linker=()
command -v ld.lld >/dev/null && linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFC_BUILD_GUI=$gui -DDFC_WERROR=ON \
  "${linker[@]}" >/dev/null

# "unit/partition" -> test_unit_partition. Any test may run the dfc binary (e2e,
# the CLI and driver tests, the hostile and node suites) and the GUI tests may
# start dfstudio, so those are rebuilt whatever the areas: a stale binary would
# let a mutant survive unseen.
targets_for() {
  local t out=" dfc"
  [ "$gui" = ON ] && out+=" dfstudio"
  for t in $(tr ',' '\n' <<<"$1" | sed 's/:.*//' | sort -u); do
    out+=" test_${t//\//_}"
  done
  tr ' ' '\n' <<<"$out" | sed '/^$/d' | sort -u | tr '\n' ' '
}
# "unit/mapping, e2e: dfc compile" -> ^(unit/mapping:|e2e:dfc compile)
regex_for() {
  python3 "$tool" regex "$1"
}

build_targets() { ninja -C "$build" -j"$jobs" $1 >"$dir/build.log" 2>&1; }
# Every selected test runs, so the results name every test that kills a mutant
# (which tests guard which code), not only the first.
run_tests() {
  (cd "$build" && ctest -R "$1" -j"$jobs" --timeout "$timeout" --output-on-failure >"$dir/test.log" 2>&1)
}
failed_tests() { sed -nE 's/^[[:space:]]*[0-9]+ - (.*) \([A-Za-z ]+\)$/\1/p' "$dir/test.log" | paste -sd'|'; }

all_tests=$(cut -d$'\x1f' -f5 <<<"$records" | paste -sd, | tr ',' '\n' | sed 's/^ *//' | sort -u | paste -sd,)
echo "== baseline: building $(targets_for "$all_tests")"
build_targets "$(targets_for "$all_tests")" || { echo "baseline build failed: $dir/build.log" >&2; exit 1; }
echo "== baseline: the selected tests must pass unmutated"
run_tests "$(regex_for "$all_tests")" || { echo "baseline tests fail: $dir/test.log" >&2; exit 1; }

printf 'id\tresult\tseconds\tfile\twhy\tkilled by\n' >"$results"
killed=0 survived=0 broken=0
while IFS=$'\x1f' read -r id file find replace tests why; do
  start=$(date +%s)
  cp "$src/$file" "$pristine"
  echo "$file" >"$dirty"
  python3 "$tool" apply "$src/$file" "$find" "$replace"
  touch "$src/$file"
  if ! build_targets "$(targets_for "$tests")"; then
    result=build-failed by="-"
    broken=$((broken + 1))
  elif run_tests "$(regex_for "$tests")"; then
    result=SURVIVED by="-"
    survived=$((survived + 1))
  else
    result=killed by=$(failed_tests)
    [ -n "$by" ] || by="(timeout or crash: $dir/test.log)"
    killed=$((killed + 1))
  fi
  restore_dirty
  secs=$(($(date +%s) - start))
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$result" "$secs" "$file" "$why" "$by" >>"$results"
  printf '%-28s %-12s %4ss  %s\n' "$id" "$result" "$secs" "$why"
done <<<"$records"

# The tree is back to the original: rebuild it so the next run starts clean.
build_targets "$(targets_for "$all_tests")" || true

echo
echo "== results ($results)"
column -t -s $'\t' "$results" | cut -c1-220
echo "(the killed-by column lists every failing test, '|'-separated; see $results)"
total=$((killed + survived))
score=$(python3 -c "print(f'{100 * $killed / $total:.1f}' if $total else 'n/a')")
echo
echo "mutants: $((total + broken)); killed $killed, survived $survived, build failed $broken; score $score% (killed / (killed + survived))"
