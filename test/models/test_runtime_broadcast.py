"""Run-time broadcasting of dynamic dims (docs/internals.md, section 2).

Shape inference cannot check a dim that is only known at run time, so the
lowering does (LinalgBuilders.cpp: broadcastShapes, broadcastOperandTo):
a dynamic dim facing a static n must be 1 or n, two dynamic dims must be
equal or one of them 1 (numpy's rule). Correct inputs must give ONNX
Runtime's answer; incorrect ones must fail `run` with ONNXC_INVALID_ARGUMENT
and a message naming the node and both sizes, without reading out of bounds.
"""
import os
import sys
import tempfile

import numpy as np
import pytest
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxc_runner import Artifact, RunError, compile_model, run_ort  # noqa: E402

F = TensorProto.FLOAT
INVALID_ARGUMENT = 1


def make_model(op, inputs, attrs=None, name="node0", output_type=F,
               initializers=()):
    """One-node model: `inputs` is [(name, elem_type, shape)]."""
    node = helper.make_node(op, [n for n, _, _ in inputs], ["Z"], name=name,
                            **(attrs or {}))
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info("Z", output_type, None)],
        initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


_ARTIFACTS = {}


def artifact(key, model, tmp):
    """Compiles `model` once per key (a module-wide cache)."""
    if key not in _ARTIFACTS:
        _ARTIFACTS[key] = Artifact(compile_model(model, tmp, name=key))
    return _ARTIFACTS[key]


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory() as tmp:
        yield tmp


def rand(*shape, dtype=np.float32):
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(
        shape).astype(dtype)


def check_ok(art, model, feeds):
    got = art.run(feeds)
    want = run_ort(model, feeds)
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"shape {g.shape}, expected {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def check_error(art, feeds, node, a, b):
    with pytest.raises(RunError) as info:
        art.run(feeds)
    assert info.value.code == INVALID_ARGUMENT
    assert (f"node '{node}': cannot broadcast dims of size {a} and {b}"
            in info.value.message), info.value.message


# --- The four cases of the issue: Add(X[N], Y[M]) and Add(X[N], Y[3]). ---

DD = make_model("Add", [("X", F, ["N"]), ("Y", F, ["M"])], name="add0")
DS = make_model("Add", [("X", F, ["N"]), ("Y", F, [3])], name="add0")


@pytest.mark.parametrize("n,m", [(1, 3), (3, 1), (3, 3), (1, 1), (0, 0),
                                 (0, 1), (1, 0), (7, 7)])
def test_dynamic_dynamic_broadcasts(workdir, n, m):
    feeds = {"X": rand(n), "Y": rand(m)}
    check_ok(artifact("dd", DD, workdir), DD, feeds)


@pytest.mark.parametrize("n,m", [(3, 5), (5, 3), (2, 0), (0, 2)])
def test_dynamic_dynamic_mismatch_is_an_error(workdir, n, m):
    check_error(artifact("dd", DD, workdir), {"X": rand(n), "Y": rand(m)},
                "add0", n, m)


@pytest.mark.parametrize("n", [1, 3])
def test_dynamic_static_broadcasts(workdir, n):
    check_ok(artifact("ds", DS, workdir), DS, {"X": rand(n), "Y": rand(3)})


@pytest.mark.parametrize("n", [5, 2, 0])
def test_dynamic_static_mismatch_is_an_error(workdir, n):
    check_error(artifact("ds", DS, workdir), {"X": rand(n), "Y": rand(3)},
                "add0", n, 3)


def test_a_run_after_an_error_succeeds(workdir):
    """The error record is per run: a failed run leaves nothing behind."""
    art = artifact("dd", DD, workdir)
    with pytest.raises(RunError):
        art.run({"X": rand(3), "Y": rand(5)})
    check_ok(art, DD, {"X": rand(4), "Y": rand(1)})


# --- Rank 2, both operands broadcasting in different dims. ---

DD2 = make_model("Mul", [("X", F, ["A", "B"]), ("Y", F, ["C", "D"])],
                 name="mul2")


@pytest.mark.parametrize("xs,ys", [((4, 1), (1, 5)), ((1, 5), (4, 1)),
                                   ((4, 5), (4, 5)), ((4, 5), (1, 5)),
                                   ((1, 1), (4, 5))])
def test_rank2_broadcasts(workdir, xs, ys):
    check_ok(artifact("dd2", DD2, workdir), DD2,
             {"X": rand(*xs), "Y": rand(*ys)})


def test_rank2_mismatch_names_the_dim_sizes(workdir):
    check_error(artifact("dd2", DD2, workdir),
                {"X": rand(4, 5), "Y": rand(4, 6)}, "mul2", 5, 6)


# --- Variadic ops: Sum, Max, Min, Mean over three dynamic inputs. ---

@pytest.mark.parametrize("op", ["Sum", "Max", "Min", "Mean"])
def test_variadic(workdir, op):
    model = make_model(op, [("A", F, ["N"]), ("B", F, ["M"]), ("C", F, ["K"])],
                       name=op.lower())
    art = artifact("var_" + op, model, workdir)
    for sizes in [(1, 4, 1), (4, 4, 4), (4, 1, 4), (1, 1, 4)]:
        check_ok(art, model, {k: rand(n) for k, n in zip("ABC", sizes)})
    check_error(art, {"A": rand(4), "B": rand(1), "C": rand(3)},
                op.lower(), 4, 3)


# --- Where: condition, X, Y all dynamic. ---

WHERE = make_model("Where", [("C", TensorProto.BOOL, ["N", 1]),
                             ("X", F, ["M"]), ("Y", F, ["K", "L"])],
                   name="where0")


@pytest.mark.parametrize("c,x,y", [((3, 1), (4,), (1, 4)), ((1, 1), (4,), (3, 4)),
                                   ((3, 1), (1,), (3, 1)), ((3, 1), (4,), (3, 4))])
def test_where(workdir, c, x, y):
    feeds = {"C": np.random.default_rng(0).random(c) > 0.5, "X": rand(*x),
             "Y": rand(*y)}
    check_ok(artifact("where", WHERE, workdir), WHERE, feeds)


def test_where_mismatch(workdir):
    feeds = {"C": np.ones((3, 1), bool), "X": rand(4), "Y": rand(2, 5)}
    with pytest.raises(RunError) as info:
        artifact("where", WHERE, workdir).run(feeds)
    assert info.value.code == INVALID_ARGUMENT
    assert "node 'where0': cannot broadcast dims of size" in info.value.message


# --- Expand: a dynamic input against a constant and a run-time shape. ---

def test_expand_constant_shape(workdir):
    shape = helper.make_tensor("S", TensorProto.INT64, [2], [2, 3])
    model = make_model("Expand", [("X", F, ["N"]), ("S", TensorProto.INT64, [2])],
                       name="expand0", initializers=[shape])
    art = artifact("expand_const", model, workdir)
    for n in (1, 3):
        check_ok(art, model, {"X": rand(n)})
    check_error(art, {"X": rand(4)}, "expand0", 4, 3)


def test_expand_runtime_shape(workdir):
    model = make_model("Expand", [("X", F, ["N", 3]),
                                  ("S", TensorProto.INT64, [2])],
                       name="expand1")
    art = artifact("expand_rt", model, workdir)
    for n, shape in [(1, [4, 3]), (4, [4, 3]), (4, [1, 3]), (4, [4, 1]),
                     (1, [1, 1])]:
        check_ok(art, model, {"X": rand(n, 3), "S": np.array(shape, np.int64)})
    check_error(art, {"X": rand(2, 3), "S": np.array([5, 3], np.int64)},
                "expand1", 2, 5)
    check_error(art, {"X": rand(1, 3), "S": np.array([2, 4], np.int64)},
                "expand1", 3, 4)


# --- MatMul batch dims. ---

MATMUL = make_model("MatMul", [("A", F, ["B1", 2, 3]), ("B", F, ["B2", 3, 4])],
                    name="mm0")
MATMUL4 = make_model("MatMul", [("A", F, ["P", "Q", 2, 3]),
                                ("B", F, ["R", 3, 4])], name="mm1")


@pytest.mark.parametrize("b1,b2", [(1, 3), (3, 1), (3, 3), (1, 1)])
def test_matmul_batch(workdir, b1, b2):
    check_ok(artifact("mm", MATMUL, workdir), MATMUL,
             {"A": rand(b1, 2, 3), "B": rand(b2, 3, 4)})


@pytest.mark.parametrize("p,q,r", [(2, 1, 3), (2, 3, 1), (1, 3, 3)])
def test_matmul_batch_rank4(workdir, p, q, r):
    check_ok(artifact("mm4", MATMUL4, workdir), MATMUL4,
             {"A": rand(p, q, 2, 3), "B": rand(r, 3, 4)})


def test_matmul_batch_mismatch(workdir):
    check_error(artifact("mm", MATMUL, workdir),
                {"A": rand(2, 2, 3), "B": rand(3, 3, 4)}, "mm0", 2, 3)


# --- The same model, optimized: fusion must keep the checks. ---

def test_fused_chain(workdir):
    nodes = [helper.make_node("Add", ["X", "Y"], ["T"], name="add_a"),
             helper.make_node("Relu", ["T"], ["U"], name="relu_a"),
             helper.make_node("Mul", ["U", "W"], ["Z"], name="mul_a")]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("X", F, ["N", 4]),
         helper.make_tensor_value_info("Y", F, ["M", 4]),
         helper.make_tensor_value_info("W", F, ["K", 1])],
        [helper.make_tensor_value_info("Z", F, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    art = artifact("chain", model, workdir)
    for n, m, k in [(3, 3, 3), (1, 3, 3), (3, 1, 1), (3, 3, 1)]:
        check_ok(art, model, {"X": rand(n, 4), "Y": rand(m, 4), "W": rand(k, 1)})
    check_error(art, {"X": rand(3, 4), "Y": rand(2, 4), "W": rand(3, 1)},
                "add_a", 3, 2)
    check_error(art, {"X": rand(3, 4), "Y": rand(3, 4), "W": rand(2, 1)},
                "mul_a", 3, 2)


# f32 MatMul is a runtime GEMM call (GemmCall.cpp); f64 takes the linalg
# lowering (MatMul.cpp). Both must broadcast and refuse the same way.
MATMUL_F64 = make_model("MatMul", [("A", TensorProto.DOUBLE, ["B1", 2, 3]),
                                   ("B", TensorProto.DOUBLE, ["B2", 3, 4])],
                        name="mm64", output_type=TensorProto.DOUBLE)


@pytest.mark.parametrize("b1,b2", [(1, 3), (3, 1), (3, 3)])
def test_matmul_batch_f64(workdir, b1, b2):
    check_ok(artifact("mm64", MATMUL_F64, workdir), MATMUL_F64,
             {"A": rand(b1, 2, 3, dtype=np.float64),
              "B": rand(b2, 3, 4, dtype=np.float64)})


def test_matmul_batch_mismatch_f64(workdir):
    check_error(artifact("mm64", MATMUL_F64, workdir),
                {"A": rand(2, 2, 3, dtype=np.float64),
                 "B": rand(3, 3, 4, dtype=np.float64)}, "mm64", 2, 3)


def test_matmul_inner_dims_mismatch(workdir):
    model = make_model("MatMul", [("A", F, [2, "K1"]), ("B", F, ["K2", 3])],
                       name="mm_k")
    art = artifact("mm_k", model, workdir)
    check_ok(art, model, {"A": rand(2, 5), "B": rand(5, 3)})
    with pytest.raises(RunError) as info:
        art.run({"A": rand(2, 3), "B": rand(4, 3)})
    assert info.value.code == INVALID_ARGUMENT
    assert ("node 'mm_k': the inner dims of the product differ (3 vs 4)"
            in info.value.message), info.value.message
