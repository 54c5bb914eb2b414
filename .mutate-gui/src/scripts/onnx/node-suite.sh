#!/usr/bin/env bash
# The ONNX backend node suite (922 cases from python3-onnx's own case
# generators) through this build's `dfc conformance`. Fails when a case fails,
# when fewer than MIN cases pass, or when a case listed in PASSING (the cases
# that passed when the list was last written) no longer passes. A case named in
# node_suite_bad_data.txt (next to PASSING: name, then why) has expected outputs
# its own model contradicts: its FAIL is printed and does not count.
# Usage: node-suite.sh DFC WORKDIR PASSING MIN
#        node-suite.sh DFC WORKDIR PASSING --write   (rewrites PASSING)
set -euo pipefail
dfc=${1:?dfc binary} work=${2:?work dir} passing=${3:?passing list} min=${4:?minimum passes or --write}
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
# ONNX 1.12's case generators still use aliases NumPy 1.24 removed.
for name, alias in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if not hasattr(np, name):
        setattr(np, name, alias)
from onnx.backend.test import cmd_tools
sys.argv = ["cmd_tools", "generate-data", "-o", sys.argv[1]]
cmd_tools.main()
PY
"$dfc" conformance "$work/node" > "$work/results.txt" 2>&1 || true
summary=$(tail -n 1 "$work/results.txt")
echo "$summary"
grep '^PASS ' "$work/results.txt" | awk '{print $2}' | sort > "$work/passed.txt"
if [ "$min" = "--write" ]; then cp "$work/passed.txt" "$passing"; echo "wrote $passing"; exit 0; fi
status=0
bad="$(dirname "$passing")/node_suite_bad_data.txt"
known=$( { [ -f "$bad" ] && grep -v '^#' "$bad" | awk 'NF {print $1}'; } || true)
while read -r line; do
  name=${line#FAIL }
  name=${name%%:*}
  if grep -qx "$name" <<< "$known"; then echo "known bad data: $line"; else echo "$line"; status=1; fi
done < <(grep '^FAIL ' "$work/results.txt" || true)
passed=$(wc -l < "$work/passed.txt")
if [ "$passed" -lt "$min" ]; then echo "only $passed cases pass, at least $min expected"; status=1; fi
lost=$(comm -23 <(sort "$passing") "$work/passed.txt")
if [ -n "$lost" ]; then echo "cases that passed before and no longer do:"; echo "$lost"; status=1; fi
exit $status
