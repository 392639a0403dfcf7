"""The C ABI of onnxc artifacts (runtime/include/onnxc/onnxc.h) through ctypes.

`Artifact` opens a compiled model library, reads its metadata and runs it on
numpy arrays. Every output is copied into a numpy array that Python owns and
the runtime's buffer is released at once, so arrays outlive the artifact.
Large outputs of a fixed shape are written into recycled memory
(`_OutputPool`).
"""
import ctypes
import os
import threading
import weakref

import numpy as np

ONNXC_MAX_RANK = 16
ONNXC_ABI_VERSION = 2

# onnxc_dtype (ONNX TensorProto numbering) <-> numpy. ml_dtypes, when
# installed, adds the types numpy lacks (bfloat16, float8, int4, ...).
_DTYPES = {
    1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
    6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
    12: np.uint32, 13: np.uint64,
}
try:
    import ml_dtypes as _ml

    for _code, _name in ((16, "bfloat16"), (17, "float8_e4m3fn"),
                         (18, "float8_e4m3fnuz"), (19, "float8_e5m2"),
                         (20, "float8_e5m2fnuz"), (21, "uint4"), (22, "int4"),
                         (25, "uint2"), (26, "int2")):
        if hasattr(_ml, _name):
            _DTYPES[_code] = getattr(_ml, _name)
except ImportError:
    pass
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}

# The ONNX names ONNX Runtime uses in NodeArg.type ('tensor(float)').
DTYPE_NAMES = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
    7: "int64", 8: "string", 9: "bool", 10: "float16", 11: "double",
    12: "uint32", 13: "uint64", 16: "bfloat16", 17: "float8e4m3fn",
    18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
    21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0",
    25: "uint2", 26: "int2",
}


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
                  ("num_outputs", ctypes.c_int32), ("batch_runs", ctypes.c_int32),
                  ("name", ctypes.c_char_p), ("inputs", ctypes.POINTER(TensorInfo)),
                  ("outputs", ctypes.POINTER(TensorInfo)), ("run", RunFn),
                  ("release_tensor", ReleaseFn), ("graph_invoke", ctypes.c_void_p),
                  # ABI 2
                  ("set_num_threads", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32)),
                  ("workspace_size", ctypes.c_uint64),
                  ("run_with_workspace", ctypes.c_void_p)]


ONNXC_PROFILE_VERSION = 1


class Profile(ctypes.Structure):
    """onnxc_profile: the per-node timers of an artifact compiled with
    --profile (exported as `onnxc_profile`)."""
    _fields_ = [("version", ctypes.c_uint32), ("num_entries", ctypes.c_int32),
                ("nodes", ctypes.POINTER(ctypes.c_char_p)),
                ("op_types", ctypes.POINTER(ctypes.c_char_p)),
                ("nanoseconds", ctypes.POINTER(ctypes.c_uint64))]


class LoadError(RuntimeError):
    """An artifact that cannot serve here: `code` is the onnxc_status_code
    (ONNXC_NO_DEVICE = 5: its device partitions have no usable device)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class RunError(RuntimeError):
    """A failed run: `code` is the onnxc_status_code, `message` the runtime's."""

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


class _OutputPool:
    """Memory for large outputs, used again once the caller drops them.

    A fresh array of a few hundred MB (gpt2's logits at batch 8: 206 MB) is
    fresh pages every run, and the kernel zeroes each on its first write:
    about 200 ms a run, 6% of that model's time, which ONNX Runtime's
    arena-backed outputs do not pay. A block of at least MIN_BYTES is lent
    as the output array; it comes back when the array and every view of it
    are gone (a weakref.finalize on the ctypes object the array is built
    on, which numpy does not see through), and at most KEEP blocks of a size
    wait to be lent again."""

    MIN_BYTES = 1 << 20
    KEEP = 2

    def __init__(self):
        self._lock = threading.Lock()
        self._free = {}

    def array(self, shape, dtype, nbytes):
        """An array of `shape` and `dtype` (a np.dtype), `nbytes` long."""
        if nbytes < self.MIN_BYTES:
            return np.empty(shape, dtype=dtype)
        with self._lock:
            blocks = self._free.get(nbytes)
            block = blocks.pop() if blocks else None
        if block is None:
            block = np.empty(nbytes, dtype=np.uint8)
        lease = (ctypes.c_char * nbytes).from_buffer(block)
        weakref.finalize(lease, self._give_back, block)
        return np.frombuffer(lease, dtype=dtype).reshape(shape)

    def _give_back(self, block):
        with self._lock:
            blocks = self._free.setdefault(block.nbytes, [])
            if len(blocks) < self.KEEP:
                blocks.append(block)


_OUTPUT_POOL = _OutputPool()


def _release_output(artifact, tensor):
    """Gives an output's buffer back to the artifact that made it."""
    artifact._model.contents.release_tensor(ctypes.byref(tensor))


class Artifact:
    """A loaded artifact: `run({name: array})` returns the outputs in order.

    `inputs` and `outputs` describe the model: dicts with name, dtype (numpy
    type or None), dtype_code (onnxc_dtype), dims (-1 if dynamic) and
    dim_params."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        try:
            self._lib = ctypes.CDLL(self.path, mode=ctypes.RTLD_LOCAL)
            entry = self._lib.onnxc_model_entry
        except (OSError, AttributeError) as e:
            raise RuntimeError(f"{path}: not a loadable onnxc artifact ({e})") from None
        entry.restype = ctypes.POINTER(Model)
        entry.argtypes = []
        self._model = entry()
        m = self._model.contents
        if m.abi_version != ONNXC_ABI_VERSION:
            raise RuntimeError(f"{path}: artifact ABI version {m.abi_version}, "
                               f"this package needs {ONNXC_ABI_VERSION}")
        # An artifact with device partitions says at load whether its device
        # is usable (ONNXC_DEVICE_CHECK_SYMBOL in onnxc.h).
        check = getattr(self._lib, "onnxc_device_check", None)
        if check is not None:
            check.restype = ctypes.c_int
            check.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            why = ctypes.create_string_buffer(512)
            status = check(why, len(why))
            if status != 0:
                raise LoadError(status, f"{path}: {why.value.decode()}")
        self.name = m.name.decode() if m.name else ""
        self.inputs = [_info(m.inputs[i]) for i in range(m.num_inputs)]
        self.outputs = [_info(m.outputs[i]) for i in range(m.num_outputs)]
        # Outputs that are sequences of maps with the same keys (a ZipMap),
        # carried as their [N, keys] values (ONNXC_OUTPUT_MAPS_SYMBOL):
        # output name -> (key type name, keys in column order).
        self.output_maps = {}
        try:
            text = ctypes.c_char_p.in_dll(self._lib, "onnxc_output_maps").value
        except ValueError:
            text = None
        for line in (text or b"").decode().splitlines():
            name, key_type, *keys = line.split("\t")
            if key_type == "int64":
                keys = [int(k) for k in keys]
            self.output_maps[name] = (key_type, keys)
        # The bytes of intermediate buffers one run needs (the memory plan).
        self.workspace_size = m.workspace_size
        # What every run needs of the metadata, looked up once: a run of a
        # small model (the mlp bench model: 0.3 ms) spent 17 us in this
        # method, np.prod of each output shape among it.
        self._run_fn = m.run
        self._input_names = [info["name"] for info in self.inputs]
        self._fixed_outputs = []
        for info in self.outputs:
            dims = info["dims"]
            fixed = None
            if info["dtype"] is not None and all(d >= 0 for d in dims):
                dtype = np.dtype(info["dtype"])
                count = 1
                for d in dims:
                    count *= d
                fixed = (tuple(dims), dtype, count * dtype.itemsize)
            self._fixed_outputs.append(fixed)

    def _profile(self):
        try:
            profile = Profile.in_dll(self._lib, "onnxc_profile")
        except ValueError:
            profile = None
        if profile is None or profile.version != ONNXC_PROFILE_VERSION:
            raise RuntimeError(f"{self.path}: compiled without per-node "
                               "timers; compile it with --profile")
        return profile

    def profile(self):
        """The per-node times summed over every run since load (or the last
        reset_profile): a list of dicts with nodes (the ONNX node names, ", "
        joined), op_types ("+" joined) and ns. Needs an artifact compiled
        with --profile (RuntimeError otherwise)."""
        p = self._profile()
        return [{"nodes": p.nodes[i].decode(), "op_types": p.op_types[i].decode(),
                 "ns": p.nanoseconds[i]} for i in range(p.num_entries)]

    def reset_profile(self):
        """Sets every per-node time to zero."""
        p = self._profile()
        for i in range(p.num_entries):
            p.nanoseconds[i] = 0

    def set_num_threads(self, num_threads):
        """Threads the artifact's kernels use: >= 1, or 0 for one per core.
        Shared by every model loaded from the same artifact file."""
        code = self._model.contents.set_num_threads(int(num_threads))
        if code != 0:
            raise ValueError(f"invalid thread count {num_threads}")

    def run(self, feeds):
        keep = []
        ins = (Tensor * max(1, len(self._input_names)))()
        for i, name in enumerate(self._input_names):
            a = feeds[name]
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                # np.ascontiguousarray would turn a 0-d array into a 1-d one.
                a = np.require(a, requirements="C")
            if a.ndim > ONNXC_MAX_RANK:
                raise RunError(1, f"input '{name}': rank {a.ndim} exceeds "
                                  f"{ONNXC_MAX_RANK}")
            keep.append(a)
            t = ins[i]
            t.data = a.ctypes.data if a.size else None
            t.rank = a.ndim
            t.shape[:a.ndim] = a.shape
            t.dtype = _CODES.get(a.dtype, 0)
        outs = (Tensor * max(1, len(self._fixed_outputs)))()
        # An output whose shape the artifact fixes is written straight into
        # a numpy array (one copy, no allocation by the run); the others
        # come back in the run's own buffers and are copied out.
        given = [None] * len(self._fixed_outputs)
        for i, fixed in enumerate(self._fixed_outputs):
            if fixed is None or not fixed[2]:
                continue
            a = _OUTPUT_POOL.array(*fixed)
            given[i] = a
            outs[i].data = a.ctypes.data
            outs[i].size_bytes = fixed[2]
        err = Error()
        code = self._run_fn(self._model, ins, len(self._input_names), outs,
                            len(self._fixed_outputs), ctypes.byref(err))
        if code != 0:
            raise RunError(code, err.message.decode(errors="replace"))
        results = []
        for i in range(len(self._fixed_outputs)):
            t = outs[i]
            if given[i] is not None:
                shape = tuple(t.shape[:t.rank])
                a = given[i]
                if shape != a.shape:  # not expected: the artifact fixed it
                    count = int(np.prod(shape, dtype=np.int64))
                    a = a.reshape(-1)[:count].reshape(shape).copy()
                results.append(a)
                continue
            shape = tuple(t.shape[d] for d in range(t.rank))
            dtype = np.dtype(_DTYPES[t.dtype])
            count = int(np.prod(shape, dtype=np.int64))
            if count:
                # The array is the run's own buffer, not a copy of it: a copy
                # of gpt2's 206 MB logits was fresh pages every run (4.6% of
                # its time with a symbolic batch). The buffer goes back to the
                # runtime once the array and every view of it are gone; the
                # finalizer holds this Artifact, so the library stays loaded.
                buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(t.data)
                weakref.finalize(buf, _release_output, self, Tensor.from_buffer_copy(t))
                arr = np.frombuffer(buf, dtype=dtype).reshape(shape)
            else:
                arr = np.zeros(shape, dtype=dtype)
                self._model.contents.release_tensor(ctypes.byref(t))
            results.append(arr)
        return results
