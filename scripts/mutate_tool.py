#!/usr/bin/env python3
"""Helpers of scripts/mutate.sh.

  parse LIST [IDS]          prints the mutants one a line, fields separated by
                            \x1f (not a tab: bash's read folds empty fields
                            between whitespace separators): id, file, find,
                            replace, tests, why
  check LIST ROOT           checks that every mutant's text occurs exactly once
  apply FILE FIND REPLACE   replaces the one occurrence of FIND in FILE; a .cpp
                            also gets a pragma that keeps -Wunused from failing
                            the build (a mutant that leaves a helper unused is
                            still a bug that compiles without -Werror)
  regex TESTS               the ctest -R regex for a tests field
  sync ROOT DEST            copies the files named on stdin (NUL-separated, relative
                            to ROOT) into DEST, only those whose content differs, so
                            a file restored after a mutant keeps its newer time and
                            ninja rebuilds what was built from the mutant

The list format (scripts/mutants.txt): blocks separated by blank lines,
'#' lines are comments.

  [id]
  file: engine/partition/Hypersections.cpp
  find: appendAttr(out, value);
  replace: (void)value;
  tests: unit/partition, unit/driver
  why: the canonical form drops attribute values

find/replace are exact text; "\\n" stands for a newline. find must occur
exactly once in the file, so a mutant never lands somewhere unintended.
tests: ctest areas (the folder under tests/), optionally "AREA: NAME PREFIX"
to run only the tests whose names start so.
"""
import os
import re
import shutil
import sys

KEYS = ("file", "find", "replace", "tests", "why")
SEP = "\x1f"
UNUSED_IS_WARNING = '#pragma GCC diagnostic warning "-Wunused"\n'


def load(path):
    mutants, current, seen = [], None, set()
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line.strip())
        if m:
            current = {"id": m.group(1), "line": number}
            if current["id"] in seen:
                sys.exit(f"{path}:{number}: mutant '{current['id']}' appears twice")
            seen.add(current["id"])
            mutants.append(current)
            continue
        key, sep, value = line.partition(":")
        if current is None or not sep or key.strip() not in KEYS:
            sys.exit(f"{path}:{number}: expected '[id]' or one of {', '.join(KEYS)}: ...")
        current[key.strip()] = value[1:] if value.startswith(" ") else value
    for m in mutants:
        missing = [k for k in KEYS if k not in m or (k != "replace" and not m[k].strip())]
        if missing:
            sys.exit(f"{path}:{m['line']}: mutant '{m['id']}' lacks {', '.join(missing)}")
    return mutants


def parse(path, only):
    wanted = {x for x in only.split(",") if x} if only else None
    mutants = load(path)
    if wanted:
        unknown = wanted - {m["id"] for m in mutants}
        if unknown:
            sys.exit(f"unknown mutant id(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["id"] in wanted]
    for m in mutants:
        fields = [m["id"]] + [m[k] for k in KEYS]
        if any(SEP in f for f in fields):
            sys.exit(f"{path}:{m['line']}: mutant '{m['id']}' contains \\x1f")
        print(SEP.join(fields))


def check(path, root):
    bad = 0
    for m in load(path):
        try:
            text = open(f"{root}/{m['file']}", encoding="utf-8").read()
        except OSError as e:
            print(f"{path}:{m['line']}: {m['id']}: {e}")
            bad += 1
            continue
        count = text.count(m["find"].replace("\\n", "\n"))
        if count != 1:
            print(f"{path}:{m['line']}: {m['id']}: its text occurs {count} times in {m['file']}, expected once")
            bad += 1
    if bad:
        sys.exit(1)


def apply(path, find, replace):
    find, replace = find.replace("\\n", "\n"), replace.replace("\\n", "\n")
    text = open(path, encoding="utf-8").read()
    count = text.count(find)
    if count != 1:
        sys.exit(f"{path}: the mutant's text occurs {count} times, expected once: {find!r}")
    text = text.replace(find, replace)
    if path.endswith(".cpp"):
        text = UNUSED_IS_WARNING + text
    open(path, "w", encoding="utf-8").write(text)


def regex(tests):
    parts = []
    for t in tests.split(","):
        t = t.strip()
        area, _, prefix = t.partition(":")
        parts.append(re.escape(area.strip() + ":" + prefix.strip()))  # ctest names: "unit/mapping:name"
    return "^(" + "|".join(parts) + ")"


def remove_stale(dest, kept):
    """Files of an earlier copy the tree no longer has (moved or deleted): the
    build globs sources, so a stale copy would be compiled in. Build folders
    (build*) at the top stay."""
    for dirpath, dirnames, filenames in os.walk(dest):
        if dirpath == dest:
            dirnames[:] = [d for d in dirnames if not d.startswith("build")]
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), dest)
            if rel not in kept:
                os.remove(os.path.join(dirpath, name))


def sync(root, dest):
    listed = [r for r in sys.stdin.buffer.read().decode("utf-8").split("\0") if r]
    remove_stale(dest, {r for r in listed if os.path.isfile(os.path.join(root, r))})
    for rel in listed:
        src, dst = os.path.join(root, rel), os.path.join(dest, rel)
        if not os.path.isfile(src):
            continue  # listed by git but deleted in the tree
        if os.path.isfile(dst):
            with open(src, "rb") as a, open(dst, "rb") as b:
                if a.read() == b.read():
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "parse" and len(sys.argv) in (3, 4):
        parse(sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "")
    elif cmd == "check" and len(sys.argv) == 4:
        check(sys.argv[2], sys.argv[3])
    elif cmd == "apply" and len(sys.argv) == 5:
        apply(*sys.argv[2:])
    elif cmd == "sync" and len(sys.argv) == 4:
        sync(sys.argv[2], sys.argv[3])
    elif cmd == "regex" and len(sys.argv) == 3:
        print(regex(sys.argv[2]))
    else:
        sys.exit(__doc__)
