"""End-to-end tests of the fused epilogue activations
(runtime/cpu/kernels/Activation.h) against ONNX Runtime at -O0 (no fusion),
-O2 (Conv/MatMul/Gemm fused ops) and -O3 (+ the NCHWc layout): a conv + BN +
SiLU net (efficientnet's block: SiLU as Sigmoid then Mul, a depthwise conv,
a squeeze-and-excitation gate that must stay a Mul) and Linear + Gelu nets
(BERT's erf form, GPT-2's tanh form on a 2-D Gemm reshaped to 3-D), with
inf and NaN inputs. Checks too that the fusions fire in the optimized
graph."""
import math
import os
import subprocess
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import check_against_ort, onnxc_binary

RNG = np.random.default_rng(23)
LEVELS = ["-O0", "-O2", "-O3"]


def f(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def make_model(nodes, inputs, inits, opset=17):
    graph = helper.make_graph(
        nodes, "g", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def conv_bn_silu(nodes, inits, x, name, cin, cout, k, group=1, stride=1):
    """Conv -> BatchNormalization -> x * Sigmoid(x); returns the output name."""
    inits += [
        numpy_helper.from_array(f(cout, cin // group, k, k, scale=0.4), name + "_w"),
        numpy_helper.from_array(f(cout, scale=0.1) + 1.0, name + "_g"),
        numpy_helper.from_array(f(cout, scale=0.1), name + "_b"),
        numpy_helper.from_array(f(cout, scale=0.1), name + "_m"),
        numpy_helper.from_array(np.abs(f(cout)) + 0.5, name + "_v"),
    ]
    nodes += [
        helper.make_node("Conv", [x, name + "_w"], [name + "_c"], group=group,
                         pads=[k // 2] * 4, strides=[stride, stride]),
        helper.make_node("BatchNormalization",
                         [name + "_c", name + "_g", name + "_b", name + "_m", name + "_v"],
                         [name + "_bn"]),
        helper.make_node("Sigmoid", [name + "_bn"], [name + "_s"]),
    ]
    # Both operand orders of the Mul.
    order = [name + "_bn", name + "_s"] if len(nodes) % 2 else [name + "_s", name + "_bn"]
    nodes.append(helper.make_node("Mul", order, [name + "_y"]))
    return name + "_y"


def silu_net():
    """Stem 3x3 stride 2, depthwise 3x3, squeeze-and-excitation, 1x1."""
    nodes, inits = [], []
    x = conv_bn_silu(nodes, inits, "x", "stem", 3, 16, 3, stride=2)
    x = conv_bn_silu(nodes, inits, x, "dw", 16, 16, 3, group=16)
    # SE: Mul(x, Sigmoid(gate)) with a gate of another value: not a SiLU.
    inits += [numpy_helper.from_array(f(16, 16, 1, 1, scale=0.3), "se_w"),
              numpy_helper.from_array(f(16, scale=0.1), "se_b")]
    nodes += [helper.make_node("GlobalAveragePool", [x], ["se_p"]),
              helper.make_node("Conv", ["se_p", "se_w", "se_b"], ["se_c"]),
              helper.make_node("Sigmoid", ["se_c"], ["se_s"]),
              helper.make_node("Mul", [x, "se_s"], ["se_y"])]
    x = conv_bn_silu(nodes, inits, "se_y", "pw", 16, 24, 1)
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 20, 18])]
    return make_model(nodes, inputs, inits)


def gelu_net(form):
    """[2, 5, 32] -> Linear(32, 48) -> Gelu -> Linear(48, 16). `form`: "erf"
    (BERT, MatMul + Add), "tanh" (the tanh approximation), "gpt2" (the tanh
    form on a 2-D Gemm reshaped to 3-D, as GPT-2's Conv1D)."""
    nodes = []
    inits = [numpy_helper.from_array(f(32, 48, scale=0.3), "w1"),
             numpy_helper.from_array(f(48, scale=0.3), "b1"),
             numpy_helper.from_array(f(48, 16, scale=0.3), "w2"),
             numpy_helper.from_array(f(16, scale=0.3), "b2")]
    c = lambda name, v: inits.append(numpy_helper.from_array(np.array(v, np.float32), name))
    if form == "gpt2":
        inits += [numpy_helper.from_array(np.array([-1, 32], np.int64), "s2d"),
                  numpy_helper.from_array(np.array([2, 5, 48], np.int64), "s3d")]
        nodes += [helper.make_node("Reshape", ["x", "s2d"], ["x2"]),
                  helper.make_node("Gemm", ["x2", "w1", "b1"], ["g"]),
                  helper.make_node("Reshape", ["g", "s3d"], ["h"])]
    else:
        nodes += [helper.make_node("MatMul", ["x", "w1"], ["m"]),
                  helper.make_node("Add", ["m", "b1"], ["h"])]
    c("half", 0.5)
    c("one", 1.0)
    if form == "erf":
        c("sqrt2", math.sqrt(2.0))
        nodes += [helper.make_node("Div", ["h", "sqrt2"], ["d"]),
                  helper.make_node("Erf", ["d"], ["e"])]
    else:
        c("three", 3.0)
        c("k", 0.044715)
        c("sqrt2pi", math.sqrt(2.0 / math.pi))
        nodes += [helper.make_node("Pow", ["h", "three"], ["h3"]),
                  helper.make_node("Mul", ["k", "h3"], ["kh3"]),
                  helper.make_node("Add", ["h", "kh3"], ["inner"]),
                  helper.make_node("Mul", ["sqrt2pi", "inner"], ["scaled"]),
                  helper.make_node("Tanh", ["scaled"], ["e"])]
    nodes += [helper.make_node("Add", ["e", "one"], ["t"]),
              helper.make_node("Mul", ["h", "t"], ["ht"]),
              helper.make_node("Mul", ["ht", "half"], ["gelu"]),
              helper.make_node("MatMul", ["gelu", "w2"], ["o"]),
              helper.make_node("Add", ["o", "b2"], ["y"])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 32])]
    return make_model(nodes, inputs, inits)


def optimized_graph(model, level):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        onnx.save(model, path)
        proc = subprocess.run([onnxc_binary(), "compile", path, level, "--emit",
                               "mlir", "-o", os.path.join(tmp, "m.mlir")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        with open(os.path.join(tmp, "m.mlir")) as file:
            return file.read()


def with_specials(x):
    x = x.copy()
    x.flat[3] = np.inf
    x.flat[17] = -np.inf
    x.flat[40] = np.nan
    x.flat[41] = 1e30
    x.flat[42] = -1e30
    return x


@pytest.mark.parametrize("level", LEVELS)
def test_conv_bn_silu(level):
    model = silu_net()
    x = f(1, 3, 20, 18)
    check_against_ort(model, {"x": x}, args=[level])
    check_against_ort(model, {"x": x * 30.0}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
def test_conv_bn_silu_inf_nan(level):
    check_against_ort(silu_net(), {"x": with_specials(f(1, 3, 20, 18))},
                      args=[level])


@pytest.mark.parametrize("form", ["erf", "tanh", "gpt2"])
@pytest.mark.parametrize("level", LEVELS)
def test_linear_gelu(level, form):
    model = gelu_net(form)
    check_against_ort(model, {"x": f(2, 5, 32)}, args=[level])
    check_against_ort(model, {"x": f(2, 5, 32, scale=20.0)}, args=[level])
    check_against_ort(model, {"x": with_specials(f(2, 5, 32))}, args=[level])


def test_silu_fused():
    """Three SiLUs in the conv epilogues (NCHWc at -O3), the SE gate a Mul."""
    for level, op in [("-O2", "onnxc.FusedConv"), ("-O3", "onnxc.BlockedConv")]:
        graph = optimized_graph(silu_net(), level)
        assert graph.count('activation = "Silu"') == 3, (level, graph)
        assert graph.count('"onnx.Mul"') == 1, (level, graph)
        assert '"onnx.Sigmoid"' not in graph, (level, graph)
        assert op in graph, (level, graph)


@pytest.mark.parametrize("form,activation", [("erf", "Gelu"), ("tanh", "FastGelu"),
                                             ("gpt2", "FastGelu")])
def test_gelu_fused(form, activation):
    graph = optimized_graph(gelu_net(form), "-O2")
    assert f'activation = "{activation}"' in graph, graph
    assert '"onnx.Gelu"' not in graph and '"onnx.Erf"' not in graph, graph
    assert '"onnx.Tanh"' not in graph, graph
