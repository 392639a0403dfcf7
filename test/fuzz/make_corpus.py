"""Writes the fuzzers' seed corpora: small valid models covering the
importer's paths (initializers, attributes of every kind, subgraphs, shape
subgraphs, symbolic dims) plus the hostile corpus (test/hostile). Run from
the repo root: .venv/bin/python test/fuzz/make_corpus.py

The corpus is checked in (test/fuzz/corpus/{import,compile}); inputs that
once crashed onnxc are added to it by hand, named regression-*."""
import hashlib
import os
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hostile"))
from hostile_cases import CASES, write_case  # noqa: E402


def f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def model(nodes, inputs, outputs, inits=(), opset=21):
    graph = helper.make_graph(nodes, "seed", inputs, outputs, list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m.SerializeToString()


def seeds():
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    b = numpy_helper.from_array(np.zeros(4, np.float32), "b")
    yield model([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                 helper.make_node("Relu", ["c"], ["y"])],
                [f32("x", ["N", 3, 8, 8])], [f32("y", None)], [w, b])
    m = numpy_helper.from_array(np.ones((5, 6), np.float32), "m")
    yield model([helper.make_node("MatMul", ["x", "m"], ["p"]),
                 helper.make_node("Add", ["p", "bias"], ["y"])],
                [f32("x", ["B", 5]), f32("bias", [6])], [f32("y", None)], [m])
    idx = numpy_helper.from_array(np.array(0, np.int64), "idx")
    minus = numpy_helper.from_array(np.array([-1], np.int64), "minus")
    yield model([helper.make_node("Shape", ["x"], ["s"]),
                 helper.make_node("Gather", ["s", "idx"], ["n"], axis=0),
                 helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
                 helper.make_node("Concat", ["n1", "minus"], ["shape"], axis=0),
                 helper.make_node("Reshape", ["x", "shape"], ["y"])],
                [f32("x", ["N", 2, 3])], [f32("y", None)],
                [idx, minus, numpy_helper.from_array(np.array([0], np.int64), "zero")])
    then = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                             [f32("t", [3])])
    other = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                              [f32("e", [3])])
    yield model([helper.make_node("If", ["c"], ["y"], then_branch=then,
                                  else_branch=other)],
                [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                 f32("x", [3])], [f32("y", [3])])
    yield model([helper.make_node("Softmax", ["x"], ["s"], axis=-1),
                 helper.make_node("ReduceSum", ["s", "axes"], ["y"], keepdims=0),
                 helper.make_node("Cast", ["y"], ["z"], to=TensorProto.FLOAT16)],
                [f32("x", [2, 7])],
                [helper.make_tensor_value_info("z", TensorProto.FLOAT16, None)],
                [numpy_helper.from_array(np.array([1], np.int64), "axes")])
    yield model([helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
                 helper.make_node("Slice", ["t", "st", "en"], ["y"])],
                [f32("x", [4, 6])], [f32("y", None)],
                [numpy_helper.from_array(np.array([1], np.int64), "st"),
                 numpy_helper.from_array(np.array([5], np.int64), "en")])


def main():
    for target in ("import", "compile"):
        os.makedirs(os.path.join(HERE, "corpus", target), exist_ok=True)
    blobs = list(seeds())
    with tempfile.TemporaryDirectory() as tmp:
        for name, builder, _ in CASES:
            path = write_case(builder, os.path.join(tmp, name))
            with open(path, "rb") as f:
                data = f.read()
            if len(data) <= 64 * 1024:  # the fuzzers' max_len
                blobs.append(data)
    for data in blobs:
        digest = hashlib.sha1(data).hexdigest()[:16]
        for target in ("import", "compile"):
            with open(os.path.join(HERE, "corpus", target, "seed-" + digest), "wb") as f:
                f.write(data)
    print(f"{len(blobs)} seeds")


if __name__ == "__main__":
    main()
