"""bench/flops.py, which docs/benchmarks.md's arithmetic table rests on,
against counts worked out by hand for small graphs: a padded, strided and
grouped Conv, a ConvTranspose, a batched MatMul whose shapes only a run
resolves (a Reshape to a computed shape), and a Gemm with transA."""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from flops import count_flops  # noqa: E402


def save(tmp_path, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    return path


def weights(name, *shape):
    return numpy_helper.from_array(
        np.random.default_rng(0).standard_normal(shape).astype(np.float32), name)


def test_conv_and_conv_transpose(tmp_path):
    f = TensorProto.FLOAT
    nodes = [
        # 2 x 8 x 10 x 10 -> 6 x 5 x 5 (stride 2, pad 1), groups of 2:
        # each output element takes 8 / 2 = 4 channels x 9 taps.
        helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1], group=2),
        # Each of the 2 x 6 x 5 x 5 inputs scatters into 3 channels x 4 taps.
        helper.make_node("ConvTranspose", ["y", "wt"], ["z"],
                         kernel_shape=[2, 2], strides=[2, 2]),
    ]
    path = save(tmp_path, nodes,
                [helper.make_tensor_value_info("x", f, [2, 8, 10, 10])],
                [helper.make_tensor_value_info("z", f, None)],
                [weights("w", 6, 4, 3, 3), weights("wt", 6, 3, 2, 2)])
    x = np.ones((2, 8, 10, 10), np.float32)
    result = count_flops(path, {"x": x})
    conv = 2 * (2 * 6 * 5 * 5) * (4 * 9)
    conv_t = 2 * (2 * 6 * 5 * 5) * (3 * 4)
    assert result["by_op"] == {"Conv": conv, "ConvTranspose": conv_t}
    assert result["total"] == conv + conv_t


def test_matmul_after_computed_reshape_and_gemm(tmp_path):
    f = TensorProto.FLOAT
    nodes = [
        # a: (3, 4 * 5) reshaped to (3, 4, 5) through a shape computed at
        # run time, so ONNX shape inference alone does not know it.
        helper.make_node("Shape", ["a"], ["a_shape"]),
        helper.make_node("Gather", ["a_shape", "zero"], ["rows"], axis=0),
        helper.make_node("Concat", ["rows", "four_five"], ["target"], axis=0),
        helper.make_node("Reshape", ["a", "target"], ["a3"]),
        # (3, 4, 5) x (5, 7): 3 x 4 x 7 outputs of 5 products each.
        helper.make_node("MatMul", ["a3", "b"], ["c"]),
        # transA: (6, 2)^T x (6, 9): 2 x 9 outputs of 6 products each.
        helper.make_node("Gemm", ["g", "h"], ["k"], transA=1),
    ]
    inits = [weights("b", 5, 7), weights("h", 6, 9),
             numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([4, 5], np.int64), "four_five")]
    path = save(tmp_path, nodes,
                [helper.make_tensor_value_info("a", f, ["n", 20]),
                 helper.make_tensor_value_info("g", f, [6, 2])],
                [helper.make_tensor_value_info("c", f, None),
                 helper.make_tensor_value_info("k", f, None)], inits)
    result = count_flops(path, {"a": np.ones((3, 20), np.float32),
                                "g": np.ones((6, 2), np.float32)})
    assert result["by_op"] == {"MatMul": 2 * 3 * 4 * 7 * 5,
                               "Gemm": 2 * 2 * 9 * 6}
