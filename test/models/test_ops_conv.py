"""Per-op end-to-end tests: Conv and ConvTranspose (targets/cpu/lowering/
Conv.cpp, ConvTranspose.cpp) against ONNX Runtime: 1-D/2-D/3-D, groups and
depthwise, strides, dilations, asymmetric pads, every auto_pad, symbolic
batch and spatial dims, output_padding and output_shape."""
import numpy as np
import pytest

from node_cases import check_node

RNG = np.random.default_rng(22)


def f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


CONV = [
    ("2d_bias_pads", [f(2, 3, 7, 9), f(4, 3, 3, 3), f(4)], dict(pads=[1, 1, 1, 1]), None),
    ("2d_asym_strides_symbolic_batch", [f(3, 3, 7, 13), f(5, 3, 3, 2), f(5)],
     dict(pads=[1, 0, 2, 1], strides=[2, 3]), {0: [0]}),
    ("2d_dilations", [f(1, 2, 9, 9), f(3, 2, 3, 3), None],
     dict(dilations=[2, 1], strides=[1, 2]), None),
    ("same_upper", [f(1, 2, 7, 8), f(3, 2, 3, 4), None],
     dict(auto_pad="SAME_UPPER", strides=[2, 3]), None),
    ("same_lower", [f(1, 2, 7, 8), f(3, 2, 4, 3), None],
     dict(auto_pad="SAME_LOWER", strides=[2, 1]), None),
    ("same_kernel_below_stride", [f(1, 2, 8, 9), f(3, 2, 1, 2), None],
     dict(auto_pad="SAME_UPPER", strides=[3, 4]), None),
    ("valid", [f(1, 2, 7, 8), f(3, 2, 4, 3), None], dict(auto_pad="VALID", strides=[2, 2]), None),
    ("depthwise", [f(2, 4, 7, 8), f(4, 1, 3, 3), f(4)], dict(group=4, pads=[1, 1, 1, 1]), None),
    ("groups", [f(2, 4, 7, 8), f(6, 2, 3, 3), f(6)],
     dict(group=2, pads=[0, 1, 2, 1], strides=[2, 1]), {0: [0]}),
    ("depth_multiplier", [f(1, 3, 7, 8), f(6, 1, 3, 3), None], dict(group=3), None),
    ("1d", [f(2, 3, 13), f(5, 3, 4), f(5)], dict(pads=[2, 1], strides=[2], dilations=[2]), None),
    ("1d_groups", [f(2, 4, 13), f(6, 2, 3), None], dict(group=2, pads=[1, 1]), None),
    ("1d_depthwise", [f(2, 4, 13), f(4, 1, 3), None], dict(group=4, pads=[1, 1]), None),
    # 1-D convolutions run as 2-D ones over a unit dim on the cpu
    # (transforms/Conv1dAsConv2d.cpp): an STFT-like long strided kernel over
    # an open length, and auto_pad, whose new dim needs no padding.
    ("1d_stft_symbolic", [f(1, 1, 1280), f(33, 1, 128), None],
     dict(strides=[40]), {0: [0, 2]}),
    ("1d_same_upper_symbolic", [f(2, 6, 11), f(4, 6, 4), f(4)],
     dict(auto_pad="SAME_UPPER", strides=[2]), {0: [0, 2]}),
    ("1d_kernel_shape_attr", [f(1, 3, 9), f(2, 3, 3), f(2)],
     dict(kernel_shape=[3], dilations=[3], pads=[0, 4]), None),
    ("3d", [f(1, 2, 5, 6, 7), f(3, 2, 3, 2, 3), f(3)],
     dict(pads=[1, 0, 1, 1, 1, 0], strides=[1, 2, 2]), None),
    ("3d_groups", [f(1, 4, 5, 6, 7), f(4, 2, 3, 3, 3), None],
     dict(group=2, pads=[1, 1, 1, 1, 1, 1]), None),
    ("3d_depthwise", [f(1, 4, 5, 6, 7), f(4, 1, 3, 3, 3), None], dict(group=4), None),
    ("kernel_shape_attr", [f(1, 2, 6, 6), f(3, 2, 3, 3), None], dict(kernel_shape=[3, 3]), None),
    ("pointwise", [f(2, 8, 5, 5), f(4, 8, 1, 1), f(4)], {}, {0: [0]}),
    ("symbolic_spatial", [f(2, 3, 7, 9), f(4, 3, 3, 3), f(4)],
     dict(pads=[1, 2, 1, 0], strides=[2, 2]), {0: [0, 2, 3]}),
    ("symbolic_spatial_same", [f(2, 3, 7, 9), f(4, 3, 3, 3), f(4)],
     dict(auto_pad="SAME_LOWER", strides=[2, 2]), {0: [0, 2, 3]}),
]


@pytest.mark.parametrize("inputs,attrs,dynamic", [c[1:] for c in CONV],
                         ids=[c[0] for c in CONV])
def test_conv(inputs, attrs, dynamic):
    # Weights and bias are initializers, as in exported models.
    constant = [k for k in (1, 2) if inputs[k] is not None]
    check_node("Conv", inputs, attrs, dynamic=dynamic, constants=constant)


def test_conv_f16():
    check_node("Conv", [f(1, 2, 7, 8, dtype=np.float16), f(3, 2, 3, 3, dtype=np.float16),
                      f(3, dtype=np.float16)], dict(pads=[1, 1, 1, 1]),
             constants=[1, 2], rtol=3e-3)


def test_conv_transpose_f16():
    check_node("ConvTranspose", [f(1, 2, 4, 4, dtype=np.float16),
                               f(2, 3, 3, 3, dtype=np.float16), None],
             dict(strides=[2, 2]), constants=[1], rtol=3e-3)


def test_conv_weights_as_inputs():
    check_node("Conv", [f(2, 3, 7, 9), f(4, 3, 3, 3), f(4)], dict(pads=[1, 0, 1, 2]))


CONV_TRANSPOSE = [
    ("strides", [f(1, 2, 3, 3), f(2, 3, 3, 3), None], dict(strides=[2, 2]), None),
    ("bias_pads_symbolic_batch", [f(2, 2, 4, 5), f(2, 3, 3, 2), f(3)],
     dict(strides=[2, 1], pads=[1, 0, 2, 1]), {0: [0]}),
    ("output_padding_dilations", [f(1, 2, 4, 5), f(2, 3, 3, 3), None],
     dict(strides=[3, 2], dilations=[2, 1], output_padding=[1, 1]), None),
    ("groups", [f(1, 4, 3, 4), f(4, 2, 3, 3), f(4)],
     dict(group=2, strides=[2, 2], pads=[1, 1, 1, 1]), None),
    ("output_shape", [f(1, 2, 3, 3), f(2, 3, 3, 3), None],
     dict(strides=[2, 2], output_shape=[6, 7]), None),
    ("output_shape_longer", [f(1, 1, 3), f(1, 1, 2), None], dict(strides=[3], output_shape=[10]), None),
    ("output_shape_same_upper", [f(1, 2, 3, 4), f(2, 3, 3, 3), None],
     dict(strides=[2, 2], output_shape=[5, 6], auto_pad="SAME_UPPER"), None),
    ("same_upper", [f(1, 2, 3, 4), f(2, 3, 3, 3), None], dict(strides=[2, 2], auto_pad="SAME_UPPER"), None),
    ("same_lower", [f(1, 2, 3, 4), f(2, 3, 4, 3), None], dict(strides=[2, 3], auto_pad="SAME_LOWER"), None),
    ("pads_beyond_kernel", [f(1, 2, 5), f(2, 3, 2), None], dict(pads=[3, 2]), None),
    ("1d_symbolic", [f(2, 3, 7), f(3, 2, 3), f(2)],
     dict(strides=[2], pads=[1, 0], output_padding=[1]), {0: [0, 2]}),
    ("3d", [f(1, 2, 3, 3, 2), f(2, 2, 2, 3, 2), f(2)],
     dict(strides=[2, 1, 2], pads=[0, 1, 0, 1, 0, 0]), None),
    ("symbolic_spatial", [f(2, 3, 5, 6), f(3, 2, 3, 3), f(2)],
     dict(strides=[2, 2], pads=[2, 0, 1, 3]), {0: [0, 2, 3]}),
    # Kernel = strides (upsampling heads): a 1x1 Conv and DepthToSpace on
    # the cpu (transforms/DecomposeConvTranspose.cpp); with open image
    # sizes, a bias, more channels than the block, and k = 3.
    ("kernel_is_stride_2", [f(1, 24, 6, 10), f(24, 24, 2, 2), f(24)],
     dict(strides=[2, 2], kernel_shape=[2, 2]), {0: [0, 2, 3]}),
    ("kernel_is_stride_3_no_bias", [f(2, 5, 4, 3), f(5, 7, 3, 3), None],
     dict(strides=[3, 3]), None),
    ("kernel_is_stride_one_output", [f(1, 16, 5, 7), f(16, 1, 2, 2), f(1)],
     dict(strides=[2, 2], pads=[0, 0, 0, 0], dilations=[1, 1]), {0: [2, 3]}),
]


@pytest.mark.parametrize("inputs,attrs,dynamic", [c[1:] for c in CONV_TRANSPOSE],
                         ids=[c[0] for c in CONV_TRANSPOSE])
def test_conv_transpose(inputs, attrs, dynamic):
    constant = [k for k in (1, 2) if inputs[k] is not None]
    check_node("ConvTranspose", inputs, attrs, dynamic=dynamic, constants=constant)


# QLinearConv with a constant W takes the int8 GEMM (runtime/cpu/
# QLinearConv.c): windows gathered per pixel block, W packed per group,
# requantized per channel. Compared with the ONNX reference, exactly.
def q(*shape, dtype=np.uint8):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, int(info.max) + 1, shape).astype(dtype)


def qconv_inputs(x_shape, w_shape, x_dtype=np.uint8, w_dtype=np.int8,
                 y_dtype=np.uint8, per_channel=True, bias=True):
    m = w_shape[0]
    channels = m if per_channel else 1
    w_zero = (np.zeros(channels, w_dtype) if w_dtype == np.int8
              else q(channels, dtype=w_dtype))
    return [q(*x_shape, dtype=x_dtype), np.array(0.02, np.float32),
            q(dtype=x_dtype), q(*w_shape, dtype=w_dtype),
            (RNG.uniform(0.002, 0.01, channels).astype(np.float32)
             if per_channel else np.array(0.005, np.float32)),
            w_zero if per_channel else w_zero.reshape(()),
            np.array(0.5, np.float32), q(dtype=y_dtype),
            RNG.integers(-2000, 2000, m).astype(np.int32) if bias else None]


QLINEAR_CONV = [
    ("3x3_pad_bias_per_channel", qconv_inputs((1, 5, 9, 11), (7, 5, 3, 3)),
     dict(pads=[1, 1, 1, 1]), None),
    ("stride_dilation_s8", qconv_inputs((2, 4, 13, 12), (6, 4, 3, 3),
                                        x_dtype=np.int8, w_dtype=np.uint8,
                                        y_dtype=np.int8, per_channel=False,
                                        bias=False),
     dict(strides=[2, 2], dilations=[2, 2], pads=[2, 1, 0, 2]), None),
    ("grouped", qconv_inputs((1, 8, 10, 10), (12, 4, 3, 3)),
     dict(group=2, pads=[1, 1, 1, 1]), None),
    ("depthwise", qconv_inputs((1, 6, 8, 9), (6, 1, 3, 3)),
     dict(group=6, strides=[2, 1], pads=[1, 1, 1, 1]), None),
    ("depthwise_s8_dilated", qconv_inputs((2, 4, 11, 10), (4, 1, 3, 3),
                                          x_dtype=np.int8, w_dtype=np.uint8,
                                          y_dtype=np.int8),
     dict(group=4, dilations=[2, 2], pads=[2, 2, 2, 2], strides=[1, 2]), None),
    ("pointwise_dynamic_batch", qconv_inputs((3, 16, 7, 5), (24, 16, 1, 1)),
     {}, {0: [0]}),
    ("wide_3x1_same_upper", qconv_inputs((1, 3, 40, 30), (33, 3, 3, 1)),
     dict(auto_pad="SAME_UPPER"), None),
]


@pytest.mark.parametrize("inputs,attrs,dynamic", [c[1:] for c in QLINEAR_CONV],
                         ids=[c[0] for c in QLINEAR_CONV])
def test_qlinear_conv_int8_gemm(inputs, attrs, dynamic):
    """Against ONNX Runtime's bytes, exactly, where it has the kernel; else
    (s8 X with u8 W) against the ONNX reference, which multiplies the sums
    in f64 where onnxc and ONNX Runtime use f32: one step apart where the
    f32 product rounds across a half, on a few outputs at most
    (docs/internals.md, "Requantization is ONNX Runtime's")."""
    import tempfile
    from onnx.reference import ReferenceEvaluator
    from node_cases import node_model
    from onnxc_runner import Artifact, compile_model, run_ort

    constants = [i for i in range(len(inputs)) if i != 0 and inputs[i] is not None]
    model, feeds = node_model("QLinearConv", inputs, attrs, dynamic=dynamic,
                              constants=constants)
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp)).run(feeds)[0]
    try:
        want = run_ort(model, feeds)[0]
    except Exception as e:  # ONNX Runtime's NotImplemented for the types
        if "NOT_IMPLEMENTED" not in str(e) and "NotImplemented" not in repr(e):
            raise
        want = ReferenceEvaluator(model).run(None, feeds)[0]
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        assert diff.max() <= 1 and (diff != 0).mean() <= 0.01, \
            f"{int((diff != 0).sum())} of {diff.size} bytes differ, by up to {diff.max()}"
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want), \
        f"{int((got != want).sum())} of {want.size} bytes differ from ONNX Runtime"


# ConvInteger (what ONNX Runtime's quantize_dynamic writes for Conv) with a
# constant W takes the same path with int32 sums out; 1-D convolutions (an
# audio encoder's) run as 2-D ones of unit height.
CONV_INTEGER = [  # inputs: x, w, x_zero_point, w_zero_point
    ("2d_zero_points", [q(1, 4, 9, 8), q(6, 4, 3, 3, dtype=np.int8),
                        q(dtype=np.uint8), q(6, dtype=np.int8)],
     dict(pads=[1, 1, 1, 1])),
    ("2d_no_zero_points_grouped", [q(2, 6, 7, 7, dtype=np.int8),
                                   q(6, 3, 3, 3, dtype=np.uint8)],
     dict(group=2, strides=[2, 2])),
    ("1d_audio_stride_2", [q(1, 8, 40), q(12, 8, 3, dtype=np.int8),
                           q(dtype=np.uint8)],
     dict(pads=[1, 1], strides=[2])),
    ("1d_depthwise", [q(2, 5, 17, dtype=np.int8), q(5, 1, 3, dtype=np.int8),
                      q(dtype=np.int8), q(5, dtype=np.int8)],
     dict(group=5, dilations=[2], pads=[2, 2])),
]


def integer_conv(x, x_zero, w, w_zero, attrs):
    """sum (x - x_zero)(w - w_zero) over each window, exactly: the ONNX
    reference's float64 Conv on the zero-point-corrected integers (the
    reference's ConvInteger and QLinearConv take neither per-channel zero
    points nor 1-D per-channel scales)."""
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
    xs = x.astype(np.float64) - (0 if x_zero is None else float(x_zero))
    wz = 0 if w_zero is None else w_zero.astype(np.float64).reshape(
        (-1,) + (1,) * (w.ndim - 1))
    ws = w.astype(np.float64) - wz
    node = helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, None),
                         helper.make_tensor_value_info("w", TensorProto.DOUBLE, None)],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return ReferenceEvaluator(model).run(None, {"x": xs, "w": ws})[0]


@pytest.mark.parametrize("inputs,attrs", [c[1:] for c in CONV_INTEGER],
                         ids=[c[0] for c in CONV_INTEGER])
def test_conv_integer_int8_gemm(inputs, attrs):
    x, w, x_zero, w_zero = (list(inputs) + [None, None])[:4]
    expected = integer_conv(x, x_zero, w, w_zero, attrs).astype(np.int32)
    constants = [i for i in range(1, len(inputs))]
    check_node("ConvInteger", inputs, attrs, expected=[expected],
               constants=constants, out_dtypes=[np.int32])


def test_qlinear_conv_1d():
    inputs = qconv_inputs((2, 6, 30), (9, 6, 5))
    x, xs, xz, w, ws, wz, ys, yz, bias = inputs
    attrs = dict(pads=[2, 2], strides=[3])
    acc = integer_conv(x, xz, w, wz, attrs) + bias.reshape(1, -1, 1)
    multiplier = (np.float32(xs) * ws.astype(np.float32)) / np.float32(ys)
    y = np.rint(acc * multiplier.astype(np.float64).reshape(1, -1, 1)) + float(yz)
    expected = np.clip(y, 0, 255).astype(np.uint8)
    constants = [i for i in range(1, len(inputs)) if inputs[i] is not None]
    check_node("QLinearConv", inputs, attrs, expected=[expected],
               constants=constants)


def test_conv1d_with_residual_and_relu_fused():
    """A 1-D Conv + residual Add + Relu fuses to one FusedConv with Z, which
    the cpu runs as a 2-D one over a unit dim (Z unsqueezed too), over an
    open length."""
    import tempfile
    from onnx import TensorProto, helper, numpy_helper
    from onnxc_runner import Artifact, compile_model, run_ort

    w, b = f(6, 4, 3), f(6)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1]),
             helper.make_node("Add", ["c", "r"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"])]
    graph = helper.make_graph(
        nodes, "conv1d_residual",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "L"]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 6, "L"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        for length in (5, 17):
            feeds = {"x": f(1, 4, length), "r": f(1, 6, length)}
            got = artifact.run(feeds)[0]
            want = run_ort(model, feeds)[0]
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
