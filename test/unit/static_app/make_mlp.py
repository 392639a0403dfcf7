#!/usr/bin/env python3
"""Writes mlp.onnx, the multilayer perceptron of the static no-allocation test
(Gemm, Relu, Gemm, Relu, Gemm, Softmax on a fixed 2x64 input, random weights
from a fixed seed), one input (mlp.input.npy) and ONNX Runtime's output for it
(mlp.expected.npy).

Run: .venv/bin/python test/unit/static_app/make_mlp.py
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(5)
    sizes = [64, 48, 32, 10]
    inits, nodes = [], []
    x = "x"
    for i in range(3):
        w = (rng.standard_normal((sizes[i], sizes[i + 1])) * 0.3).astype(np.float32)
        b = (rng.standard_normal(sizes[i + 1]) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"),
                  numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [f"g{i}"],
                                      name=f"fc{i}"))
        x = f"g{i}"
        if i < 2:
            nodes.append(helper.make_node("Relu", [x], [f"r{i}"], name=f"relu{i}"))
            x = f"r{i}"
    nodes.append(helper.make_node("Softmax", [x], ["probs"], name="softmax"))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [2, 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(HERE, "mlp.onnx")
    onnx.save(model, path)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    np.save(os.path.join(HERE, "mlp.input.npy"), x)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    np.save(os.path.join(HERE, "mlp.expected.npy"), sess.run(None, {"x": x})[0])


if __name__ == "__main__":
    main()
