"""End-to-end tests of the onnxc fused ops (compiler/dialect/onnxc, lowered by
targets/cpu/lowering/Fused.cpp): a model made of `onnxc`-domain nodes, as
`onnxc optimize` writes them, is imported, compiled and run, and compared
with ONNX Runtime on the equivalent unfused model. Activations (Gelu and
FastGelu too), bias, residual add, alpha, dynamic batch and f16; the
transformer ops SkipLayerNorm, BiasGelu, BiasSoftmax, EmbedLayerNorm. Then
the patterns the fusion passes rewrite, compiled as is."""
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import (Artifact, compile_model, max_relative_error,
                          onnxc_binary, run_ort)

RNG = np.random.default_rng(4)


def f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def make_model(nodes, inputs, outputs, initializers, fused, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers)
    opsets = [helper.make_opsetid("", opset)]
    if fused:
        opsets.append(helper.make_opsetid("onnxc", 1))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    return model


def check(fused_model, reference_model, feeds, rtol=1e-4):
    want = run_ort(reference_model, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(fused_model, tmp)).run(feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        err = max_relative_error(g, w)
        assert err <= rtol, f"max relative error {err:.3g} > {rtol}"


# (activation, activation_params, the unfused nodes applying it to "t" -> "y")
ACTIVATIONS = [
    ("", None, lambda: [helper.make_node("Identity", ["t"], ["y"])]),
    ("Relu", None, lambda: [helper.make_node("Relu", ["t"], ["y"])]),
    ("LeakyRelu", [0.2], lambda: [helper.make_node("LeakyRelu", ["t"], ["y"], alpha=0.2)]),
    ("Clip", [-0.5, 0.7], lambda: [helper.make_node("Clip", ["t", "lo", "hi"], ["y"])]),
    ("Sigmoid", None, lambda: [helper.make_node("Sigmoid", ["t"], ["y"])]),
    ("Tanh", None, lambda: [helper.make_node("Tanh", ["t"], ["y"])]),
    ("HardSigmoid", [0.3, 0.4],
     lambda: [helper.make_node("HardSigmoid", ["t"], ["y"], alpha=0.3, beta=0.4)]),
    ("Gelu", None, lambda: gelu_nodes("t", "y", "none")),
    ("FastGelu", None, lambda: gelu_nodes("t", "y", "tanh")),
]
CLIP_BOUNDS = [numpy_helper.from_array(np.array(v, np.float32), name) for name, v in
               [("lo", -0.5), ("hi", 0.7), ("g_sqrt2", np.sqrt(2.0)),
                ("g_one", 1.0), ("g_half", 0.5), ("g_k", 0.044715),
                ("g_c", np.sqrt(2.0 / np.pi)), ("g_three", 3.0)]]


def gelu_nodes(x, y, approximate):
    """Gelu(x) decomposed as opset 17 writes it (constants in CLIP_BOUNDS)."""
    node = helper.make_node
    if approximate == "tanh":
        inner = [node("Pow", [x, "g_three"], [y + "_c"]),
                 node("Mul", [y + "_c", "g_k"], [y + "_kc"]),
                 node("Add", [x, y + "_kc"], [y + "_s"]),
                 node("Mul", [y + "_s", "g_c"], [y + "_cs"]),
                 node("Tanh", [y + "_cs"], [y + "_f"])]
    else:
        inner = [node("Div", [x, "g_sqrt2"], [y + "_d"]),
                 node("Erf", [y + "_d"], [y + "_f"])]
    return inner + [node("Add", [y + "_f", "g_one"], [y + "_t"]),
                    node("Mul", [x, y + "_t"], [y + "_p"]),
                    node("Mul", [y + "_p", "g_half"], [y])]


def fused_attrs(activation, params):
    attrs = {"activation": activation}
    if params:
        attrs["activation_params"] = params
    return attrs


@pytest.mark.parametrize("activation,params,act_nodes", ACTIVATIONS,
                         ids=[a[0] or "none" for a in ACTIVATIONS])
def test_fused_conv(activation, params, act_nodes):
    x, r = f(2, 3, 7, 6), f(2, 4, 7, 6)
    w = numpy_helper.from_array(f(4, 3, 3, 3), "w")
    b = numpy_helper.from_array(f(4), "b")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 7, 6]),
              helper.make_tensor_value_info("r", TensorProto.FLOAT, ["n", 4, 7, 6])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    fused = make_model(
        [helper.make_node("FusedConv", ["x", "w", "b", "r"], ["y"], domain="onnxc",
                          pads=[1, 1, 1, 1], **fused_attrs(activation, params))],
        inputs, outputs, [w, b], fused=True)
    reference = make_model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Add", ["c", "r"], ["t"])] + act_nodes(),
        inputs, outputs, [w, b] + CLIP_BOUNDS, fused=False)
    check(fused, reference, {"x": x, "r": r})


@pytest.mark.parametrize("activation,params,act_nodes", ACTIVATIONS,
                         ids=[a[0] or "none" for a in ACTIVATIONS])
def test_fused_matmul(activation, params, act_nodes):
    a = f(3, 5, 8)
    w = numpy_helper.from_array(f(8, 7), "w")
    bias = numpy_helper.from_array(f(7), "bias")
    alpha = numpy_helper.from_array(np.array(0.25, np.float32), "alpha")
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 5, 8])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    fused = make_model(
        [helper.make_node("FusedMatMul", ["a", "w", "bias"], ["y"], domain="onnxc",
                          alpha=0.25, **fused_attrs(activation, params))],
        inputs, outputs, [w, bias], fused=True)
    reference = make_model(
        [helper.make_node("MatMul", ["a", "w"], ["m"]),
         helper.make_node("Mul", ["m", "alpha"], ["s"]),
         helper.make_node("Add", ["s", "bias"], ["t"])] + act_nodes(),
        inputs, outputs, [w, bias, alpha] + CLIP_BOUNDS, fused=False)
    check(fused, reference, {"a": a})


def test_fused_matmul_no_bias():
    a, b = f(4, 9), f(9, 3)
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 9]),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, [9, 3])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    fused = make_model(
        [helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain="onnxc",
                          activation="Relu")],
        inputs, outputs, [], fused=True)
    reference = make_model(
        [helper.make_node("MatMul", ["a", "b"], ["t"]),
         helper.make_node("Relu", ["t"], ["y"])],
        inputs, outputs, [], fused=False)
    check(fused, reference, {"a": a, "b": b})


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-4), (np.float16, 3e-3)])
def test_fused_gemm(dtype, rtol):
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    a = f(6, 5, dtype=dtype)
    w = numpy_helper.from_array(f(4, 5, dtype=dtype), "w")
    c = numpy_helper.from_array(f(4, dtype=dtype), "c")
    inputs = [helper.make_tensor_value_info("a", elem, [6, 5])]
    outputs = [helper.make_tensor_value_info("y", elem, None)]
    fused = make_model(
        [helper.make_node("FusedGemm", ["a", "w", "c"], ["y"], domain="onnxc",
                          transB=1, alpha=0.5, beta=2.0, activation="Relu")],
        inputs, outputs, [w, c], fused=True)
    reference = make_model(
        [helper.make_node("Gemm", ["a", "w", "c"], ["t"], transB=1, alpha=0.5, beta=2.0),
         helper.make_node("Relu", ["t"], ["y"])],
        inputs, outputs, [w, c], fused=False)
    check(fused, reference, {"a": a}, rtol=rtol)


# The transformer fusions' ops (SkipLayerNorm, BiasGelu, BiasSoftmax,
# EmbedLayerNorm) against their onnx decomposition.

@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-4), (np.float16, 3e-3)])
def test_skip_layernorm_op(dtype, rtol):
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    x, skip = f(2, 5, 16, dtype=dtype), f(2, 5, 16, dtype=dtype)
    inits = [numpy_helper.from_array(f(16, dtype=dtype), n)
             for n in ("gamma", "beta", "bias")]
    inputs = [helper.make_tensor_value_info("x", elem, ["n", "s", 16]),
              helper.make_tensor_value_info("skip", elem, ["n", "s", 16])]
    outputs = [helper.make_tensor_value_info("y", elem, None)]
    fused = make_model(
        [helper.make_node("SkipLayerNorm", ["x", "skip", "gamma", "beta", "bias"],
                          ["y"], domain="onnxc", epsilon=1e-3)],
        inputs, outputs, inits, fused=True)
    reference = make_model(
        [helper.make_node("Add", ["x", "skip"], ["s"]),
         helper.make_node("Add", ["s", "bias"], ["sb"]),
         helper.make_node("LayerNormalization", ["sb", "gamma", "beta"], ["y"],
                          epsilon=1e-3)],
        inputs, outputs, inits, fused=False)
    check(fused, reference, {"x": x, "skip": skip}, rtol=rtol)


def test_skip_layernorm_op_defaults():
    """No beta, no bias, epsilon left out (its default 1e-5 applies)."""
    x, skip = f(3, 8), f(3, 8)
    inits = [numpy_helper.from_array(f(8), "gamma")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8]),
              helper.make_tensor_value_info("skip", TensorProto.FLOAT, [3, 8])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    fused = make_model(
        [helper.make_node("SkipLayerNorm", ["x", "skip", "gamma"], ["y"],
                          domain="onnxc")],
        inputs, outputs, inits, fused=True)
    reference = make_model(
        [helper.make_node("Add", ["x", "skip"], ["s"]),
         helper.make_node("LayerNormalization", ["s", "gamma"], ["y"])],
        inputs, outputs, inits, fused=False)
    check(fused, reference, {"x": x, "skip": skip})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_bias_gelu_op(approximate):
    x = 2 * f(3, 7, 12)
    inits = [numpy_helper.from_array(f(12), "bias")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 7, 12])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    attrs = {} if approximate == "none" else {"approximate": approximate}
    fused = make_model(
        [helper.make_node("BiasGelu", ["x", "bias"], ["y"], domain="onnxc", **attrs)],
        inputs, outputs, inits, fused=True)
    reference = make_model(
        [helper.make_node("Add", ["x", "bias"], ["t"])] +
        gelu_nodes("t", "y", approximate),
        inputs, outputs, inits + CLIP_BOUNDS, fused=False)
    check(fused, reference, {"x": x})


def test_bias_softmax_op():
    scores = 3 * f(2, 4, 5, 5)
    mask = np.zeros((2, 1, 1, 5), np.float32)
    mask[1, 0, 0, 3:] = -10000.0
    inputs = [helper.make_tensor_value_info("s", TensorProto.FLOAT, ["n", 4, "q", "k"]),
              helper.make_tensor_value_info("m", TensorProto.FLOAT, ["n", 1, 1, "k"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    fused = make_model(
        [helper.make_node("BiasSoftmax", ["s", "m"], ["y"], domain="onnxc")],
        inputs, outputs, [], fused=True)
    reference = make_model(
        [helper.make_node("Add", ["s", "m"], ["t"]),
         helper.make_node("Softmax", ["t"], ["y"], axis=-1)],
        inputs, outputs, [], fused=False)
    check(fused, reference, {"s": scores, "m": mask})


@pytest.mark.parametrize("with_segment", [True, False])
def test_embed_layernorm_op(with_segment):
    ids = RNG.integers(-20, 20, (2, 6)).astype(np.int64)  # negative ids wrap
    types = RNG.integers(0, 2, (2, 6)).astype(np.int64)
    positions = np.arange(6, dtype=np.int64)[None, :]
    inits = [numpy_helper.from_array(f(20, 8), "word"),
             numpy_helper.from_array(f(16, 8), "position"),
             numpy_helper.from_array(f(2, 8), "segment"),
             numpy_helper.from_array(f(8), "gamma"),
             numpy_helper.from_array(f(8), "beta")]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n", "s"]),
              helper.make_tensor_value_info("types", TensorProto.INT64, ["n", "s"]),
              helper.make_tensor_value_info("pos", TensorProto.INT64, [1, "s"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    node = helper.make_node
    if with_segment:
        fused_inputs = ["ids", "types", "pos", "word", "position", "segment",
                        "gamma", "beta"]
        lookups = [node("Gather", ["word", "ids"], ["w"]),
                   node("Gather", ["segment", "types"], ["t"]),
                   node("Add", ["w", "t"], ["wt"]),
                   node("Gather", ["position", "pos"], ["p"]),
                   node("Add", ["wt", "p"], ["e"])]
    else:
        fused_inputs = ["ids", "", "pos", "word", "position", "", "gamma", "beta"]
        lookups = [node("Gather", ["word", "ids"], ["w"]),
                   node("Gather", ["position", "pos"], ["p"]),
                   node("Add", ["w", "p"], ["e"])]
    used = [i for i in inputs if i.name in fused_inputs]
    fused = make_model(
        [node("EmbedLayerNorm", fused_inputs, ["y"], domain="onnxc", epsilon=1e-12)],
        used, outputs, inits, fused=True)
    reference = make_model(
        lookups + [node("LayerNormalization", ["e", "gamma", "beta"], ["y"],
                        epsilon=1e-12)],
        used, outputs, inits, fused=False)
    feeds = {"ids": ids, "types": types, "pos": positions}
    check(fused, reference, {k: v for k, v in feeds.items()
                             if k in fused_inputs})


# The patterns the fusion passes (passes/fusion) rewrite, in the forms the
# exporters write. Each model is compiled as is and compared with ONNX
# Runtime: with the fusions in the pipeline this checks the fused form.

def const(name, value):
    return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)


def check_pattern(nodes, inputs, initializers, feeds, rtol=1e-4, opset=17):
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    model = make_model(nodes, inputs, outputs, initializers, fused=False, opset=opset)
    check(model, model, feeds, rtol=rtol)


def value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def optimized_ops(model, level=2):
    """The op names of `model` after the graph optimizer at -O`level`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        proc = subprocess.run([onnxc_binary(), "compile", path, "--emit", "mlir",
                               "-o", "-", f"-O{level}"],
                              capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return re.findall(r'"(onnxc?\.\w+)"', proc.stdout)


def check_fused_pattern(nodes, inputs, initializers, feeds, fused_op, rtol=1e-4,
                        opset=17):
    """check_pattern, and `fused_op` is in the graph at -O2 (not at -O1)."""
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    model = make_model(nodes, inputs, outputs, initializers, fused=False, opset=opset)
    assert fused_op in optimized_ops(model, 2)
    assert fused_op not in optimized_ops(model, 1)
    check(model, model, feeds, rtol=rtol)


def test_pattern_conv_batchnorm_relu_residual():
    node = helper.make_node
    nodes = [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             node("BatchNormalization", ["c", "s", "beta", "mean", "var"], ["n"],
                  epsilon=1e-3),
             node("Mul", ["n", "k"], ["m"]),
             node("Add", ["m", "x"], ["a"]),
             node("Relu", ["a"], ["y"])]
    inits = [const("w", f(4, 4, 3, 3)), const("b", f(4)), const("s", f(4)),
             const("beta", f(4)), const("mean", f(4)),
             const("var", RNG.uniform(0.5, 2.0, 4)), const("k", f(1, 4, 1, 1))]
    check_pattern(nodes, [value("x", ["n", 4, 6, 5])], inits, {"x": f(2, 4, 6, 5)})


def test_pattern_layernorm_torch():
    node = helper.make_node
    nodes = [node("ReduceMean", ["x"], ["mean"], axes=[-1]),
             node("Sub", ["x", "mean"], ["d"]),
             node("Pow", ["d", "two"], ["sq"]),
             node("ReduceMean", ["sq"], ["var"], axes=[-1]),
             node("Add", ["var", "eps"], ["ve"]),
             node("Sqrt", ["ve"], ["std"]),
             node("Div", ["d", "std"], ["n"]),
             node("Mul", ["n", "gamma"], ["g"]),
             node("Add", ["g", "beta"], ["y"])]
    inits = [const("two", 2.0), const("eps", 1e-5), const("gamma", f(16)),
             const("beta", f(16))]
    check_pattern(nodes, [value("x", ["n", 7, 16])], inits, {"x": f(3, 7, 16)})


def test_pattern_layernorm_tf():
    node = helper.make_node
    nodes = [node("ReduceMean", ["x", "axes"], ["mean"]),
             node("Sub", ["x", "mean"], ["d"]),
             node("Mul", ["d", "d"], ["sq"]),
             node("ReduceMean", ["sq", "axes"], ["var"]),
             node("Add", ["eps", "var"], ["ve"]),
             node("Sqrt", ["ve"], ["std"]),
             node("Reciprocal", ["std"], ["r"]),
             node("Mul", ["d", "r"], ["y"])]
    inits = [numpy_helper.from_array(np.array([1, 2], np.int64), "axes"),
             const("eps", 1e-3)]
    check_pattern(nodes, [value("x", [2, 5, 6])], inits, {"x": f(2, 5, 6)},
                  opset=18)


def test_pattern_gelu_erf():
    node = helper.make_node
    nodes = [node("MatMul", ["x", "w"], ["m"]),
             node("Add", ["bias", "m"], ["h"]),
             node("Div", ["h", "sqrt2"], ["d"]),
             node("Erf", ["d"], ["e"]),
             node("Add", ["e", "one"], ["t"]),
             node("Mul", ["h", "t"], ["p"]),
             node("Mul", ["p", "half"], ["y"])]
    inits = [const("w", f(8, 12)), const("bias", f(12)), const("sqrt2", 1.4142135),
             const("one", 1.0), const("half", 0.5)]
    check_pattern(nodes, [value("x", ["n", 5, 8])], inits, {"x": f(2, 5, 8)})


def test_pattern_gelu_tanh():
    node = helper.make_node
    nodes = [node("Pow", ["x", "three"], ["c"]),
             node("Mul", ["c", "k1"], ["c1"]),
             node("Add", ["x", "c1"], ["i"]),
             node("Mul", ["i", "k2"], ["s"]),
             node("Tanh", ["s"], ["th"]),
             node("Add", ["th", "one"], ["t"]),
             node("Mul", ["x", "half"], ["h"]),
             node("Mul", ["h", "t"], ["y"])]
    inits = [const("three", 3.0), const("k1", 0.044715), const("k2", 0.7978846),
             const("one", 1.0), const("half", 0.5)]
    check_pattern(nodes, [value("x", [4, 9])], inits, {"x": 3 * f(4, 9)})


def test_pattern_attention():
    node = helper.make_node
    nodes = [node("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1]),
             node("MatMul", ["q", "kt"], ["s"]),
             node("Div", ["s", "scale"], ["t"]),
             node("Add", ["t", "mask"], ["m"]),
             node("Softmax", ["m"], ["p"], axis=-1),
             node("MatMul", ["p", "v"], ["y"])]
    mask = np.zeros((2, 1, 1, 6), np.float32)
    mask[1, 0, 0, 4:] = -10000.0
    inputs = [value("q", ["n", 3, 5, 8]), value("k", ["n", 6, 3, 8]),
              value("v", ["n", 3, 6, 8]), value("mask", ["n", 1, 1, 6])]
    check_pattern(nodes, inputs, [const("scale", np.sqrt(8.0))],
                  {"q": f(2, 3, 5, 8), "k": f(2, 6, 3, 8), "v": f(2, 3, 6, 8),
                   "mask": mask})


def test_pattern_matmul_scale_and_gemm_activation():
    node = helper.make_node
    nodes = [node("MatMul", ["x", "w"], ["m"]),
             node("Div", ["m", "four"], ["s"]),
             node("MatMul", ["s", "w2"], ["m2"]),
             node("Add", ["m2", "b2"], ["a"]),
             node("Sigmoid", ["a"], ["y"])]
    inits = [const("w", f(6, 6)), const("four", 4.0), const("w2", f(6, 3)),
             const("b2", f(3))]
    check_pattern(nodes, [value("x", [5, 6])], inits, {"x": f(5, 6)})


def test_pattern_skip_layernorm():
    """BERT's output block: dense (MatMul + bias), residual add, LayerNorm."""
    node = helper.make_node
    nodes = [node("MatMul", ["x", "w"], ["m"]),
             node("Add", ["bias", "m"], ["h"]),
             node("Add", ["h", "x"], ["s"]),
             node("LayerNormalization", ["s", "gamma", "beta"], ["y"], epsilon=1e-12)]
    inits = [const("w", f(16, 16)), const("bias", f(16)), const("gamma", f(16)),
             const("beta", f(16))]
    check_fused_pattern(nodes, [value("x", ["n", "s", 16])], inits,
                        {"x": f(2, 5, 16)}, "onnxc.SkipLayerNorm")


def test_pattern_bias_gelu():
    """Gelu (both forms) of Linear layers, and of a biased non-GEMM value."""
    node = helper.make_node
    nodes = ([node("MatMul", ["x", "w"], ["m"]),
              node("Add", ["m", "b"], ["h"])] + gelu_nodes("h", "g", "none") +
             [node("MatMul", ["g", "w2"], ["m2"]),
              node("Add", ["m2", "b2"], ["h2"])] + gelu_nodes("h2", "g2", "tanh") +
             [node("Mul", ["g2", "g_three"], ["s"]),
              node("Add", ["s", "b3"], ["h3"])] + gelu_nodes("h3", "y", "none"))
    inits = [const("w", f(8, 12)), const("b", f(12)), const("w2", f(12, 6)),
             const("b2", f(6)), const("b3", f(6))] + CLIP_BOUNDS
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    model = make_model(nodes, [value("x", ["n", 5, 8])], outputs, inits, fused=False)
    model_ops = optimized_ops(model, 2)
    assert "onnxc.BiasGelu" in model_ops and "onnx.Gelu" not in model_ops
    check(model, model, {"x": f(2, 5, 8)})


def test_pattern_bias_softmax():
    """A masked softmax that is no attention block (no MatMul with V)."""
    node = helper.make_node
    nodes = [node("Mul", ["x", "k"], ["s"]),
             node("Add", ["s", "mask"], ["m"]),
             node("Softmax", ["m"], ["y"], axis=-1)]
    mask = np.zeros((2, 1, 1, 6), np.float32)
    mask[0, 0, 0, 4:] = -10000.0
    check_fused_pattern(nodes, [value("x", ["n", 3, 5, 6]), value("mask", ["n", 1, 1, 6])],
                        [const("k", 0.5)], {"x": f(2, 3, 5, 6), "mask": mask},
                        "onnxc.BiasSoftmax")


def test_pattern_embed_layernorm():
    """transformers' BERT embeddings: word + token type, + position ids
    sliced from a constant buffer to the sequence length."""
    node = helper.make_node
    nodes = [node("Shape", ["ids"], ["shape"]),
             node("Gather", ["shape", "one"], ["seq"], axis=0),
             node("Unsqueeze", ["seq", "zero"], ["end"]),
             node("Slice", ["buffer", "start", "end", "axis1"], ["pos"]),
             node("Gather", ["word", "ids"], ["w"]),
             node("Gather", ["segment", "types"], ["t"]),
             node("Add", ["w", "t"], ["wt"]),
             node("Gather", ["position", "pos"], ["p"]),
             node("Add", ["wt", "p"], ["e"]),
             node("LayerNormalization", ["e", "gamma", "beta"], ["y"], epsilon=1e-12)]
    ints = lambda name, v: numpy_helper.from_array(np.asarray(v, np.int64), name)
    inits = [const("word", f(30, 8)), const("segment", f(2, 8)),
             const("position", f(16, 8)), const("gamma", f(8)), const("beta", f(8)),
             ints("buffer", np.arange(16)[None, :]), ints("one", 1),
             ints("zero", [0]), ints("start", [0]), ints("axis1", [1])]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n", "s"]),
              helper.make_tensor_value_info("types", TensorProto.INT64, ["n", "s"])]
    feeds = {"ids": RNG.integers(0, 30, (2, 7)).astype(np.int64),
             "types": RNG.integers(0, 2, (2, 7)).astype(np.int64)}
    check_fused_pattern(nodes, inputs, inits, feeds, "onnxc.EmbedLayerNorm")
