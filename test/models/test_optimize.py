"""The graph optimizer end to end: every model compiled at -O0..-O3 agrees
with ONNX Runtime, and `onnxc optimize` writes a model that ONNX Runtime and
onnxc both load and run to the same outputs. Prints the node counts before
and after the optimizer (from --print-pass-stats)."""
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
import pytest

import test_models
from onnxc_runner import (Artifact, compile_model, max_relative_error,
                          onnxc_binary, run_ort)

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH = os.path.join(HERE, "torch")
RNG = np.random.default_rng(5)


def torch_model(name):
    model = onnx.load(os.path.join(TORCH, name + ".onnx"))
    with np.load(os.path.join(TORCH, name + ".inputs.npz")) as data:
        feeds = {k: data[k] for k in data.files}
    return model, feeds


def builder_model(name):
    if name == "mlp":
        return test_models.mlp(3), {
            "x": RNG.standard_normal((3, 20)).astype(np.float32)}
    if name == "lenet":
        return test_models.lenet(), {
            "x": RNG.standard_normal((2, 1, 28, 28)).astype(np.float32)}
    if name == "encoder_block":
        return test_models.encoder_block(2, 8), test_models.encoder_feeds(2, 8)
    raise KeyError(name)


MODELS = ["resnet_small", "bert_small", "mlp", "lenet", "encoder_block"]


def load(name):
    if os.path.exists(os.path.join(TORCH, name + ".onnx")):
        return torch_model(name)
    return builder_model(name)


def assert_close(name, got, want, rtol=1e-4):
    """Asserts `got` matches `want`; returns the largest float error."""
    assert len(got) == len(want)
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        assert g.shape == w.shape, f"{name} output {i}: {g.shape} vs {w.shape}"
        assert g.dtype == w.dtype, f"{name} output {i}: {g.dtype} vs {w.dtype}"
        if np.issubdtype(w.dtype, np.floating):
            err = max_relative_error(g, w)
            assert err <= rtol, f"{name} output {i}: max relative error {err:.3g}"
            worst = max(worst, err)
        else:
            assert np.array_equal(g, w), f"{name} output {i} differs"
    return worst


def node_counts(model_path, level):
    """(before, after) node counts from `onnxc compile --print-pass-stats`."""
    proc = subprocess.run(
        [onnxc_binary(), "compile", model_path, "--emit", "mlir", "-o",
         os.devnull, f"-O{level}", "--print-pass-stats"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    match = re.search(r"(\d+) nodes before, (\d+) after", proc.stderr)
    assert match, proc.stderr
    return int(match.group(1)), int(match.group(2))


@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", MODELS)
def test_levels_match_ort(name, level):
    model, feeds = load(name)
    want = run_ort(model, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp, args=[f"-O{level}"]))
        got = artifact.run(feeds)
        before, after = node_counts(os.path.join(tmp, "model.onnx"), level)
    assert after <= before
    if level == 0:
        assert after == before
    err = assert_close(f"{name} -O{level}", got, want)
    print(f"{name} -O{level}: {before} nodes before the optimizer, {after} "
          f"after; max relative error vs ONNX Runtime {err:.2g}")


# What the optimizer makes of bert_small (transformers' BERT, 2 layers,
# exported by PyTorch): node counts after the optimizer by level, and the
# rewrites per fusion pass at -O2 (from --print-pass-stats). The attention
# fusion absorbs the mask Add of both attention blocks, so BiasSoftmax has
# nothing left to fuse; the pooler's Tanh goes into its Gemm's epilogue.
BERT_NODES_AFTER = {0: 232, 1: 137, 2: 111, 3: 111}
BERT_FUSIONS_O2 = {
    "onnxc-fuse-gelu": 2,            # Erf form -> Gelu
    "onnxc-fuse-matmul-bias": 12,    # Linear layers -> FusedMatMul / Gemm
    "onnxc-fuse-attention": 2,
    "onnxc-fuse-activation": 1,      # pooler Gemm + Tanh
    "onnxc-fuse-bias-gelu": 2,       # Gelu into the FusedMatMul epilogue
    "onnxc-fuse-bias-softmax": 0,
    "onnxc-fuse-embed-layernorm": 1,
    "onnxc-fuse-skip-layernorm": 4,  # two residual LayerNorms per layer
    "onnxc-fuse-qdq": 0,
}


def pass_counts(model_path, level):
    """{pass: total rewrites} from `onnxc compile --print-pass-stats`."""
    proc = subprocess.run(
        [onnxc_binary(), "compile", model_path, "--emit", "mlir", "-o",
         os.devnull, f"-O{level}", "--print-pass-stats"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    counts = {}
    for line in proc.stderr.splitlines():
        match = re.match(r"onnxc: pass ([\w-]+): (.*)", line)
        if match:
            counts[match.group(1)] = sum(
                int(n) for n in re.findall(r"(\d+) [\w-]+", match.group(2)))
    return counts


def test_bert_small_fusions():
    model, _ = load("bert_small")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        for level, after in BERT_NODES_AFTER.items():
            assert node_counts(path, level) == (232, after), f"-O{level}"
        counts = pass_counts(path, 2)
        proc = subprocess.run(
            [onnxc_binary(), "compile", path, "--emit", "mlir", "-o", "-", "-O2"],
            capture_output=True, text=True)
    for name, expected in BERT_FUSIONS_O2.items():
        assert counts.get(name) == expected, f"{name}: {counts.get(name)}"
    ops = re.findall(r'"(onnxc?\.\w+)"', proc.stdout)
    assert ops.count("onnxc.SkipLayerNorm") == 4
    assert ops.count("onnxc.EmbedLayerNorm") == 1
    assert ops.count("onnx.Attention") == 2
    assert "onnx.LayerNormalization" not in ops and "onnx.Gelu" not in ops
    assert proc.stdout.count('activation = "Gelu"') == 2


@pytest.mark.parametrize("name", MODELS)
def test_optimize_round_trip(name):
    """onnxc optimize -> ONNX Runtime and onnxc give the original outputs."""
    model, feeds = load(name)
    want = run_ort(model, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "model.onnx")
        dst = os.path.join(tmp, "optimized.onnx")
        onnx.save(model, src)
        proc = subprocess.run([onnxc_binary(), "optimize", src, "-o", dst],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        optimized = onnx.load(dst)
        onnx.checker.check_model(optimized)
        print(f"{name}: {len(model.graph.node)} nodes in the model, "
              f"{len(optimized.graph.node)} in the optimized one")
        assert [i.name for i in optimized.graph.input] == \
            [i.name for i in model.graph.input
             if i.name not in {t.name for t in model.graph.initializer}]
        assert [o.name for o in optimized.graph.output] == \
            [o.name for o in model.graph.output]
        # Fused ops of the onnxc domain are onnxc's own: ONNX Runtime can
        # only run an optimized model without them.
        domains = {n.domain for n in optimized.graph.node}
        if domains <= {"", "ai.onnx", "ai.onnx.ml"}:
            assert_close(f"{name} optimized (ONNX Runtime)",
                         [np.asarray(v) for v in run_ort(optimized, feeds)], want)
        else:
            assert {i.domain for i in optimized.opset_import} >= domains
        artifact = Artifact(compile_model(optimized, tmp, name="again"))
        assert_close(f"{name} optimized (onnxc)", artifact.run(feeds), want)


def test_identity_of_input_stays_an_output():
    """A graph output that is an Identity of a graph input (and one that is a
    duplicate of another output) is still produced at every level."""
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["same"]),
         helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("Identity", ["r"], ["r2"])],
        "identity_io",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("same", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("r2", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for level in range(4):
        with tempfile.TemporaryDirectory() as tmp:
            artifact = Artifact(compile_model(model, tmp, args=[f"-O{level}"]))
            assert [o["name"] for o in artifact.outputs] == ["same", "r", "r2"]
            got = artifact.run({"x": x})
        assert_close(f"identity_io -O{level}", got, run_ort(model, {"x": x}))


def test_control_flow_round_trip():
    """If and Loop bodies are exported as graph attributes (inputs, outputs
    and outer-scope values by name) and run in ONNX Runtime unchanged."""
    from onnx import TensorProto as T, helper, numpy_helper
    then_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t_out"])], "then", [],
        [helper.make_tensor_value_info("t_out", T.FLOAT, [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["negx"]),
         helper.make_node("Identity", ["negx"], ["e_out"])], "else", [],
        [helper.make_tensor_value_info("e_out", T.FLOAT, [2, 3])])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan_out"])], "body",
        [helper.make_tensor_value_info("i", T.INT64, []),
         helper.make_tensor_value_info("cond_in", T.BOOL, []),
         helper.make_tensor_value_info("acc_in", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("cond_out", T.BOOL, []),
         helper.make_tensor_value_info("acc_out", T.FLOAT, [2, 3]),
         helper.make_tensor_value_info("scan_out", T.FLOAT, [2, 3])])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Loop", ["n", "", "zero"], ["acc", "scans"], body=body)],
        "control_flow",
        [helper.make_tensor_value_info("c", T.BOOL, []),
         helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 3]),
         helper.make_tensor_value_info("acc", T.FLOAT, [2, 3]),
         helper.make_tensor_value_info("scans", T.FLOAT, [3, 2, 3])],
        [numpy_helper.from_array(np.array(3, np.int64), "n"),
         numpy_helper.from_array(np.zeros((2, 3), np.float32), "zero")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "model.onnx")
        dst = os.path.join(tmp, "optimized.onnx")
        onnx.save(model, src)
        proc = subprocess.run([onnxc_binary(), "optimize", src, "-o", dst],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        optimized = onnx.load(dst)
        onnx.checker.check_model(optimized)
    for cond in (False, True):
        feeds = {"c": np.array(cond),
                 "x": RNG.standard_normal((2, 3)).astype(np.float32)}
        assert_close("control_flow optimized",
                     [np.asarray(v) for v in run_ort(optimized, feeds)],
                     run_ort(model, feeds), rtol=0)
