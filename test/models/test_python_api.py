"""The Python package (python/onnxc) against ONNX Runtime: the same
ONNX Runtime-style code runs through `onnxruntime` and `onnxc` on the
exported models in test/models/torch/ and must agree (signatures, outputs,
output selection by name, errors for bad feeds); plus onnxc.compile from a
path and from a ModelProto with fixed shapes."""
import glob
import os
import sys

import numpy as np
import onnx
import onnxruntime
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import onnxc  # noqa: E402

from onnxc_runner import max_relative_error  # noqa: E402

MODELS = sorted(glob.glob(os.path.join(HERE, "torch", "*.onnx")))


def saved_inputs(model_path):
    with np.load(model_path[:-len(".onnx")] + ".inputs.npz") as data:
        return {k: data[k] for k in data.files}


def ort_style(ort, model_path, feeds, **session_args):
    """Plain ONNX Runtime code; `ort` is the module it runs with."""
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"],
                                   **session_args)
    inputs = [(i.name, i.type, i.shape) for i in session.get_inputs()]
    outputs = [(o.name, o.type, o.shape) for o in session.get_outputs()]
    everything = session.run(None, feeds)
    last_name = session.get_outputs()[-1].name
    (last,) = session.run([last_name], feeds)
    return inputs, outputs, everything, last


@pytest.mark.parametrize("model_path", MODELS, ids=os.path.basename)
def test_same_code_both_packages(model_path, tmp_path):
    feeds = saved_inputs(model_path)
    got = ort_style(onnxc, model_path, feeds, cache_dir=str(tmp_path))
    want = ort_style(onnxruntime, model_path, feeds)
    assert got[0] == want[0], "get_inputs() differs from ONNX Runtime's"
    assert got[1] == want[1], "get_outputs() differs from ONNX Runtime's"
    for g, w in zip(got[2] + [got[3]], want[2] + [want[3]]):
        assert g.shape == w.shape and g.dtype == w.dtype
        err = max_relative_error(g, w)
        print(f"{os.path.basename(model_path)}: max relative error {err:.3g}")
        assert err <= 1e-4
    # A second session finds the compiled model in the cache.
    assert len(glob.glob(str(tmp_path / "*.so"))) == 1
    session = onnxc.InferenceSession(model_path, cache_dir=str(tmp_path))
    assert len(glob.glob(str(tmp_path / "*.so"))) == 1
    # ... and a session over the artifact itself behaves the same.
    direct = onnxc.InferenceSession(session.artifact_path)
    np.testing.assert_array_equal(direct.run(None, feeds)[0], got[2][0])


def test_bad_feeds_raise(tmp_path):
    model_path = MODELS[0]
    feeds = saved_inputs(model_path)
    session = onnxc.InferenceSession(model_path, cache_dir=str(tmp_path))
    name = session.get_inputs()[0].name
    with pytest.raises(onnxc.RunError, match="invalid input name"):
        session.run(None, {**feeds, "no_such_input": feeds[name]})
    with pytest.raises(onnxc.RunError, match="missing input"):
        session.run(None, {k: v for k, v in feeds.items() if k != name})
    with pytest.raises(onnxc.RunError, match="invalid output name"):
        session.run(["no_such_output"], feeds)
    wrong = {**feeds, name: feeds[name].astype(np.float64)
             if feeds[name].dtype != np.float64 else feeds[name].astype(np.float32)}
    with pytest.raises(onnxc.RunError, match=f"input '{name}': dtype"):
        session.run(None, wrong)


class _Tagged(np.ndarray):
    """An ndarray subclass, as a caller's own array type would be."""


def test_feeds_of_any_layout(tmp_path):
    """Inputs that are not C-contiguous ndarrays (a Fortran-order copy, a
    strided view, an ndarray subclass) are read by value:
    the outputs equal those of the contiguous feed bit for bit, and the
    strided feeds agree with ONNX Runtime on the same values."""
    model_path = next(p for p in MODELS if "resnet" in p)
    feeds = saved_inputs(model_path)
    session = onnxc.InferenceSession(model_path, cache_dir=str(tmp_path))
    artifact = onnxc._abi.Artifact(session.artifact_path)
    want = artifact.run(feeds)
    ort = onnxruntime.InferenceSession(model_path,
                                       providers=["CPUExecutionProvider"])
    ort_out = ort.run(None, feeds)

    def strided(a):
        # Every other element of a twice-as-wide array: same values, not
        # contiguous.
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        view = wide[..., ::2]
        assert not view.flags.c_contiguous
        return view

    layouts = {
        "fortran": lambda a: np.asfortranarray(a),
        "strided": strided,
        "subclass": lambda a: a.copy().view(_Tagged),
    }
    for layout, make in layouts.items():
        odd = {k: make(v) for k, v in feeds.items()}
        for k, v in feeds.items():
            np.testing.assert_array_equal(np.asarray(odd[k]), v)
        got = artifact.run(odd)
        for g, w, o in zip(got, want, ort_out):
            np.testing.assert_array_equal(g, w, err_msg=layout)
            assert max_relative_error(g, o) <= 1e-4, layout


def test_compile_model_proto_with_shapes(tmp_path):
    model_path = next(p for p in MODELS if "resnet" in p)
    feeds = saved_inputs(model_path)
    (name, image), = feeds.items()
    model = onnx.load(model_path)
    artifact = onnxc.compile(model, str(tmp_path / "fixed.so"), opt_level=1,
                             shapes={name: image.shape})
    session = onnxc.InferenceSession(artifact)
    assert session.get_inputs()[0].shape == list(image.shape)
    want = onnxruntime.InferenceSession(
        model_path, providers=["CPUExecutionProvider"]).run(None, feeds)
    assert max_relative_error(session.run(None, feeds)[0], want[0]) <= 1e-4
    with pytest.raises(onnxc.CompileError, match="onnxc: error"):
        onnxc.compile(str(tmp_path / "missing.onnx"), str(tmp_path / "m.so"))


def test_intra_op_num_threads(tmp_path):
    # The BERT model's MatMuls run on the runtime's GEMM: one thread and
    # several must give the same numbers (the GEMM's sums do not depend on
    # how rows are split), and a negative count is refused.
    model_path = next(p for p in MODELS if "bert" in p)
    feeds = saved_inputs(model_path)
    results = []
    for threads in (1, 3, 0):
        options = onnxc.SessionOptions()
        options.intra_op_num_threads = threads
        session = onnxc.InferenceSession(model_path, sess_options=options,
                                         cache_dir=str(tmp_path))
        results.append(session.run(None, feeds))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)
    options = onnxc.SessionOptions()
    options.intra_op_num_threads = -1
    with pytest.raises(ValueError, match="intra_op_num_threads"):
        onnxc.InferenceSession(model_path, sess_options=options,
                               cache_dir=str(tmp_path))


def test_large_outputs_reuse_memory_only_once_dropped(tmp_path):
    # Outputs of 1 MiB or more are written into memory recycled from the
    # outputs the caller dropped (python/onnxc/_abi.py, _OutputPool): an
    # array, or any view of it, that is still alive must keep its values
    # through later runs, and a dropped one's memory is used again.
    from onnx import TensorProto, helper
    shape = [512, 1024]  # 2 MiB of float32
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["y"])], "double",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = onnxc.InferenceSession(onnxc.compile(model, str(tmp_path / "d.so")))
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
    first = session.run(None, {"x": xs[0]})[0]
    second = session.run(None, {"x": xs[1]})[0]
    view = session.run(None, {"x": xs[2]})[0][::3, 5:]
    for x in xs[3:] * 3:
        session.run(None, {"x": x})
    np.testing.assert_array_equal(first, 2 * xs[0])
    np.testing.assert_array_equal(second, 2 * xs[1])
    np.testing.assert_array_equal(view, (2 * xs[2])[::3, 5:])
    address = second.__array_interface__["data"][0]
    del second
    again = session.run(None, {"x": xs[3]})[0]
    assert again.__array_interface__["data"][0] == address
    np.testing.assert_array_equal(again, 2 * xs[3])
    np.testing.assert_array_equal(first, 2 * xs[0])


def test_open_shape_outputs_are_the_runs_own_buffers(tmp_path):
    # An output whose shape the artifact leaves open comes back as the run's
    # own buffer, not a copy (python/onnxc/_abi.py): it must keep its values
    # while it, or a view of it, is alive, and go back to the runtime once
    # dropped, where the next run takes it again (a leak would give every
    # run fresh memory at a new address).
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["y"])], "double",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 1024])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = onnxc.InferenceSession(onnxc.compile(model, str(tmp_path / "d.so")))
    rng = np.random.default_rng(6)
    xs = [rng.standard_normal((rows, 1024)).astype(np.float32)
          for rows in (512, 300, 512, 512)]
    first = session.run(None, {"x": xs[0]})[0]
    view = session.run(None, {"x": xs[1]})[0][::3, 5:]
    for x in xs[2:] * 3:
        session.run(None, {"x": x})
    np.testing.assert_array_equal(first, 2 * xs[0])
    np.testing.assert_array_equal(view, (2 * xs[1])[::3, 5:])
    addresses = set()
    for x in xs[2:] * 3:
        out = session.run(None, {"x": x})[0]
        np.testing.assert_array_equal(out, 2 * x)
        addresses.add(out.__array_interface__["data"][0])
        del out
    assert len(addresses) == 1, addresses
    np.testing.assert_array_equal(first, 2 * xs[0])
