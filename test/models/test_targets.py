"""Targets through the user's path: `onnxc compile --targets dnnl,cpu`,
--print-partitions, `onnxc info`, the Python session's providers, and the
artifact's needed libraries; every value compared with ONNX Runtime.

Skipped as a whole (with the reason) when this onnxc was built without the
dnnl target (no oneDNN 2.x at configure time)."""
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import (Artifact, RunError, compile_model,
                          max_relative_error, onnxc_binary, run_ort)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import onnxc  # noqa: E402

RNG = np.random.default_rng(7)
DNNL = ["--targets", "dnnl,cpu"]


def _built_targets():
    """The names `onnxc targets` lists, one target a line."""
    out = subprocess.run([onnxc_binary(), "targets"], capture_output=True,
                         text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()
            if line and not line.startswith(" ")]


pytestmark = pytest.mark.skipif(
    "dnnl" not in _built_targets(),
    reason="onnxc was built without the dnnl target")


def weight(name, shape, scale=0.3):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def cnn(batch="N"):
    """Conv+bias -> Relu -> MaxPool -> grouped Conv + residual -> Relu ->
    AveragePool -> Flatten -> Gemm -> Softmax: every dnnl family, and
    Add/Flatten between them for the cpu."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1], group=2, dilations=[1, 1]),
        helper.make_node("Add", ["c2", "p1"], ["s2"], name="residual"),
        helper.make_node("Relu", ["s2"], ["r2"], name="relu2"),
        helper.make_node("AveragePool", ["r2"], ["p2"], name="pool2",
                         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Flatten", ["p2"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["g"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["g"], ["y"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [batch, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])],
        [weight("w1", [8, 3, 3, 3]), weight("b1", [8]),
         weight("w2", [8, 4, 3, 3]), weight("wf", [10, 8 * 4 * 4]),
         weight("bf", [10])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def transformer_mlp():
    """Batched MatMuls with broadcasting, a bias, Gelu and LogSoftmax."""
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
        helper.make_node("Gelu", ["hb"], ["a"], name="gelu"),
        helper.make_node("MatMul", ["a", "w2"], ["o"], name="fc2"),
        helper.make_node("MatMul", ["o", "xt"], ["s"], name="scores"),
        helper.make_node("LogSoftmax", ["s"], ["y"], name="logsoftmax",
                         axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "T", 16]),
         helper.make_tensor_value_info("xt", TensorProto.FLOAT, [2, 16, "T"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [2, "T", "T"])],
        [weight("w1", [16, 32]), weight("b1", [32]), weight("w2", [32, 16])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def compile_cli(model, tmp, *args):
    path = os.path.join(tmp, "model.onnx")
    onnx.save(model, path)
    out = os.path.join(tmp, "model.so")
    proc = subprocess.run([onnxc_binary(), "compile", path, "-o", out, *args],
                          capture_output=True, text=True)
    return proc, out


def assert_close(artifact, model, feeds, rtol=1e-4):
    got = artifact.run(feeds)
    want = run_ort(model, feeds)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        err = max_relative_error(g, w)
        print(f"max relative error vs ONNX Runtime {err:.3g}")
        assert err <= rtol


def needed_libraries(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True).stdout
    return [line.split("[")[1].split("]")[0] for line in out.splitlines()
            if "(NEEDED)" in line]


def test_cnn_partitions_and_values():
    model = cnn()
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions",
                               "--partition-graph",
                               os.path.join(tmp, "g.dot"))
        assert proc.returncode == 0, proc.stderr
        report = proc.stdout
        print(report)
        assert "targets in priority order: dnnl, cpu" in report
        # conv1 (with its fused Relu) and pool1 on dnnl; the residual Add is
        # fused into conv2 (a FusedConv with Z), also dnnl.
        assert "dnnl:" in report and "cpu:" in report
        assert "FusedConv" in report
        assert "MaxPool 1" in report and "AveragePool 1" in report
        assert "dnnl refused 1 Flatten node" in report
        with open(os.path.join(tmp, "g.dot")) as f:
            assert f.read().startswith("digraph partitions {")
        artifact = Artifact(so)
        for n in (1, 3):
            assert_close(artifact, model, {
                "x": RNG.standard_normal((n, 3, 16, 16)).astype(np.float32)})
        assert any(lib.startswith("libdnnl.so") for lib in needed_libraries(so))

        info = subprocess.run([onnxc_binary(), "info", so],
                              capture_output=True, text=True, check=True).stdout
        assert "partitions:" in info and "targets: cpu, dnnl" in info


def test_cpu_only_artifact_needs_no_onednn():
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(cnn(), tmp)
        assert proc.returncode == 0, proc.stderr
        needed = needed_libraries(so)
        assert not any("dnnl" in lib for lib in needed), needed
        info = subprocess.run([onnxc_binary(), "info", so],
                              capture_output=True, text=True, check=True).stdout
        assert "targets: cpu\n" in info


def test_matmuls_with_symbolic_dims():
    model = transformer_mlp()
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        print(proc.stdout)
        assert "dnnl: 3 nodes (MatMul 2, FusedMatMul 1)" in proc.stdout
        assert "dnnl refused 1 LogSoftmax node" in proc.stdout
        artifact = Artifact(so)
        for t in (1, 5, 9):
            x = RNG.standard_normal((2, t, 16)).astype(np.float32)
            assert_close(artifact, model,
                         {"x": x, "xt": np.ascontiguousarray(
                             x.transpose(0, 2, 1))})


def test_runtime_shape_error_names_the_node():
    """Inner dims that only disagree at run time: the oneDNN glue refuses
    the call and the run fails naming the node, never reading out of
    bounds."""
    node = helper.make_node("MatMul", ["a", "b"], ["y"], name="mismatch")
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["M", "K"]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, ["L", "N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["M", "N"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        assert "dnnl: 1 node (MatMul 1)" in proc.stdout
        artifact = Artifact(so)
        ok = {"a": np.ones((2, 3), np.float32), "b": np.ones((3, 4), np.float32)}
        np.testing.assert_allclose(artifact.run(ok)[0], np.full((2, 4), 3.0))
        with pytest.raises(RunError, match="mismatch"):
            artifact.run({"a": np.ones((2, 3), np.float32),
                          "b": np.ones((5, 4), np.float32)})


def test_refusal_reason_and_cpu_fallback():
    """AveragePool with ceil_mode and count_include_pad: oneDNN would count
    the ceiling's padding, so dnnl refuses it and the cpu takes it."""
    node = helper.make_node("AveragePool", ["x"], ["y"], name="ceil_pool",
                            kernel_shape=[3, 3], strides=[2, 2],
                            ceil_mode=1, count_include_pad=1)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        assert "cpu: 1 node (AveragePool 1)" in proc.stdout
        assert "dnnl refused 1 AveragePool node: ceil_mode with " \
               "count_include_pad" in proc.stdout
        assert not any("dnnl" in lib for lib in needed_libraries(so))
        assert_close(Artifact(so), model,
                     {"x": RNG.standard_normal((1, 2, 8, 8)).astype(np.float32)})


def test_targets_command_lists_them():
    assert _built_targets()[0] == "cpu" and "dnnl" in _built_targets()


def test_unknown_target_is_one_clear_line():
    with tempfile.TemporaryDirectory() as tmp:
        proc, _ = compile_cli(cnn(), tmp, "--targets", "tpu,cpu")
        assert proc.returncode == 1
        assert proc.stderr.strip().splitlines() == [
            "onnxc: error: unknown target 'tpu' (this onnxc has: cpu, dnnl, cuda)"]


def test_python_providers():
    model = cnn()
    x = RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        session = onnxc.InferenceSession(
            model.SerializeToString(), cache_dir=tmp,
            providers=["DnnlExecutionProvider", "CPUExecutionProvider"])
        assert session.get_providers() == ["DnnlExecutionProvider",
                                           "CPUExecutionProvider"]
        assert any("dnnl" in lib
                   for lib in needed_libraries(session.artifact_path))
        got = session.run(None, {"x": x})[0]
        err = max_relative_error(got, run_ort(model, {"x": x})[0])
        assert err <= 1e-4
        with pytest.raises(ValueError, match="unknown provider"):
            onnxc.InferenceSession(model.SerializeToString(), cache_dir=tmp,
                                   providers=["TensorrtExecutionProvider"])


def test_concurrent_runs_share_primitives():
    """Primitives are cached per call site; runs on four threads at once
    (different batches, so different cache entries) must all agree."""
    model = cnn()
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp, args=DNNL))
        inputs = [RNG.standard_normal((1 + i % 3, 3, 16, 16)).astype(np.float32)
                  for i in range(12)]
        want = [run_ort(model, {"x": x})[0] for x in inputs]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda x: artifact.run({"x": x})[0], inputs))
        for g, w in zip(got, want):
            assert max_relative_error(g, w) <= 1e-4


def test_missing_onednn_is_a_load_error_naming_it():
    """A dnnl artifact where libdnnl.so.2 cannot be found: the artifact's
    needed-library entry renamed in place (same length) stands for a
    machine without oneDNN. `onnxc run` must fail to load it, naming the
    library, not crash."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(cnn(), tmp, *DNNL)
        assert proc.returncode == 0, proc.stderr
        with open(so, "rb") as f:
            data = f.read()
        assert b"libdnnl.so.2" in data
        broken = os.path.join(tmp, "broken.so")
        with open(broken, "wb") as f:
            f.write(data.replace(b"libdnnl.so.2", b"libdnnX.so.2"))
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.zeros((1, 3, 16, 16), np.float32))
        run = subprocess.run([onnxc_binary(), "run", broken, "--input",
                              f"x={x}"], capture_output=True, text=True)
        assert run.returncode != 0 and run.returncode < 128, run
        assert "libdnnX.so.2" in run.stderr, run.stderr


def test_profile_names_dnnl_nodes():
    """--profile with dnnl partitions: each oneDNN call is an entry with its
    node names and op type (tagged before the dnnl lowering replaces the
    onnx ops)."""
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(cnn(), tmp,
                                          args=[*DNNL, "--profile"]))
        artifact.run({"x": np.ones((1, 3, 16, 16), np.float32)})
        entries = {e["nodes"]: e for e in artifact.profile()}
        assert entries["conv1, relu1"]["op_types"] == "FusedConv"
        assert entries["pool1"]["op_types"] == "MaxPool"
        assert entries["fc"]["op_types"] == "Gemm"
        assert all(e["ns"] > 0 for e in entries.values())


def test_cli_run_of_a_dnnl_artifact():
    """`onnxc run` loads, runs and unloads a dnnl artifact: OpenMP's idle
    workers outlive the run, so the glue keeps oneDNN and OpenMP loaded
    (unloading them under the workers crashed the process at exit)."""
    model = cnn()
    x = RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL)
        assert proc.returncode == 0, proc.stderr
        np.save(os.path.join(tmp, "x.npy"), x)
        for threads in ("1", "2"):
            run = subprocess.run(
                [onnxc_binary(), "run", so, "--input",
                 f"x={os.path.join(tmp, 'x.npy')}", "--output-dir", tmp,
                 "--threads", threads, "--repeat", "3"],
                capture_output=True, text=True)
            assert run.returncode == 0, (run.returncode, run.stderr)
            got = np.load(os.path.join(tmp, "y.npy"))
            assert max_relative_error(got, run_ort(model, {"x": x})[0]) <= 1e-4


def test_batch_and_layer_normalization():
    """LayerNormalization over the last dim goes to dnnl; over two dims it
    stays with the cpu, and so does inference BatchNormalization (of a graph
    input, so no Conv folds it), each with its reason."""
    nodes = [
        helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                         ["bn"], name="bn", epsilon=1e-3),
        helper.make_node("Reshape", ["bn", "shape"], ["r"], name="reshape"),
        helper.make_node("MatMul", ["r", "w"], ["h"], name="fc"),
        helper.make_node("LayerNormalization", ["h", "g", "beta"], ["ln"],
                         name="ln_last", axis=-1, epsilon=1e-5),
        helper.make_node("LayerNormalization", ["ln", "g2"], ["y"],
                         name="ln_two_dims", axis=1),
    ]
    c = 4
    params = [weight("s", [c]), weight("b", [c]), weight("m", [c]),
              numpy_helper.from_array(
                  RNG.uniform(0.5, 2.0, c).astype(np.float32), "v"),
              numpy_helper.from_array(np.array([0, c, 64], np.int64), "shape"),
              weight("w", [64, 24]), weight("g", [24]), weight("beta", [24]),
              weight("g2", [c, 24])]
    graph = helper.make_graph(
        nodes, "norms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", c, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", c, 24])],
        params)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        print(proc.stdout)
        assert "dnnl refused 1 BatchNormalization node: oneDNN 2.6 " \
               "normalizes NCHW batches in a plain loop" in proc.stdout
        assert "dnnl refused 1 LayerNormalization node: it normalizes more " \
               "than the last dim" in proc.stdout
        artifact = Artifact(so)
        for n in (1, 3):
            assert_close(artifact, model, {
                "x": RNG.standard_normal((n, c, 8, 8)).astype(np.float32)})


def test_non_finite_values_propagate_as_in_onnx_runtime():
    """NaN and +-inf through convolutions with fused activations: oneDNN's
    post-ops turn NaN into 0 (Relu and Clip everywhere, Sigmoid in the
    one-pixel GEMM convolution), so every activation runs on the host after
    the call; the NaN/inf positions and the finite values must match ONNX
    Runtime's."""
    for act in ["Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSwish",
                "HardSigmoid"]:
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"],
                                  pads=[1, 1, 1, 1], name="conv")]
        extra = ["lo", "hi"] if act == "Clip" else []
        nodes.append(helper.make_node(act, ["c", *extra], ["y"], name="act"))
        graph = helper.make_graph(
            nodes, "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           [1, 3, 12, 10])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [weight("w", [8, 3, 3, 3]), weight("b", [8]),
             numpy_helper.from_array(np.array(0, np.float32), "lo"),
             numpy_helper.from_array(np.array(6, np.float32), "hi")])
        model = helper.make_model(graph,
                                  opset_imports=[helper.make_opsetid("", 17)])
        x = RNG.standard_normal((1, 3, 12, 10)).astype(np.float32)
        x.flat[[3, 17, 40, 41]] = [np.inf, -np.inf, np.nan, 1e30]
        with tempfile.TemporaryDirectory() as tmp:
            proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
            assert proc.returncode == 0, proc.stderr
            assert "dnnl: 1 node (FusedConv 1)" in proc.stdout, proc.stdout
            got = Artifact(so).run({"x": x})[0]
        want = run_ort(model, {"x": x})[0]
        assert np.array_equal(np.isnan(got), np.isnan(want)), act
        assert np.array_equal(np.isinf(got), np.isinf(want)), act
        finite = np.isfinite(want)
        assert max_relative_error(got[finite], want[finite]) <= 1e-4, act


def test_softmax_stays_on_the_cpu_with_its_reason():
    node = helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    x[1, 2] = np.nan
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert "cpu: 1 node (Softmax 1)" in proc.stdout
        assert "dnnl refused 1 Softmax node: oneDNN's softmax does not make " \
               "a row with a NaN or +inf all NaN" in proc.stdout
        got = Artifact(so).run({"x": x})[0]
    assert np.isnan(got[1]).all() and not np.isnan(got[[0, 2]]).any()


def test_value_read_by_two_calls_is_not_overwritten_between_them():
    """A host-computed value (Abs) read by two oneDNN calls: as X of one
    convolution and as the residual Z of the next. CSE merged the two
    to_memrefs that read it into the first, one-shot bufferization then let
    the second convolution's host Relu write over its buffer in place, and
    the residual read garbage (relative error 1.0). UnshareTensorReads gives
    each call its own read again."""
    nodes = [
        helper.make_node("Conv", ["x", "wa"], ["ca"], pads=[1, 1, 1, 1]),
        helper.make_node("Abs", ["ca"], ["a"]),
        helper.make_node("Conv", ["a", "wb"], ["cb"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["cb"], ["b"]),
        helper.make_node("Conv", ["b", "wc"], ["cc"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["cc", "a"], ["s"]),
        helper.make_node("Sigmoid", ["s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [weight(n, [16, 16, 3, 3]) for n in ("wa", "wb", "wc")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = RNG.standard_normal((1, 16, 8, 8)).astype(np.float32)
    for args in ([], DNNL):
        with tempfile.TemporaryDirectory() as tmp:
            assert_close(Artifact(compile_model(model, tmp, args=args)), model,
                         {"x": x})


def qlinear_cnn(weight_type=np.int8, depth=3):
    """Q -> QLinearConv (pads, bias, per-channel W scales) -> QLinearConv
    (group 2, stride 2, no bias) -> depthwise QLinearConv -> DQ, the first
    `depth` of them: ONNX Runtime's QOperator form, which dnnl takes when W
    is int8 with zero points 0. With `weight_type` uint8 (W's zero points
    128) it cannot. A chain of more than one runs NHWC
    (onnxc-quantized-channels-last: onnxc.BlockedQLinearConv), a lone
    convolution NCHW."""
    def init(name, value):
        return numpy_helper.from_array(np.asarray(value), name)

    inits = [init("xs", np.float32(0.03)), init("xz", np.uint8(120))]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q0"],
                              name="quantize")]
    layers = [  # (name, C, M, group, strides, bias, y zero point)
        ("qconv1", 6, 16, 1, [1, 1], True, np.uint8(90)),
        ("qconv2", 16, 16, 2, [2, 2], False, np.uint8(128)),
        ("qconv3", 16, 16, 16, [1, 1], True, np.uint8(3))][:depth]
    x = "q0"
    for i, (name, c, m, group, strides, bias, y_zero) in enumerate(layers):
        if weight_type == np.int8:
            w = RNG.integers(-127, 128, (m, c // group, 3, 3)).astype(np.int8)
            w_zero = np.zeros(m, np.int8)
        else:
            w = RNG.integers(0, 256, (m, c // group, 3, 3)).astype(np.uint8)
            w_zero = np.full(m, 128, np.uint8)
        p = f"l{i}_"
        inits += [init(p + "w", w),
                  init(p + "ws", RNG.uniform(0.002, 0.006, m).astype(
                      np.float32)),
                  init(p + "wz", w_zero),
                  init(p + "ys", np.float32(0.04 + 0.02 * i)),
                  init(p + "yz", y_zero)]
        inputs = [x, "xs" if i == 0 else f"l{i - 1}_ys",
                  "xz" if i == 0 else f"l{i - 1}_yz", p + "w", p + "ws",
                  p + "wz", p + "ys", p + "yz"]
        if bias:
            inits.append(init(p + "b", RNG.integers(-3000, 3000, m).astype(
                np.int32)))
            inputs.append(p + "b")
        nodes.append(helper.make_node("QLinearConv", inputs, [p + "y"],
                                      name=name, pads=[1, 1, 1, 1],
                                      group=group, strides=strides))
        x = p + "y"
    last = f"l{depth - 1}_"
    nodes.append(helper.make_node("DequantizeLinear", [x, last + "ys",
                                                       last + "yz"],
                                  ["y"], name="dequantize"))
    graph = helper.make_graph(
        nodes, "qcnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 6, 15, 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


def run_or_skip_without_vnni(artifact, feeds):
    try:
        return artifact.run(feeds)
    except RunError as e:
        if "VNNI" in str(e):
            pytest.skip("oneDNN has no VNNI kernels on this CPU: " + str(e))
        raise


@pytest.mark.parametrize("depth,node", [(3, "BlockedQLinearConv"),
                                        (1, "QLinearConv")],
                         ids=["nhwc_chain", "nchw_single"])
def test_int8_convolutions_through_onednn(depth, node):
    """QLinearConv on dnnl (oneDNN's int8 convolution, requantized by its
    output scales and zero points), NHWC in a chain and NCHW alone, against
    ONNX Runtime: each output within one quantization step, nearly all
    exact."""
    model = qlinear_cnn(depth=depth)
    step = 0.04 + 0.02 * (depth - 1)  # the last layer's y_scale
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        print(proc.stdout)
        assert f"dnnl: {depth} node{'s' if depth > 1 else ''} ({node} " \
            f"{depth})" in proc.stdout
        artifact = Artifact(so)
        for n in (1, 2):
            x = (RNG.standard_normal((n, 6, 15, 17)) * 2).astype(np.float32)
            got = run_or_skip_without_vnni(artifact, {"x": x})[0]
            want = run_ort(model, {"x": x})[0]
            steps = np.abs(got - want) / step
            print(f"batch {n}: {np.count_nonzero(steps > 0.5)} of "
                  f"{steps.size} outputs differ, at most {steps.max():.2f} "
                  f"steps")
            assert got.shape == want.shape
            assert steps.max() <= 1.01
            assert np.count_nonzero(steps > 0.5) <= steps.size // 100
            assert np.unique(want).size > 20  # not saturated


def test_int8_convolution_with_uint8_weights_stays_on_the_cpu():
    model = qlinear_cnn(np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        assert ("dnnl refused 3 BlockedQLinearConv nodes: oneDNN's int8 "
                "convolution takes int8 weights with a constant zero point "
                "of 0 only" in proc.stdout), proc.stdout
        assert not any("dnnl" in lib for lib in needed_libraries(so))
        x = RNG.standard_normal((1, 6, 15, 17)).astype(np.float32)
        got = Artifact(so).run({"x": x})[0]
        want = run_ort(model, {"x": x})[0]
        assert np.abs(got - want).max() <= 0.08 * 1.01


def test_int8_convolution_without_vnni_is_a_clear_error():
    """oneDNN's int8 kernels without VNNI saturate the products of
    full-range weights: the glue refuses them, and `onnxc run` says so,
    naming the node, instead of returning wrong values."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(qlinear_cnn(), tmp, *DNNL)
        assert proc.returncode == 0, proc.stderr
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.zeros((1, 6, 15, 17), np.float32))
        run = subprocess.run(
            [onnxc_binary(), "run", so, "--input", f"x={x}"],
            capture_output=True, text=True,
            env={**os.environ, "DNNL_MAX_CPU_ISA": "AVX2"})
        assert run.returncode != 0 and run.returncode < 128, run
        assert "node 'qconv1'" in run.stderr and "VNNI" in run.stderr, \
            run.stderr


def test_thread_count_change_takes_new_primitives():
    """oneDNN fixes a primitive's threading when it is created: after
    set_num_threads changes the count, each call site must create its
    primitive again (once), or it keeps running on the first count."""
    script = f"""
import sys
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import numpy as np
from onnxc_runner import Artifact
a = Artifact(sys.argv[1])
x = np.ones((1, 3, 16, 16), np.float32)
for threads in (1, 2, 2, 1):
    a.set_num_threads(threads)
    a.run({{"x": x}})
    print("RUN", threads, flush=True)
"""
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(cnn(), tmp, *DNNL)
        assert proc.returncode == 0, proc.stderr
        run = subprocess.run([sys.executable, "-c", script, so],
                             capture_output=True, text=True,
                             env={**os.environ, "DNNL_VERBOSE": "2"})
        assert run.returncode == 0, run.stderr
        created, counts = 0, []
        for line in run.stdout.splitlines():
            if line.startswith("RUN"):
                counts.append(created)
                created = 0
            elif "create:" in line and ",convolution," in line:
                created += 1
        # Two convolutions: both created at each new count, none at a
        # count seen before.
        assert counts == [2, 2, 0, 0], counts


def quantized_mlp(kind):
    """An MLP's products in ONNX Runtime's two int8 forms, B int8 with zero
    points 0 (what its quantizers write for QInt8 weights):
      static:  Q -> QLinearMatMul (per-column B scales) -> QLinearMatMul
               (per-tensor) -> DQ, A of rank 3 on a 2-D B;
      dynamic: DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul
               (quantize_dynamic's pattern), twice, with a Relu between."""
    def init(name, value):
        return numpy_helper.from_array(np.asarray(value), name)

    k, hidden, n = 24, 40, 12
    w1 = RNG.integers(-127, 128, (k, hidden)).astype(np.int8)
    w2 = RNG.integers(-127, 128, (hidden, n)).astype(np.int8)
    inits = [init("w1", w1), init("w2", w2),
             init("w1z", np.zeros(hidden, np.int8)), init("w2z", np.int8(0))]
    if kind == "static":
        inits += [init("xs", np.float32(0.02)), init("xz", np.uint8(128)),
                  init("w1s", RNG.uniform(0.002, 0.004, hidden).astype(
                      np.float32)),
                  init("hs", np.float32(0.3)), init("hz", np.uint8(100)),
                  init("w2s", np.float32(0.003)),
                  init("ys", np.float32(0.4)), init("yz", np.uint8(128))]
        nodes = [
            helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q"]),
            helper.make_node("QLinearMatMul", ["q", "xs", "xz", "w1", "w1s",
                                               "w1z", "hs", "hz"], ["h"],
                             name="qmatmul1"),
            helper.make_node("QLinearMatMul", ["h", "hs", "hz", "w2", "w2s",
                                               "w2z", "ys", "yz"], ["yq"],
                             name="qmatmul2"),
            helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    else:
        inits += [init("w1s", np.float32(0.003)), init("w2s", np.float32(0.004))]
        nodes = []
        x = "x"
        for i in (1, 2):
            nodes += [
                helper.make_node("DynamicQuantizeLinear", [x],
                                 [f"q{i}", f"s{i}", f"z{i}"]),
                helper.make_node("MatMulInteger", [f"q{i}", f"w{i}", f"z{i}",
                                                   f"w{i}z"], [f"i{i}"],
                                 name=f"matmul_integer{i}"),
                helper.make_node("Cast", [f"i{i}"], [f"c{i}"],
                                 to=TensorProto.FLOAT),
                helper.make_node("Mul", [f"s{i}", f"w{i}s"], [f"m{i}"]),
                helper.make_node("Mul", [f"c{i}", f"m{i}"], [f"f{i}"])]
            x = f"f{i}"
            if i == 1:
                nodes.append(helper.make_node("Relu", [x], ["r1"]))
                x = "r1"
        nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(
        nodes, "qmlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 7, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("kind,node", [("static", "QLinearMatMul"),
                                       ("dynamic", "MatMulInteger")])
def test_int8_products_through_onednn(kind, node):
    """QLinearMatMul and MatMulInteger on dnnl (oneDNN's int8 matmul; A's
    zero point at run time, a new one per call in the dynamic form), at two
    batch sizes, against ONNX Runtime."""
    model = quantized_mlp(kind)
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        print(proc.stdout)
        assert f"dnnl: 1 node ({node} 1)" in proc.stdout or \
            f"dnnl: 2 nodes ({node} 2)" in proc.stdout, proc.stdout
        artifact = Artifact(so)
        for batch in (1, 3):
            x = (RNG.standard_normal((batch, 7, 24)) * 3).astype(np.float32)
            got = run_or_skip_without_vnni(artifact, {"x": x})[0]
            want = run_ort(model, {"x": x})[0]
            assert got.shape == want.shape
            if kind == "static":  # within one step of Y, nearly all exact
                steps = np.abs(got - want) / 0.4
                assert steps.max() <= 1.01
                assert np.count_nonzero(steps > 0.5) <= steps.size // 100
            else:  # integer sums, then the same f32 products
                assert max_relative_error(got, want) <= 1e-5
            assert np.unique(want).size > 20


CONV_TRANSPOSE_CASES = [  # (name, C, M, group, kernel, attributes, on dnnl)
    ("strides_bias", 4, 6, 1, (3, 3), dict(strides=[2, 2]), True),
    ("pads_output_padding_dilations", 4, 5, 1, (3, 2),
     dict(strides=[3, 2], dilations=[2, 1], pads=[1, 0, 2, 1],
          output_padding=[1, 1]), True),
    ("groups", 6, 4, 2, (3, 3), dict(group=2, strides=[2, 2],
                                     pads=[1, 1, 1, 1]), True),
    ("depthwise", 8, 8, 8, (4, 4), dict(group=8, strides=[2, 2],
                                        pads=[1, 1, 1, 1]), True),
    ("output_shape", 4, 3, 1, (3, 3), dict(strides=[2, 2],
                                           output_shape=[12, 15]), True),
    ("same_upper", 4, 3, 1, (3, 3), dict(strides=[2, 2],
                                         auto_pad="SAME_UPPER"), True),
    ("output_shape_longer", 4, 3, 1, (3, 3), dict(strides=[2, 2],
                                                  output_shape=[17, 19]),
     False),
]


@pytest.mark.parametrize("name,c,m,group,kernel,attrs,on_dnnl",
                         CONV_TRANSPOSE_CASES,
                         ids=[case[0] for case in CONV_TRANSPOSE_CASES])
def test_conv_transpose_through_onednn(name, c, m, group, kernel, attrs,
                                       on_dnnl):
    """ConvTranspose on dnnl (oneDNN's deconvolution, W read in ONNX's
    [C, M/group, kH, kW] memory), against ONNX Runtime, with open image
    sizes where the pads are explicit; an output_shape past the natural
    output stays with the cpu, with its reason."""
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"],
                            name="deconv", **attrs)
    open_sizes = "output_shape" not in attrs and "auto_pad" not in attrs
    image = ["H", "W"] if open_sizes else [6, 7]
    graph = helper.make_graph(
        [node], "deconv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", c, *image])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [weight("w", [c, m // group, *kernel]), weight("b", [m])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    with tempfile.TemporaryDirectory() as tmp:
        proc, so = compile_cli(model, tmp, *DNNL, "--print-partitions")
        assert proc.returncode == 0, proc.stderr
        if on_dnnl:
            assert "dnnl: 1 node (ConvTranspose 1)" in proc.stdout, \
                proc.stdout
        else:  # ONNX Runtime rejects such an output_shape: no values
            assert "dnnl refused 1 ConvTranspose node: an output_shape past " \
                   "the natural output" in proc.stdout, proc.stdout
            return
        artifact = Artifact(so)
        sizes = [(1, 6, 7), (2, 6, 7)] + ([(1, 5, 9)] if open_sizes else [])
        for n, h, w in sizes:
            assert_close(artifact, model, {
                "x": RNG.standard_normal((n, c, h, w)).astype(np.float32)})
