"""The NCHWc layout of -O3 (passes/layout/NchwcLayout.cpp) end to end:
convolution chains compiled at -O3 agree with ONNX Runtime, the pass fires
where it should (its counts from --print-pass-stats), reorders appear only
at a chain's ends, and `onnxc optimize -O3` writes a model (onnxc-domain
blocked ops) that onnxc compiles again to the same outputs."""
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

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(11)
PASS = "onnxc-nchwc-layout"


def pass_stats(model_path, level):
    """(node counts before/after, {pass: {counter: count}}) at -O`level`."""
    proc = subprocess.run(
        [onnxc_binary(), "compile", model_path, "--emit", "mlir", "-o",
         os.devnull, f"-O{level}", "--print-pass-stats"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    counts = {}
    for line in proc.stderr.splitlines():
        match = re.match(r"onnxc: pass (\S+): (.*)", line)
        if match:
            counts[match.group(1)] = {
                name: int(n) for n, name in
                re.findall(r"(\d+) ([a-z-]+)", match.group(2))}
    nodes = re.search(r"(\d+) nodes before, (\d+) after", proc.stderr)
    assert nodes, proc.stderr
    return (int(nodes.group(1)), int(nodes.group(2))), counts, proc.stderr


def check_close(got, want, name, rtol=1e-4):
    assert len(got) == len(want)
    worst = 0.0
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{name}: {g.shape} vs {w.shape}"
        err = max_relative_error(g, w)
        assert err <= rtol, f"{name}: max relative error {err:.3g}"
        worst = max(worst, err)
    return worst


def test_resnet_small_o3():
    model = onnx.load(os.path.join(HERE, "torch", "resnet_small.onnx"))
    with np.load(os.path.join(HERE, "torch", "resnet_small.inputs.npz")) as data:
        feeds = {k: data[k] for k in data.files}
    want = run_ort(model, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp, args=["-O3"])).run(feeds)
        path = os.path.join(tmp, "model.onnx")
        (before2, after2), _, _ = pass_stats(path, 2)
        (before3, after3), counts, stderr = pass_stats(path, 3)
    err = check_close(got, want, "resnet_small -O3")
    layout = counts[PASS]
    print(f"resnet_small: {before2} nodes; -O2 {after2}, -O3 {after3}; "
          f"{PASS}: {layout}; max relative error vs ONNX Runtime {err:.2g}")
    print(stderr)
    # All eleven convolutions, the stem (3 input channels, of which the
    # blocked convolution reads only the 3) and the MaxPool after it
    # included, form one region with one reorder in (the image) and one out
    # (after the global average pool).
    assert layout["regions"] == 1
    assert layout["blocked-convs"] == 11
    assert layout["reorders-in"] == 1
    assert layout["reorders-out"] == 1
    assert layout["nchw-convs"] == 0


def test_resnet_small_optimize_round_trip():
    """onnxc optimize -O3 writes BlockedConv and the reorders as onnxc-domain
    nodes; onnxc imports the model again and computes the same outputs."""
    model = onnx.load(os.path.join(HERE, "torch", "resnet_small.onnx"))
    with np.load(os.path.join(HERE, "torch", "resnet_small.inputs.npz")) as data:
        feeds = {k: data[k] for k in data.files}
    want = run_ort(model, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "model.onnx")
        dst = os.path.join(tmp, "optimized.onnx")
        onnx.save(model, src)
        proc = subprocess.run([onnxc_binary(), "optimize", src, "-O3", "-o", dst],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        optimized = onnx.load(dst)
        onnx.checker.check_model(optimized)
        ops = {(n.domain, n.op_type) for n in optimized.graph.node}
        assert ("onnxc", "BlockedConv") in ops
        assert ("onnxc", "ReorderToBlocked") in ops
        assert ("onnxc", "ReorderFromBlocked") in ops
        # Compiled again at -O3: the pass finds nothing left to do.
        got = Artifact(compile_model(optimized, tmp, name="again",
                                     args=["-O3"])).run(feeds)
    check_close(got, want, "resnet_small optimized -O3 (onnxc)")


# Direct cases: a chain of two or three convolutions (so that the pass
# fires) with the feature under test, compiled at -O3 and compared with ONNX
# Runtime.

def conv_chain(channels, steps, size=(9, 11)):
    """A model x -> steps -> y. A step is a dict: a Conv with `out`
    channels, kernel `k` (3), Conv attributes (strides, pads, dilations,
    group), `bias` (True), then optionally `act` (an activation op type) and
    `residual` (a value added after it); or another op: {"op": type,
    attributes...} applied to the current value."""
    nodes, inits = [], []
    current, c = "x", channels
    for i, spec in enumerate(steps):
        spec = dict(spec)
        op = spec.pop("op", "Conv")
        if op != "Conv":
            nodes.append(helper.make_node(op, [current], [f"t{i}"], **spec))
            current = f"t{i}"
            continue
        out, group, k = spec["out"], spec.get("group", 1), spec.get("k", 3)
        w = RNG.standard_normal((out, c // group, k, k)).astype(np.float32)
        w *= 1.0 / np.sqrt(c // group * k * k)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        inputs = [current, f"w{i}"]
        if spec.get("bias", True):
            inits.append(numpy_helper.from_array(
                RNG.standard_normal(out).astype(np.float32), f"b{i}"))
            inputs.append(f"b{i}")
        attrs = {a: spec[a] for a in ("strides", "pads", "dilations", "group")
                 if a in spec}
        nodes.append(helper.make_node("Conv", inputs, [f"c{i}"], **attrs))
        current, c = f"c{i}", out
        if "act" in spec:
            nodes.append(helper.make_node(spec["act"], [current], [f"a{i}"]))
            current = f"a{i}"
        if spec.get("residual"):
            nodes.append(helper.make_node("Add", [current, spec["residual"]],
                                          [f"r{i}"]))
            current = f"r{i}"
    nodes.append(helper.make_node("Identity", [current], ["y"]))
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["n", channels, *size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


CASES = {
    # stride 2 and asymmetric padding, channels 20 -> 24 (not multiples of 16)
    "stride2_pads_c20": (20, [dict(out=24, strides=[2, 2], pads=[1, 1, 1, 1],
                                   act="Relu"),
                              dict(out=24, pads=[1, 0, 2, 1])]),
    # dilation 2, no bias, Sigmoid between (maps the padding lanes to 0.5)
    "dilation_nobias": (16, [dict(out=16, dilations=[2, 2], pads=[2, 2, 2, 2],
                                  bias=False, act="Sigmoid"),
                             dict(out=32, k=1)]),
    # pointwise -> depthwise (group = C = M, 24 channels), strided -> pointwise
    "depthwise": (12, [dict(out=24, k=1, act="Relu"),
                       dict(out=24, group=24, pads=[1, 1, 1, 1],
                            strides=[2, 2], act="Relu"),
                       dict(out=20, k=1)]),
    # residual add of the block input, then MaxPool and GlobalAveragePool
    "residual_pools": (16, [dict(out=16, pads=[1, 1, 1, 1], act="Relu"),
                            dict(out=16, pads=[1, 1, 1, 1], residual="x",
                                 act="Relu"),
                            dict(op="MaxPool", kernel_shape=[3, 3],
                                 strides=[2, 2], pads=[1, 1, 1, 1]),
                            dict(op="GlobalAveragePool")]),
    # AveragePool (count_include_pad, ceil_mode) between two convolutions
    # dynamic height and width: output sizes computed at run time
    "dynamic_spatial": (16, [dict(out=16, strides=[2, 2], pads=[1, 1, 1, 1],
                                  act="Relu"),
                             dict(out=16, pads=[0, 1, 1, 0], dilations=[1, 2])],
                        ("h", "w")),
    # the runtime kernel's paths (runtime/cpu/kernels/ConvNchwc*.c): 7x7
    # and 5x5 windows wider than the 9x11 image, stride 2, 1x1 (its flat
    # fast path) with a residual (Z), 40 and 48 channels (an
    # odd number of output blocks for the 2-block AVX-512 tile)
    "kernel_sizes_residual": (32, [dict(out=48, k=7, pads=[3, 3, 3, 3],
                                        act="Relu"),
                                   dict(out=40, k=5, pads=[2, 1, 2, 3],
                                        strides=[2, 2]),
                                   dict(out=40, k=1, residual="c1"),
                                   dict(out=40, k=3, pads=[1, 1, 1, 1],
                                        residual="r2", act="LeakyRelu")]),
    # Y written over its residual Z where nothing reads Z later: the 1x1
    # adding a0 must not (the 3x3 reads a0 after it), the 3x3 may. "r2" in
    # kernel_sizes_residual is both X and Z of one conv, which must not.
    "residual_in_place": (16, [dict(out=16, k=1, act="Relu"),
                               dict(out=16, k=1, residual="a0"),
                               dict(out=16, pads=[1, 1, 1, 1], residual="a0",
                                    act="Relu")]),
    # depthwise 5x5 with dilation 2 and stride 2 (MobileNet/EfficientNet
    # blocks), 40 channels, then a pointwise projection and a residual
    "depthwise_5x5_residual": (40, [dict(out=40, k=1, act="Relu"),
                                    dict(out=40, group=40, k=5,
                                         pads=[4, 4, 4, 4], dilations=[2, 2],
                                         act="Relu"),
                                    dict(out=40, k=1, residual="a0"),
                                    dict(out=40, group=40, k=3,
                                         pads=[1, 1, 1, 1], strides=[2, 2],
                                         act="Sigmoid"),
                                    dict(out=16, k=1)]),
    "avgpool": (24, [dict(out=24, pads=[1, 1, 1, 1], act="Relu"),
                     dict(op="AveragePool", kernel_shape=[2, 2],
                          strides=[2, 2], pads=[0, 0, 1, 1],
                          count_include_pad=1, ceil_mode=1),
                     dict(out=16, pads=[1, 1, 1, 1])]),
    # MaxPool in the region (the runtime's blocked max pool): ceil_mode with
    # a window past the end, dilation 2 with asymmetric pads, a 1x1 window
    # of stride 2, and 20 channels (a partial block)
    "maxpools": (20, [dict(out=20, pads=[1, 1, 1, 1]),
                      dict(op="MaxPool", kernel_shape=[3, 3], strides=[2, 2],
                           ceil_mode=1),
                      dict(out=20, pads=[1, 1, 1, 1], act="Tanh"),
                      dict(op="MaxPool", kernel_shape=[2, 2],
                           dilations=[2, 2], pads=[1, 0, 0, 1]),
                      dict(op="MaxPool", kernel_shape=[1, 1], strides=[2, 2]),
                      dict(out=16, k=1)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_chain_matches_ort(name):
    channels, steps, *size = CASES[name]
    model = conv_chain(channels, steps, *size)
    x = RNG.standard_normal((2, channels, 9, 11)).astype(np.float32)
    want = run_ort(model, {"x": x})
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp, args=["-O3"])).run({"x": x})
        _, counts, stderr = pass_stats(os.path.join(tmp, "model.onnx"), 3)
    layout = counts.get(PASS, {})
    print(f"{name}: {layout}")
    assert layout.get("regions") == 1, stderr
    assert layout.get("reorders-in") == 1 and layout.get("reorders-out") == 1
    check_close(got, want, name)


def winograd_globals(model_path, args):
    """How many convolutions the compiler gave Winograd weights
    (targets/cpu/transforms/WinogradConvWeights.cpp): the globals in the
    emitted LLVM IR."""
    proc = subprocess.run(
        [onnxc_binary(), "compile", model_path, "--emit", "llvm", "-o", "-",
         *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return len(set(re.findall(r"@onnxc_winograd_u[_0-9]* = ", proc.stdout)))


@pytest.mark.parametrize("fixed", [False, True])
def test_winograd_matches_ort(fixed):
    """3x3 convolutions with unit strides on maps of 12x12 and more, 32
    channels and more, run as Winograd F(2x2, 3x3): odd sizes (23x26),
    symmetric and asymmetric pads, 35 -> 48 -> 40 channels (partial blocks),
    a residual with Relu; the strided one stays direct. Its outputs agree
    with ONNX Runtime as the direct kernel's do, on 1 and 2 threads; with a
    dynamic batch (fixed=False) the tiles per image decide alike."""
    model = conv_chain(35, [dict(out=48, pads=[1, 1, 1, 1], act="Relu"),
                            dict(out=40, pads=[0, 1, 2, 1]),
                            dict(out=40, pads=[1, 1, 1, 1], residual="c1",
                                 act="Relu"),
                            dict(out=33, pads=[1, 1, 1, 1], strides=[2, 2])],
                       size=(23, 26))
    x = RNG.standard_normal((2, 35, 23, 26)).astype(np.float32)
    want = run_ort(model, {"x": x})
    args = ["-O3"] + (["--shape", "x=2x35x23x26"] if fixed else [])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chain.onnx")
        onnx.save(model, path)
        assert winograd_globals(path, args) == 3
        artifact = Artifact(compile_model(model, tmp, args=args))
        errors = []
        for threads in (1, 2):
            artifact.set_num_threads(threads)
            errors.append(check_close(artifact.run({"x": x}), want,
                                      f"winograd {threads} threads"))
    print(f"winograd chain: max relative error vs ONNX Runtime "
          f"{max(errors):.2g}")


def test_not_fired_on_single_conv_or_grouped():
    """A lone convolution and grouped (not depthwise) ones stay NCHW and
    still agree with ONNX Runtime."""
    for convs in ([dict(out=16, pads=[1, 1, 1, 1])],
                  [dict(out=16, group=2, pads=[1, 1, 1, 1]),
                   dict(out=16, group=4, pads=[1, 1, 1, 1])]):
        model = conv_chain(16, convs)
        x = RNG.standard_normal((1, 16, 9, 11)).astype(np.float32)
        want = run_ort(model, {"x": x})
        with tempfile.TemporaryDirectory() as tmp:
            got = Artifact(compile_model(model, tmp, args=["-O3"])).run({"x": x})
            _, counts, _ = pass_stats(os.path.join(tmp, "model.onnx"), 3)
        assert counts[PASS]["regions"] == 0
        assert counts[PASS]["nchw-convs"] == len(convs)
        check_close(got, want, "not fired")


def test_nonfinite_inputs_stay_out_of_padding():
    """+-inf and NaN in the input make a BlockedConv's padding lanes NaN
    (inf * 0); the next BlockedConv must not read them (0 * NaN would reach
    its real channels). 20 -> 24 -> 20 -> 20 channels, so every blocked
    tensor has padding; the Sigmoid maps the real channels' +-inf to finite
    values (but the padding's NaN stays NaN), and the residual add of x puts
    x's infinities back. The outputs match ONNX Runtime's, NaN and +-inf
    positions included."""
    model = conv_chain(20, [dict(out=24, k=1, act="Sigmoid"),
                            dict(out=20, k=1, act="Relu"),
                            dict(out=20, pads=[1, 1, 1, 1], residual="x")])
    x = RNG.standard_normal((2, 20, 9, 11)).astype(np.float32)
    x[0, 3, 2, 4] = np.inf
    x[1, 17, 5, 5] = -np.inf
    x[0, 19, 0, 0] = np.inf
    x[1, 0, 8, 10] = np.nan
    # ONNX Runtime's own NCHWc transformer (ORT_ENABLE_ALL) has the same
    # flaw, so the reference runs the graph unoptimized.
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    want = session.run(None, {"x": x})
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp, args=["-O3"])).run({"x": x})
        _, counts, stderr = pass_stats(os.path.join(tmp, "model.onnx"), 3)
    assert counts[PASS]["blocked-convs"] == 3, stderr
    (g,), (w,) = got, want
    assert g.shape == w.shape
    # ONNX Runtime: the infinities only where x has them, NaN only around
    # the NaN pixel (the 3x3 convolution spreads it), finite elsewhere.
    assert np.isinf(w).sum() == 3
    assert 0 < np.isnan(w).sum() <= 9 * 20
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    np.testing.assert_array_equal(np.isposinf(g), np.isposinf(w))
    np.testing.assert_array_equal(np.isneginf(g), np.isneginf(w))
    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, equal_nan=True)


def squeeze_excitation_model(squeeze):
    """x -> Conv(16 -> 32) -> Relu = a -> GlobalAveragePool -> Conv(32 ->
    squeeze) -> Relu -> Conv(squeeze -> 32) -> Sigmoid = s -> Mul(s, a) ->
    Conv(32 -> 24) -> y: EfficientNet's squeeze-and-excitation, the scale
    [N, 32, 1, 1] broadcast onto a."""
    def weight(name, out, c, k):
        w = RNG.standard_normal((out, c, k, k)).astype(np.float32)
        return numpy_helper.from_array(
            (w / np.sqrt(c * k * k)).astype(np.float32), name)
    inits = [weight("w0", 32, 16, 3), weight("w1", squeeze, 32, 1),
             weight("w2", 32, squeeze, 1), weight("w3", 24, 32, 1)]
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c0"], ["a"]),
        helper.make_node("GlobalAveragePool", ["a"], ["g"]),
        helper.make_node("Conv", ["g", "w1"], ["c1"]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"]),
        helper.make_node("Sigmoid", ["c2"], ["s"]),
        helper.make_node("Mul", ["s", "a"], ["m"]),
        helper.make_node("Conv", ["m", "w3"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "se",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["n", 16, 9, 11])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("squeeze", [32, 4])
def test_squeeze_excitation_stays_blocked(squeeze):
    """The per-channel Mul joins the region: with a 32-channel squeeze the
    whole block is one region (one reorder in, one out); with 4 channels
    the squeeze convolution (32 -> 4 outputs) stays NCHW: the pooled value
    leaves the region and the squeezed one enters it again, both at
    [N, C, 1, 1], but the big activation is never reordered back and
    forth."""
    model = squeeze_excitation_model(squeeze)
    x = RNG.standard_normal((2, 16, 9, 11)).astype(np.float32)
    want = run_ort(model, {"x": x})
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp, args=["-O3"])).run({"x": x})
        _, counts, stderr = pass_stats(os.path.join(tmp, "model.onnx"), 3)
    layout = counts[PASS]
    print(f"squeeze {squeeze}: {layout}")
    assert layout["regions"] == 1, stderr
    if squeeze == 32:
        assert layout["blocked-convs"] == 4
        assert layout["reorders-in"] == 1 and layout["reorders-out"] == 1
    else:
        assert layout["blocked-convs"] == 3 and layout["nchw-convs"] == 1
        assert layout["reorders-in"] == 2 and layout["reorders-out"] == 2
    check_close(got, want, f"squeeze-and-excitation {squeeze}")
