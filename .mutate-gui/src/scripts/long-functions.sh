#!/usr/bin/env bash
# Lists functions over 80 lines (or --limit N) in engine/, views/ and app/
# (or the paths given), longest first: "LINES  FILE:LINE  NAME".
# Usage: scripts/long-functions.sh [--limit N] [PATH...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/long_functions.py "$@"
