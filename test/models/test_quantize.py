"""onnxc.quantize_dynamic (python/onnxc/quantization.py): a float model
quantized by onnxc runs in ONNX Runtime and in onnxc, and the two agree with
each other and, within the quantization's error, with the float model. Also
its structure (one DynamicQuantizeLinear per quantized activation, shared by
the products that read it) and its refusals."""
import os
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import onnxc  # noqa: E402

from onnxc_runner import Artifact, compile_model, max_relative_error, run_ort  # noqa: E402

RNG = np.random.default_rng(31)


def encoder_block():
    """Three projections of one activation (Q, K, V: one shared
    DynamicQuantizeLinear), a PyTorch Linear as Gemm(transB=1) with a bias,
    and a MatMul + Add on 3-D activations."""
    rng = np.random.default_rng(8)  # the same weights whatever ran before
    f = lambda *s: (rng.standard_normal(s) * 0.2).astype(np.float32)  # noqa: E731
    inits = [numpy_helper.from_array(f(16, 16), n) for n in ("wq", "wk", "wv")]
    inits += [numpy_helper.from_array(f(24, 48), "w1"),
              numpy_helper.from_array(f(24), "b1"),
              numpy_helper.from_array(f(24, 10), "w2"),
              numpy_helper.from_array(f(10), "b2")]
    node = helper.make_node
    nodes = [node("MatMul", ["x", "wq"], ["q"]),
             node("MatMul", ["x", "wk"], ["k"]),
             node("MatMul", ["x", "wv"], ["v"]),
             node("Concat", ["q", "k", "v"], ["qkv"], axis=-1),
             node("Reshape", ["qkv", "shape"], ["flat"]),
             node("Gemm", ["flat", "w1", "b1"], ["h"], transB=1),
             node("Relu", ["h"], ["r"]),
             node("MatMul", ["r", "w2"], ["o"]),
             node("Add", ["o", "b2"], ["y"])]
    inits.append(numpy_helper.from_array(np.array([-1, 48], np.int64), "shape"))
    graph = helper.make_graph(
        nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [10, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("weight_type,per_channel",
                         [("s8", False), ("s8", True), ("u8", False)])
def test_round_trip_through_both_engines(weight_type, per_channel):
    model = encoder_block()
    feeds = {"x": RNG.standard_normal((2, 5, 16)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "int8.onnx")
        onnx.save(model, src)
        assert onnxc.quantize_dynamic(src, dst, weight_type=weight_type,
                                      per_channel=per_channel) == 5
        quantized = onnx.load(dst)
        onnx.checker.check_model(quantized)
        ops = [n.op_type for n in quantized.graph.node]
        assert ops.count("MatMulInteger") == 5
        # x feeds three products through one quantization; h and r one each.
        assert ops.count("DynamicQuantizeLinear") == 3
        assert "MatMul" not in ops and "Gemm" not in ops
        want = run_ort(quantized, feeds)[0]
        got = Artifact(compile_model(quantized, tmp, name="int8")).run(feeds)[0]
    reference = run_ort(model, feeds)[0]
    # The two engines on the same quantized file: a value on a rounding
    # boundary of a DynamicQuantizeLinear may take the other step.
    assert max_relative_error(got, want) < 0.02
    # Both within the quantization's own error of the float model.
    assert max_relative_error(want, reference) < 0.05
    assert max_relative_error(got, reference) < 0.05


def test_refuses_a_quantized_model():
    model = encoder_block()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "int8.onnx")
        onnx.save(model, src)
        onnxc.quantize_dynamic(src, dst)
        with pytest.raises(onnxc.QuantizationError, match="already quantized"):
            onnxc.quantize_dynamic(dst, os.path.join(tmp, "again.onnx"))
        with pytest.raises(onnxc.QuantizationError, match="weight_type"):
            onnxc.quantize_dynamic(src, dst, weight_type="int4")


def test_excluded_nodes_stay_float():
    model = encoder_block()
    model.graph.node[0].name = "keep_me"
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "int8.onnx")
        onnx.save(model, src)
        assert onnxc.quantize_dynamic(src, dst, nodes_to_exclude=["keep_me"]) == 4
        ops = [n.op_type for n in onnx.load(dst).graph.node]
        assert ops.count("MatMul") == 1 and ops.count("MatMulInteger") == 4


def small_cnn():
    """Conv (bias) -> Relu -> Conv (bias, stride 2) -> Flatten -> Gemm
    (transB, bias): a classifier."""
    rng = np.random.default_rng(9)  # the same weights whatever ran before
    f = lambda *s: (rng.standard_normal(s) * 0.3).astype(np.float32)  # noqa: E731
    inits = [numpy_helper.from_array(f(8, 3, 3, 3), "w1"),
             numpy_helper.from_array(f(8) * 0.1, "b1"),
             numpy_helper.from_array(f(6, 8, 3, 3), "w2"),
             numpy_helper.from_array(f(6) * 0.1, "b2"),
             numpy_helper.from_array(f(5, 6 * 5 * 5), "w3"),
             numpy_helper.from_array(f(5) * 0.1, "b3")]
    node = helper.make_node
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             node("Relu", ["c1"], ["r1"]),
             node("Conv", ["r1", "w2", "b2"], ["c2"], strides=[2, 2],
                  pads=[1, 1, 1, 1]),
             node("Flatten", ["c2"], ["f"]),
             node("Gemm", ["f", "w3", "b3"], ["y"], transB=1)]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


class Reader:
    """ONNX Runtime's CalibrationDataReader protocol."""

    def __init__(self, batches):
        self.batches = iter(batches)

    def get_next(self):
        return next(self.batches, None)


def test_static_round_trip_through_both_engines():
    model = small_cnn()
    # Its own generator, so that the draws do not depend on which tests ran
    # before; the checked feed is among the calibration feeds, so that no
    # value falls outside the calibrated ranges (those saturate by design).
    rng = np.random.default_rng(5)
    calibration = [{"x": rng.standard_normal((2, 3, 10, 10)).astype(np.float32)}
                   for _ in range(4)]
    feeds = calibration[-1]
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "qdq.onnx")
        onnx.save(model, src)
        assert onnxc.quantize_static(src, dst, Reader(calibration),
                                     session_options={"cache_dir": tmp}) == 3
        quantized = onnx.load(dst)
        onnx.checker.check_model(quantized)
        ops = [n.op_type for n in quantized.graph.node]
        # x, the three outputs, and the Gemm's input (made by Flatten). The
        # first conv's Relu folds into its output's range.
        assert ops.count("QuantizeLinear") == 5
        assert "Relu" not in ops
        # ONNX Runtime runs the QDQ graph as written (as test_qdq.py does);
        # onnxc fuses the convolutions into QLinearConv.
        want = run_ort(quantized, feeds, optimize=False)[0]
        got = Artifact(compile_model(quantized, tmp, name="qdq")).run(feeds)[0]
        step = next(float(numpy_helper.to_array(t)) for t in quantized.graph.initializer
                    if t.name.startswith("y_float_scale"))
    reference = run_ort(model, feeds)[0]
    assert np.max(np.abs(got - want)) <= 2 * step * 1.001
    assert max_relative_error(want, reference) < 0.1
    assert max_relative_error(got, reference) < 0.1


def test_static_refusals():
    model = small_cnn()
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "qdq.onnx")
        onnx.save(model, src)
        with pytest.raises(onnxc.QuantizationError, match="calibration data"):
            onnxc.quantize_static(src, dst, Reader([]))
        wrong = [{"image": np.zeros((2, 3, 10, 10), np.float32)}]
        with pytest.raises(onnxc.QuantizationError, match="inputs"):
            onnxc.quantize_static(src, dst, wrong, session_options={"cache_dir": tmp})
        with pytest.raises(onnxc.QuantizationError, match="minmax"):
            onnxc.quantize_static(src, dst, Reader([]), calibrate_method="entropy")


def test_cli_quantize_dynamic_and_static():
    """`onnxc quantize` (forwarded to the Python quantizer): both modes
    write a model ONNX Runtime runs; bad input is one line and exit 1."""
    from onnxc_runner import onnxc_binary
    import subprocess

    def cli(*args):
        return subprocess.run([onnxc_binary(), "quantize", *args],
                              capture_output=True, text=True)

    with tempfile.TemporaryDirectory() as tmp:
        block, cnn = os.path.join(tmp, "block.onnx"), os.path.join(tmp, "cnn.onnx")
        onnx.save(encoder_block(), block)
        onnx.save(small_cnn(), cnn)
        dynamic = os.path.join(tmp, "block.int8.onnx")
        proc = cli(block, "-o", dynamic, "--mode", "dynamic")
        assert proc.returncode == 0, proc.stderr
        feeds = {"x": RNG.standard_normal((2, 5, 16)).astype(np.float32)}
        assert run_ort(onnx.load(dynamic), feeds)[0].shape == (10, 10)

        data = os.path.join(tmp, "calibration")
        os.makedirs(data)
        for i in range(3):
            np.save(os.path.join(data, f"{i}.npy"),
                    RNG.standard_normal((2, 3, 10, 10)).astype(np.float32))
        static = os.path.join(tmp, "cnn.qdq.onnx")
        proc = cli(cnn, "-o", static, "--mode", "static", "--per-channel",
                   "--calibration-data", data)
        assert proc.returncode == 0, proc.stderr
        ops = [n.op_type for n in onnx.load(static).graph.node]
        assert "QuantizeLinear" in ops

        for args, message in [
                ((cnn, "-o", static, "--mode", "static"), "needs --calibration-data"),
                ((dynamic, "-o", static), "already quantized"),
                ((os.path.join(tmp, "missing.onnx"), "-o", static), "no such file")]:
            proc = cli(*args)
            assert proc.returncode == 1, (args, proc.stdout)
            assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, \
                proc.stderr
