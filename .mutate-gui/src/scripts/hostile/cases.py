"""The hostile inputs of issue 9, one or more per class, crafted from the
project's own outputs (a logreg PEF compiled here) and small hand-made files.
Each case says how dfc must answer: refuse (exit 2, one error line naming the
culprit), or finish (exit 0, with a check of the output)."""
import json
import os
import struct
import subprocess

import onnxcraft
import pefedit


class Case:
    def __init__(self, cls, name, argv, expect="refuse", culprit=None, unchanged=None, setup=None, check=None,
                 nothing_written=None, timeout=30):
        self.cls, self.name, self.argv, self.expect = cls, name, argv, expect
        self.culprit, self.unchanged, self.setup, self.check = culprit, unchanged, setup, check
        self.nothing_written, self.timeout = nothing_written, timeout


class Env:
    """Scratch folder with a compiled logreg training PEF to mutate."""

    def __init__(self, dfc, work):
        self.dfc, self.work = dfc, work
        os.makedirs(work, exist_ok=True)
        self.pef = os.path.join(work, "base", "logreg.pef")
        if not os.path.exists(self.pef):
            subprocess.run([dfc, "compile", "--model", "logreg", "-o0", "-b", "16", "--output-folder",
                            os.path.dirname(self.pef), "--db", "-"], check=True, capture_output=True)

    def reset_specials(self):
        """The FIFO, the device node and the folder that clobbering cases aim at, as they must be."""
        import shutil
        import stat
        dev = self.path("dev", "x")[:-2]
        fifo, null, folder = (os.path.join(dev, n) for n in ("fifo", "null", "folder"))
        for p, want in ((fifo, stat.S_ISFIFO), (null, stat.S_ISCHR), (folder, stat.S_ISDIR)):
            if os.path.lexists(p) and not want(os.lstat(p).st_mode):
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        if not os.path.exists(null) and os.geteuid() == 0:
            os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.makedirs(folder, exist_ok=True)
        return fifo, null, folder

    def path(self, *parts):
        p = os.path.join(self.work, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def mutated_pef(self, name, mutate):
        p = pefedit.Pef(self.pef)
        mutate(p)
        out = self.path("pef", name + ".pef")
        p.write(out)
        return out

    def text(self, name, content):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(content)
        return p

    def run(self, pef, *extra):
        return ["run", "-p", pef, "--train-limit", "64", "--test-limit", "64", "--db", "-"] + list(extra)


def compile_onnx(model, out):
    """dfc compile of an ONNX model for inference, batch 1, -o0, into `out`."""
    return ["compile", "--model", model, "--inference", "-b", "1", "-o0", "--db", "-", "--output-folder", out]


def set_meta(**fields):
    def mutate(p):
        m = p.json("meta")
        m.update(fields)
        p.set_json("meta", m)
    return mutate


def shift_section_ids(p):
    s = p.json("sections")
    for sec in s["sections"]:
        sec["id"] += 100
    for h in s["hypersections"]:
        h["sections"] = [i + 100 for i in h["sections"]]
    p.set_json("sections", s)
    p.set_json("schedule", {"schedule": [i + 100 for i in p.json("schedule")["schedule"]]})


def set_schedule(fn):
    def mutate(p):
        sched = p.json("schedule")["schedule"]
        sections = p.json("sections")["sections"]
        p.set_json("schedule", {"schedule": fn(sched, sections)})
    return mutate


def set_cut(**fields):
    """Issue 35: the second section's cut reason (format 1.3) with `fields` replaced."""
    def mutate(p):
        s = p.json("sections")
        s["sections"][1].setdefault("cut", {"kind": "pcu_budget", "detail": "", "used": 0, "adding": 0, "limit": 0})
        s["sections"][1]["cut"].update(fields)
        p.set_json("sections", s)
    return mutate


def retype_forward_as_backward(p):
    s = p.json("sections")
    for sec in s["sections"]:
        if sec["type"] == "forward" and "matmul" in sec["name"]:
            sec["type"] = "backward"
            break
    p.set_json("sections", s)


def big_weight(flag):
    """Adds an unused const of 2^36 f32 (256 GiB) whose entry is zero-filled (1) or a recipe (2)."""
    def mutate(p):
        text = p.text("graph").replace("  output ", "  const %big : f32[65536,1048576]\n  output ", 1)
        p.set_text("graph", text)
        w = p.chunks["weights"]
        count = struct.unpack_from("<I", w, 0)[0]
        name = b"big"
        entry = struct.pack("<I", len(name)) + name + bytes([0, flag, 0, 0]) + struct.pack("<I", 2)
        entry += struct.pack("<qq", 65536, 1048576) + struct.pack("<Q", 65536 * 1048576 * 4)
        if flag == 2:
            entry += bytes([1]) + b"\0" * 7 + struct.pack("<dQ", 0.5, 7)
        p.chunks["weights"] = struct.pack("<I", count + 1) + w[4:] + entry
    return mutate


def idx(path, magic, dims, payload):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + payload)


def idx_folder(env, name, images_dims, label_value=1, labels_dims=None):
    folder = env.path("idx", name, "x")[:-2]
    n = images_dims[0]
    size = 1
    for d in images_dims[1:]:
        size *= d
    payload = bytes(min(size, 1 << 16) * min(n, 64))
    for split in ("train", "t10k"):
        idx(os.path.join(folder, split + "-images-idx3-ubyte"), 0x803, images_dims, payload)
        ldims = labels_dims or [n]
        idx(os.path.join(folder, split + "-labels-idx1-ubyte"), 0x801, ldims, bytes([label_value]) * min(n, 64))
    return folder


ARCH = """name: evil
tiles: 4
pcus_per_tile: 160
pmus_per_tile: 160
pmu_bytes: 524288
pcu_lanes: 32
pcu_stages: 6
clock_ghz: 1.25
peak_tflops: 320
ddr_gbps: 150
pcie_gbps: 32
"""


def arch(env, file_name, **override):
    lines = []
    for line in ARCH.splitlines():
        key = line.split(":")[0]
        lines.append("%s: %s" % (key, override.pop(key)) if key in override else line)
    lines += ["%s: %s" % kv for kv in override.items()]
    return env.text("arch/%s.yaml" % file_name, "\n".join(lines) + "\n")


def chained_optional_rules(env, n=60):
    lines = ["- name: Chain", "  priority: 10", "  pattern:"]
    lines.append("    n0: {op_type: relu, child: n1}")
    for i in range(1, n):
        lines.append("    n%d: {op_type: [relu, matmul, bias_add, reshape], required: false, child: n%d}" % (i, i + 1))
    lines.append("    n%d: {op_type: softmax}" % n)
    return env.text("rules/chain%d.yaml" % n, "\n".join(lines) + "\n")


def relu_chain_model(env, n=24):
    lines = ["graph chain {", "  input %x : f32[2,10]", "  param %w : f32[10,10]",
             '  %h0 : f32[2,10] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name="mm"']
    for i in range(1, n + 1):
        lines.append('  %%h%d : f32[2,10] = relu(%%h%d) name="r%d"' % (i, i - 1, i))
    lines += ["  output %%h%d" % n, "}"]
    return env.text("rules/chain_model.dfir", "\n".join(lines) + "\n")


def make_cases(env):
    cases = []
    add = cases.append
    pef = env.mutated_pef
    dev = env.path("dev", "x")[:-2]

    # --- memory safety: meta roles naming the wrong kind of value; section ids not 0..n-1
    for field, value in (("labels_input", "lr"), ("labels_input", "fc/weight"), ("logits_output", "lr"),
                         ("logits_output", "fc/weight"), ("logits_output", "labels"), ("image_input", "lr"),
                         ("lr_input", "image"), ("logits_output", "loss")):
        add(Case("memory-safety", "meta %s=%s" % (field, value),
                 env.run(pef("meta_%s_%s" % (field, value.replace("/", "_")), set_meta(**{field: value}))),
                 culprit=field))
    ids = pef("ids_shifted", shift_section_ids)
    add(Case("memory-safety", "section ids 100.. (inspect)", ["inspect", ids], culprit="section"))
    add(Case("memory-safety", "section ids 100.. (run)", env.run(ids), culprit="section"))
    add(Case("memory-safety", "cut reason of an unknown kind (inspect --why)",
             ["inspect", "--why", pef("cut_kind", set_cut(kind="whim"))], culprit="whim"))
    add(Case("memory-safety", "cut reason with a text count (inspect --why)",
             ["inspect", "--why", pef("cut_used", set_cut(used="lots"))], culprit="used"))

    # --- file disclosure: external data outside the model folder
    for name, location in (("dotdot", "../../../../../../../../etc/passwd"), ("absolute", "/etc/passwd")):
        model = env.path("onnx", name, "m.onnx")
        onnxcraft.external_weight(model, location, length=64)
        out = env.path("onnx", name, "out", "x")[:-2]
        add(Case("file-disclosure", "external data " + name,
                 compile_onnx(model, out),
                 culprit="passwd", nothing_written=out))
    model = env.path("onnx", "symlink", "m.onnx")
    link = env.path("onnx", "symlink", "weights.bin")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("/etc/passwd", link)
    onnxcraft.external_weight(model, "weights.bin", length=64)
    out = env.path("onnx", "symlink", "out", "x")[:-2]
    add(Case("file-disclosure", "external data via symlink",
             compile_onnx(model, out),
             culprit="weights.bin", nothing_written=out))
    conf = env.path("conf", "abs_pb", "case", "model.onnx")
    onnxcraft.int_binary_runtime(os.path.dirname(conf), "Add", 1, 2)
    from onnx import TensorProto
    t = TensorProto()
    t.name, t.data_type = "a", TensorProto.INT64
    t.dims.append(1)
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "/etc/passwd"
    e = t.external_data.add()
    e.key, e.value = "length", "8"
    open(os.path.join(os.path.dirname(conf), "test_data_set_0", "input_0.pb"), "wb").write(t.SerializeToString())
    add(Case("file-disclosure", "conformance .pb absolute external data",
             ["conformance", os.path.dirname(os.path.dirname(conf))], expect="conformance-refuse", culprit="passwd"))

    # --- clobbering: the trace (or CSV) target is not a regular file
    fifo, null, folder = env.reset_specials()
    for target in (null, fifo, folder):
        if os.path.exists(target):
            add(Case("clobbering", "--trace " + os.path.basename(target), env.run(env.pef, "--trace", target),
                     culprit=target, unchanged=target))
            add(Case("clobbering", "report -o " + os.path.basename(target),
                     ["report", env.pef, "-o", target, "--db", "-"], culprit=target, unchanged=target))

    # --- crashes by signal
    for op, attrs in (("Conv", {"strides": [0, 0]}), ("MaxPool", {"kernel_shape": [2, 2], "strides": [0, 0]}),
                      ("AveragePool", {"kernel_shape": [2, 2], "strides": [0, 0]}),
                      ("MaxPool", {"kernel_shape": [0, 2]}), ("Conv", {"dilations": [0, 1]})):
        model = env.path("onnx", "%s_%s" % (op, "_".join(attrs)), "m.onnx")
        onnxcraft.conv_like(model, op, attrs)
        add(Case("crash-by-signal", "%s %s" % (op, attrs),
                 compile_onnx(model, env.path("onnx", "o", op)), culprit="m.onnx"))
        caseDir = env.path("conf", "%s_%s" % (op, "_".join(attrs)), "case", "x")[:-2]
        onnxcraft.conv_like_case(caseDir, op, attrs)
        add(Case("crash-by-signal", "conformance %s %s" % (op, attrs),
                 ["conformance", os.path.dirname(caseDir)], expect="conformance-refuse", culprit=op.lower()))
    for op in ("Div", "Mod"):
        model = env.path("onnx", "fold_" + op, "m.onnx")
        onnxcraft.int_binary(model, op, -(1 << 63), -1)
        add(Case("crash-by-signal", "fold INT64_MIN %s -1" % op,
                 compile_onnx(model, env.path("onnx", "fold_" + op, "out")), expect="ok"))
        caseDir = env.path("conf", "run_" + op, "case", "x")[:-2]
        onnxcraft.int_binary_runtime(caseDir, op, -(1 << 63), -1)
        add(Case("crash-by-signal", "run INT64_MIN %s -1" % op, ["conformance", os.path.dirname(caseDir)],
                 expect="conformance-done"))
    add(Case("crash-by-signal", "arch pcu_stages 2147483647",
             ["compile", "--model", "logreg", "-o0", "-b", "16", "--db", "-", "--arch",
              arch(env, "stages", pcu_stages=2147483647), "--output-folder", env.path("a", "o1")],
             expect="ok-or-refuse", culprit="pcu_stages"))
    add(Case("crash-by-signal", "arch name is a list",
             ["compile", "--model", "logreg", "-o0", "--db", "-", "--arch", arch(env, "namelist", name="[a, b]"),
              "--output-folder", env.path("a", "o2")], culprit="name"))
    add(Case("crash-by-signal", "arch name is a map",
             ["compile", "--model", "logreg", "-o0", "--db", "-", "--arch", arch(env, "namemap", name="{a: 1}"),
              "--output-folder", env.path("a", "o3")], culprit="name"))
    model = env.path("onnx", "recursive", "m.onnx")
    onnxcraft.recursive_function(model)
    add(Case("crash-by-signal", "recursive local function",
             compile_onnx(model, env.path("onnx", "recursive", "out")), culprit="Rec"))
    model = env.path("onnx", "stoll", "m.onnx")
    onnxcraft.external_weight(model, "w.bin", offset="abc")
    open(env.path("onnx", "stoll", "w.bin"), "wb").write(b"\0" * 64)
    add(Case("crash-by-signal", "external-data offset 'abc'",
             compile_onnx(model, env.path("onnx", "stoll", "out")), culprit="offset"))
    model = env.path("onnx", "extlen", "m.onnx")
    onnxcraft.external_weight(model, "w.bin", length=1 << 40)
    open(env.path("onnx", "extlen", "w.bin"), "wb").write(b"\0" * 64)
    add(Case("crash-by-signal", "external-data length 2^40",
             compile_onnx(model, env.path("onnx", "extlen", "out")), culprit="length"))
    model = env.path("onnx", "hugeinit", "m.onnx")
    onnxcraft.huge_initializer(model)
    add(Case("crash-by-signal", "initializer dims 65536x65536",
             compile_onnx(model, env.path("onnx", "hugeinit", "out")), culprit="w"))
    for op in ("Range", "ConstantOfShape", "Pad"):
        model = env.path("onnx", "huge" + op, "m.onnx")
        onnxcraft.huge_shape_op(model, op)
        add(Case("crash-by-signal", op + " of 2^40 elements",
                 compile_onnx(model, env.path("onnx", "huge" + op, "out")), culprit="m.onnx"))
    for flag, label in ((1, "zero-filled"), (2, "recipe")):
        add(Case("crash-by-signal", "256 GiB %s weight in a PEF" % label,
                 env.run(pef("big_" + label, big_weight(flag))), culprit="big"))
    dfir = env.text("dfir/huge.dfir", "graph huge {\n  input %x : f32[2,65536]\n  param %w : f32[1048576,65536]\n"
                    "  %y : f32[2,1048576] = matmul(%x, %w) {trans_a = 0, trans_b = 1} name=\"mm\"\n  output %y\n}\n")
    add(Case("crash-by-signal", ".dfir param of 2^36 elements",
             ["compile", "--model", dfir, "-o0", "-b", "2", "--db", "-", "--output-folder", env.path("dfir", "o")],
             culprit="w"))
    add(Case("crash-by-signal", "IDX header 16M x 16M images",
             env.run(env.pef, "--data-folder", idx_folder(env, "hugehdr", [64, 1 << 24, 1 << 24])),
             culprit="images"))
    add(Case("crash-by-signal", "--seq-len 1000000000",
             ["compile", "--model", "gpt2-mini", "--seq-len", "1000000000", "-o0", "--db", "-", "--output-folder",
              env.path("seq", "o")], culprit="seq"))
    add(Case("crash-by-signal", "arch grid 100000x100000",
             ["compile", "--model", "logreg", "-o0", "--db", "-", "--arch",
              arch(env, "grid", grid_rows=100000, grid_cols=100000), "--output-folder", env.path("a", "o4")],
             culprit="grid"))

    # --- hangs
    add(Case("hang", "rule list of 60 chained optional nodes",
             ["compile", "--model", relu_chain_model(env), "-b", "2", "-o1", "--o1-rule-list",
              chained_optional_rules(env), "--db", "-",
              "--output-folder", env.path("rules", "o")], expect="ok-or-refuse", culprit="chain60"))
    stars = env.text("decisions/stars.yaml", "- together: \"" + "*a" * 4000 + "b\"\n")
    add(Case("hang", "decisions pattern of 4000 stars",
             ["compile", "--model", "lenet", "-o0", "-b", "2", "--db", "-", "--mac-human-decision", stars,
              "--output-folder", env.path("decisions", "o")], culprit="stars.yaml"))
    add(Case("hang", "decisions file is /dev/zero",
             ["compile", "--model", "lenet", "-o0", "-b", "2", "--db", "-", "--mac-human-decision", "/dev/zero",
              "--output-folder", env.path("decisions", "o")], culprit="/dev/zero"))
    add(Case("hang", "schedule of 1M entries",
             env.run(pef("sched_1m", set_schedule(lambda s, secs: (s * (1000000 // len(s) + 1))[:1000000]))),
             culprit="schedule"))
    for special in ("/dev/zero", "/dev/urandom", fifo):
        add(Case("hang", "PEF is " + special, ["inspect", special], culprit=special))
        link = env.path("dev", os.path.basename(special) + ".dfir")
        if not os.path.lexists(link):
            os.symlink(special, link)
        add(Case("hang", ".dfir is " + special, ["compile", "--model", link, "-o0", "--db", "-", "--output-folder",
                                                  env.path("dev", "o")], culprit=os.path.basename(link)))

    # --- silently wrong
    add(Case("silently-wrong", "empty schedule", env.run(pef("sched_empty", set_schedule(lambda s, secs: []))),
             culprit="schedule"))
    add(Case("silently-wrong", "optimizer sections dropped",
             env.run(pef("sched_noopt", set_schedule(
                 lambda s, secs: [i for i in s if secs[i]["type"] != "optimizer"]))), culprit="optimizer"))
    add(Case("silently-wrong", "forward section retyped backward",
             env.run(pef("retyped", retype_forward_as_backward)), culprit="section"))
    for key, value in (("clock_ghz", ".nan"), ("ddr_gbps", ".inf"), ("peak_tflops", "-5"), ("pcie_gbps", ".nan"),
                       ("network_hop_ns", "-3")):
        add(Case("silently-wrong", "arch %s %s" % (key, value),
                 ["compile", "--model", "logreg", "-o0", "--db", "-", "--arch", arch(env, key, **{key: value}),
                  "--output-folder", env.path("a", key)], culprit=key))
    add(Case("silently-wrong", "meta batch_size 999",
             env.run(pef("meta_batch", set_meta(batch_size=999))), culprit="batch_size"))
    add(Case("silently-wrong", "meta default_lr -1",
             env.run(pef("meta_lr_neg", set_meta(default_lr=-1.0))), culprit="default_lr"))
    add(Case("silently-wrong", "meta default_lr null (NaN)",
             env.run(pef("meta_lr_nan", set_meta(default_lr=None))), culprit="default_lr"))
    add(Case("silently-wrong", "meta roles swapped (loss = logits)",
             env.run(pef("meta_loss_logits", set_meta(loss_output="fc/bias_add.out"))), culprit="loss_output"))
    add(Case("silently-wrong", "meta inference=true on a training graph",
             ["inspect", pef("meta_inf", set_meta(inference=True))], culprit="inference"))

    # --- wrong culprit
    bad = env.text("dfir/badtype.dfir", "graph bad {\n  input %x : f32[2,4]\n  param %w : f32[3,4]\n"
                   "  %y : f32[2,3] = matmul(%x, %w) {trans_a = 0, trans_b = 0} name=\"mm\"\n  output %y\n}\n")
    add(Case("wrong-culprit", "invalid .dfir (matmul shapes)",
             ["compile", "--model", bad, "-o0", "-b", "2", "--db", "-", "--output-folder", env.path("dfir", "o2")],
             culprit="badtype.dfir:4"))
    add(Case("wrong-culprit", "meta image_input names a param",
             env.run(pef("meta_img_param", set_meta(image_input="fc/weight"))), culprit="image_input"))
    add(Case("wrong-culprit", "corrupt IDX labels (200)",
             env.run(env.pef, "--data-folder", idx_folder(env, "badlabels", [64, 28, 28], label_value=200)),
             culprit="labels-idx1"))
    model = env.path("onnx", "unnamed", "m.onnx")
    onnxcraft.unnamed_bad_node(model)
    add(Case("wrong-culprit", "ONNX mapper error on an unnamed node",
             compile_onnx(model, env.path("onnx", "unnamed", "out")), culprit="m.onnx: node 'Transpose_1'"))
    import cases_hardening3  # issue 36's classes: stores, logs, bounded work, values read from files
    cases += cases_hardening3.make_cases(env)
    import trace_cases  # issue 36's hostile traces: trace_cases.py
    cases += trace_cases.make(env)
    return cases
