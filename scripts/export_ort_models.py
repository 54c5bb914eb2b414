#!/usr/bin/python3
"""Exports the models scripts/compare_ort.py times (random weights, nothing
downloaded) to OUTDIR/<case>.onnx, with OUTDIR/<case>.json naming each input's
shape and type, so that ONNX Runtime and dfc get the same shapes. Batch
norms stay in the file (each runtime folds them itself). A file that
is already there is kept. Needs Debian's python3-torch, python3-torchvision.

Usage: scripts/export_ort_models.py OUTDIR CASE...
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import SHAPE, Transformer  # noqa: E402  the zoo's GPT-2 shape, as compare-torch builds it
from export_torch_models import randomize_batchnorm  # noqa: E402


class DilatedSegNet(nn.Module):
    """DeepLab-style: a strided stem, then 3x3 convs dilated 2, 4, 8 at 1/4 resolution
    (batch norm + ReLU after each), a 1x1 classifier and a bilinear upsampling."""

    def __init__(self, classes=21, width=64):
        super().__init__()
        layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                  nn.Conv2d(32, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU()]
        for dilation in [1, 2, 4, 8, 2, 1]:
            layers += [nn.Conv2d(width, width, 3, 1, dilation, dilation, bias=False), nn.BatchNorm2d(width), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Conv2d(width, classes, 1)

    def forward(self, x):
        y = self.head(self.body(x))
        return F.interpolate(y, size=x.shape[2:], mode="bilinear", align_corners=False)


def image(batch, size=224):
    return torch.rand(batch, 3, size, size)


def tokens(batch, seq):
    return torch.randint(0, 4, (batch, seq))


def build(case):
    """(model, example input) for one case name."""
    tv = torchvision.models
    if case == "resnet18-b1":
        return tv.resnet18(), image(1)
    if case.startswith("resnet50-b"):
        return tv.resnet50(), image(int(case[len("resnet50-b"):]))
    if case == "mobilenetv2-b1":
        return tv.mobilenet_v2(), image(1)
    if case == "mobilenetv3-b1":
        return tv.mobilenet_v3_large(), image(1)
    if case == "efficientnet-b0-b1":
        return tv.efficientnet_b0(), image(1)
    if case == "convnext-t-b1":
        return tv.convnext_tiny(), image(1)
    if case == "dilated-seg-b1":
        return DilatedSegNet(), image(1, 256)
    if case == "bert-base-b1":  # BERT-base: 12 layers, 768 wide, 12 heads, seq 128
        return Transformer("bert", layers=12, d=768, heads=12, seq=128, vocab=30522).eval(), tokens(1, 128)
    if case == "gpt2-b8":  # the zoo's GPT-2 shape (bench_runtime's gpt2 case), inference
        return Transformer("gpt2", **SHAPE), tokens(8, SHAPE["seq"])
    raise SystemExit(f"export_ort_models: unknown case {case}")


def export(case, outdir):
    path = os.path.join(outdir, case + ".onnx")
    if os.path.exists(path):
        return
    torch.manual_seed(0)
    model, example = build(case)
    randomize_batchnorm(model, torch.Generator().manual_seed(0))
    model.eval()
    with torch.no_grad():
        # PRESERVE keeps BatchNormalization nodes (inference mode) as a file not folded by its exporter
        # has them; EVAL would fold them into the convolutions before either runtime sees them.
        torch.onnx.export(model, (example,), path + ".tmp", opset_version=17, input_names=["input"],
                          output_names=["output"], do_constant_folding=True,
                          training=torch.onnx.TrainingMode.PRESERVE)
    dtype = "int64" if example.dtype == torch.int64 else "float32"
    with open(os.path.join(outdir, case + ".json"), "w") as f:
        json.dump({"inputs": [{"name": "input", "shape": list(example.shape), "dtype": dtype}]}, f)
    os.replace(path + ".tmp", path)
    print(f"exported {case}: {os.path.getsize(path) / 1e6:.1f} MB", flush=True)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for case in sys.argv[2:]:
        export(case, sys.argv[1])


if __name__ == "__main__":
    main()
