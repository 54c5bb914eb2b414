#!/usr/bin/python3
"""dfc against PyTorch eager on the same models, same batch, same optimizer
(SGD with momentum 0.9, lr 0.01), same thread count, in one run.

Each dfc configuration runs in a `bench_runtime --serve` process that has
compiled and loaded its PEF; this script builds the same model in PyTorch and
then takes turns: one repeat of PyTorch, one of each dfc configuration, in an
order that rotates every round, so slow phases of a shared machine hit all of
them alike; between turns the script pauses (untimed) until PyTorch's and
OpenBLAS's threads, which spin a while after their work, have gone to sleep:
without the pause the turn after PyTorch's lost a core to them (on 2 threads
dfc -o3, which took that turn in most rounds, measured 1.1-1.6x slower than -o0
with the same kernels). Figures: ms per training step or inference batch, the median of
the repeats with the spread [min - max], and the ratio dfc/PyTorch (median of
the per-round ratios, below 1 means dfc is faster).

Called by scripts/compare-torch.sh, which checks that python3-torch is there.
"""
import argparse
import ctypes
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# --- the models, as the dfc zoo builds them (engine/frontend/ModelZoo*.cpp) ---


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


class Attention(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x, b, t):
        d = x.shape[1]
        dh = d // self.heads
        qkv = self.c_attn(x).view(b, t, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(dh))
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, -1e9)
        ctx = torch.softmax(scores, dim=-1) @ v
        return self.c_proj(ctx.transpose(1, 2).reshape(b * t, d))


class Mlp(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Transformer(nn.Module):
    """gpt2: pre-LayerNorm, causal, tied LM head; bert: post-LayerNorm with a [CLS] classifier."""

    def __init__(self, kind, layers, d, heads, seq, vocab, classes=2):
        super().__init__()
        self.kind, self.seq = kind, seq
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.attn = nn.ModuleList(Attention(d, heads, kind == "gpt2") for _ in range(layers))
        self.mlp = nn.ModuleList(Mlp(d) for _ in range(layers))
        self.ln1 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        if kind == "bert":
            self.pooler = nn.Linear(d, d)
            self.out = nn.Linear(d, classes)

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(t).expand(b, t)
        x = (self.wte(ids) + self.wpe(pos)).reshape(b * t, -1)
        if self.kind == "gpt2":
            for attn, mlp, ln1, ln2 in zip(self.attn, self.mlp, self.ln1, self.ln2):
                x = x + attn(ln1(x), b, t)
                x = x + mlp(ln2(x))
            return self.ln_f(x) @ self.wte.weight.t()
        x = self.ln_f(x)  # the embeddings' LayerNorm
        for attn, mlp, ln1, ln2 in zip(self.attn, self.mlp, self.ln1, self.ln2):
            x = ln1(x + attn(x, b, t))
            x = ln2(x + mlp(x))
        cls = x.view(b, t, -1)[:, 0]
        return self.out(F.gelu(self.pooler(cls), approximate="tanh"))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        blocks, cin = [], 64
        for stage, width in enumerate([64, 128, 256, 512]):
            for block in range(2):
                blocks.append(BasicBlock(cin, width, 2 if stage > 0 and block == 0 else 1))
                cin = width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.blocks(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# --- the cases: the same names as bench_runtime's ---

SHAPE = dict(layers=4, d=256, heads=4, seq=128, vocab=256)


def make_case(name):
    """(label, step function) for one case; the step runs one training step or one inference batch."""
    torch.manual_seed(0)
    if name == "lenet":
        model, x, y = LeNet(), torch.rand(32, 1, 28, 28), torch.randint(0, 10, (32,))
        return "LeNet-5 training step, b32", training_step(model, x, y, lambda out: out)
    if name == "gpt2":
        model = Transformer("gpt2", **SHAPE)
        ids = torch.randint(0, 10, (8, SHAPE["seq"]))
        labels = torch.randint(0, 10, (8 * SHAPE["seq"],))
        return "GPT-2 shape training step, b8", training_step(model, ids, labels, lambda out: out)
    if name.startswith("resnet18-b"):
        batch = int(name[len("resnet18-b"):])
        # dfc's batch_norm uses batch statistics at inference too: train-mode BN under no_grad.
        return f"ResNet-18 224x224 inference, b{batch}", inference_step(ResNet18().train(), torch.rand(batch, 3, 224, 224))
    if name == "bert":
        model = Transformer("bert", **SHAPE).eval()
        return "BERT shape inference, b8", inference_step(model, torch.randint(0, 10, (8, SHAPE["seq"])))
    raise SystemExit(f"compare-torch: unknown case {name}")


def training_step(model, x, y, logits_of):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(logits_of(model(x)), y)
        loss.backward()
        opt.step()
    return step


def inference_step(model, x):
    def step():
        with torch.no_grad():
            model(x)
    return step


class DfcServer:
    """A bench_runtime --serve process holding one loaded configuration."""

    def __init__(self, bench, case, opt, threads):
        self.opt = opt
        # dfc's GEMMs run on oneDNN; OpenBLAS would otherwise start threads that
        # spin for a while at load, beside the PyTorch run being timed.
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        self.proc = subprocess.Popen([bench, "--serve", "--case", case, "--opt", opt, "--threads", str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise SystemExit(f"compare-torch: {bench} --serve did not start ({line!r})")

    def run(self, steps):
        self.proc.stdin.write(f"run {steps}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def torch_run(step, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t0) * 1e3 / steps


def spread(xs):
    return f"{statistics.median(xs):9.2f} [{min(xs):8.2f} - {max(xs):8.2f}]"


# Untimed pause before each turn: longer than libgomp's and OpenBLAS's spin after a parallel region.
SETTLE_S = 0.3


def load():
    with open("/proc/loadavg") as f:
        return "load " + " ".join(f.read().split()[:3])


def set_threads(n):
    """PyTorch's threads, and its BLAS's: set_num_threads leaves OpenBLAS (Debian's BLAS for
    PyTorch) at its default, all hardware threads, which would give PyTorch more threads than dfc."""
    torch.set_num_threads(n)
    try:
        ctypes.CDLL("libblas.so.3").openblas_set_num_threads(n)
    except (OSError, AttributeError):
        pass


def compare(bench, case, threads, opts, repeats, min_ms):
    set_threads(threads)
    label, step = make_case(case)
    servers = [DfcServer(bench, case, opt, threads) for opt in opts]
    warm = min(torch_run(step, 1) for _ in range(3))
    for s in servers:
        warm = max(warm, s.run(1))
    steps = max(1, round(min_ms / warm))
    runners = [("torch", lambda: torch_run(step, steps))] + [(s.opt, lambda s=s: s.run(steps)) for s in servers]
    samples = {name: [] for name, _ in runners}
    for rep in range(repeats):
        for i in range(len(runners)):
            name, fn = runners[(i + rep) % len(runners)]
            time.sleep(SETTLE_S)
            samples[name].append(fn())
        if os.environ.get("COMPARE_TORCH_VERBOSE"):
            print("  round", rep, " ".join(f"{n} {v[-1]:.2f}" for n, v in samples.items()))
    for s in servers:
        s.close()
    t = samples["torch"]
    print(f"{label} ({threads} thread{'s' if threads > 1 else ''}, {steps} steps x {repeats} repeats), ms, median [min - max]:")
    print(f"  PyTorch eager  {spread(t)}")
    for opt in opts:
        d = samples[opt]
        ratios = [a / b for a, b in zip(d, t)]
        print(f"  dfc -{opt}       {spread(d)}   dfc/PyTorch x{statistics.median(ratios):.2f} "
              f"[{min(ratios):.2f} - {max(ratios):.2f}]")
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", default="build/bench/bench_runtime")
    p.add_argument("--case", action="append", help="lenet, gpt2, resnet18-b1, resnet18-b8, bert (default: all)")
    p.add_argument("--threads", action="append", type=int, help="default: 1 and 2")
    p.add_argument("--opt", action="append", help="dfc levels to run beside PyTorch (default: o3 and o0)")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--min-ms", type=float, default=150, help="time per repeat, roughly")
    a = p.parse_args()
    if not os.access(a.bench, os.X_OK):
        raise SystemExit(f"compare-torch: {a.bench} not found; build it first (cmake --build build --target bench_runtime)")
    print(f"PyTorch {torch.__version__}, {os.cpu_count()} hardware threads, {load()} at start")
    for case in a.case or ["lenet", "gpt2", "resnet18-b1", "resnet18-b8", "bert"]:
        for threads in a.threads or [1, 2]:
            compare(a.bench, case, threads, a.opt or ["o3", "o0"], a.repeats, a.min_ms)
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
