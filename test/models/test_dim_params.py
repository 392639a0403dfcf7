"""dim_params through import and the run-time checks: names exporters write
for "unknown" ('?', '-1', 'None') are independent unknowns, while a real
name ties the dims that carry it (and a mismatch is a clear error)."""
import tempfile

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxc_runner import Artifact, RunError, compile_model, run_ort


def pooled_sum(dims_x, dims_y):
    """z = GlobalAveragePool(x) + GlobalAveragePool(y)."""
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["px"]),
             helper.make_node("GlobalAveragePool", ["y"], ["py"]),
             helper.make_node("Add", ["px", "py"], ["z"])]
    graph = helper.make_graph(
        nodes, "dims",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims_x),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, dims_y)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("unknown", ["?", "-1", "None"])
def test_placeholder_names_are_independent_unknowns(unknown):
    model = pooled_sum([1, 3, unknown, unknown], [1, 3, unknown, unknown])
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((1, 3, 48, 192)).astype(np.float32),
             "y": rng.standard_normal((1, 3, 20, 7)).astype(np.float32)}
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(model, tmp)).run(feeds)
    np.testing.assert_allclose(got[0], run_ort(model, feeds)[0], rtol=1e-5,
                               atol=1e-6)


def test_a_real_name_ties_its_dims():
    model = pooled_sum([1, 3, "h", "w"], [1, 3, "h", "w"])
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        ok = {"x": rng.standard_normal((1, 3, 5, 6)).astype(np.float32),
              "y": rng.standard_normal((1, 3, 5, 6)).astype(np.float32)}
        np.testing.assert_allclose(artifact.run(ok)[0], run_ort(model, ok)[0],
                                   rtol=1e-5, atol=1e-6)
        bad = dict(ok, y=np.zeros((1, 3, 5, 7), np.float32))
        with pytest.raises(RunError, match="'w'"):
            artifact.run(bad)
