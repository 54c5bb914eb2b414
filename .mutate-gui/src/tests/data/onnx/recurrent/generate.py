#!/usr/bin/env python3
"""Writes the recurrent attribute-variant cases in this folder (one folder per
case, laid out as the ONNX backend node tests: model.onnx and
test_data_set_0/input_N.pb, output_N.pb), for tests/unit/onnx/RecurrentVariantsTest.cpp.

python3-onnx 1.12 has no onnx.reference and its backend-test helpers run one
direction only, so the expected outputs come from the numpy reference below,
written from the ONNX operator spec (LSTM, GRU, RNN; opset 14): directions
forward, reverse and bidirectional, layout 0 and 1, optional inputs present
and absent, clip, linear_before_reset, activations per direction. Its forward
cases are checked against onnx's own LSTM/GRU/RNN helpers before anything is
written. Run from anywhere: python3 generate.py [out_dir]
"""
import os
import zlib
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

ACT = {
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "LeakyRelu": lambda x, a, b: np.where(x >= 0, x, a * x),
}
DEFAULT_ALPHA = {"HardSigmoid": 0.2, "LeakyRelu": 0.01}
DEFAULT_BETA = {"HardSigmoid": 0.5}
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
DEFAULT_ACTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}


def reference(op, X, W, R, B=None, h0=None, c0=None, P=None, layout=0, direction="forward", clip=None,
              lbr=0, acts=None, alphas=None, betas=None):
    """Y, Y_h (and Y_c for LSTM) of the ONNX spec, in float64."""
    dirs = 2 if direction == "bidirectional" else 1
    x = X.astype(np.float64)
    if layout == 1:
        x = np.swapaxes(x, 0, 1)  # [T, B, I]
    T, N, _ = x.shape
    G = GATES[op]
    H = R.shape[-1]
    acts = acts or DEFAULT_ACTS[op] * dirs
    per = len(DEFAULT_ACTS[op])

    def act(i, v):
        name = acts[i]
        a = alphas[i] if alphas is not None and i < len(alphas) else DEFAULT_ALPHA.get(name, 0)
        b = betas[i] if betas is not None and i < len(betas) else DEFAULT_BETA.get(name, 0)
        return ACT[name](v, a, b)

    def cl(v):
        return np.clip(v, -clip, clip) if clip else v

    def state(s):
        if s is None:
            return np.zeros((dirs, N, H))
        s = s.astype(np.float64)
        return np.swapaxes(s, 0, 1) if layout == 1 else s

    H0, C0 = state(h0), state(c0)
    Y = np.zeros((T, dirs, N, H))
    Yh = np.zeros((dirs, N, H))
    Yc = np.zeros((dirs, N, H))
    for d in range(dirs):
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        wb = B[d][: G * H].astype(np.float64) if B is not None else np.zeros(G * H)
        rb = B[d][G * H:].astype(np.float64) if B is not None else np.zeros(G * H)
        p = P[d].astype(np.float64) if P is not None else np.zeros(3 * H)
        h, c = H0[d], C0[d]
        f0 = d * per
        reverse = direction == "reverse" or d == 1
        for t in (range(T - 1, -1, -1) if reverse else range(T)):
            xt = x[t]
            if op == "RNN":
                h = act(f0, cl(xt @ w.T + h @ r.T + wb + rb))
            elif op == "GRU":
                wz, wr, wh = np.split(w, 3)
                rz, rr, rh = np.split(r, 3)
                wbz, wbr, wbh = np.split(wb, 3)
                rbz, rbr, rbh = np.split(rb, 3)
                z = act(f0, cl(xt @ wz.T + h @ rz.T + wbz + rbz))
                rg = act(f0, cl(xt @ wr.T + h @ rr.T + wbr + rbr))
                if lbr:
                    hh = act(f0 + 1, cl(xt @ wh.T + rg * (h @ rh.T + rbh) + wbh))
                else:
                    hh = act(f0 + 1, cl(xt @ wh.T + (rg * h) @ rh.T + rbh + wbh))
                h = (1 - z) * hh + z * h
            else:
                gates = xt @ w.T + h @ r.T + wb + rb
                i, o, f, cc = np.split(gates, 4, -1)
                pi, po, pf = np.split(p, 3)
                i = act(f0, cl(i + pi * c))
                f = act(f0, cl(f + pf * c))
                cc = act(f0 + 1, cl(cc))
                c = f * c + i * cc
                o = act(f0, cl(o + po * c))
                h = o * act(f0 + 2, c)
            Y[t, d] = h
        Yh[d], Yc[d] = h, c
    if layout == 1:
        Y = np.transpose(Y, (2, 0, 1, 3))
        Yh = np.swapaxes(Yh, 0, 1)
        Yc = np.swapaxes(Yc, 0, 1)
    out = [Y.astype(np.float32), Yh.astype(np.float32)]
    if op == "LSTM":
        out.append(Yc.astype(np.float32))
    return out


def check_against_onnx_helpers():
    """The forward, layout-0 path against onnx's own backend-test helpers."""
    from onnx.backend.test.case.node.gru import GRU_Helper
    from onnx.backend.test.case.node.lstm import LSTM_Helper
    from onnx.backend.test.case.node.rnn import RNN_Helper
    rng = np.random.default_rng(1)
    T, N, I, H = 3, 2, 4, 3
    X = rng.standard_normal((T, N, I)).astype(np.float32)
    for op, Helper in (("LSTM", LSTM_Helper), ("GRU", GRU_Helper), ("RNN", RNN_Helper)):
        G = GATES[op]
        W = (rng.standard_normal((1, G * H, I)) * 0.5).astype(np.float32)
        R = (rng.standard_normal((1, G * H, H)) * 0.5).astype(np.float32)
        B = (rng.standard_normal((1, 2 * G * H)) * 0.5).astype(np.float32)
        h0 = rng.standard_normal((1, N, H)).astype(np.float32)
        params = dict(X=X, W=W, R=R, B=B, initial_h=h0)
        kwargs = dict(B=B, h0=h0)
        if op == "LSTM":
            P = (rng.standard_normal((1, 3 * H)) * 0.5).astype(np.float32)
            c0 = rng.standard_normal((1, N, H)).astype(np.float32)
            params.update(P=P, initial_c=c0)
            kwargs.update(P=P, c0=c0)
        want_y, want_h = Helper(**params).step()
        got = reference(op, X, W, R, **kwargs)
        assert np.allclose(got[0], want_y, atol=1e-5), op
        assert np.allclose(got[1], want_h, atol=1e-5), op
    # GRU linear_before_reset=1 as the helper does it.
    W = (rng.standard_normal((1, 9, I)) * 0.5).astype(np.float32)
    R = (rng.standard_normal((1, 9, H)) * 0.5).astype(np.float32)
    B = (rng.standard_normal((1, 18)) * 0.5).astype(np.float32)
    want_y, _ = GRU_Helper(X=X, W=W, R=R, B=B, linear_before_reset=1).step()
    assert np.allclose(reference("GRU", X, W, R, B=B, lbr=1)[0], want_y, atol=1e-5)


def write_case(root, name, op, attrs, inputs, initializers, outputs_wanted, expected):
    """inputs / initializers: lists of (name, array) in the op's input order ('' for absent slots
    is given by the `slots` list built below); outputs_wanted: names of Y, Y_h, Y_c ('' = not wanted)."""
    folder = os.path.join(root, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "test_data_set_0"))
    slots = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    given = dict(inputs + initializers)
    node_inputs = [s if s in given else "" for s in slots]
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    node = helper.make_node(op, node_inputs, outputs_wanted, **attrs)
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs]
    graph_outputs, data = [], []
    for n, a in zip(outputs_wanted, expected):
        if n:
            graph_outputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape))
            data.append(a)
    inits = [numpy_helper.from_array(a, n) for n, a in initializers]
    graph = helper.make_graph([node], name, graph_inputs, graph_outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="dfc-tests")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for k, (n, a) in enumerate(inputs):
        with open(os.path.join(folder, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, a in enumerate(data):
        with open(os.path.join(folder, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, graph_outputs[k].name).SerializeToString())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    check_against_onnx_helpers()
    T, N, I, H = 3, 2, 4, 3
    cases = []

    def case(name, op, direction="forward", layout=0, bias=True, h0=True, c0=True, peep=False, clip=None, lbr=None,
             acts=None, alphas=None, betas=None, seq_lens=False, outs=("Y", "Y_h", "Y_c"), seed=0):
        rng = np.random.default_rng(zlib.crc32(name.encode()) if seed == 0 else seed)
        dirs = 2 if direction == "bidirectional" else 1
        G = GATES[op]
        X = rng.standard_normal((N, T, I) if layout else (T, N, I)).astype(np.float32)
        W = (rng.standard_normal((dirs, G * H, I)) * 0.6).astype(np.float32)
        R = (rng.standard_normal((dirs, G * H, H)) * 0.6).astype(np.float32)
        B = (rng.standard_normal((dirs, 2 * G * H)) * 0.6).astype(np.float32) if bias else None
        sshape = (N, dirs, H) if layout else (dirs, N, H)
        H0 = rng.standard_normal(sshape).astype(np.float32) if h0 else None
        C0 = rng.standard_normal(sshape).astype(np.float32) if (c0 and op == "LSTM") else None
        P = (rng.standard_normal((dirs, 3 * H)) * 0.6).astype(np.float32) if (peep and op == "LSTM") else None
        attrs = {"hidden_size": H}
        if direction != "forward":
            attrs["direction"] = direction
        if layout:
            attrs["layout"] = layout
        if clip is not None:
            attrs["clip"] = clip
        if lbr is not None:
            attrs["linear_before_reset"] = lbr
        if acts is not None:
            attrs["activations"] = acts
        if alphas is not None:
            attrs["activation_alpha"] = alphas
        if betas is not None:
            attrs["activation_beta"] = betas
        expected = reference(op, X, W, R, B=B, h0=H0, c0=C0, P=P, layout=layout, direction=direction, clip=clip,
                             lbr=lbr or 0, acts=acts, alphas=alphas, betas=betas)
        inputs = [("X", X)]
        if H0 is not None:
            inputs.append(("initial_h", H0))
        if C0 is not None:
            inputs.append(("initial_c", C0))
        inits = [("W", W), ("R", R)]
        if B is not None:
            inits.append(("B", B))
        if seq_lens:
            inits.append(("sequence_lens", np.full((N,), T, dtype=np.int32)))
        if P is not None:
            inits.append(("P", P))
        # The node's inputs follow the spec's slot order whatever order they are listed in here.
        wanted = list(outs[: 3 if op == "LSTM" else 2])
        write_case(root, name, op, attrs, inputs, inits, wanted, expected)
        cases.append(name)

    # LSTM: each direction with every optional input, layout 1, none of them, clip, activations per direction.
    case("lstm_forward_all_inputs", "LSTM", peep=True, seq_lens=True)
    case("lstm_reverse_all_inputs", "LSTM", direction="reverse", peep=True)
    case("lstm_bidirectional_all_inputs", "LSTM", direction="bidirectional", peep=True)
    case("lstm_bidirectional_layout1", "LSTM", direction="bidirectional", layout=1, peep=True)
    case("lstm_reverse_layout1_no_bias", "LSTM", direction="reverse", layout=1, bias=False)
    case("lstm_bidirectional_no_optional", "LSTM", direction="bidirectional", bias=False, h0=False, c0=False,
         outs=("", "Y_h", "Y_c"))
    case("lstm_forward_only_c0", "LSTM", h0=False, outs=("Y", "", "Y_c"))
    case("lstm_forward_clip", "LSTM", clip=0.4, peep=True)
    case("lstm_bidirectional_activations", "LSTM", direction="bidirectional",
         acts=["HardSigmoid", "Tanh", "Relu", "Sigmoid", "LeakyRelu", "Tanh"])
    # GRU: both linear_before_reset values in each direction, layout 1, no bias.
    case("gru_forward_lbr0", "GRU", lbr=0)
    case("gru_forward_lbr1", "GRU", lbr=1)
    case("gru_reverse_lbr0", "GRU", direction="reverse", lbr=0)
    case("gru_reverse_lbr1_layout1", "GRU", direction="reverse", lbr=1, layout=1)
    case("gru_bidirectional_lbr0_layout1", "GRU", direction="bidirectional", lbr=0, layout=1)
    case("gru_bidirectional_lbr1_no_bias", "GRU", direction="bidirectional", lbr=1, bias=False, h0=False)
    case("gru_bidirectional_clip", "GRU", direction="bidirectional", clip=0.3, seq_lens=True)
    case("gru_forward_only_y_h", "GRU", outs=("", "Y_h"))
    # RNN: reverse, bidirectional with activations and alphas per direction, layout 1.
    case("rnn_reverse", "RNN", direction="reverse")
    case("rnn_bidirectional_layout1", "RNN", direction="bidirectional", layout=1)
    case("rnn_bidirectional_leaky_alphas", "RNN", direction="bidirectional", acts=["LeakyRelu", "LeakyRelu"],
         alphas=[0.1, 0.3])
    case("rnn_bidirectional_relu_tanh", "RNN", direction="bidirectional", acts=["Relu", "Tanh"], bias=False)
    case("rnn_forward_hardsigmoid", "RNN", acts=["HardSigmoid"], alphas=[0.3], betas=[0.4], clip=1.5)
    print(len(cases), "cases in", root)


if __name__ == "__main__":
    main()
