"""End-to-end tests of the convolution kernels (runtime/cpu/kernels/Conv.h,
called for f32 2-D NCHW onnx.Conv / onnxc.FusedConv by
targets/cpu/lowering/ConvCall.cpp): random models compiled at -O0 (plain
Conv) and -O2 (Conv+bias+Add+activation fused into FusedConv), compared with
ONNX Runtime. Every kernel path: 1x1 through the GEMM, im2col (strides,
asymmetric and auto pads, dilations), grouped, depthwise 3x3/5x5 stride 1/2;
dynamic batch and spatial dims; inf and NaN inputs. A check that the kernel
call is what the compiled code uses."""
import subprocess
import tempfile
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import check_against_ort, onnxc_binary

RNG = np.random.default_rng(11)
LEVELS = ["-O0", "-O2"]


def f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def conv_model(x_shape, w_shape, attrs, bias=True, epilogue=None,
               residual=None, x_dims=None):
    """X -> Conv(W, B) -> [Add(R), R of shape `residual`] -> [activation] -> Y.
    `x_dims` overrides X's declared dims (strings are dynamic)."""
    nodes = []
    inits = [numpy_helper.from_array(f(*w_shape) * 0.5, "w")]
    conv_inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(f(w_shape[0]), "b"))
        conv_inputs.append("b")
    nodes.append(helper.make_node("Conv", conv_inputs, ["c"], **attrs))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            x_dims or list(x_shape))]
    last = "c"
    if residual:
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT,
                                                    list(residual)))
        nodes.append(helper.make_node("Add", [last, "r"], ["s"]))
        last = "s"
    if epilogue == "Relu":
        nodes.append(helper.make_node("Relu", [last], ["y"]))
    elif epilogue == "Clip":
        inits += [numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
                  numpy_helper.from_array(np.array(6.0, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", [last, "lo", "hi"], ["y"]))
    elif epilogue == "Sigmoid":
        nodes.append(helper.make_node("Sigmoid", [last], ["y"]))
    else:
        nodes.append(helper.make_node("Identity", [last], ["y"]))
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def output_shape(model, feeds):
    import onnxruntime as ort
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0].shape


# (name, X shape, W shape, Conv attributes)
CASES = [
    ("pointwise", (1, 16, 9, 11), (24, 16, 1, 1), {}),
    ("pointwise_stride2", (2, 8, 9, 11), (12, 8, 1, 1), {"strides": [2, 2]}),
    ("3x3_pad1", (1, 5, 13, 17), (7, 5, 3, 3), {"pads": [1, 1, 1, 1]}),
    ("3x3_stride2", (2, 6, 15, 14), (8, 6, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ("stem_7x7", (1, 3, 31, 29), (8, 3, 7, 7), {"pads": [3, 3, 3, 3], "strides": [2, 2]}),
    ("dilated", (1, 4, 16, 15), (6, 4, 3, 3), {"pads": [2, 2, 2, 2], "dilations": [2, 2]}),
    ("asymmetric", (1, 3, 10, 12), (5, 3, 2, 4), {"pads": [0, 2, 1, 0], "strides": [3, 2]}),
    ("same_upper", (1, 4, 11, 10), (6, 4, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ("same_lower", (1, 4, 11, 10), (6, 4, 4, 4), {"auto_pad": "SAME_LOWER"}),
    ("valid", (1, 4, 11, 10), (6, 4, 3, 2), {"auto_pad": "VALID"}),
    ("grouped", (2, 8, 9, 9), (12, 4, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]}),
    ("depthwise_3x3", (1, 16, 14, 14), (16, 1, 3, 3), {"group": 16, "pads": [1, 1, 1, 1]}),
    ("depthwise_3x3_s2", (2, 8, 15, 17), (8, 1, 3, 3),
     {"group": 8, "pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ("depthwise_5x5_s2", (1, 12, 19, 19), (12, 1, 5, 5),
     {"group": 12, "pads": [2, 2, 2, 2], "strides": [2, 2]}),
    ("depthwise_5x5", (1, 6, 7, 40), (6, 1, 5, 5), {"group": 6, "pads": [2, 2, 2, 2]}),
    ("depthwise_dilated", (1, 4, 12, 12), (4, 1, 3, 3),
     {"group": 4, "pads": [2, 1, 2, 1], "dilations": [2, 1]}),
    ("depthwise_multiplier", (1, 4, 8, 8), (8, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]}),
]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name,x_shape,w_shape,attrs", CASES, ids=[c[0] for c in CASES])
def test_conv_relu(level, name, x_shape, w_shape, attrs):
    model = conv_model(x_shape, w_shape, attrs, epilogue="Relu")
    check_against_ort(model, {"x": f(*x_shape)}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name,x_shape,w_shape,attrs", CASES[::2], ids=[c[0] for c in CASES[::2]])
def test_conv_residual_clip(level, name, x_shape, w_shape, attrs):
    x = f(*x_shape)
    r_shape = output_shape(conv_model(x_shape, w_shape, attrs), {"x": x})
    model = conv_model(x_shape, w_shape, attrs, epilogue="Clip", residual=r_shape)
    check_against_ort(model, {"x": x, "r": f(*r_shape)}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name,x_shape,w_shape,attrs", CASES[1::2], ids=[c[0] for c in CASES[1::2]])
def test_conv_plain(level, name, x_shape, w_shape, attrs):
    model = conv_model(x_shape, w_shape, attrs, bias=False, epilogue="Sigmoid")
    check_against_ort(model, {"x": f(*x_shape)}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("attrs", [{"pads": [1, 1, 1, 1]},
                                   {"group": 6, "pads": [1, 1, 1, 1], "strides": [2, 2]},
                                   {"auto_pad": "SAME_UPPER", "strides": [2, 2]}],
                         ids=["dense", "depthwise", "same"])
def test_dynamic_batch_and_spatial(level, attrs):
    w_shape = (6, 1 if "group" in attrs else 6, 3, 3)
    model = conv_model((1, 6, 1, 1), w_shape, attrs, epilogue="Relu",
                       x_dims=["N", 6, "H", "W"])
    for shape in [(1, 6, 9, 13), (3, 6, 16, 7)]:
        check_against_ort(model, {"x": f(*shape)}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name,x_shape,w_shape,attrs",
                         [CASES[0], CASES[2], CASES[11], CASES[13]],
                         ids=["pointwise", "3x3", "depthwise", "depthwise_5x5_s2"])
def test_inf_nan_inputs(level, name, x_shape, w_shape, attrs):
    model = conv_model(x_shape, w_shape, attrs)
    x = f(*x_shape)
    x.flat[5] = np.inf
    x.flat[x.size // 2] = np.nan
    x.flat[-3] = -np.inf
    check_against_ort(model, {"x": x}, args=[level])


@pytest.mark.parametrize("level", LEVELS)
def test_kernel_call_is_used(level):
    """The compiled code calls the conv kernel (not linalg loops), and
    --emit static keeps the linalg form."""
    model = conv_model((1, 4, 8, 8), (4, 1, 3, 3), {"group": 4, "pads": [1, 1, 1, 1]},
                       epilogue="Relu")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        onnx.save(model, path)
        for emit, expected in [("llvm", True), ("static", False)]:
            out_path = os.path.join(tmp, "m." + emit)
            proc = subprocess.run([onnxc_binary(), "compile", path, "--emit", emit,
                                   level, "-o", out_path], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            with open(out_path, "rb") as artifact:
                assert (b"onnxc_rt_conv2d_f32" in artifact.read()) == expected, emit
