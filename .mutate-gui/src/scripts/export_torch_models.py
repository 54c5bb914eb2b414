#!/usr/bin/python3
"""Exports small PyTorch models (random weights, nothing downloaded) to ONNX
test fixtures, each as a conformance case folder:

    OUTDIR/<name>/model.onnx
    OUTDIR/<name>/test_data_set_0/input_0.pb, output_0.pb   (onnx.TensorProto)

so that `dfc conformance OUTDIR` checks them. Needs Debian's python3-torch and
python3-onnx (and python3-torchvision for --large).

Usage: scripts/export_torch_models.py [OUTDIR]          the small fixtures
                                                        (default tests/data/onnx/torch)
       scripts/export_torch_models.py --large OUTDIR    torchvision fcn_resnet50 and
                                                        swin_t (100+ MB each: exported
                                                        at test time, never committed)
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


class LstmLanguageModel(nn.Module):
    """A 2-layer LSTM over byte tokens, scoring the next byte at every position."""

    def __init__(self, vocab=256, d=32, hidden=48):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, _ = self.lstm(self.tok(ids))
        return self.head(y)


class BiGruClassifier(nn.Module):
    """A bidirectional GRU over token ids; mean over time, then a linear classifier."""

    def __init__(self, vocab=100, d=24, hidden=32, classes=5):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        y, _ = self.gru(self.tok(ids))
        return self.fc(y.mean(dim=1))


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1),
                         nn.ReLU())


class SmallUNet(nn.Module):
    """A 2-level U-Net for 1x28x28 images scoring 2 classes per pixel: one transposed-conv
    upsampling (stride 2) and one bilinear after a stride-1 transposed conv, with skip
    connections concatenated."""

    def __init__(self, classes=2):
        super().__init__()
        self.enc1 = conv_block(1, 8)
        self.enc2 = conv_block(8, 16)
        self.mid = conv_block(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = conv_block(32, 16)
        self.reduce1 = nn.ConvTranspose2d(16, 8, 3, padding=1)
        self.dec1 = conv_block(16, 8)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        u1 = F.interpolate(self.reduce1(d2), scale_factor=2, mode="bilinear", align_corners=False)
        return self.head(self.dec1(torch.cat([u1, e1], dim=1)))


class Top5Head(nn.Module):
    """A small classifier returning its five best class probabilities and their indices."""

    def __init__(self, classes=20):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1)
        return torch.topk(torch.softmax(self.fc(x), dim=1), 5, dim=1)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; ONNX wants the 'out' tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


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
        outputs = list(expected) if isinstance(expected, tuple) else [expected]
        names = ["output"] if len(outputs) == 1 else [f"output_{i}" for i in range(len(outputs))]
        torch.onnx.export(model, (example,), path, opset_version=opset, input_names=["input"],
                          output_names=names, do_constant_folding=True)
    onnx.checker.check_model(path)
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(example.numpy(), "input").SerializeToString())
    for i, (out, out_name) in enumerate(zip(outputs, names)):
        with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(out.numpy(), out_name).SerializeToString())
    shapes = ", ".join(str(tuple(o.shape)) for o in outputs)
    print(f"{name}: {os.path.getsize(path)} bytes, opset {opset}, output {shapes}")


def export_large(outdir):
    import torchvision
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    fcn = torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, num_classes=21,
                                                        aux_loss=False)
    randomize_batchnorm(fcn, gen)
    export("fcn_resnet50", SegmentationOut(fcn), torch.randn(1, 3, 128, 128, generator=gen), outdir, 17)
    swin = torchvision.models.swin_t(weights=None)
    export("swin_t", swin, torch.randn(1, 3, 224, 224, generator=gen), outdir, 17)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--large":
        export_large(sys.argv[2])
        return
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
    export("lstm_lm", LstmLanguageModel(), torch.randint(0, 256, (2, 16), generator=gen), outdir, 14)
    export("bigru_classifier", BiGruClassifier(), torch.randint(0, 100, (2, 12), generator=gen), outdir, 14)
    export("unet_small", SmallUNet(), torch.randn(2, 1, 28, 28, generator=gen), outdir, 17)
    export("top5_head", Top5Head(), torch.randn(2, 3, 8, 8, generator=gen), outdir, 17)


if __name__ == "__main__":
    main()
