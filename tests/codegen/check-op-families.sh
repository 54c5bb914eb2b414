#!/usr/bin/env bash
# The op families are generated from the op table (cmake/GenerateOpFamilies.cmake):
#  1. a hand-written table (docs with ';' and a bracket left open to the next
#     line, two families interleaved) gives exactly the expected macro;
#  2. the real Ops.def gives one member per DFC_OP line, in its family;
#  3. a line the generator cannot read fails it, naming the line.
# Usage: tests/codegen/check-op-families.sh [ROOT]   (run by ctest)
set -euo pipefail
ROOT=${1:-"$(cd "$(dirname "$0")/../.." && pwd)"}
GEN="$ROOT/cmake/GenerateOpFamilies.cmake"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { cmake -DOPS_DEF="$1" -DOUT="$2" -P "$GEN"; }

cat >"$tmp/small.def" <<'DEF'
// a comment naming DFC_OP(Fake, "fake", 1, 1, Nope, "")
DFC_OP(Add, "add", 2, 1, Elementwise, "")
DFC_OP(MatMul, "matmul", 2, 1, Linalg, "trans_a:int  [m,k] @ [k,n]; 2-D")
DFC_OP(Relu, "relu", -1, -1, Elementwise, "y = max(x, 0) [ opens")
DFC_OP(Sub, "sub", 2, 1, Linalg, "closes ]")
DEF
gen "$tmp/small.def" "$tmp/small.h"
cat >"$tmp/expected.h" <<'EXP'
// Generated from engine/ir/Ops.def by cmake/GenerateOpFamilies.cmake: do not edit.
#pragma once
#define DFC_FAMILY_STRUCTS(Suffix, Member) \
  struct Elementwise##Suffix { Member(Add) Member(Relu) }; \
  struct Linalg##Suffix { Member(MatMul) Member(Sub) };
EXP
diff -u "$tmp/expected.h" "$tmp/small.h" || { echo "FAIL: the small table's families differ"; exit 1; }

gen "$ROOT/engine/ir/Ops.def" "$tmp/ops.h"
want=$(sed -nE 's/^DFC_OP\(([A-Za-z0-9_]+), *"[^"]*", *-?[0-9]+, *-?[0-9]+, *([A-Za-z]+),.*/\2 \1/p' "$ROOT/engine/ir/Ops.def" | sort)
got=$(sed -nE 's/^  struct ([A-Za-z]+)##Suffix \{(.*)\};.*/\1 \2/p' "$tmp/ops.h" |
  while read -r family members; do grep -oE 'Member\([A-Za-z0-9_]+\)' <<<"$members" |
    sed -E "s/Member\((.*)\)/$family \1/"; done | sort)
lines=$(grep -c '^DFC_OP(' "$ROOT/engine/ir/Ops.def")
[ "$want" = "$got" ] && [ "$(wc -l <<<"$got")" = "$lines" ] ||
  { echo "FAIL: Ops.def has $lines ops; generated (family op) pairs differ:"; diff <(echo "$want") <(echo "$got"); exit 1; }

printf 'DFC_OP(Add, "add", 2, 1, Elementwise, "")\nDFC_OP(Bad "bad", 2, 1, Elementwise, "")\n' >"$tmp/bad.def"
if out=$(gen "$tmp/bad.def" "$tmp/bad.h" 2>&1); then echo "FAIL: a malformed op line was accepted"; exit 1; fi
grep -q 'DFC_OP(Bad "bad"' <<<"$out" || { echo "FAIL: the error does not name the line: $out"; exit 1; }
echo "op families: $lines ops generated; malformed line refused"
