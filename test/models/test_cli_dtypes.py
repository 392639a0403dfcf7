"""Every ABI dtype through the CLI, the way a user runs a model:
`onnxc run --input NAME=FILE --output-dir DIR` with TensorProto .pb inputs
(ONNX packs int4/int2 two and four to a byte) and .npy files as NumPy saves
ml_dtypes' arrays (bfloat16 as raw 2-byte elements, float8/int4/int2 as raw
bytes). Outputs of those dtypes come back as .npy that
np.load(...).view(ml_dtypes.X) reads. Values are checked against the inputs
through the ONNX semantics of Identity and Cast (exact for these types).
The Python session (onnxc.InferenceSession, default options) takes and gives
the same dtypes as ml_dtypes arrays, both ways."""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import onnxc_binary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import onnxc  # noqa: E402

CASES = [
    # (ONNX type, ml_dtypes type, values)
    (TensorProto.INT4, ml_dtypes.int4, [-8, -1, 0, 3, 7]),
    (TensorProto.UINT4, ml_dtypes.uint4, [0, 1, 9, 15, 4]),
    (TensorProto.INT2, ml_dtypes.int2, [-2, -1, 0, 1, 1]),
    (TensorProto.UINT2, ml_dtypes.uint2, [0, 1, 2, 3, 2]),
    (TensorProto.BFLOAT16, ml_dtypes.bfloat16, [-2.5, 0.0, 1.0, 3.25, 1e3]),
    (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn, [-2.5, 0, 1, 3.25, 448]),
    (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2, [-2.5, 0, 1, 3.0, 57344]),
]


def identity_and_cast(elem):
    """y = Identity(x) (the same dtype out) and z = Cast(x) to float."""
    nodes = [helper.make_node("Identity", ["x"], ["y"]),
             helper.make_node("Cast", ["x"], ["z"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(
        nodes, "dtypes", [helper.make_tensor_value_info("x", elem, [5])],
        [helper.make_tensor_value_info("y", elem, [5]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [5])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 11
    return model


def run_cli(model, tmp_path, input_file):
    path = os.path.join(tmp_path, "m.onnx")
    onnx.save(model, path)
    artifact = os.path.join(tmp_path, "m.so")
    subprocess.run([onnxc_binary(), "compile", path, "-o", artifact],
                   check=True, capture_output=True)
    out = os.path.join(tmp_path, "out")
    proc = subprocess.run([onnxc_binary(), "run", artifact, "--input",
                           f"x={input_file}", "--output-dir", out],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return np.load(os.path.join(out, "y.npy")), np.load(os.path.join(out, "z.npy"))


def check(y, z, ml_type, values):
    x = np.array(values, dtype=ml_type)
    assert y.dtype.itemsize == np.dtype(ml_type).itemsize
    np.testing.assert_array_equal(y.view(ml_type).astype(np.float32),
                                  x.astype(np.float32))
    np.testing.assert_array_equal(z, x.astype(np.float32))


@pytest.mark.parametrize("elem,ml_type,values", CASES,
                         ids=[c[1].__name__ for c in CASES])
def test_pb_inputs(elem, ml_type, values, tmp_path):
    """TensorProto inputs as onnx writes them (sub-byte types packed)."""
    x = np.array(values, dtype=ml_type)
    tensor = helper.make_tensor("x", elem, [5], x.astype(np.float32).tolist()
                                if elem in (TensorProto.BFLOAT16,
                                            TensorProto.FLOAT8E4M3FN,
                                            TensorProto.FLOAT8E5M2)
                                else values)
    pb = os.path.join(tmp_path, "x.pb")
    with open(pb, "wb") as f:
        f.write(tensor.SerializeToString())
    assert np.array_equal(numpy_helper.to_array(tensor).astype(np.float32),
                          x.astype(np.float32))
    y, z = run_cli(identity_and_cast(elem), tmp_path, pb)
    check(y, z, ml_type, values)


@pytest.mark.parametrize("elem,ml_type,values", CASES,
                         ids=[c[1].__name__ for c in CASES])
def test_npy_inputs(elem, ml_type, values, tmp_path):
    """.npy inputs as np.save writes ml_dtypes' arrays."""
    npy = os.path.join(tmp_path, "x.npy")
    np.save(npy, np.array(values, dtype=ml_type))
    y, z = run_cli(identity_and_cast(elem), tmp_path, npy)
    check(y, z, ml_type, values)


def test_raw_npy_of_the_wrong_size_is_one_clear_error(tmp_path):
    npy = os.path.join(tmp_path, "x.npy")
    np.save(npy, np.zeros(5, dtype=ml_dtypes.bfloat16))
    with pytest.raises(AssertionError, match="raw 2-byte elements, but the "
                       "input is int4"):
        run_cli(identity_and_cast(TensorProto.INT4), tmp_path, npy)


def cast_from_float(elem):
    """w = Cast(f) from float to the dtype: an output the session makes."""
    graph = helper.make_graph(
        [helper.make_node("Cast", ["f"], ["w"], to=elem)], "to_dtype",
        [helper.make_tensor_value_info("f", TensorProto.FLOAT, [5])],
        [helper.make_tensor_value_info("w", elem, [5])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 11
    return model


@pytest.mark.parametrize("elem,ml_type,values", CASES,
                         ids=[c[1].__name__ for c in CASES])
def test_python_session(elem, ml_type, values, tmp_path):
    """ml_dtypes arrays in and out of onnxc.InferenceSession (default
    options): the input read back through Identity and Cast, and a float Cast
    to the dtype equal to ml_dtypes' conversion of the same (representable)
    values, under ONNX Runtime's type name. (ORT's Python cannot return
    these arrays: bfloat16 and int4 not at all, float8 as raw uint8.)"""
    x = np.array(values, dtype=ml_type)
    path = os.path.join(tmp_path, "m.onnx")
    onnx.save(identity_and_cast(elem), path)
    y, z = onnxc.InferenceSession(path).run(None, {"x": x})
    assert y.dtype == np.dtype(ml_type)
    check(y, z, ml_type, values)

    onnx.save(cast_from_float(elem), path)
    feeds = {"f": x.astype(np.float32)}
    session = onnxc.InferenceSession(path)
    ort = onnxruntime.InferenceSession(path,
                                       providers=["CPUExecutionProvider"])
    assert session.get_outputs()[0].type == ort.get_outputs()[0].type
    (w,) = session.run(None, feeds)
    assert w.dtype == np.dtype(ml_type) and w.shape == (5,)
    np.testing.assert_array_equal(w.astype(np.float32), x.astype(np.float32))
