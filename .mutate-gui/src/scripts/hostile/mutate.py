#!/usr/bin/python3
"""Random hostile inputs per class of issue 9, many of each, through dfc.

Where run.py checks one crafted input per known failure, this draws N inputs
per class from generators (fields of a real PEF set to other values, ONNX
window attributes and external-data entries, arch figures, IDX headers, rule
lists, .dfir tokens, zoo sizes, output targets) and counts how dfc answers:
refused (exit 2, one error line), accepted (exit 0), internal (exit 1),
CRASH (a signal), HANG (past the timeout), CLOBBERED (a target replaced),
DISCLOSED (bytes of a file outside the model's folder in a written PEF).

    scripts/hostile/mutate.py --dfc build/app/dfc/dfc --per-class 400 [--seed 1] [--work DIR]
"""
import argparse
import collections
import json
import os
import random
import shutil
import stat
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as hostile  # noqa: E402
import onnxcraft  # noqa: E402
import pefedit  # noqa: E402
from run import identity, run_dfc  # noqa: E402

INTS = [0, -1, 1, 2, 3, 7, -2 ** 31, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 62, -2 ** 63, 2 ** 63 - 1]
NUMBERS = INTS + [0.5, -0.5, 1e-300, 1e300, float("nan"), float("inf"), -float("inf")]
YAML_VALUES = ["0", "-1", "1", ".nan", ".inf", "-.inf", "1e400", "2147483647", "2147483648", "99999999999",
               "x", "[1, 2]", "{a: 1}", "''", "null", "~", "0x10", "1.5", "-3.25", "&a 5", "*a"]
SECRET = b"root:x:0:0"  # /etc/passwd's first line: in a PEF means disclosure


class Campaign:
    def __init__(self, dfc, work, seed):
        self.dfc, self.work = dfc, work
        self.rng = random.Random(seed)
        self.env = hostile.Env(dfc, work)
        base = pefedit.Pef(self.env.pef)
        self.value_names = [line.split()[1][1:] for line in base.text("graph").splitlines()
                            if line.strip().startswith(("input", "param", "const", "%"))]
        self.counter = 0

    def fresh(self, *parts):
        self.counter += 1
        p = self.env.path("m%05d" % self.counter, *parts)
        return p

    # --- generators: each returns (argv, checks) with checks a dict of extra conditions

    def pef_meta(self):
        field = self.rng.choice(["image_input", "labels_input", "lr_input", "loss_output", "logits_output",
                                 "batch_size", "default_lr", "inference", "task", "opt_level"])
        pool = {"batch_size": INTS, "default_lr": NUMBERS, "inference": [True, False, 0, "yes"],
                "task": ["classification", "language_model", "", "x"], "opt_level": ["o0", "o1", "o3", "o9", ""]}
        value = self.rng.choice(pool.get(field, self.value_names + ["", "nope"]))
        if isinstance(value, float) and value != value:
            value = None
        out = self.env.mutated_pef("meta%05d" % self.counter, hostile.set_meta(**{field: value}))
        self.counter += 1
        return self.env.run(out), {}

    def pef_plan(self):
        def mutate(p):
            s = p.json("sections")
            secs = s["sections"]
            kind = self.rng.randrange(6)
            sec = self.rng.choice(secs)
            if kind == 0:
                sec["id"] = self.rng.choice(INTS + [len(secs), sec["id"] + 1])
            elif kind == 1:
                sec["nodes"] = self.rng.choice([[], sec["nodes"] * 2, [self.rng.choice(INTS)], sec["nodes"][::-1]])
            elif kind == 2:
                sec["hypersection"] = self.rng.choice(INTS)
            elif kind == 3:
                sec["type"] = self.rng.choice(["forward", "backward", "optimizer"])
            elif kind == 4:
                sec["estimate"][self.rng.choice(list(sec["estimate"]))] = self.rng.choice(NUMBERS[:-3] + [None])
            else:
                self.rng.choice(s["hypersections"])["sections"] = self.rng.choice([[], [0, 0], [len(secs)]])
            p.set_json("sections", s)
        out = self.env.mutated_pef("plan%05d" % self.counter, mutate)
        self.counter += 1
        return (self.env.run(out) if self.rng.random() < 0.7 else ["inspect", out]), {}

    def pef_schedule(self):
        def mutate(p):
            sched = p.json("schedule")["schedule"]
            kind = self.rng.randrange(5)
            if kind == 0:
                sched = sched[:self.rng.randrange(len(sched))]
            elif kind == 1:
                sched = sched * self.rng.choice([2, 1000, 200000])
            elif kind == 2:
                self.rng.shuffle(sched)
            elif kind == 3:
                sched[self.rng.randrange(len(sched))] = self.rng.choice(INTS)
            else:
                sched = [x for x in sched if self.rng.random() < 0.7]
            p.set_json("schedule", {"schedule": sched})
        out = self.env.mutated_pef("sched%05d" % self.counter, mutate)
        self.counter += 1
        return self.env.run(out), {}

    def pef_weights(self):
        flag = self.rng.choice([0, 1, 2, 3, 255])
        dims = [self.rng.choice([1, 7, 1024, 65536, 2 ** 20, 2 ** 31, 2 ** 40]) for _ in range(self.rng.randrange(1, 4))]

        def mutate(p):
            shape = ",".join(str(d) for d in dims)
            p.set_text("graph", p.text("graph").replace("  output ", "  const %%big : f32[%s]\n  output " % shape, 1))
            w = p.chunks["weights"]
            count = struct.unpack_from("<I", w, 0)[0]
            entry = struct.pack("<I", 3) + b"big" + bytes([0, flag, 0, 0]) + struct.pack("<I", len(dims))
            size = 4
            for d in dims:
                entry += struct.pack("<q", d)
                size *= d
            entry += struct.pack("<Q", size % 2 ** 64)
            if flag == 2:
                entry += bytes([self.rng.choice([0, 1, 2, 9])]) + b"\0" * 7 + struct.pack("<dQ", 0.5, 7)
            p.chunks["weights"] = struct.pack("<I", count + 1) + w[4:] + entry
        out = self.env.mutated_pef("w%05d" % self.counter, mutate)
        self.counter += 1
        return self.env.run(out), {}

    def onnx_external(self):
        folder = self.fresh("model")
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, "w.bin"), "wb").write(b"\0" * 64)
        outside = os.path.join(self.work, "outside.bin")
        if not os.path.exists(outside):
            open(outside, "wb").write(SECRET + b"\0" * 54)
        kind = self.rng.randrange(8)
        if kind == 0:
            location = self.rng.choice(["../outside.bin", "../../outside.bin", "sub/../../outside.bin"])
        elif kind == 1:
            location = self.rng.choice(["/etc/passwd", outside])
        elif kind in (2, 3):
            link = os.path.join(folder, "link.bin")
            os.symlink(self.rng.choice(["/etc/passwd", outside, os.path.join(folder, "w.bin"), "/dev/zero"]), link)
            location = "link.bin"
        elif kind == 4:
            location = self.rng.choice(["", ".", "w.bin/", "nope.bin", "w.bin\0../x"])
        else:
            location = "w.bin"
        offset = self.rng.choice([None, "0", "8", "-8", "abc", "1e3", str(2 ** 63), " 4"])
        length = self.rng.choice([None, "64", "0", "1", str(2 ** 40), "x", "-64"])
        model = os.path.join(folder, "m.onnx")
        onnxcraft.external_weight(model, location, offset=offset, length=length)
        out = os.path.join(folder, "out")
        return hostile.compile_onnx(model, out), {"disclosure": out}

    def onnx_attributes(self):
        op = self.rng.choice(["Conv", "MaxPool", "AveragePool"])
        attrs = {}
        for key in self.rng.sample(["strides", "dilations", "kernel_shape", "pads"], self.rng.randrange(1, 4)):
            n = 4 if key == "pads" else 2
            attrs[key] = [self.rng.choice(INTS[:12]) for _ in range(n)]
        if op != "Conv" and "kernel_shape" not in attrs:
            attrs["kernel_shape"] = [2, 2]
        if op == "Conv":
            attrs.pop("kernel_shape", None)
        case = self.fresh("case")
        onnxcraft.conv_like_case(case, op, attrs)
        if self.rng.random() < 0.5:
            return ["conformance", os.path.dirname(case)], {"conformance": True}
        return hostile.compile_onnx(os.path.join(case, "model.onnx"), os.path.join(case, "out")), {}

    def onnx_sizes(self):
        folder = self.fresh("m")
        os.makedirs(folder, exist_ok=True)
        model = os.path.join(folder, "m.onnx")
        kind = self.rng.randrange(4)
        if kind == 0:
            onnxcraft.huge_shape_op(model, self.rng.choice(["Range", "ConstantOfShape", "Pad"]))
        elif kind == 1:
            onnxcraft.huge_initializer(model)
        elif kind == 2:
            onnxcraft.recursive_function(model)
        else:
            a, b = self.rng.choice(INTS), self.rng.choice(INTS)
            a, b = max(min(a, 2 ** 63 - 1), -2 ** 63), max(min(b, 2 ** 63 - 1), -2 ** 63)
            onnxcraft.int_binary(model, self.rng.choice(["Div", "Mod"]), a, b)
        return hostile.compile_onnx(model, os.path.join(folder, "out")), {}

    def arch(self):
        override = {}
        for key in self.rng.sample([line.split(":")[0] for line in hostile.ARCH.splitlines()] +
                                   ["grid_rows", "grid_cols", "hbm_gbps", "network_hop_ns", "network_link_tracks"],
                                   self.rng.randrange(1, 4)):
            override[key] = self.rng.choice(YAML_VALUES)
        path = hostile.arch(self.env, "r%05d" % self.counter, **override)
        self.counter += 1
        return ["compile", "--model", "logreg", "-o0", "-b", "4", "--db", "-", "--arch", path, "--output-folder",
                self.fresh("o")], {}

    def idx(self):
        dims = [self.rng.choice([0, 1, 28, 64, 2 ** 16, 2 ** 24, 2 ** 24 + 1, 2 ** 32 - 1]) for _ in range(3)]
        label = self.rng.choice([0, 9, 10, 200, 255])
        folder = hostile.idx_folder(self.env, "r%05d" % self.counter, dims, label_value=label)
        self.counter += 1
        return self.env.run(self.env.pef, "--data-folder", folder), {}

    def zoo(self):
        model = self.rng.choice(["gpt2-mini", "bert", "resnet18", "lenet"])
        flags = []
        for flag in self.rng.sample(["--seq-len", "--hidden-size", "--num-heads", "--vocab-size", "--num-layers",
                                     "-b", "--image-size", "--num-classes"], self.rng.randrange(1, 3)):
            flags += [flag, str(self.rng.choice([0, 1, 3, 10 ** 6, 10 ** 9, 2 ** 31, 2 ** 40, 2 ** 62, -5]))]
        if model == "lenet":  # the MNIST models take the batch size only
            flags = ["-b", flags[1]]
        return ["compile", "--model", model, "-o0", "--db", "-", "--output-folder", self.fresh("o")] + flags, {}

    def rules(self):
        n = self.rng.choice([5, 20, 40, 60, 100])
        ops = self.rng.choice(["[relu, matmul, bias_add, reshape]", "relu", "[relu, matmul]"])
        lines = ["- name: R", "  priority: %d" % self.rng.choice([1, -5, 2 ** 31]), "  pattern:",
                 "    n0: {op_type: relu, child: n1}"]
        for i in range(1, n):
            child = "n%d" % (i + 1) if self.rng.random() < 0.9 else "n%d" % self.rng.randrange(n)
            lines.append("    n%d: {op_type: %s, required: %s, child: %s}" %
                         (i, ops, self.rng.choice(["false", "true"]), child))
        lines.append("    n%d: {op_type: %s}" % (n, self.rng.choice(["softmax", "relu"])))
        path = self.env.text("rules/r%05d.yaml" % self.counter, "\n".join(lines) + "\n")
        self.counter += 1
        return ["compile", "--model", hostile.relu_chain_model(self.env), "-b", "2", "-o1", "--o1-rule-list", path,
                "--db", "-", "--output-folder", self.fresh("o")], {}

    def dfir(self):
        golden = sorted(p for p in self._golden() if p.endswith(".dfir"))
        text = open(self.rng.choice(golden)).read().split("// EXPECT:")[0]
        tokens = text.split(" ")
        for _ in range(self.rng.randrange(1, 4)):
            i = self.rng.randrange(len(tokens))
            tokens[i] = self.rng.choice(["f32[65536,1048576]", "f32[2,3]", "i64[2]", "%x", "relu(%x)", "}", "{",
                                         "name=\"n\"", "[1,2]", "-1", "2147483648", "", "output", tokens[i] * 2])
        path = self.env.text("dfir/m%05d.dfir" % self.counter, " ".join(tokens))
        self.counter += 1
        return ["compile", "--model", path, "-o0", "-b", "2", "--db", "-", "--output-folder", self.fresh("o")], {}

    def _golden(self):
        root = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden")
        for d, _, files in os.walk(root):
            for f in files:
                yield os.path.join(d, f)

    def special_input(self):
        fifo, null, folder = self.env.reset_specials()
        target = self.rng.choice(["/dev/zero", "/dev/urandom", fifo, folder, null])
        link = self.fresh("x")
        ext = self.rng.choice([".dfir", ".onnx", ".pef", ".yaml", ".json"])
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(target, link + ext)
        path = link + ext
        argv = {".dfir": ["compile", "--model", path, "--db", "-"], ".onnx": ["compile", "--model", path, "--db", "-"],
                ".pef": ["inspect", path], ".yaml": ["compile", "--model", "logreg", "--arch", path, "--db", "-"],
                ".json": ["trace", path]}[ext]
        return argv, {}

    def output_target(self):
        fifo, null, folder = self.env.reset_specials()
        outside = os.path.join(self.work, "keep.json")
        open(outside, "w").write("keep")
        target = self.rng.choice([fifo, null, folder, "symlink-out", "symlink-dev", "dangling"])
        if target.startswith(("symlink", "dangling")):
            link = self.fresh("t.json")
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink({"symlink-out": outside, "symlink-dev": null, "dangling": "/nonexistent/x"}[target], link)
            watched = outside if target == "symlink-out" else null if target == "symlink-dev" else link
            target = link
        else:
            watched = target
        if self.rng.random() < 0.5:
            argv = self.env.run(self.env.pef, "--trace", target)
        else:
            argv = ["report", self.env.pef, "-o", target, "--db", "-"]
        return argv, {"unchanged": watched, "content": outside}


CLASSES = collections.OrderedDict([
    ("memory-safety", ["pef_meta", "pef_plan"]),
    ("file-disclosure", ["onnx_external"]),
    ("clobbering", ["output_target"]),
    ("crash-by-signal", ["onnx_attributes", "onnx_sizes", "arch", "idx", "zoo", "pef_weights"]),
    ("hang", ["rules", "special_input", "pef_schedule"]),
    ("silently-wrong", ["pef_schedule", "pef_plan", "pef_meta", "arch"]),
    ("wrong-culprit", ["dfir", "idx", "onnx_attributes"]),
])


def outcome(rc, out, err, checks):
    if rc is None:
        return "HANG"
    if rc < 0:
        return "CRASH"
    if checks.get("unchanged"):
        w = checks["unchanged"]
        if not os.path.lexists(w) or (checks.get("before") and identity(w) != checks["before"]):
            return "CLOBBERED"
        if checks.get("content") and open(checks["content"]).read() != "keep":
            return "CLOBBERED"
    if checks.get("disclosure") and os.path.isdir(checks["disclosure"]):
        for f in os.listdir(checks["disclosure"]):
            if f.endswith(".pef") and SECRET in open(os.path.join(checks["disclosure"], f), "rb").read():
                return "DISCLOSED"
    if checks.get("conformance"):
        if "passed," not in out:
            return "internal" if rc == 1 else "refused" if rc == 2 else "rc%d" % rc
        return "refused" if ("UNSUPPORTED" in out or "FAIL" in out) else "accepted"
    errors = [line for line in err.splitlines() if line.startswith("dfc: ")]
    if rc == 0:
        return "accepted"
    if rc == 1:
        return "internal"
    if rc == 2:
        return "refused" if len(errors) == 1 else "refused (%d lines)" % len(errors)
    return "rc%d" % rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dfc", default="build/app/dfc/dfc")
    ap.add_argument("--work", default="/tmp/dfc-mutate")
    ap.add_argument("--per-class", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    c = Campaign(os.path.abspath(args.dfc), os.path.abspath(args.work), args.seed)
    table = collections.OrderedDict()
    bad_examples = []
    for cls, gens in CLASSES.items():
        counts = table.setdefault(cls, collections.Counter())
        for i in range(args.per_class):
            gen = getattr(c, gens[i % len(gens)])
            argv, checks = gen()
            if checks.get("unchanged") and os.path.lexists(checks["unchanged"]):
                checks["before"] = identity(checks["unchanged"])
            rc, out, err, _ = run_dfc(c.dfc, argv, args.timeout, c.work)
            o = outcome(rc, out, err, checks)
            counts[o] += 1
            shown = sum(1 for e in bad_examples if e[1] == o)
            if o in ("CRASH", "HANG", "CLOBBERED", "DISCLOSED", "internal", "accepted") and shown < 12:
                bad_examples.append((cls, o, " ".join(argv)[:200], (err.strip().splitlines() or [""])[-1][:160]))
        print("%-16s %s" % (cls, ", ".join("%s %d" % kv for kv in sorted(counts.items()))), flush=True)
    total = collections.Counter()
    for counts in table.values():
        total.update(counts)
    print("all              %s (%d inputs)" % (", ".join("%s %d" % kv for kv in sorted(total.items())),
                                                 sum(total.values())))
    for ex in bad_examples:
        print("  %s %s: %s\n      %s" % ex)
    if args.json:
        json.dump({k: dict(v) for k, v in table.items()}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
