"""The batch split (passes/graph/BatchSplit.cpp, runtime/cpu/Run.c): a graph
whose nodes keep the images of a batch apart is compiled for one image and
run once per image, for a batch fixed by --shape or for each call's dim 0
when the model leaves it open. Every case checks the outputs against ONNX
Runtime on the whole batch, with the images' inputs all different, so a
split that mixed or dropped images would fail; and whether the compiler
split, from --print-pass-stats and `onnxc info`."""
import ctypes
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import (Artifact, RunError, max_relative_error, onnxc_binary,
                          run_ort)
from onnxc._abi import Error, Model, Tensor  # noqa: E402 (path set above)

RNG = np.random.default_rng(11)
BATCH = 3


def weight(name, *shape):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * 0.3).astype(np.float32), name)


def small_cnn():
    """Conv + BatchNormalization (inference) + Relu, depthwise Conv + Clip,
    1x1 Conv + residual Add, then GlobalAveragePool, Flatten, Gemm,
    Softmax; two outputs (the logits' softmax and the pooled features).
    Batch dim symbolic."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["c0", "scale", "bias", "mean", "var"], ["c1"]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], group=8,
                         pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3"], ["c3"]),
        helper.make_node("Add", ["c3", "r2"], ["s"]),
        helper.make_node("GlobalAveragePool", ["s"], ["p"]),
        helper.make_node("Flatten", ["p"], ["features"]),
        helper.make_node("Gemm", ["features", "wf", "bf"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    inits = [weight("w1", 8, 3, 3, 3), weight("b1", 8), weight("w2", 8, 1, 3, 3),
             weight("w3", 8, 8, 1, 1), weight("wf", 5, 8), weight("bf", 5),
             weight("scale", 8), weight("bias", 8), weight("mean", 8),
             numpy_helper.from_array(
                 (RNG.random(8) + 0.5).astype(np.float32), "var"),
             numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
             numpy_helper.from_array(np.array(6.0, np.float32), "hi")]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 12, 12])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 5]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 8])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def mixing(op):
    """x [N, 6, 8, 8] -> a 1x1 Conv -> c [N, 384] -> y through nodes that
    read other images' values; with the Conv and activations well over the
    weights, only the mixing node refuses (a wrong legality check would
    split, and the values would differ from ORT's): a mean over the
    batch subtracted from x; a softmax over the batch; a transpose there
    and back with a MatMul between; [N, 1, 6] + [N, 6] broadcast into
    [N, N, 6] (y[i] reads every image); a Squeeze without axes (one
    image's dim 0 would go)."""
    conv = helper.make_node("Conv", ["x", "w"], ["c4"])
    to2 = helper.make_node("Reshape", ["c4", "shape2"], ["c"])
    out_shape = ["N", 384]
    if op == "batch_mean":
        nodes = [helper.make_node("ReduceMean", ["c"], ["m"], axes=[0]),
                 helper.make_node("Sub", ["c", "m"], ["y"])]
    elif op == "batch_softmax":
        nodes = [helper.make_node("Softmax", ["c"], ["y"], axis=0)]
    elif op == "transpose":
        nodes = [helper.make_node("Transpose", ["c"], ["t"], perm=[1, 0]),
                 helper.make_node("MatMul", ["t", "m66"], ["u"]),
                 helper.make_node("Transpose", ["u"], ["y"], perm=[1, 0])]
    elif op == "broadcast":
        # y[i, j] = c[i] + c[j]: [N, 1, 6] + [N, 6].
        nodes = [helper.make_node("Unsqueeze", ["c", "ax1"], ["u"]),
                 helper.make_node("Add", ["u", "c"], ["y"])]
        out_shape = ["N", "N", 384]
    else:
        nodes = [helper.make_node("Unsqueeze", ["c", "ax"], ["u"]),
                 helper.make_node("Squeeze", ["u"], ["y"])]
    graph = helper.make_graph(
        [conv, to2] + nodes, op,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [weight("w", 6, 6, 1, 1), weight("m66", BATCH, BATCH),
         numpy_helper.from_array(np.array([1], np.int64), "ax1"),
         numpy_helper.from_array(np.array([0, 384], np.int64), "shape2"),
         numpy_helper.from_array(np.array([2], np.int64), "ax")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_on_a_tiny_map():
    """A 64-channel 3x3 conv on a 2x2 map: 147 KB of weights, 1 KB of
    activations an image: split, each image would read the weights again."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        "tiny_map",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 64, 2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 64, 2, 2])],
        [weight("w", 64, 64, 3, 3)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def mlp():
    """Gemm + Relu + Gemm: the images are the rows of the products."""
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w1"], ["h"]),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("Gemm", ["r", "w2"], ["y"])],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [weight("w1", 6, 16), weight("w2", 16, 4)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def compile_with_stats(model, tmp, shape, extra=()):
    """Compiles with --print-pass-stats, and --shape unless `shape` is None;
    returns (artifact, stderr)."""
    onnx_path = os.path.join(tmp, "model.onnx")
    so_path = os.path.join(tmp, "model.so")
    onnx.save(model, onnx_path)
    shape_args = ["--shape", shape] if shape else []
    proc = subprocess.run(
        [onnxc_binary(), "compile", "-O3", "--print-pass-stats", onnx_path,
         "-o", so_path, *shape_args, *extra],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return so_path, proc.stderr


def info(path):
    proc = subprocess.run([onnxc_binary(), "info", path], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def check_outputs(got, want, rtol=1e-4):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"output {i}: {g.shape}, ORT {w.shape}"
        err = max_relative_error(g, w)
        assert err <= rtol, f"output {i}: max relative error {err:.3g}"


def test_cnn_splits_and_matches_ort():
    model = small_cnn()
    x = RNG.standard_normal((BATCH, 3, 12, 12)).astype(np.float32)
    want = run_ort(model, {"x": x})
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, f"x={BATCH}x3x12x12")
        assert f"batch split: {BATCH} runs of one image" in stderr, stderr
        text = info(so)
        assert f"batch_split: {BATCH} runs" in text, text
        # The metadata keeps the batch; the run takes and gives all of it.
        assert f"x: float [{BATCH}, 3, 12, 12]" in text, text
        # Caller buffers (the Python API writes static outputs in place, in
        # arrays it reuses: new inputs each time, so that a stale result
        # cannot pass): images one after another (1 thread), and side by
        # side, one thread each (3 threads: one image each; 2: uneven, so
        # one after another on both threads).
        artifact = Artifact(so)
        for threads in (1, 3, 2, 1, 3):
            artifact.set_num_threads(threads)
            xt = RNG.standard_normal(x.shape).astype(np.float32)
            check_outputs(artifact.run({"x": xt}), run_ort(model, {"x": xt}))
        # Buffers the runtime allocates (onnxc run).
        np.save(os.path.join(tmp, "x.npy"), x)
        out_dir = os.path.join(tmp, "out")
        proc = subprocess.run(
            [onnxc_binary(), "run", so, "--input",
             "x=" + os.path.join(tmp, "x.npy"), "--output-dir", out_dir],
            capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        got = [np.load(os.path.join(out_dir, n + ".npy"))
               for n in ("probs", "features")]
        check_outputs(got, want)


def test_no_batch_split_runs_the_batch_as_one():
    model = small_cnn()
    x = RNG.standard_normal((BATCH, 3, 12, 12)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, f"x={BATCH}x3x12x12",
                                        ["--no-batch-split"])
        assert "batch split" not in stderr, stderr
        assert "batch_split" not in info(so)
        check_outputs(Artifact(so).run({"x": x}), run_ort(model, {"x": x}))


def test_nodes_that_mix_images_keep_the_batch_whole():
    x = RNG.standard_normal((BATCH, 6, 8, 8)).astype(np.float32)
    for op, why in (("batch_mean", "onnx.ReduceMean node"),
                    ("batch_softmax", "it normalizes over the batch"),
                    ("transpose", "onnx.Transpose node"),
                    ("broadcast", "broadcast into more dims"),
                    ("squeeze", "its axes are not constant")):
        model = mixing(op)
        with tempfile.TemporaryDirectory() as tmp:
            so, stderr = compile_with_stats(model, tmp, f"x={BATCH}x6x8x8")
            assert "batch split: no" in stderr and why in stderr, stderr
            assert "batch_split" not in info(so)
            check_outputs(Artifact(so).run({"x": x}), run_ort(model, {"x": x}))


def test_splits_that_would_not_pay_are_not_taken():
    cases = ((conv_on_a_tiny_map(), (BATCH, 64, 2, 2), "under twice the weights"),
             (mlp(), (BATCH, 6), "no convolution"))
    for model, shape, why in cases:
        x = RNG.standard_normal(shape).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            so, stderr = compile_with_stats(model, tmp,
                                            "x=" + "x".join(map(str, shape)))
            assert "batch split: no" in stderr and why in stderr, stderr
            check_outputs(Artifact(so).run({"x": x}), run_ort(model, {"x": x}))


# A batch the model leaves open until run time: compiled for one image, run
# once per image of each call's dim 0.


def two_inputs(second_dim):
    """x [N, 3, 12, 12] through a Conv, pooled to [N, 8], plus y
    [second_dim, 8]: one batch when second_dim is "N"."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("GlobalAveragePool", ["c"], ["p"]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Add", ["f", "y"], ["out"])],
        "two_inputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 12, 12]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [second_dim, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["N", 8])],
        [weight("w", 8, 3, 3, 3)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_open_batch_splits_per_call():
    model = small_cnn()
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, None)
        assert "batch split: one run per image of the run-time dim 0 ('N')" \
            in stderr, stderr
        text = info(so)
        assert "batch_split: one run per image" in text, text
        assert "x: float [N, 3, 12, 12]" in text, text
        assert "probs: float [N, 5]" in text, text
        # Batches of every size on 1 to 3 threads: side by side when the
        # images spread evenly over the threads (or four a thread), else one
        # after another; new inputs each time.
        artifact = Artifact(so)
        for threads, batch in ((1, 1), (1, 4), (2, 2), (2, 3), (3, 3),
                               (2, 8), (3, 7), (1, 5)):
            artifact.set_num_threads(threads)
            x = RNG.standard_normal((batch, 3, 12, 12)).astype(np.float32)
            check_outputs(artifact.run({"x": x}), run_ort(model, {"x": x}))
        # An empty batch: empty outputs of the right shapes.
        probs, features = artifact.run(
            {"x": np.zeros((0, 3, 12, 12), np.float32)})
        assert probs.shape == (0, 5) and features.shape == (0, 8)


def call_with_workspace(artifact, x, out_bytes):
    """model->run_with_workspace on x with caller buffers of `out_bytes`
    each and a workspace of the model's size: (code, message, outputs)."""
    m = artifact._model.contents
    run = ctypes.CFUNCTYPE(
        ctypes.c_int, ctypes.POINTER(Model), ctypes.POINTER(Tensor),
        ctypes.c_int32, ctypes.POINTER(Tensor), ctypes.c_int32,
        ctypes.c_void_p, ctypes.c_size_t,
        ctypes.POINTER(Error))(m.run_with_workspace)
    ins = (Tensor * 1)()
    ins[0].data = x.ctypes.data
    ins[0].rank = x.ndim
    for d, size in enumerate(x.shape):
        ins[0].shape[d] = size
    ins[0].dtype = 1  # float
    bufs = [np.full(n // 4, np.nan, np.float32) for n in out_bytes]
    outs = (Tensor * len(bufs))()
    for o, buf in enumerate(bufs):
        outs[o].data = buf.ctypes.data
        outs[o].size_bytes = buf.nbytes
    # Aligned as the ABI asks (ONNXC_WORKSPACE_ALIGNMENT, 64).
    raw = np.zeros(m.workspace_size + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    error = Error()
    code = run(artifact._model, ins, 1, outs, len(bufs),
               raw.ctypes.data + offset, m.workspace_size, ctypes.byref(error))
    shapes = [tuple(outs[o].shape[d] for d in range(outs[o].rank))
              for o in range(len(bufs))]
    outputs = [buf[:int(np.prod(shape))].reshape(shape)
               for buf, shape in zip(bufs, shapes)] if code == 0 else []
    return code, error.message.decode(), outputs


def test_open_batch_with_caller_workspace_and_buffers():
    model = small_cnn()
    batch = 4
    x = RNG.standard_normal((batch, 3, 12, 12)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        so, _ = compile_with_stats(model, tmp, None)
        artifact = Artifact(so)
        # The images one after another in the caller's one-image workspace,
        # each result written into its slice of the caller's buffers.
        code, message, got = call_with_workspace(
            artifact, x, [batch * 5 * 4, batch * 8 * 4])
        assert code == 0, message
        check_outputs(got, run_ort(model, {"x": x}))
        # A buffer that holds one image less is refused, naming the output.
        code, message, _ = call_with_workspace(
            artifact, x, [(batch - 1) * 5 * 4, batch * 8 * 4])
        assert code != 0 and "output 'probs'" in message, message


def test_open_batch_of_two_inputs_must_agree():
    model = two_inputs("N")
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, None)
        assert "one run per image of the run-time dim 0 ('N')" in stderr, stderr
        artifact = Artifact(so)
        for batch in (1, 3):
            feeds = {"x": RNG.standard_normal((batch, 3, 12, 12)).astype(np.float32),
                     "y": RNG.standard_normal((batch, 8)).astype(np.float32)}
            check_outputs(artifact.run(feeds), run_ort(model, feeds))
        feeds = {"x": np.zeros((3, 3, 12, 12), np.float32),
                 "y": np.zeros((2, 8), np.float32)}
        try:
            artifact.run(feeds)
            assert False, "a batch of 3 and one of 2 ran"
        except RunError as e:
            assert "input 'y': dim 0" in str(e), str(e)


def test_open_batches_that_may_differ_are_not_split():
    model = two_inputs("M")
    feeds = {"x": RNG.standard_normal((3, 3, 12, 12)).astype(np.float32),
             "y": RNG.standard_normal((1, 8)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, None)
        assert "batch split: no (the inputs do not name one dim 0)" in stderr, \
            stderr
        assert "batch_split" not in info(so)
        check_outputs(Artifact(so).run(feeds), run_ort(model, feeds))


def test_open_dims_besides_the_batch_are_not_split():
    # The image's height is dynamic too: one image's graph would not be
    # static.
    model = two_inputs("N")
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "H"
    feeds = {"x": RNG.standard_normal((2, 3, 10, 12)).astype(np.float32),
             "y": RNG.standard_normal((2, 8)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        so, stderr = compile_with_stats(model, tmp, None)
        assert "batch split: no (input 'x' has a dynamic dim besides dim 0)" \
            in stderr, stderr
        check_outputs(Artifact(so).run(feeds), run_ort(model, feeds))


def test_open_batch_mixing_or_without_convolution_is_not_split():
    # The same refusals as for a fixed batch. Left out: the transpose case,
    # whose weight fits a batch of 3 only, and the Squeeze without axes,
    # whose rank a dynamic dim 0 leaves unknown (onnxc refuses the model).
    # A conv on a tiny map is split: whole, the batch would be compiled with
    # a dynamic dim 0.
    cases = [(mixing(op), (BATCH, 6, 8, 8), why)
             for op, why in (("batch_mean", "onnx.ReduceMean node"),
                             ("batch_softmax", "it normalizes over the batch"),
                             ("broadcast", "broadcast into more dims"))]
    cases += [(mlp(), (BATCH, 6), "no convolution"),
              (conv_on_a_tiny_map(), (BATCH, 64, 2, 2), None)]
    for model, shape, why in cases:
        x = RNG.standard_normal(shape).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            so, stderr = compile_with_stats(model, tmp, None)
            if why:
                assert "batch split: no" in stderr and why in stderr, stderr
                assert "batch_split" not in info(so)
            else:
                assert "one run per image" in stderr, stderr
            check_outputs(Artifact(so).run({"x": x}), run_ort(model, {"x": x}))
