#!/usr/bin/python3
"""Runs dfc on the hostile inputs of issue 9 and says, per case and per class,
whether dfc answered as it must: a refusal is exit 2 with one error line naming
the culprit; never a signal, a hang, exit 0 on bad input, or a clobbered file.

    scripts/hostile/run.py --dfc build/app/dfc/dfc [--work /tmp/hostile] [--filter TEXT]

ctest runs it (test hostile_crafted), so CI runs it against the ASan + UBSan
dfc of scripts/test-sanitizers.sh too: there --no-memory-limit, as ASan
reserves far more address space than the limit allows.
"""
import argparse
import collections
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as hostile  # noqa: E402

MEMORY_LIMIT = 8 << 30  # a bad_alloc, not a machine brought to its knees


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


MEMORY_LIMITED = True


def run_dfc(dfc, argv, timeout, cwd):
    start = time.time()
    try:
        p = subprocess.run([dfc] + argv, capture_output=True, text=True, errors="replace", timeout=timeout,
                           preexec_fn=limit_memory if MEMORY_LIMITED else None, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.time() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, "", time.time() - start


def identity(path):
    st = os.lstat(path)
    return (st.st_mode, st.st_ino, st.st_rdev, st.st_size)


def verdict(case, rc, out, err):
    """'ok' or what went wrong."""
    if rc is None:
        return "HANG (timeout)"
    if rc < 0:
        return "CRASH (%s)" % signal.Signals(-rc).name
    errors = [line for line in err.splitlines() if line.startswith("dfc: error:")]
    named = case.culprit is None or any(case.culprit in line for line in errors)
    if case.expect in ("conformance-refuse", "conformance-done"):
        if "passed," not in out:
            return "conformance run died (rc %d)" % rc
        if "exception" in out:
            return "uncaught exception in a case"
        if case.expect == "conformance-done":
            return "ok" if "PASS" in out else "case failed: " + out.strip().splitlines()[0][:80]
        bad = [line for line in out.splitlines() if line.startswith(("UNSUPPORTED", "FAIL"))]
        if not bad:
            return "accepted (exit %d)" % rc
        return "ok" if any(case.culprit in line for line in bad) else "refused, culprit not named"
    if case.expect == "ok":
        return "ok" if rc == 0 else "exit %d: %s" % (rc, (errors or [err.strip()[-100:]])[0])
    if rc == 0:
        return "ok" if case.expect == "ok-or-refuse" else "ACCEPTED (exit 0)"
    if rc == 1:
        internal = [line for line in err.splitlines() if line.startswith("dfc: internal error:")]
        return "exit 1 (internal): " + (internal or errors or [err.strip()[-100:]])[0][:110]
    if rc != 2:
        return "exit %d" % rc
    if len(errors) != 1:
        return "exit 2 but %d error lines" % len(errors)
    return "ok" if named else "culprit not named: " + errors[0][:110]


def run_case(dfc, case, env):
    work = env.work
    env.reset_specials()
    if case.nothing_written and os.path.isdir(case.nothing_written):
        shutil.rmtree(case.nothing_written)
    before = identity(case.unchanged) if case.unchanged else None
    rc, out, err, secs = run_dfc(dfc, case.argv, case.timeout, work)
    v = verdict(case, rc, out, err)
    if case.unchanged and (not os.path.lexists(case.unchanged) or identity(case.unchanged) != before):
        v = "CLOBBERED " + case.unchanged
    if case.nothing_written and os.path.isdir(case.nothing_written):
        written = [f for f in os.listdir(case.nothing_written) if f.endswith(".pef")]
        if written:
            v = "WROTE " + written[0] + " (" + v + ")"
    return v, secs, (err.strip().splitlines() or [""])[-1][:160]


def wait_until_running(db, process, seconds=60):
    """Until the store lists a run as 'running' (a slow, sanitized dfc takes a while to get there)."""
    end = time.time() + seconds
    while time.time() < end and process.poll() is None:
        try:
            c = sqlite3.connect(db, timeout=1)
            running = c.execute("SELECT COUNT(*) FROM runs WHERE status='running'").fetchone()[0]
            c.close()
            if running:
                time.sleep(0.5)  # some section calls recorded
                return
        except sqlite3.Error:
            pass
        time.sleep(0.1)


def store_cases(dfc, env):
    """kill -9 mid-run, then report; a store held by another writer for 8 s during a run."""
    results = []
    folder = env.path("store", "x")[:-2]
    db = os.path.join(folder, "runs.sqlite")
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    pef = os.path.join(folder, "logreg.pef")
    subprocess.run([dfc, "compile", "--model", "logreg", "-o0", "-b", "16", "--output-folder", folder, "--db", db],
                   check=True, capture_output=True)
    # A finished run first, then one that is killed.
    subprocess.run([dfc, "run", "-p", pef, "--train-limit", "256", "--test-limit", "64", "--db", db],
                   check=True, capture_output=True)
    p = subprocess.Popen([dfc, "run", "-p", pef, "-e", "100", "--db", db], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    wait_until_running(db, p)
    p.send_signal(signal.SIGKILL)
    p.wait()
    rc, out, err, secs = run_dfc(dfc, ["report", pef, "--db", db, "-o", os.path.join(folder, "r.csv")], 30, folder)
    text = out + err
    said = any(w in text for w in ("did not finish", "unfinished", "killed"))
    v = "ok" if rc == 0 and said else "report after kill -9: rc %s, says: %s" % (rc, text.strip()[:120])
    results.append(hostile.Case("store", "kill -9 mid-run, then report", []), )
    results[-1] = (results[-1], v, secs, text.strip().splitlines()[-1][:160] if text.strip() else "")

    # Another writer holds the store for 8 s while a run writes.
    def hold():
        time.sleep(1.0)
        c = sqlite3.connect(db, timeout=30)
        c.execute("BEGIN EXCLUSIVE")
        time.sleep(8)
        c.rollback()
        c.close()
    t = threading.Thread(target=hold)
    t.start()
    rc, out, err, secs = run_dfc(dfc, ["run", "-p", pef, "-e", "4", "--db", db], 120, folder)
    t.join()
    trace = os.path.join(folder, "logreg_chrome_tracing_report.json")
    v = "ok" if rc == 0 and os.path.exists(trace) else "store held 8 s: rc %s: %s" % (
        rc, (err.strip().splitlines() or [""])[-1][:120])
    results.append((hostile.Case("store", "store held by another writer for 8 s", []), v, secs,
                    (err.strip().splitlines() or [""])[-1][:160]))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dfc", default="build/app/dfc/dfc")
    ap.add_argument("--work", default="/tmp/dfc-hostile")
    ap.add_argument("--filter", default="")
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--no-memory-limit", action="store_true", help="for a sanitized dfc (ASan maps terabytes)")
    args = ap.parse_args()
    global MEMORY_LIMITED
    MEMORY_LIMITED = not args.no_memory_limit
    dfc = os.path.abspath(args.dfc)
    env = hostile.Env(dfc, os.path.abspath(args.work))
    rows = []
    for case in hostile.make_cases(env):
        if args.filter and args.filter not in case.cls + " " + case.name:
            continue
        v, secs, last = run_case(dfc, case, env)
        rows.append((case, v, secs, last))
        print("%-16s %-46.46s %5.1fs  %s" % (case.cls, case.name, secs, v), flush=True)
        if v != "ok":
            print("%16s   %s" % ("", last), flush=True)
    if not args.no_store and (not args.filter or "store" in args.filter):
        for row in store_cases(dfc, env):
            rows.append(row)
            print("%-16s %-46.46s %5.1fs  %s" % (row[0].cls, row[0].name, row[2], row[1]), flush=True)
            if row[1] != "ok":
                print("%16s   %s" % ("", row[3]), flush=True)
    per = collections.OrderedDict()
    for case, v, _, _ in rows:
        c = per.setdefault(case.cls, collections.Counter())
        c["tried"] += 1
        c["ok" if v == "ok" else v.split(" ")[0].split(":")[0]] += 1
    print("\nper class:")
    for cls, c in per.items():
        print("  %-16s %s" % (cls, ", ".join("%s %d" % kv for kv in c.items())))
    bad = sum(1 for r in rows if r[1] != "ok")
    print("%d cases, %d answered as they must, %d not" % (len(rows), len(rows) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
