"""Small hostile ONNX models, built with python3-onnx's helper (no downloads)."""
import os

from onnx import TensorProto, helper, save


def _model(nodes, inputs, outputs, initializers=(), functions=(), opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid("local", 1)],
                              functions=list(functions))
    model.ir_version = 8
    return model


def fin(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def external_weight(path, location, offset=None, length=None):
    """A Gemm whose weight is external data at `location` (relative to the model)."""
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4, 4])
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = w.external_data.add()
            entry.key, entry.value = key, str(value)
    node = helper.make_node("Gemm", ["x", "w"], ["y"], name="gemm")
    save(_model([node], [fin("x", [1, 4])], [fin("y", [1, 4])], [w]), path)


def conv_like(path, op, attrs):
    shape_in = [1, 1, 8, 8]
    ins = ["x", "w"] if op == "Conv" else ["x"]
    inits = [helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)] if op == "Conv" else []
    node = helper.make_node(op, ins, ["y"], name=op.lower(), **attrs)
    save(_model([node], [fin("x", shape_in)], [fin("y", [1, 1, 6, 6])], inits), path)


def conv_like_case(folder, op, attrs):
    """The same as a conformance case folder (model.onnx, test_data_set_0/input_0.pb, output_0.pb)."""
    from onnx import numpy_helper
    import numpy as np
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    conv_like(os.path.join(folder, "model.onnx"), op, attrs)
    x = numpy_helper.from_array(np.zeros([1, 1, 8, 8], dtype=np.float32), "x")
    y = numpy_helper.from_array(np.zeros([1, 1, 6, 6], dtype=np.float32), "y")
    open(os.path.join(folder, "test_data_set_0", "input_0.pb"), "wb").write(x.SerializeToString())
    open(os.path.join(folder, "test_data_set_0", "output_0.pb"), "wb").write(y.SerializeToString())


def int_binary(path, op, a, b):
    """Constant int64 operands: folded at import time."""
    ca = helper.make_tensor("a", TensorProto.INT64, [1], [a])
    cb = helper.make_tensor("b", TensorProto.INT64, [1], [b])
    n1 = helper.make_node(op, ["a", "b"], ["q"], name="div")
    n2 = helper.make_node("Cast", ["q"], ["qf"], to=TensorProto.FLOAT, name="cast")
    n3 = helper.make_node("Add", ["x", "qf"], ["y"], name="add")
    save(_model([n1, n2, n3], [fin("x", [1])], [fin("y", [1])], [ca, cb]), path)


def int_binary_runtime(folder, op, a, b):
    """int64 inputs, computed at run time (a conformance case folder)."""
    from onnx import numpy_helper
    import numpy as np
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    node = helper.make_node(op, ["a", "b"], ["y"], name="div")
    save(_model([node], [fin("a", [1], TensorProto.INT64), fin("b", [1], TensorProto.INT64)],
                [fin("y", [1], TensorProto.INT64)]), os.path.join(folder, "model.onnx"))
    for i, v in enumerate((a, b)):
        t = numpy_helper.from_array(np.array([v], dtype=np.int64), "ab"[i])
        open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % i), "wb").write(t.SerializeToString())
    # ONNX integer semantics on overflow wrap as two's complement: INT64_MIN / -1 = INT64_MIN, % -1 = 0.
    with np.errstate(all="ignore"):
        expected = np.array([a], dtype=np.int64) // np.array([b], dtype=np.int64) if op == "Div" else \
            np.fmod(np.array([a], dtype=np.int64), np.array([b], dtype=np.int64))
    t = numpy_helper.from_array(expected.astype(np.int64), "y")
    open(os.path.join(folder, "test_data_set_0", "output_0.pb"), "wb").write(t.SerializeToString())


def recursive_function(path):
    """A local function that calls itself: inlining never ends."""
    body = helper.make_node("Rec", ["a"], ["b"], domain="local", name="inner")
    f = helper.make_function("local", "Rec", ["a"], ["b"], [body],
                             [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    call = helper.make_node("Rec", ["x"], ["y"], domain="local", name="call")
    save(_model([call], [fin("x", [1, 4])], [fin("y", [1, 4])], functions=[f]), path)


def huge_initializer(path):
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([65536, 65536])
    w.raw_data = b"\0" * 16
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    save(_model([node], [fin("x", [1, 1])], [fin("y", [65536, 65536])], [w]), path)


def huge_shape_op(path, op):
    if op == "Range":
        consts = [helper.make_tensor("s", TensorProto.FLOAT, [], [0.0]),
                  helper.make_tensor("l", TensorProto.FLOAT, [], [1e12]),
                  helper.make_tensor("d", TensorProto.FLOAT, [], [1.0])]
        n = helper.make_node("Range", ["s", "l", "d"], ["r"], name="range")
    elif op == "ConstantOfShape":
        consts = [helper.make_tensor("s", TensorProto.INT64, [2], [1 << 20, 1 << 20])]
        n = helper.make_node("ConstantOfShape", ["s"], ["r"], name="cos")
    else:  # Pad
        consts = [helper.make_tensor("p", TensorProto.INT64, [4], [0, 1 << 40, 0, 1 << 40])]
        n = helper.make_node("Pad", ["x", "p"], ["r"], name="pad")
        save(_model([n], [fin("x", [1, 4])], [fin("r", ["a", "b"])], consts), path)
        return
    add = helper.make_node("Add", ["x", "r"], ["y"], name="add")
    out = fin("y", ["n"] if op == "Range" else ["a", "b"])
    save(_model([n, add], [fin("x", [1])], [out], consts), path)


def unnamed_bad_node(path):
    """An unnamed node the mapper refuses: Transpose with a bad perm."""
    n = helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0])
    save(_model([n], [fin("x", [2, 3])], [fin("y", [2, 3])]), path)


def _norm(path, op, count, inputs):
    """`op` on x [4, 1, 8, 8] (one channel) with per-channel inputs of `count` values each."""
    inits = [helper.make_tensor(name, TensorProto.FLOAT, [count], [1.0] * count) for name in inputs]
    node = helper.make_node(op, ["x"] + inputs, ["y"], name=op.lower())
    save(_model([node], [fin("x", [4, 1, 8, 8])], [fin("y", [4, 1, 8, 8])], inits), path)


def batchnorm_wrong_channels(path):
    _norm(path, "BatchNormalization", 7, ["scale", "bias", "mean", "var"])


def instancenorm_wrong_channels(path):
    _norm(path, "InstanceNormalization", 7, ["scale", "bias"])


def conv_kernel_shape_mismatch(path):
    """kernel_shape [5, 5] on a 3x3 weight."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[5, 5])
    save(_model([node], [fin("x", [1, 1, 8, 8])], [fin("y", [1, 1, 6, 6])], [w]), path)


def slice_repeated_axis(path):
    consts = [helper.make_tensor(n, TensorProto.INT64, [2], v)
              for n, v in (("starts", [0, 1]), ("ends", [2, 3]), ("axes", [1, 1]))]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"], name="slice")
    save(_model([node], [fin("x", [2, 4])], [fin("y", [2, 2])], consts), path)


def transpose_negative_perm(path):
    node = helper.make_node("Transpose", ["x"], ["y"], name="transpose", perm=[-1, 0])
    save(_model([node], [fin("x", [2, 3])], [fin("y", [3, 2])]), path)
