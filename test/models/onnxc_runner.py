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

    def run(self, feeds):
        """As the package's; under ONNXC_TEST_TARGETS with dnnl on a CPU
        without VNNI, an int8 model skips the rest of its test with the
        runtime's reason (oneDNN's int8 kernels saturate there, so the dnnl
        runtime refuses them: runtime/dnnl)."""
        try:
            return super().run(feeds)
        except RunError as err:
            targets = os.environ.get("ONNXC_TEST_TARGETS", "")
            if ("dnnl" in targets.split(",") and
                    "exact only on CPUs with VNNI" in str(err)):
                import pytest
                pytest.skip(f"compiled for {targets} on a CPU without VNNI: "
                            f"{err}")
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
    def session(precise):
        options = ort.SessionOptions()
        options.log_severity_level = 3
        if precise:
            options.add_session_config_entry("session.x64quantprecision", "1")
        if not optimize:
            options.graph_optimization_level = \
                ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        return ort.InferenceSession(model.SerializeToString(), options,
                                    providers=["CPUExecutionProvider"])
    # On x86 CPUs without VNNI, ORT's default u8 x s8 kernel (AVX2's
    # vpmaddubsw) saturates its 16-bit pair sums, steps away from the exact
    # result; session.x64quantprecision picks its exact AVX2 kernel where it
    # has one (not for every type: then the default).
    if ort_int8_saturates():
        try:
            return session(True).run(None, feeds)
        except Exception as e:
            if "NOT_IMPLEMENTED" not in str(e):
                raise
    return session(False).run(None, feeds)


def ort_int8_saturates():
    """Whether this is an x86 CPU without VNNI, where ONNX Runtime's u8 x s8
    kernels (AVX2's vpmaddubsw) can saturate."""
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return " avx512_vnni" not in flags and " avx_vnni" not in flags


def int8_expected(model, feeds):
    """The outputs an int8 model's bytes are compared with, and whether the
    comparison is exact: ONNX Runtime's, unless one of its 8-bit outputs is
    more than a step from the ONNX reference (its saturating kernels on x86
    without VNNI, see run_ort; e.g. QLinearConv with weights fed as inputs).
    Then the reference's, which requantizes in f64 where onnxc (and ORT)
    use f32: a step apart where a product rounds across a half."""
    from onnx.reference import ReferenceEvaluator
    want = run_ort(model, feeds)
    reference = None
    expected, exact = [], True
    for i, w in enumerate(want):
        w = np.asarray(w)
        if np.issubdtype(w.dtype, np.integer) and w.dtype.itemsize == 1:
            if reference is None:
                reference = ReferenceEvaluator(model).run(None, feeds)
            r = np.asarray(reference[i])
            if np.abs(w.astype(np.int64) - r.astype(np.int64)).max() > 1:
                expected.append(r)
                exact = False
                continue
        expected.append(w)
    return expected, exact


def assert_int8_matches(got, want, exact, what):
    """Bytes equal (exact), or within one step on at most 5% of them."""
    if exact:
        assert np.array_equal(got, want), \
            f"{what}: {int((got != want).sum())} of {want.size} bytes differ"
        return
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= 1 and (diff != 0).mean() <= 0.05, \
        f"{what}: {int((diff != 0).sum())} of {diff.size} bytes differ from " \
        f"the ONNX reference, by up to {diff.max()}"


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
