"""Runs onnxc artifacts from Python through the C ABI (runtime/include/onnxc/onnxc.h).

Test support: compile a ModelProto with the onnxc CLI, load the artifact with
ctypes, run it on numpy arrays, and compare with ONNX Runtime. Used by the
end-to-end tests in test/models/ and by the per-op tests of the lowerings.
"""
import ctypes
import os
import subprocess
import tempfile

import numpy as np
import onnx

ONNXC_MAX_RANK = 16
ONNXC_ABI_VERSION = 1

# onnxc_dtype (ONNX TensorProto numbering) <-> numpy.
_DTYPES = {
    1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
    6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
    12: np.uint32, 13: np.uint64,
}
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("dim_params", ctypes.POINTER(ctypes.c_char_p)),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * ONNXC_MAX_RANK),
                ("rank", ctypes.c_int32), ("dtype", ctypes.c_int32),
                ("size_bytes", ctypes.c_size_t), ("owner", ctypes.c_void_p)]


class Error(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 512)]


class Model(ctypes.Structure):
    pass


RunFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Model), ctypes.POINTER(Tensor),
                         ctypes.c_int32, ctypes.POINTER(Tensor), ctypes.c_int32,
                         ctypes.POINTER(Error))
ReleaseFn = ctypes.CFUNCTYPE(None, ctypes.POINTER(Tensor))
Model._fields_ = [("abi_version", ctypes.c_uint32), ("num_inputs", ctypes.c_int32),
                  ("num_outputs", ctypes.c_int32), ("reserved", ctypes.c_int32),
                  ("name", ctypes.c_char_p), ("inputs", ctypes.POINTER(TensorInfo)),
                  ("outputs", ctypes.POINTER(TensorInfo)), ("run", RunFn),
                  ("release_tensor", ReleaseFn), ("graph_invoke", ctypes.c_void_p)]


class RunError(RuntimeError):
    def __init__(self, code, message):
        super().__init__(f"run failed ({code}): {message}")
        self.code = code
        self.message = message


def _info(info):
    dims = [info.dims[i] for i in range(info.rank)]
    params = [info.dim_params[i].decode() if info.dim_params else ""
              for i in range(info.rank)]
    return {"name": info.name.decode(), "dtype": _DTYPES.get(info.dtype),
            "dtype_code": info.dtype, "dims": dims, "dim_params": params}


class Artifact:
    """A loaded artifact: `run({name: array})` returns the outputs in order."""

    def __init__(self, path):
        self._lib = ctypes.CDLL(os.path.abspath(path), mode=ctypes.RTLD_LOCAL)
        entry = self._lib.onnxc_model_entry
        entry.restype = ctypes.POINTER(Model)
        self._model = entry()
        m = self._model.contents
        if m.abi_version != ONNXC_ABI_VERSION:
            raise RuntimeError(f"{path}: ABI {m.abi_version}")
        self.inputs = [_info(m.inputs[i]) for i in range(m.num_inputs)]
        self.outputs = [_info(m.outputs[i]) for i in range(m.num_outputs)]

    def run(self, feeds):
        m = self._model.contents
        keep = []
        ins = (Tensor * max(1, len(self.inputs)))()
        for i, info in enumerate(self.inputs):
            # np.ascontiguousarray would turn a 0-d array into a 1-d one.
            a = np.require(feeds[info["name"]], requirements="C")
            keep.append(a)
            t = ins[i]
            t.data = a.ctypes.data if a.size else None
            t.rank = a.ndim
            for d, s in enumerate(a.shape):
                t.shape[d] = s
            t.dtype = _CODES.get(a.dtype, 0)
        outs = (Tensor * max(1, len(self.outputs)))()
        err = Error()
        code = m.run(self._model, ins, len(self.inputs), outs, len(self.outputs),
                     ctypes.byref(err))
        if code != 0:
            raise RunError(code, err.message.decode())
        results = []
        for i, info in enumerate(self.outputs):
            t = outs[i]
            shape = tuple(t.shape[d] for d in range(t.rank))
            dtype = np.dtype(_DTYPES[t.dtype])
            count = int(np.prod(shape, dtype=np.int64))
            if count:
                buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(t.data)
                arr = np.frombuffer(buf, dtype=dtype).reshape(shape).copy()
            else:
                arr = np.zeros(shape, dtype=dtype)
            m.release_tensor(ctypes.byref(t))
            results.append(arr)
        return results


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
    proc = subprocess.run([onnxc_binary(), "compile", onnx_path, "-o", so_path, *args],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"onnxc compile failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
    return so_path


def run_ort(model, feeds):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
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
