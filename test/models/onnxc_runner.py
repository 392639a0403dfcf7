"""Runs onnxc artifacts from Python through the C ABI (runtime/include/onnxc/onnxc.h).

Test support: compile a ModelProto with the onnxc CLI, load the artifact with
ctypes (the onnxc Python package's Artifact), run it on numpy arrays, and
compare with ONNX Runtime. Used by the
end-to-end tests in test/models/ and by the per-op tests of the lowerings.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

# The C ABI layer is the Python package's (python/onnxc), used from the tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from onnxc._abi import _CODES, _DTYPES, LoadError, RunError  # noqa: E402,F401
from onnxc._abi import Artifact as _Artifact  # noqa: E402

NO_DEVICE = 5  # ONNXC_NO_DEVICE


class Artifact(_Artifact):
    """The package's Artifact. Under ONNXC_TEST_TARGETS with a device
    target on a machine without that device, a model that compiled (ptxas
    included) but cannot load skips the rest of its test with that reason,
    so the model tests check the device target's compile path in CI and
    its results where the device is."""

    def __init__(self, path):
        try:
            super().__init__(path)
        except LoadError as err:
            targets = os.environ.get("ONNXC_TEST_TARGETS", "")
            if err.code == NO_DEVICE and "cuda" in targets.split(","):
                import pytest
                pytest.skip(f"compiled for {targets}; running needs the "
                            f"device: {err}")
            raise


def onnxc_binary():
    path = os.environ.get("ONNXC")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "build", "tools", "onnxc", "onnxc")


def compile_model(model, workdir, name="model", args=()):
    """Saves `model` (a ModelProto) under `workdir` and compiles it; returns
    the artifact path. Raises AssertionError with onnxc's stderr."""
    onnx_path = os.path.join(workdir, name + ".onnx")
    so_path = os.path.join(workdir, name + ".so")
    onnx.save(model, onnx_path)
    # ONNXC_TEST_TARGETS=dnnl,cpu runs the model tests on other targets.
    targets = os.environ.get("ONNXC_TEST_TARGETS")
    if targets and not any(a == "--targets" for a in args):
        args = [*args, "--targets", targets]
    proc = subprocess.run([onnxc_binary(), "compile", onnx_path, "-o", so_path, *args],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"onnxc compile failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
    return so_path


def run_ort(model, feeds, optimize=True):
    """ONNX Runtime's outputs (CPU). optimize=False runs the graph node by
    node as written, without ORT's fusions (a QDQ model then stays float
    arithmetic between its Quantize/DequantizeLinear nodes)."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if not optimize:
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def max_relative_error(got, want):
    """max |got - want| / max(max |want|, tiny), NaN-aware (NaN == NaN)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    both_nan = np.isnan(got) & np.isnan(want)
    diff = np.where(both_nan, 0.0, np.abs(got - want))
    same_inf = np.isinf(got) & np.isinf(want) & (np.sign(got) == np.sign(want))
    diff = np.where(same_inf, 0.0, diff)
    if diff.size == 0:
        return 0.0
    scale = np.max(np.where(np.isfinite(want), np.abs(want), 0.0), initial=0.0)
    return float(np.max(diff) / max(scale, 1e-30))


def check_against_ort(model, feeds, rtol=1e-4, args=(), expected=None):
    """Compiles and runs `model` with onnxc, runs it with ONNX Runtime (or
    compares with `expected`), and asserts every output matches: exact for
    integers and bools, max relative error <= rtol for floats. Returns the
    list of per-output errors."""
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp, args=args))
        got = artifact.run(feeds)
    want = expected if expected is not None else run_ort(model, feeds)
    assert len(got) == len(want), f"{len(got)} outputs, expected {len(want)}"
    errors = []
    for i, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        assert g.shape == w.shape, f"output {i}: shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"output {i}: dtype {g.dtype}, expected {w.dtype}"
        if np.issubdtype(w.dtype, np.floating):
            err = max_relative_error(g, w)
            assert err <= rtol, f"output {i}: max relative error {err:.3g} > {rtol}"
            errors.append(err)
        else:
            assert np.array_equal(g, w), f"output {i}: values differ\n{g}\n{w}"
            errors.append(0.0)
    return errors
