#!/usr/bin/python3
"""Exports small PyTorch models (random weights, nothing downloaded) to ONNX
test fixtures, each as a conformance case folder:

    OUTDIR/<name>/model.onnx
    OUTDIR/<name>/test_data_set_0/input_0.pb, output_0.pb   (onnx.TensorProto)

so that `dfc conformance OUTDIR` checks them. Needs Debian's python3-torch and
python3-onnx. Usage: scripts/export_torch_models.py [OUTDIR]
(default tests/data/onnx/torch).
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + x)


class ResNetTiny(nn.Module):
    """A CNN with batch norm and residual connections."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=1, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.block1 = BasicBlock(8)
        self.block2 = BasicBlock(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.stem(x))))
        x = self.block2(self.block1(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class DepthwiseNet(nn.Module):
    """MobileNet-style: depthwise + pointwise convolutions, ReLU6, hardswish."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(16)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.pw = nn.Conv2d(16, 24, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(24)
        self.dw2 = nn.Conv2d(24, 24, 5, stride=2, padding=2, groups=24)
        self.fc = nn.Linear(24, 5)

    def forward(self, x):
        x = F.relu6(self.bn0(self.stem(x)))
        x = F.relu6(self.bn1(self.dw(x)))
        x = F.hardswish(self.bn2(self.pw(x)))
        x = F.hardsigmoid(self.dw2(x)) * x[:, :, ::2, ::2]
        return self.fc(torch.mean(x, dim=(2, 3)))


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, t):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("mask", torch.tril(torch.ones(t, t, dtype=torch.bool)))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / float(np.sqrt(d // self.heads))
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        y = torch.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, t):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, t)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, 4 * d)
        self.ff2 = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class CausalTransformer(nn.Module):
    """A pre-norm transformer encoder with causal masking over token embeddings."""

    def __init__(self, vocab=50, d=32, heads=4, t=8, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, t, d) * 0.1)
        self.layers = nn.ModuleList([EncoderLayer(d, heads, t) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def export(name, model, example, outdir, opset):
    model.eval()
    folder = os.path.join(outdir, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        expected = model(example)
        torch.onnx.export(model, (example,), path, opset_version=opset, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(example.numpy(), "input").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(expected.numpy(), "output").SerializeToString())
    print(f"{name}: {os.path.getsize(path)} bytes, opset {opset}, output {tuple(expected.shape)}")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                                "onnx", "torch")
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    resnet = ResNetTiny()
    randomize_batchnorm(resnet, gen)
    export("resnet_tiny", resnet, torch.randn(2, 3, 16, 16, generator=gen), outdir, 17)
    mobile = DepthwiseNet()
    randomize_batchnorm(mobile, gen)
    export("depthwise_net", mobile, torch.randn(2, 3, 16, 16, generator=gen), outdir, 13)
    export("causal_transformer", CausalTransformer(), torch.randint(0, 50, (2, 8), generator=gen), outdir, 14)
    export("causal_transformer_opset17", CausalTransformer(layers=1), torch.randint(0, 50, (2, 8), generator=gen),
           outdir, 17)


if __name__ == "__main__":
    main()
