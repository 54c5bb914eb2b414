#!/usr/bin/env bash
# engine/driver/'s folders depend one way: report/ <- compile/ <- decode/ <- run/.
# A file may include driver headers at the top (driver/X.h) and in its own
# folder or one listed before it; this prints each include that points later
# (or into a folder not in the list) and exits 1.
# Usage: tests/docs/check-driver-layers.sh [ROOT]   (run by ctest; ROOT = the repository)
set -euo pipefail
ROOT=${1:-"$(cd "$(dirname "$0")/../.." && pwd)"}
layers=(report compile decode run)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
bad=0
for dir in "$ROOT"/engine/driver/*/; do
  folder=$(basename "$dir")
  own=$(rank "$folder")
  [ "$own" -ge 0 ] || { echo "engine/driver/$folder/: not one of ${layers[*]}"; bad=1; continue; }
  while IFS=: read -r file line text; do
    target=$(sed -E 's|.*"driver/([^/"]+)/.*|\1|' <<<"$text")
    [ "$(rank "$target")" -le "$own" ] && [ "$(rank "$target")" -ge 0 ] && continue
    echo "${file#"$ROOT"/}:$line: $folder/ includes driver/$target/ ($text)"
    bad=1
  done < <(grep -HnE '^#include "driver/[^/"]+/' "$dir"*.h "$dir"*.cpp 2>/dev/null | grep -v '^$' || true)
done
exit $bad
