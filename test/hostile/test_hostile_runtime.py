"""Hostile run-time inputs (docs/security.md): valid models with dynamic dims,
run with shapes that do not broadcast or that broadcast from far apart
sizes. `run` must refuse the former with ONNXC_INVALID_ARGUMENT naming the
node and the two sizes, and give numpy's answer for the latter; it must
never crash or read out of bounds. Each run happens in a child process so a
crash shows up as a signal instead of killing the test."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
ONNXC = os.environ.get("ONNXC") or os.path.join(ROOT, "build", "tools", "onnxc",
                                                "onnxc")
F = TensorProto.FLOAT
BIG = 1 << 22  # far past any allocation the small operand has


def _model(op, inputs, name):
    node = helper.make_node(op, [n for n, _ in inputs], ["Z"], name=name)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
        [helper.make_tensor_value_info("Z", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


MODELS = {
    "dd": _model("Add", [("X", ["N"]), ("Y", ["M"])], "add_dd"),
    "ds": _model("Add", [("X", ["N"]), ("Y", [3])], "add_ds"),
    "mm": _model("MatMul", [("X", ["B", 2, 2]), ("Y", ["C", 2, 2])], "mm"),
}

# (model, X shape, Y shape, expected: None for numpy's answer, else the
# message the run must fail with).
CASES = [
    ("dd", [BIG], [1], None),
    ("dd", [1], [BIG], None),
    ("dd", [BIG], [5], f"node 'add_dd': cannot broadcast dims of size {BIG} and 5"),
    ("dd", [5], [BIG], f"node 'add_dd': cannot broadcast dims of size 5 and {BIG}"),
    ("dd", [0], [BIG], f"node 'add_dd': cannot broadcast dims of size 0 and {BIG}"),
    ("ds", [BIG], [3], f"node 'add_ds': cannot broadcast dims of size {BIG} and 3"),
    ("ds", [0], [3], "node 'add_ds': cannot broadcast dims of size 0 and 3"),
    ("mm", [BIG // 4, 2, 2], [1, 2, 2], None),
    ("mm", [1, 2, 2], [BIG // 4, 2, 2], None),
    ("mm", [7, 2, 2], [BIG // 4, 2, 2],
     f"node 'mm': cannot broadcast dims of size 7 and {BIG // 4}"),
]

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from onnxc._abi import Artifact, RunError
    art = Artifact(sys.argv[2])
    xs, ys, op = json.loads(sys.argv[3])
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    y = rng.standard_normal(ys).astype(np.float32)
    try:
        (z,) = art.run({"X": x, "Y": y})
    except RunError as e:
        print(json.dumps({"code": e.code, "message": e.message}))
    else:
        want = x + y if op == "Add" else np.matmul(x, y)
        ok = z.shape == want.shape and np.allclose(z, want, atol=1e-5)
        print(json.dumps({"code": 0, "ok": bool(ok)}))
""")


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("artifacts")
    paths = {}
    for key, model in MODELS.items():
        onnx_path, so_path = folder / f"{key}.onnx", folder / f"{key}.so"
        onnx.save(model, str(onnx_path))
        proc = subprocess.run([ONNXC, "compile", str(onnx_path), "-o", str(so_path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        paths[key] = str(so_path)
    return paths


@pytest.mark.parametrize("key,xs,ys,expected", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_runtime_shapes(artifacts, key, xs, ys, expected):
    op = MODELS[key].graph.node[0].op_type
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, os.path.join(ROOT, "python"),
         artifacts[key], json.dumps([xs, ys, op])],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (
        f"the run exited with {proc.returncode} (negative: a signal)\n"
        f"{proc.stderr}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if expected is None:
        assert result == {"code": 0, "ok": True}, result
    else:
        assert result["code"] == 1, result  # ONNXC_INVALID_ARGUMENT
        assert result["message"] == expected, result["message"]
