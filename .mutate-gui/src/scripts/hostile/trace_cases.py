"""Hostile traces of issue 36 for `dfc trace` (the reader dfstudio opens
traces with too): B/E events nested deep with E names that match none (the
pairing was quadratic: minutes for 79 KB), gzip files of several members
(refused as corrupt) and ones that grow past the budget through the buffer's
growth (the budget counted only the text), and times and flags that are NaN or
infinite (read as numbers: an empty trace, "range 0 .. nan")."""
import gzip
import json

from cases import Case


def _gz(path, *texts):
    """One gzip member per text, concatenated as `cat a.gz b.gz` makes them."""
    with open(path, "wb") as f:
        for t in texts:
            f.write(gzip.compress(t.encode()))
    return path


def _trace(events):
    return json.dumps({"traceEvents": events})


def make(env):
    cases = []
    add = cases.append
    n = 150000
    deep = [{"ph": "B", "name": "b%d" % (i % 7), "pid": 1, "tid": 1, "ts": i} for i in range(n)]
    deep += [{"ph": "E", "name": "unmatched", "pid": 1, "tid": 1, "ts": n + i} for i in range(n)]
    add(Case("hang", "trace: B/E nested %d deep, E names match none (.json.gz)" % n,
             ["trace", _gz(env.path("trace", "deep.json.gz"), _trace(deep)), "--aggregate"], expect="ok", timeout=20))
    ok = {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 5}
    text = _trace([ok, dict(ok, ts=10)])
    half = len(text) // 2
    add(Case("wrong-refusal", "trace: a valid two-member gzip",
             ["trace", _gz(env.path("trace", "members.json.gz"), text[:half], text[half:]), "--aggregate"], expect="ok"))
    # Two members, the second tiny: the buffer grows by half from a guessed size, and the old and the
    # new block together pass a 1 MiB budget though the text (600 KiB) does not.
    big = _trace([dict(ok, ts=i) for i in range(12000)])
    add(Case("out-of-memory", "trace: gzip whose buffer growth passes --max-memory",
             ["trace", _gz(env.path("trace", "grows.json.gz"), big, " "), "--max-memory", "1M"], culprit="grows.json.gz"))
    for value, name in (('"nan"', "nan"), ('"inf"', "inf"), ("1e999", "1e999"), ('"-Infinity"', "neg_inf")):
        path = env.text("trace/ts_%s.json" % name,
                        '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":%s,"dur":5}]}' % value)
        add(Case("silently-wrong", "trace: ts %s" % value, ["trace", path, "--aggregate"], culprit="ts_%s.json" % name))
    path = env.text("trace/dur_nan.json", '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":"NaN"}]}')
    add(Case("silently-wrong", "trace: dur NaN", ["trace", path], culprit="dur"))
    plain = env.text("trace/plain.json", text)
    for flag, value in (("--to", "nan"), ("--from", "inf"), ("--to", "-inf"), ("--from", "NAN")):
        add(Case("silently-wrong", "trace: %s %s" % (flag, value), ["trace", plain, "--aggregate", flag, value],
                 culprit=flag))
    return cases
