#!/usr/bin/env bash
# clang-format (.clang-format) on the C++ lines changed since this branch left
# main. Only changed lines are looked at, so older code that predates the
# format never fails a check, and main itself (nothing changed) always passes.
#   scripts/format.sh            reformat those lines in place
#   scripts/format.sh --check    print what would change; exit 1 if anything would
#   scripts/format.sh [--check] BASE   compare with BASE instead of the merge-base with main
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
  echo "format: clang-format is not installed (apt-get install clang-format); skipped"
  exit 0
fi
base=${1:-}
if [ -z "$base" ]; then
  ref=$(git rev-parse --verify --quiet main || git rev-parse --verify --quiet origin/main || true)
  [ -n "$ref" ] && base=$(git merge-base HEAD "$ref" 2>/dev/null || true)
fi
if [ -z "$base" ]; then
  echo "format: no main branch to compare with; skipped"
  exit 0
fi
# New files count as changed: make them visible to git without staging their content.
untracked=$(git ls-files --others --exclude-standard -- '*.cpp' '*.h')
[ -n "$untracked" ] && git add --intent-to-add -- $untracked
if [ "$check" = 1 ]; then
  out=$(git clang-format --diff "$base" -- '*.cpp' '*.h' || true)
  case "$out" in
    "" | "no modified files to format" | "clang-format did not modify any files") echo "format: changed lines are formatted"; exit 0 ;;
  esac
  printf '%s\n' "$out"
  echo "format: run scripts/format.sh to apply the changes above" >&2
  exit 1
fi
git clang-format --force "$base" -- '*.cpp' '*.h'
