#!/usr/bin/python3
"""dfc against ONNX Runtime (onnxruntime-node) on the same .onnx files, batch,
input shapes and thread count, interleaved in one run.

Each model is exported once by scripts/export_ort_models.py and compiled once
by `dfc compile -m M.onnx --inference -o3`. ONNX Runtime runs in a node process
(scripts/ort_server.js) holding the session; dfc runs as
`dfc measure-performance --inference --threads N` (its own warm-up steps, then
the timed ones). The two take turns, in an order that alternates every round,
with an untimed pause before each turn so that the threads one left spinning
have gone to sleep. Figures: the median ms of one inference per turn, then the
median over the turns with the spread [min - max], and the ratio dfc/ORT
(median of the per-round ratios; below 1 means dfc is faster).

Called by scripts/compare-ort.sh, which installs onnxruntime-node.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = ["resnet18-b1", "resnet50-b1", "resnet50-b8", "mobilenetv2-b1", "mobilenetv3-b1", "efficientnet-b0-b1",
         "dilated-seg-b1", "bert-base-b1", "gpt2-b8"]
SETTLE_S = 0.3  # longer than ORT's and libgomp's spin after a parallel region
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


class OrtServer:
    def __init__(self, node, module, model, inputs, threads):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_server.js")
        self.proc = subprocess.Popen([node, script, module, model, inputs, str(threads)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=ENV)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            self.proc.kill()
            raise RuntimeError(f"ONNX Runtime did not load {model}: {line}")

    def run(self, steps):
        self.proc.stdin.write(f"run {steps}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def compile_pef(dfc, model, outdir, opt):
    """The PEF's path, compiled when missing or older than dfc; raises with dfc's own error."""
    name = os.path.basename(model)[:-len(".onnx")] + "-" + opt
    pef = os.path.join(outdir, name, name + ".pef")
    if os.path.exists(pef) and os.path.getmtime(pef) > os.path.getmtime(dfc):
        return pef
    cmd = [dfc, "compile", "-m", model, "--inference", "-" + opt, "--pef-name", name, "--output-folder",
           os.path.dirname(pef), "--db", "-"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        raise RuntimeError(f"dfc compile failed (exit {r.returncode}): {(r.stderr or r.stdout).strip()[-600:]}")
    return pef


def dfc_run(dfc, pef, threads, steps, summary):
    cmd = [dfc, "measure-performance", "--pef", pef, "--inference", "--threads", str(threads), "--steps",
           str(steps), "--warmup", "2", "--summary", summary, "--db", "-"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        raise RuntimeError(f"dfc measure-performance failed (exit {r.returncode}): {r.stderr.strip()[-600:]}")
    with open(summary) as f:
        return find_key(json.load(f), "latency_median_ms")


def find_key(tree, key):
    if isinstance(tree, dict):
        if key in tree:
            return float(tree[key])
        tree = list(tree.values())
    if isinstance(tree, list):
        for item in tree:
            found = find_key(item, key)
            if found is not None:
                return found
    return None


def spread(xs):
    return f"{statistics.median(xs):9.2f} [{min(xs):8.2f} - {max(xs):8.2f}]"


def load():
    with open("/proc/loadavg") as f:
        return "load " + " ".join(f.read().split()[:3])


def compare(a, case, threads):
    model = os.path.join(a.models, case + ".onnx")
    pef = compile_pef(a.dfc, model, a.models, a.opt)
    ort = OrtServer(a.node, a.ort_module, model, model[:-len(".onnx")] + ".json", threads)
    summary = os.path.join(a.models, f"{case}-{a.opt}-t{threads}.json")
    try:
        warm = max(ort.run(2), dfc_run(a.dfc, pef, threads, 2, summary))
        steps = max(3, round(a.min_ms / warm))
        runners = [("ort", lambda: ort.run(steps)), ("dfc", lambda: dfc_run(a.dfc, pef, threads, steps, summary))]
        samples = {"ort": [], "dfc": []}
        for rep in range(a.repeats):
            for i in range(2):
                name, fn = runners[(i + rep) % 2]
                time.sleep(SETTLE_S)
                samples[name].append(fn())
    finally:
        ort.close()
    o, d = samples["ort"], samples["dfc"]
    ratios = [x / y for x, y in zip(d, o)]
    print(f"{case} ({threads} thread{'s' if threads > 1 else ''}, {steps} runs x {a.repeats} turns), ms, "
          f"median [min - max]:")
    print(f"  ONNX Runtime  {spread(o)}")
    print(f"  dfc -{a.opt}      {spread(d)}   dfc/ORT x{statistics.median(ratios):.2f} "
          f"[{min(ratios):.2f} - {max(ratios):.2f}]", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dfc", default="build/app/dfc/dfc")
    p.add_argument("--node", default="node")
    p.add_argument("--ort-module", required=True, help="the onnxruntime-node folder")
    p.add_argument("--models", required=True, help="cache folder of the exported .onnx and compiled PEFs")
    p.add_argument("--case", action="append", help=", ".join(CASES) + " (default: all)")
    p.add_argument("--threads", action="append", type=int, help="default: 1 and 2")
    p.add_argument("--opt", default="o3", help="dfc level (default o3)")
    p.add_argument("--repeats", type=int, default=5, help="turns each (default 5)")
    p.add_argument("--min-ms", type=float, default=300, help="time per turn, roughly")
    a = p.parse_args()
    cases = a.case or CASES
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "export_ort_models.py"),
                    a.models] + cases, check=True)
    print(f"{os.cpu_count()} hardware threads, {load()} at start")
    failed = 0
    for case in cases:
        for threads in a.threads or [1, 2]:
            try:
                compare(a, case, threads)
            except RuntimeError as e:
                failed += 1
                print(f"{case} ({threads} threads): NOT MEASURED: {e}", flush=True)
                break
    print(f"{load()} at the end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
