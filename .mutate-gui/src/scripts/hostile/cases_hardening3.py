"""The hostile inputs of issue 36 (hardening, third pass): run stores, logs,
decision and config files, PEF values and ONNX parameter shapes that a
careless or hostile user hands over. Same classes and verdicts as cases.py."""
import os
import sqlite3
import subprocess

import onnxcraft
from cases import Case, compile_onnx, relu_chain_model, set_meta


def store(env, name, *sql):
    """A real run store (a compile recorded in it), then edited by `sql` as another program would."""
    path = env.path("stores", name + ".sqlite")
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run([env.dfc, "compile", "--model", "logreg", "-o0", "-b", "16", "--db", path, "--output-folder",
                    env.path("stores", "out")], check=True, capture_output=True)
    db = sqlite3.connect(path)
    for statement in sql:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def victim(env, name):
    """A file outside the folder a symlink points it from; it must stay as it is."""
    path = env.path("victims", name)
    with open(path, "w") as f:
        f.write("not dfc's to write\n")
    return path


def linked(env, link, target):
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target, link)
    return link


def fifo_at(path):
    if os.path.lexists(path):
        os.unlink(path)
    os.mkfifo(path)
    return path


def lattice_rules(env, levels=40):
    """Optional pattern nodes two a level, each feeding both of the next: 2^levels paths through them."""
    lines = ["- name: Lattice", "  priority: 10", "  pattern:", "    n0: {op_type: relu, children: [a1, b1]}"]
    for i in range(1, levels + 1):
        nxt = "[a%d, b%d]" % (i + 1, i + 1) if i < levels else "[end]"
        for side in "ab":
            lines.append("    %s%d: {op_type: [matmul], required: false, children: %s}" % (side, i, nxt))
    lines.append("    end: {op_type: softmax}")
    return env.text("rules/lattice.yaml", "\n".join(lines) + "\n")


def alias_decisions(env):
    """A few KB of YAML naming one 1 MB pattern list 64 x 64 times through aliases."""
    names = ", ".join("n%d" % i for i in range(20000))
    text = "- together: &p [%s]\n" % names + "".join("- together: *p\n" for _ in range(4096))
    return env.text("decisions/aliases.yaml", text)


def store_cases(env, add):
    for version in ("-5", "-50", "-1000", "2147483648"):
        db = store(env, "version" + version, "UPDATE schema_version SET version=" + version)
        add(Case("memory-safety", "store schema version %s (run)" % version, env.run(env.pef) [:-2] + ["--db", db],
                 culprit="schema version"))
        add(Case("memory-safety", "store schema version %s (inspect --run)" % version,
                 ["inspect", "--run", "1", "--db", db], culprit="schema version"))
    loop = store(env, "trigger", "CREATE TRIGGER spin AFTER INSERT ON runs BEGIN "
                 "INSERT INTO runs(pef_path, status) SELECT pef_path, status FROM runs; END")
    add(Case("hang", "store with a trigger (run)", env.run(env.pef)[:-2] + ["--db", loop], culprit="trigger"))
    add(Case("hang", "store with a trigger (report)", ["report", env.pef, "--db", loop, "-o",
                                                       env.path("stores", "r.csv")], culprit="trigger"))
    broken = store(env, "broken", "DROP TABLE section_calls", "CREATE TABLE section_calls(x)",
                   "INSERT INTO runs(pef_path, status) VALUES ('%s', 'finished')" % os.path.abspath(env.pef))
    add(Case("wrong-exit-status", "report on a store with a foreign table",
             ["report", env.pef, "--db", broken, "-o", env.path("stores", "r2.csv")], culprit="broken.sqlite"))
    add(Case("wrong-exit-status", "inspect --run on a store with a foreign table",
             ["inspect", "--run", "1", "--db", store(env, "broken2", "DROP TABLE metrics", "CREATE TABLE metrics(x)",
                                                     "INSERT INTO runs(pef_path, status) VALUES ('x', 'finished')")],
             culprit="broken2.sqlite"))


def log_cases(env, add):
    out = env.path("logs", "out", "x")[:-2]
    target = victim(env, "compile.log")
    linked(env, os.path.join(out, "logreg_compile.log"), target)
    add(Case("clobbering", "compile log is a symlink out of its folder",
             ["compile", "--model", "logreg", "-o0", "--db", "-", "--output-folder", out],
             culprit="logreg_compile.log", unchanged=target))
    out2 = env.path("logs", "fifo", "x")[:-2]
    fifo_at(os.path.join(out2, "logreg_compile.log"))
    add(Case("hang", "compile log is a FIFO", ["compile", "--model", "logreg", "-o0", "--db", "-", "--output-folder",
                                              out2], culprit="FIFO", timeout=20))
    logs = env.path("logs", "dir", "x")[:-2]
    warned = victim(env, "warnings.log")
    linked(env, os.path.join(logs, "dfc_warnings.log"), warned)
    add(Case("clobbering", "--log-dir warnings log is a symlink out of it",
             ["compile", "--model", "logreg", "-o0", "--db", "-", "--log-dir", logs, "--output-folder",
              env.path("logs", "o3")], culprit="dfc_warnings.log", unchanged=warned))
    fifo_logs = env.path("logs", "fifodir", "x")[:-2]
    fifo_at(os.path.join(fifo_logs, "dfc_warnings.log"))
    add(Case("hang", "--log-dir warnings log is a FIFO (run)", env.run(env.pef, "--log-dir", fifo_logs),
             culprit="FIFO", timeout=20))


def work_cases(env, add):
    add(Case("out-of-memory", "rule list: a lattice of 80 optional nodes",
             ["compile", "--model", relu_chain_model(env), "-b", "2", "-o1", "--o1-rule-list",
              lattice_rules(env), "--db", "-", "--output-folder", env.path("rules", "lattice")],
             expect="ok-or-refuse", timeout=60))
    add(Case("out-of-memory", "decisions: one 20000-pattern list named 4096 times",
             ["compile", "--model", "lenet", "-o0", "-b", "2", "--db", "-", "--mac-human-decision",
              alias_decisions(env), "--output-folder", env.path("decisions", "alias")], culprit="aliases.yaml"))
    config = env.text("configs/tracks1.yaml", "router:\n  link_tracks: 1\n  max_iterations: 1000\n"
                      "  stall_iterations: 1000\n  time_limit_s: 5\n")
    add(Case("hang", "router: 1 track a link, 1000 passes (5 s budget)",
             ["compile", "--model", "gpt2-mini", "-o1", "-b", "1", "--db", "-", "--compiler-configs-file", config,
              "--output-folder", env.path("configs", "o")], expect="ok-or-refuse", culprit="links over capacity",
             timeout=90))


def value_cases(env, add):
    pef = env.mutated_pef
    add(Case("file-disclosure", "meta arch is a path (estimate)",
             ["estimate", pef("meta_arch_path", set_meta(arch="/etc/passwd"))], culprit="arch"))
    add(Case("crash-by-signal", "meta arch of 300 characters (estimate)",
             ["estimate", pef("meta_arch_long", set_meta(arch="a" * 300))], culprit="arch"))
    add(Case("silently-wrong", "meta args --n-chips 1e9 (estimate)",
             ["estimate", pef("meta_chips", set_meta(args=["dfc", "compile", "--n-chips", "1000000000"],
                                                     inference=False))], expect="ok-or-refuse"))
    add(Case("minor", "meta world_size is a string", ["inspect", pef("meta_ws", set_meta(world_size="2"))],
             culprit="world_size"))
    add(Case("minor", "meta task is a number", ["inspect", pef("meta_task", set_meta(task=5))], culprit="task"))
    add(Case("silently-wrong", "compile --lr inf", ["compile", "--model", "logreg", "-o0", "--db", "-", "--lr", "inf",
                                                    "--output-folder", env.path("lr", "o")], culprit="--lr"))
    for flag, value in (("--train-limit", "0"), ("--test-limit", "-1"), ("--batch-size", "0")):
        add(Case("minor", "run %s %s" % (flag, value), env.run(env.pef, flag, value), culprit=flag))
    for name, text, culprit in (("bool", "router:\n  max_iterations: true\n", "max_iterations"),
                                ("quoted", "router:\n  max_iterations: '5'\n", "max_iterations"),
                                ("tagged", "router:\n  max_iterations: !!str 5\n", "max_iterations"),
                                ("twice", "router.box_margin: 2\nrouter:\n  box_margin: 3\n", "twice")):
        config = env.text("configs/%s.yaml" % name, text)
        add(Case("minor", "compiler config " + name, ["compile", "--model", "logreg", "-o0", "--db", "-",
                                                      "--compiler-configs-file", config, "--output-folder",
                                                      env.path("configs", name)], culprit=culprit))


def onnx_cases(env, add):
    for name, build, culprit in (("BatchNormalization 7 values on 1 channel", onnxcraft.batchnorm_wrong_channels,
                                  "channel"),
                                 ("InstanceNormalization 7 values on 1 channel", onnxcraft.instancenorm_wrong_channels,
                                  "channel"),
                                 ("Conv kernel_shape disagrees with weights", onnxcraft.conv_kernel_shape_mismatch,
                                  "kernel_shape"),
                                 ("Slice names an axis twice", onnxcraft.slice_repeated_axis, "twice"),
                                 ("Transpose perm -1", onnxcraft.transpose_negative_perm, "perm")):
        model = env.path("onnx", "params", name.split()[0] + name.split()[1], "m.onnx")
        build(model)
        add(Case("silently-wrong", "ONNX " + name, compile_onnx(model, os.path.dirname(model) + "/out"),
                 culprit=culprit))


def make_cases(env):
    cases = []
    for part in (store_cases, log_cases, work_cases, value_cases, onnx_cases):
        part(env, cases.append)
    return cases
