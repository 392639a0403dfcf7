#!/usr/bin/env python3
"""Writes the bundled example model used by the README's quick start.

tiny_cnn.onnx: a small image classifier (Conv, BatchNormalization, Relu,
MaxPool, Flatten, Gemm, Softmax) on a 1x1x28x28 input with a symbolic batch
dimension, random weights from a fixed seed, plus one input image
(tiny_cnn.input.npy) and ONNX Runtime's output for it (tiny_cnn.expected.npy).

Run: .venv/bin/python examples/models/make_example_model.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(2026)

    def init(name, *shape, scale=0.2):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [
        init("conv_w", 8, 1, 3, 3), init("conv_b", 8),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn_scale"),
        init("bn_bias", 8),
        init("bn_mean", 8),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn_var"),
        init("fc_w", 8 * 14 * 14, 10, scale=0.05), init("fc_b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["conv"],
                         name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv", "bn_scale", "bn_bias", "bn_mean", "bn_var"],
                         ["bn"], name="bn", epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax",
                         axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 1, 28, 28])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="onnxc-examples")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "tiny_cnn.onnx"))

    image = rng.random((1, 1, 28, 28), dtype=np.float32)
    np.save(os.path.join(HERE, "tiny_cnn.input.npy"), image)

    import onnxruntime as ort
    session = ort.InferenceSession(os.path.join(HERE, "tiny_cnn.onnx"),
                                   providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"image": image})
    np.save(os.path.join(HERE, "tiny_cnn.expected.npy"), expected)


if __name__ == "__main__":
    main()
