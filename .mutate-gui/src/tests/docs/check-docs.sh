#!/usr/bin/env bash
# The docs name what the programs offer: every flag `dfc <command> --help --debug`
# prints, for every command `dfc --help` lists, appears in docs/cli.md; every
# screen `dfstudio --list-screens` prints appears (as `key`) in docs/dfstudio.md.
# Usage: tests/docs/check-docs.sh DFC [DFSTUDIO]   (run by ctest)
set -euo pipefail
DFC=$1
STUDIO=${2:-}
DOCS="$(cd "$(dirname "$0")/../.." && pwd)/docs"
missing=0

mentions() {  # file, word: the word stands alone (not inside a longer flag or name)
  grep -qE -- "(^|[^[:alnum:]_-])$(printf '%s' "$2" | sed 's/[.[\*^$]/\\&/g')([^[:alnum:]_-]|$)" "$1"
}

commands=$("$DFC" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$commands" ] || { echo "no commands in 'dfc --help'" >&2; exit 1; }
for command in $commands; do
  mentions "$DOCS/cli.md" "dfc $command" || mentions "$DOCS/cli.md" "$command" ||
    { echo "docs/cli.md: command '$command' is not named"; missing=1; }
  # Flag lines start with two spaces and a dash: "  -b, --batch-size N   help".
  # --debug adds the experimental flags; a command without experimental ones refuses it.
  help=$("$DFC" "$command" --help --debug 2>/dev/null || "$DFC" "$command" --help)
  flags=$(printf '%s\n' "$help" | grep -E '^  -' | sed -E 's/^  //; s/  .*//' | tr ',' '\n' | awk '{ print $1 }')
  for flag in $flags; do
    mentions "$DOCS/cli.md" "$flag" || { echo "docs/cli.md: 'dfc $command $flag' is not named"; missing=1; }
  done
done

if [ -n "$STUDIO" ]; then
  screens=$("$STUDIO" --list-screens)
  [ -n "$screens" ] || { echo "no screens from 'dfstudio --list-screens'" >&2; exit 1; }
  for key in $screens; do
    grep -qF -- "\`$key\`" "$DOCS/dfstudio.md" || { echo "docs/dfstudio.md: screen '$key' is not named"; missing=1; }
  done
fi
[ "$missing" = 0 ] && echo "docs name every dfc command and flag${STUDIO:+ and every dfstudio screen}"
exit "$missing"
