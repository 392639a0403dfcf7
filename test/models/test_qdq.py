"""QDQ models (onnxruntime.quantization.quantize_static, QDQ format) through
the graph optimizer: at -O2 the DequantizeLinear -> Conv/MatMul ->
QuantizeLinear groups become QLinearConv / QLinearMatMul
(passes/fusion/FuseQdq.cpp), and the outputs equal ONNX Runtime's on the
QDQ model within one quantization step of the output. ONNX Runtime runs the
QDQ graph as written (graph optimizations off): its own fused u8 x s8
kernels are not exact on x86 CPUs without VNNI, where vpmaddubsw saturates
the int16 sum of two products (measured on an AMD EPYC, Zen 3: 0.19 to 1.07
off, 4 to 66 steps), so they cannot be the reference. Float models are
built with the onnx helpers and calibrated on random data."""
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import (Artifact, assert_int8_matches, compile_model,
                          int8_expected, onnxc_binary, run_ort)

quantization = pytest.importorskip("onnxruntime.quantization")

RNG = np.random.default_rng(11)


class RandomReader(quantization.CalibrationDataReader):
    """A few batches of random inputs for calibration."""

    def __init__(self, shapes, count=4):
        self.batches = iter([
            {name: RNG.standard_normal(shape).astype(np.float32)
             for name, shape in shapes.items()} for _ in range(count)])

    def get_next(self):
        return next(self.batches, None)


def conv_model():
    """Conv -> Relu -> Conv (bias) -> Flatten -> MatMul + Add, as a small
    CNN classifier."""
    node = helper.make_node
    inits = [
        numpy_helper.from_array(RNG.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3, "w1"),
        numpy_helper.from_array(RNG.standard_normal(4).astype(np.float32) * 0.1, "b1"),
        numpy_helper.from_array(RNG.standard_normal((6, 4, 3, 3)).astype(np.float32) * 0.3, "w2"),
        numpy_helper.from_array(RNG.standard_normal(6).astype(np.float32) * 0.1, "b2"),
        numpy_helper.from_array(RNG.standard_normal((6 * 4 * 4, 5)).astype(np.float32) * 0.2, "w3"),
    ]
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             node("Relu", ["c1"], ["r1"]),
             node("Conv", ["r1", "w2", "b2"], ["c2"], strides=[2, 2], pads=[1, 1, 1, 1]),
             node("Flatten", ["c2"], ["f"]),
             node("MatMul", ["f", "w3"], ["y"])]
    graph = helper.make_graph(
        nodes, "qdq_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, {"x": [2, 3, 8, 8]}


def mlp_model():
    """MatMul -> MatMul on 3-D activations (a transformer's projections)."""
    node = helper.make_node
    inits = [
        numpy_helper.from_array(RNG.standard_normal((8, 16)).astype(np.float32) * 0.3, "w1"),
        numpy_helper.from_array(RNG.standard_normal((16, 4)).astype(np.float32) * 0.3, "w2"),
    ]
    nodes = [node("MatMul", ["x", "w1"], ["h"]),
             node("MatMul", ["h", "w2"], ["y"])]
    graph = helper.make_graph(
        nodes, "qdq_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, {"x": [2, 3, 8]}


def quantize(model, shapes, tmp, per_channel):
    src = os.path.join(tmp, "float.onnx")
    dst = os.path.join(tmp, "qdq.onnx")
    onnx.save(model, src)
    quantization.quantize_static(
        src, dst, RandomReader(shapes),
        quant_format=quantization.QuantFormat.QDQ, per_channel=per_channel,
        activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8)
    return onnx.load(dst)


def output_scale(model):
    """The scale of the DequantizeLinear that produces the graph output."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = model.graph.output[0].name
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == out:
            return float(inits[n.input[1]])
    raise AssertionError("the output is not dequantized")


def optimized_ops(path, level):
    proc = subprocess.run([onnxc_binary(), "compile", path, "--emit", "mlir",
                           "-o", "-", f"-O{level}"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return re.findall(r'"(onnxc?\.\w+)"', proc.stdout)


CASES = [("cnn", conv_model, False), ("cnn_per_channel", conv_model, True),
         ("mlp", mlp_model, False), ("mlp_per_channel", mlp_model, True)]


@pytest.mark.parametrize("name,build,per_channel", CASES,
                         ids=[c[0] for c in CASES])
def test_qdq_to_quantized_ops(name, build, per_channel):
    model, shapes = build()
    with tempfile.TemporaryDirectory() as tmp:
        qdq = quantize(model, shapes, tmp, per_channel)
        feeds = {k: RNG.standard_normal(s).astype(np.float32)
                 for k, s in shapes.items()}
        want = run_ort(qdq, feeds, optimize=False)[0]
        step = output_scale(qdq)
        path = os.path.join(tmp, "qdq.onnx")
        ops0 = optimized_ops(path, 0)
        ops2 = optimized_ops(path, 2)
        n_conv = sum(n.op_type == "Conv" for n in qdq.graph.node)
        n_matmul = sum(n.op_type == "MatMul" for n in qdq.graph.node)
        # Every quantized Conv / MatMul became its QLinear form at -O2 (a
        # convolution in an NHWC chain is the blocked one).
        assert (ops2.count("onnx.QLinearConv") +
                ops2.count("onnxc.BlockedQLinearConv")) == n_conv, ops2
        assert ops2.count("onnx.QLinearMatMul") == n_matmul, ops2
        assert "onnx.Conv" not in ops2 and "onnx.MatMul" not in ops2
        assert "onnx.QLinearConv" not in ops0
        for level in (0, 2):
            got = Artifact(compile_model(qdq, tmp, name=f"o{level}",
                                         args=[f"-O{level}"])).run(feeds)[0]
            assert got.shape == want.shape and got.dtype == want.dtype
            err = np.max(np.abs(got.astype(np.float64) - want))
            # The fused integer arithmetic rounds once where the QDQ graph
            # rounds a float intermediate: at most one step apart.
            assert err <= step * 1.001, \
                f"{name} -O{level}: max error {err:.3g} > one step {step:.3g}"
            print(f"{name} -O{level}: max error {err / step:.2f} steps; "
                  f"-O2 has {ops2.count('onnx.QLinearConv')} QLinearConv, "
                  f"{ops2.count('onnx.QLinearMatMul')} QLinearMatMul")


def test_qdq_optimize_round_trip():
    """`onnxc optimize` writes the QLinear ops as standard ONNX nodes; onnxc
    compiles the optimized model again to the QDQ model's outputs. (ONNX
    Runtime 1.32 cannot load it: the exporter stamps the newest opset, whose
    QuantizeLinear it lacks.)"""
    model, shapes = conv_model()
    feeds = {"x": RNG.standard_normal(shapes["x"]).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        qdq = quantize(model, shapes, tmp, per_channel=True)
        src = os.path.join(tmp, "qdq.onnx")
        dst = os.path.join(tmp, "optimized.onnx")
        proc = subprocess.run([onnxc_binary(), "optimize", src, "-o", dst],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        optimized = onnx.load(dst)
        onnx.checker.check_model(optimized)
        ops = [n.op_type for n in optimized.graph.node]
        assert ops.count("QLinearConv") == 2 and ops.count("QLinearMatMul") == 1
        assert "Conv" not in ops and "MatMul" not in ops
        got = Artifact(compile_model(optimized, tmp, name="again")).run(feeds)[0]
    want = run_ort(qdq, feeds, optimize=False)[0]
    err = np.max(np.abs(got.astype(np.float64) - want))
    assert err <= output_scale(qdq) * 1.001


def fully_convolutional_model():
    """Conv -> Relu -> MaxPool -> depthwise Conv -> 1x1 Conv + residual Add
    -> Relu, over images whose height and width are left open, as a
    detector's backbone is exported."""
    node = helper.make_node
    def weights(name, shape, scale):
        return numpy_helper.from_array(
            (RNG.standard_normal(shape) * scale).astype(np.float32), name)
    inits = [weights("w1", (8, 3, 3, 3), 0.3), weights("b1", (8,), 0.1),
             weights("w2", (8, 1, 3, 3), 0.3), weights("b2", (8,), 0.1),
             weights("w3", (8, 8, 1, 1), 0.3), weights("b3", (8,), 0.1)]
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             node("Relu", ["c1"], ["r1"]),
             node("MaxPool", ["r1"], ["p"], kernel_shape=[2, 2],
                  strides=[2, 2]),
             node("Conv", ["p", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1],
                  group=8),
             node("Conv", ["c2", "w3", "b3"], ["c3"]),
             node("Add", ["c3", "p"], ["a"]),
             node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(
        nodes, "qdq_fcn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, 8, None, None])], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def compile_with_stats(path, artifact):
    """`onnxc compile` with default options; returns its pass statistics."""
    proc = subprocess.run([onnxc_binary(), "compile", path, "-o", artifact,
                           "--print-pass-stats"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def assert_within_one_step(qdq, artifact, sizes):
    """The artifact's output at each (h, w) is within one output step of
    ONNX Runtime's on the QDQ model as written."""
    step = output_scale(qdq)
    for h, w in sizes:
        feeds = {"x": RNG.standard_normal((1, 3, h, w)).astype(np.float32)}
        want = run_ort(qdq, feeds, optimize=False)[0]
        got = Artifact(artifact).run(feeds)[0]
        assert got.shape == want.shape, (h, w)
        err = np.max(np.abs(got.astype(np.float64) - want))
        assert err <= step * 1.001, \
            f"{h}x{w}: max error {err:.3g} > one step {step:.3g}"


def test_qdq_chain_runs_channels_last_with_open_image_sizes():
    """The int8 convolutions of a chain run NHWC (the cpu target's
    onnxc-quantized-channels-last), compiled with default options and no
    --shape; every image size agrees with ONNX Runtime within one output
    step."""
    model = fully_convolutional_model()
    with tempfile.TemporaryDirectory() as tmp:
        qdq = quantize(model, {"x": [1, 3, 16, 20]}, tmp, per_channel=True)
        path = os.path.join(tmp, "qdq.onnx")
        artifact = os.path.join(tmp, "fcn.so")
        stats = compile_with_stats(path, artifact)
        regions = re.search(r"onnxc-quantized-channels-last: \d+ "
                            r"skipped-regions (\d+) channels-last-convs",
                            stats)
        assert regions and int(regions.group(1)) == 3, stats
        assert_within_one_step(qdq, artifact, [(16, 20), (9, 13), (32, 8)])


def test_float_bias_from_a_constant_node_is_quantized():
    """A Conv whose bias is a Constant node (Paddle's exports write them
    so) keeps a float bias in ONNX Runtime's QDQ file; FuseQdq quantizes it
    to int32 as ONNX Runtime's BiasQuantization does, so every convolution
    reaches the int8 kernel (it used to stay a float convolution over
    dequantized weights), and the output stays within one step of ONNX
    Runtime's."""
    model = fully_convolutional_model()
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    for name in ("b1", "b2", "b3"):
        graph.initializer.remove(inits[name])
        graph.node.insert(0, helper.make_node(
            "Constant", [], [name], value=inits[name]))
    with tempfile.TemporaryDirectory() as tmp:
        qdq = quantize(model, {"x": [1, 3, 16, 20]}, tmp, per_channel=True)
        path = os.path.join(tmp, "qdq.onnx")
        producers = {o: n.op_type for n in qdq.graph.node for o in n.output}
        biases = [producers.get(n.input[2]) for n in qdq.graph.node
                  if n.op_type == "Conv"]
        assert biases == ["Constant"] * 3, biases
        ops = optimized_ops(path, 2)
        assert "onnx.Conv" not in ops, ops
        # (channels-last regions write QLinearConv as its blocked form)
        assert ops.count("onnx.QLinearConv") + ops.count(
            "onnxc.BlockedQLinearConv") == 3, sorted(set(ops))
        artifact = os.path.join(tmp, "fcn.so")
        compile_with_stats(path, artifact)
        assert_within_one_step(qdq, artifact, [(12, 18)])


def test_qlinear_convs_with_and_without_bias_in_one_model():
    """Two QLinearConv nodes, the first with an int32 bias and the second
    without, share the kernel's one signature: the absent bias crosses as
    an int32 zero (it used to be X again, whose 8-bit type clashed with the
    other call's int32 one and failed to compile)."""
    def init(name, value):
        return numpy_helper.from_array(np.asarray(value), name)

    inits = [init("xs", np.float32(0.05)), init("xz", np.uint8(128)),
             init("ys", np.float32(0.1)), init("yz", np.uint8(60)),
             init("b", RNG.integers(-500, 500, 4).astype(np.int32))]
    for name in ("w1", "w2"):
        inits += [init(name, RNG.integers(-127, 128, (4, 4, 3, 3)).astype(
            np.int8)), init(name + "s", np.float32(0.01)),
            init(name + "z", np.int8(0))]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q"]),
        helper.make_node("QLinearConv", ["q", "xs", "xz", "w1", "w1s", "w1z",
                                         "ys", "yz", "b"], ["c1"],
                         pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", ["c1", "ys", "yz", "w2", "w2s", "w2z",
                                         "ys", "yz"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("DequantizeLinear", ["c2", "ys", "yz"], ["y"])]
    graph = helper.make_graph(
        nodes, "bias_and_none",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": RNG.standard_normal((1, 4, 6, 7)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp)).run(feeds)[0]
    want = run_ort(model, feeds)[0]
    assert np.unique(want).size > 10
    assert np.max(np.abs(got - want)) <= 0.1 * 1.001


@pytest.mark.parametrize("x_type,w_type,y_type", [
    (np.uint8, np.int8, np.uint8), (np.int8, np.int8, np.int8),
    (np.uint8, np.uint8, np.uint8)])
def test_requantized_bytes_equal_onnxruntime(x_type, w_type, y_type):
    """QLinearConv (per-channel W scales, a bias) and QLinearMatMul with
    constant weights (the int8 kernels: GEMM, depthwise rows, their AVX-512
    epilogues) and the same ops with their weights fed as inputs (the
    generated loops) give ONNX Runtime's bytes exactly: both requantize as
    MLAS does, in f32, where the ONNX reference's f64 product can round
    across a half the other way. Scales are drawn so that products land
    near halves."""
    def init(name, value):
        return numpy_helper.from_array(np.asarray(value), name)

    def ints(dtype, shape):
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max + 1, shape).astype(dtype)

    c, m, k = 24, 24, 40
    zero = {np.uint8: 128, np.int8: 0}
    inits = [
        init("xs", np.float32(0.0173)), init("xz", x_type(zero[x_type] - 3)),
        init("ws", RNG.uniform(0.004, 0.03, m).astype(np.float32)),
        init("wz", np.zeros(m, w_type)),
        init("ys", np.float32(0.0911)), init("yz", y_type(zero[y_type] + 5)),
        init("b", RNG.integers(-4000, 4000, m).astype(np.int32)),
        init("dw_s", RNG.uniform(0.004, 0.03, c).astype(np.float32)),
        init("dw_z", np.zeros(c, w_type)),
        init("mb_s", np.float32(0.0041)), init("mb_z", w_type(zero[w_type])),
    ]
    w, dw, mb = ints(w_type, (m, c, 3, 3)), ints(w_type, (c, 1, 3, 3)), \
        ints(w_type, (k, 8))
    conv_in = ["x", "xs", "xz", "W", "ws", "wz", "ys", "yz", "b"]
    dw_in = ["y1", "ys", "yz", "DW", "dw_s", "dw_z", "ys", "yz"]
    nodes = [
        helper.make_node("QLinearConv", conv_in, ["y1"], pads=[1, 1, 1, 1]),
        helper.make_node("QLinearConv", dw_in, ["y2"], pads=[1, 1, 1, 1],
                         group=c),
        helper.make_node("Reshape", ["y2", "rows"], ["flat"]),
        helper.make_node("QLinearMatMul", ["flat", "ys", "yz", "MB", "mb_s",
                                           "mb_z", "xs", "yz"], ["y3"]),
    ]
    inits.append(init("rows", np.array([-1, k], np.int64)))
    shape = [1, c, 6, 10]
    outputs = [helper.make_tensor_value_info(n, y_type_proto, None)
               for n, y_type_proto in
               (("y1", helper.np_dtype_to_tensor_dtype(np.dtype(y_type))),
                ("y2", helper.np_dtype_to_tensor_dtype(np.dtype(y_type))),
                ("y3", helper.np_dtype_to_tensor_dtype(np.dtype(y_type))))]
    x_proto = helper.np_dtype_to_tensor_dtype(np.dtype(x_type))
    weights = {"W": w, "DW": dw, "MB": mb}
    feeds = {"x": ints(x_type, shape)}
    for fed in (False, True):
        graph_inputs = [helper.make_tensor_value_info("x", x_proto, shape)]
        graph_inits = list(inits)
        for name, value in weights.items():
            if fed:
                graph_inputs.append(helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(value.dtype),
                    value.shape))
                feeds[name] = value
            else:
                graph_inits.append(init(name, value))
        model = helper.make_model(
            helper.make_graph(nodes, "requantize", graph_inputs, outputs,
                              graph_inits),
            opset_imports=[helper.make_opsetid("", 19)])
        model.ir_version = 9
        want, exact = int8_expected(model, feeds)
        with tempfile.TemporaryDirectory() as tmp:
            got = Artifact(compile_model(model, tmp)).run(feeds)
        for name, g, wv in zip(("y1", "y2", "y3"), got, want):
            assert np.unique(wv).size > 20, name  # not all saturated
            assert_int8_matches(
                g, wv, exact,
                f"{name} ({'fed' if fed else 'constant'} weights)")


def test_requantization_rounds_as_onnxruntime_at_halves():
    """Products that land within f32 rounding of a half: ONNX Runtime
    requantizes in f32 (MLAS), the ONNX reference in f64, and the two round
    some of these to neighbouring bytes. A [256, 1] x [1, 128] QLinearMatMul
    (every u8 of A against 128 s8 weights, one product per output) with
    scales searched until the two formulas disagree on some outputs; onnxc
    must give ONNX Runtime's bytes there, with B constant (the int8 GEMM)
    and fed as an input (the generated loop)."""
    a = np.arange(256, dtype=np.uint8).reshape(256, 1)
    b = np.concatenate([np.arange(-64, 0), np.arange(1, 65)]).astype(
        np.int8).reshape(1, 128)
    acc = (a.astype(np.int64) - 128) * b.astype(np.int64)
    search = np.random.default_rng(5)
    for _ in range(3000):
        a_s, b_s, y_s = (np.float32(v) for v in search.uniform(0.001, 0.05, 3))
        m = np.float32(np.float32(a_s * b_s) / y_s)
        f32 = np.rint(acc.astype(np.float32) * m)
        f64 = np.rint(acc.astype(np.float64) * np.float64(m))
        inside = np.abs(f32) < 120  # not saturated either way
        if ((f32 != f64) & inside).any():
            break
    else:
        pytest.fail("no scales found whose f32 and f64 products round apart")
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in (
        ("as", a_s), ("az", np.uint8(128)), ("bs", b_s), ("bz", np.int8(0)),
        ("ys", y_s), ("yz", np.uint8(128)))]
    node = helper.make_node("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz",
                                              "ys", "yz"], ["Y"])
    for fed in (False, True):
        inputs = [helper.make_tensor_value_info("A", TensorProto.UINT8,
                                                [256, 1])]
        graph_inits = list(inits)
        feeds = {"A": a}
        if fed:
            inputs.append(helper.make_tensor_value_info("B", TensorProto.INT8,
                                                        [1, 128]))
            feeds["B"] = b
        else:
            graph_inits.append(numpy_helper.from_array(b, "B"))
        model = helper.make_model(
            helper.make_graph([node], "halves", inputs,
                              [helper.make_tensor_value_info(
                                  "Y", TensorProto.UINT8, None)], graph_inits),
            opset_imports=[helper.make_opsetid("", 19)])
        want = run_ort(model, feeds)[0]
        assert np.array_equal(want.astype(np.int64) - 128,
                              np.clip(f32, -128, 127)), "ORT is not f32"
        with tempfile.TemporaryDirectory() as tmp:
            got = Artifact(compile_model(model, tmp)).run(feeds)[0]
        assert np.array_equal(got, want), (
            f"{'fed' if fed else 'constant'} B: "
            f"{int((got != want).sum())} bytes differ from ONNX Runtime")


@pytest.mark.parametrize("q_type,params,per_axis", [
    (TensorProto.UINT8, ((0.05, 128), (0.05, 128)), False),
    (TensorProto.INT8, ((0.037, -3), (0.02, 5)), False),
    (TensorProto.UINT16, ((0.001, 30000), (0.002, 1000)), False),
    (TensorProto.INT16, ((0.0007, 0), (0.0007, 0)), False),
    (TensorProto.UINT8, ((0.05, 100), (0.05, 100)), True)],
    ids=["u8", "s8_other_params", "u16", "s16", "u8_per_axis"])
def test_fake_quantization_equals_the_reference(q_type, params, per_axis):
    """DequantizeLinear(QuantizeLinear(x)) between float ops, the fake
    quantization QDQ files write around every op they leave float, runs as
    one f32 loop without the integer conversions (the cpu target's
    QuantizeRoundTripLowering); it must give the reference's values exactly,
    at halves (which round to even), beyond the range (which saturates) and
    with the second op's scale and zero point differing from the first's."""
    from onnx.reference import ReferenceEvaluator

    np_type = helper.tensor_dtype_to_np_dtype(q_type).type
    (s1, z1), (s2, z2) = params
    channels = 3
    if per_axis:
        scale1 = np.array([s1, 2 * s1, 0.5 * s1], np.float32)
        zero1 = np.array([z1, z1 + 7, z1 - 9], np_type)
    else:
        scale1, zero1 = np.float32(s1), np_type(z1)
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in [
        ("s1", scale1), ("z1", zero1), ("s2", np.float32(s2)),
        ("z2", np_type(z2)), ("one", np.float32(1.0))]]
    q_attrs = {"axis": 1} if per_axis else {}
    nodes = [helper.make_node("Add", ["x", "one"], ["a"]),
             helper.make_node("QuantizeLinear", ["a", "s1", "z1"], ["q"],
                              **q_attrs),
             helper.make_node("DequantizeLinear", ["q", "s2", "z2"], ["d"]),
             helper.make_node("Mul", ["d", "one"], ["y"])]
    graph = helper.make_graph(
        nodes, "fake_quant",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [2, channels, 40])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    info = np.iinfo(np_type)
    step = np.broadcast_to(np.reshape(scale1, (1, -1, 1)) if per_axis else
                           scale1, (2, channels, 40)).astype(np.float32)
    # Halves of steps around the zero point, and far past both ends.
    k = RNG.integers(-300, 300, (2, channels, 40)).astype(np.float32) + 0.5
    x = k * step - 1
    # (Not beyond int32: the reference converts to int32 before it clips.)
    x[0, :, :2] = np.stack([(info.min - 3000.0) * step[0, :, 0],
                            (info.max + 3000.0) * step[0, :, 0]], axis=1)
    feeds = {"x": x.astype(np.float32)}
    want = ReferenceEvaluator(model).run(None, feeds)[0]
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp)).run(feeds)[0]
    assert np.unique(want).size > 50
    np.testing.assert_array_equal(got, want)


def test_data_movement_runs_on_the_quantized_tensor():
    """ONNX Runtime's quantizer gives a MaxPool's and a nearest Resize's
    output the scale and zero point of their input; onnxc then runs them on
    the 8-bit tensor (passes/fusion/DropQdqAroundDataMovement.cpp), which is
    exact, and the output stays within one step of ONNX Runtime's."""
    node = helper.make_node
    def weights(name, shape, scale):
        return numpy_helper.from_array(
            (RNG.standard_normal(shape) * scale).astype(np.float32), name)
    inits = [weights("w1", (8, 3, 3, 3), 0.3), weights("b1", (8,), 0.1),
             weights("w2", (4, 8, 3, 3), 0.3), weights("b2", (4,), 0.1),
             numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32),
                                     "scales")]
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             node("MaxPool", ["c1"], ["p"], kernel_shape=[3, 3],
                  strides=[2, 2], pads=[1, 1, 1, 1]),
             node("Resize", ["p", "", "scales"], ["r"], mode="nearest",
                  coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor"),
             node("Conv", ["r", "w2", "b2"], ["y"], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(
        nodes, "qdq_movement",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with tempfile.TemporaryDirectory() as tmp:
        qdq = quantize(model, {"x": [1, 3, 16, 20]}, tmp, per_channel=True)
        path = os.path.join(tmp, "qdq.onnx")
        artifact = os.path.join(tmp, "movement.so")
        stats = compile_with_stats(path, artifact)
        moved = re.search(r"onnxc-drop-qdq-around-data-movement: (\d+) ",
                          stats)
        assert moved and int(moved.group(1)) == 2, stats
        assert_within_one_step(qdq, artifact, [(16, 20), (9, 14)])
