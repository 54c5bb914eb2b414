#!/usr/bin/env python3
"""The model of tests/e2e/RunInputsTest.cpp, built at test time.

  conv_matmul.py model DIR      writes DIR/model.onnx (two inputs: a, an image
                                f32[1,2,6,6], and b, a bias f32[1,8]) and
                                DIR/a.npy, DIR/a64.npy (a as float64)
  conv_matmul.py reference DIR  reads DIR/model.onnx, DIR/a.npy and DIR/b.npy
                                and writes the outputs computed in numpy
                                (float64, rounded to float32 at the end) to
                                DIR/ref/<name>.npy ('/' in a name as %2F);
                                python3-onnx 1.12 has no onnx.reference

Conv(3x3, pad 1) -> Relu is output "head/out"; flattened, times an [144, 8]
matrix, plus b, is output "y".
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(folder):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32) * 0.3
    m = rng.standard_normal((144, 8)).astype(np.float32) * 0.1
    nodes = [
        helper.make_node("Conv", ["a", "w"], ["head/out"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["head/out"], ["relu"]),
        helper.make_node("Flatten", ["relu"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "m"], ["mm"]),
        helper.make_node("Add", ["mm", "b"], ["y"]),
    ]
    # "head/out" is the conv's output before the Relu: an output read mid-graph.
    graph = helper.make_graph(
        nodes, "conv_matmul",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 2, 6, 6]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("head/out", TensorProto.FLOAT, [1, 4, 6, 6])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(m, "m")])
    mdl = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mdl.ir_version = 8
    onnx.checker.check_model(mdl)
    onnx.save(mdl, folder + "/model.onnx")
    a = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    np.save(folder + "/a.npy", a)
    np.save(folder + "/a64.npy", a.astype(np.float64))


def reference(folder):
    import os
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
               for t in onnx.load(folder + "/model.onnx").graph.initializer}
    a = np.load(folder + "/a.npy").astype(np.float64)
    b = np.load(folder + "/b.npy").astype(np.float64)
    w = weights["w"]
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 4, 6, 6))
    for i in range(6):
        for j in range(6):
            window = padded[0, :, i:i + 3, j:j + 3]  # [2, 3, 3]
            conv[0, :, i, j] = np.tensordot(w, window, axes=([1, 2, 3], [0, 1, 2]))
    y = np.maximum(conv, 0).reshape(1, 144) @ weights["m"] + b
    os.makedirs(folder + "/ref", exist_ok=True)
    np.save(folder + "/ref/y.npy", y.astype(np.float32))
    np.save(folder + "/ref/head%2Fout.npy", conv.astype(np.float32))


if __name__ == "__main__":
    {"model": model, "reference": reference}[sys.argv[1]](sys.argv[2])
