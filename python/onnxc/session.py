"""`onnxc.InferenceSession`: ONNX Runtime's InferenceSession API over a
compiled onnxc artifact."""
import hashlib
import json
import os
import tempfile
import time

import numpy as np

from ._abi import DTYPE_NAMES, Artifact, RunError
from ._compiler import compile as _compile
from ._compiler import find_onnxc


class NodeArg:
    """An input or output, as ONNX Runtime's NodeArg: `name`, `shape` (an int
    per fixed dim, the dim_param's name for a symbolic one, None for a dim
    with neither) and `type` ('tensor(float)', ...)."""

    def __init__(self, name, shape, type):
        self.name = name
        self.shape = shape
        self.type = type

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


def _node_arg(info, maps=None):
    if maps and info["name"] in maps:
        # A sequence of maps, typed as ONNX Runtime types it.
        return NodeArg(info["name"], [],
                       f"seq(map({maps[info['name']][0]},tensor(float)))")
    shape = []
    for dim, param in zip(info["dims"], info["dim_params"]):
        shape.append(dim if dim >= 0 else (param or None))
    dtype = DTYPE_NAMES.get(info["dtype_code"], "undefined")
    return NodeArg(info["name"], shape, f"tensor({dtype})")


class SessionOptions:
    """Accepted for ONNX Runtime compatibility. `graph_optimization_level`
    (0..3, or ORT's GraphOptimizationLevel) picks onnxc's -O level;
    `intra_op_num_threads` the threads the kernels use (0: one per core);
    `enable_profiling` compiles the model with per-node timers (onnxc
    compile --profile) for InferenceSession.end_profiling, which writes
    them to `profile_file_prefix` + a timestamp + ".json"; the other
    attributes are kept and ignored."""

    def __init__(self):
        self.graph_optimization_level = None
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.log_severity_level = 2
        self.enable_profiling = False
        self.profile_file_prefix = "onnxc_profile"


# ONNX Runtime's execution provider names -> onnxc targets.
PROVIDER_TARGETS = {
    "CPUExecutionProvider": "cpu",
    "DnnlExecutionProvider": "dnnl",
    "CUDAExecutionProvider": "cuda",
}


def _targets(providers):
    """The --targets list for ORT's `providers` (names, or (name, options)
    pairs), in their priority order; None for the default (cpu)."""
    if not providers:
        return None
    targets = []
    for provider in providers:
        name = provider[0] if isinstance(provider, (tuple, list)) else provider
        target = PROVIDER_TARGETS.get(name)
        if target is None:
            raise ValueError(
                f"unknown provider {name!r}; onnxc maps "
                f"{', '.join(sorted(PROVIDER_TARGETS))}")
        if target not in targets:
            targets.append(target)
    # cpu is always the implicit last target: ["dnnl", "cpu"] compiles (and
    # caches) as ["dnnl"], ["cpu"] as the default.
    if targets[-1] == "cpu":
        targets.pop()
    return targets or None


def default_cache_dir():
    """$ONNXC_CACHE_DIR, else $XDG_CACHE_HOME/onnxc, else ~/.cache/onnxc."""
    path = os.environ.get("ONNXC_CACHE_DIR")
    if path:
        return path
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "onnxc")


def _opt_level(sess_options, opt_level):
    if opt_level is not None:
        return int(opt_level)
    level = getattr(sess_options, "graph_optimization_level", None)
    if level is None:
        return 2
    # ORT's enum: ORT_DISABLE_ALL=0, BASIC=1, EXTENDED=2, ORT_ENABLE_ALL=99.
    level = int(getattr(level, "value", level))
    return min(max(level, 0), 3)


class InferenceSession:
    """Runs a compiled model with ONNX Runtime's session API.

    path_or_bytes: a compiled artifact (.so), or a model (.onnx path,
        serialized bytes, or onnx.ModelProto) that is compiled once into the
        cache directory, keyed by the model's bytes, the options and the
        onnxc executable.
    sess_options, provider_options: accepted as ONNX Runtime takes them.
    providers: ONNX Runtime's provider names in priority order, mapped to
        onnxc targets (PROVIDER_TARGETS: DnnlExecutionProvider -> dnnl, ...);
        the cpu target always comes last. A target this onnxc was not built
        with is a compile error naming the targets it has.
    opt_level, shapes, cache_dir: onnxc's -O level (default from
        sess_options, else 2), fixed input shapes {name: dims}, and where
        compiled models are kept (default_cache_dir()).
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None,
                 provider_options=None, opt_level=None, shapes=None,
                 cache_dir=None, **kwargs):
        level = _opt_level(sess_options, opt_level)
        self._targets = _targets(providers)
        self._profiling = bool(getattr(sess_options, "enable_profiling",
                                       False))
        self._profile_prefix = getattr(sess_options, "profile_file_prefix",
                                       "onnxc_profile")
        source = path_or_bytes
        if hasattr(source, "SerializeToString"):
            source = source.SerializeToString()
        if isinstance(source, (bytes, bytearray)):
            self._model_path = None
            artifact = self._compile_cached(bytes(source), None, level, shapes,
                                            cache_dir, self._profiling,
                                            self._targets)
        else:
            path = os.fspath(source)
            self._model_path = path
            with open(path, "rb") as f:
                is_artifact = f.read(4) == b"\x7fELF"
            # A compiled artifact is a shared library; anything else is taken
            # for a model.
            if not is_artifact:
                with open(path, "rb") as f:
                    data = f.read()
                artifact = self._compile_cached(data, path, level, shapes,
                                                cache_dir, self._profiling,
                                                self._targets)
            else:
                if shapes:
                    raise ValueError("shapes apply to a model, not to a "
                                     "compiled artifact")
                artifact = path
        self._artifact = Artifact(artifact)
        if self._profiling:
            self._artifact.profile()  # RuntimeError: compiled without timers
            self._artifact.reset_profile()
        self._runs = 0
        if sess_options is not None:
            # Per artifact file, not per session: sessions of one artifact
            # share its runtime (and the last setting).
            threads = int(getattr(sess_options, "intra_op_num_threads", 0) or 0)
            if threads < 0:
                raise ValueError(
                    f"intra_op_num_threads must be >= 0, got {threads}")
            self._artifact.set_num_threads(threads)
        self.artifact_path = self._artifact.path
        self._inputs = [_node_arg(i) for i in self._artifact.inputs]
        maps = self._artifact.output_maps
        self._outputs = [_node_arg(o, maps) for o in self._artifact.outputs]
        # Per output: the keys of a sequence-of-maps output, else None.
        self._map_keys = [maps[o.name][1] if o.name in maps else None
                          for o in self._outputs]
        self._output_index = {o.name: i for i, o in enumerate(self._outputs)}

    @staticmethod
    def _compile_cached(data, path, level, shapes, cache_dir, profile,
                        targets=None):
        onnxc = find_onnxc()
        stat = os.stat(onnxc)
        key = hashlib.sha256()
        key.update(data)
        key.update(repr((level, sorted((shapes or {}).items()),
                         os.path.realpath(onnxc), stat.st_size,
                         stat.st_mtime_ns, profile, targets)).encode())
        # A model with external data is compiled where it lies, so the data
        # is found; its location is part of the key.
        if path is not None:
            key.update(os.path.realpath(path).encode())
        cache = cache_dir or default_cache_dir()
        os.makedirs(cache, exist_ok=True)
        artifact = os.path.join(cache, key.hexdigest()[:32] + ".so")
        if os.path.exists(artifact):
            return artifact
        with tempfile.TemporaryDirectory(dir=cache, prefix=".build-") as tmp:
            model = path
            if model is None:
                model = os.path.join(tmp, "model.onnx")
                with open(model, "wb") as f:
                    f.write(data)
            extra = ["--profile"] if profile else []
            if targets:
                extra += ["--targets", ",".join(targets)]
            built = _compile(model, os.path.join(tmp, "model.so"),
                             opt_level=level, shapes=shapes,
                             extra_args=extra)
            os.replace(built, artifact)  # atomic: racing sessions agree
        return artifact

    def get_inputs(self):
        return list(self._inputs)

    def get_outputs(self):
        return list(self._outputs)

    def get_providers(self):
        names = {t: p for p, t in PROVIDER_TARGETS.items()}
        targets = [t for t in (self._targets or []) if t != "cpu"]
        return [names[t] for t in targets] + ["CPUExecutionProvider"]

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model on `input_feed` ({input name: array}) and returns
        the outputs named in `output_names` (all of them when None or empty),
        as numpy arrays, in that order."""
        names = [i.name for i in self._inputs]
        unknown = [n for n in input_feed if n not in names]
        if unknown:
            raise RunError(1, f"invalid input name(s) {unknown}; the model "
                              f"takes {names}")
        missing = [n for n in names if n not in input_feed]
        if missing:
            raise RunError(1, f"missing input(s) {missing}")
        feeds = {n: np.asarray(v) for n, v in input_feed.items()}
        wanted = None
        if output_names:
            wanted = []
            for n in output_names:
                if n not in self._output_index:
                    raise RunError(1, f"invalid output name '{n}'; the model "
                                      f"has {list(self._output_index)}")
                wanted.append(self._output_index[n])
        results = self._artifact.run(feeds)
        self._runs += 1
        for i, keys in enumerate(self._map_keys):
            if keys is not None:
                # As ONNX Runtime returns a ZipMap: a list of {key: value}.
                results[i] = [dict(zip(keys, row))
                              for row in results[i].tolist()]
        if wanted is None:
            return results
        return [results[i] for i in wanted]

    def end_profiling(self):
        """With sess_options.enable_profiling: writes the per-node times of
        the runs since the session started (or since the last call) to
        `profile_file_prefix`_<date>.json and returns its path; else "".
        The file is a list of trace events as ONNX Runtime writes them: one
        per timed entry, cat "Node", name "<nodes>_kernel_time", dur in
        microseconds summed over those runs, args op_name (the op types)
        and runs. onnxc times a node's code as a whole, so there is one
        event per entry rather than one per run."""
        if not self._profiling:
            return ""
        events, ts = [], 0
        for entry in self._artifact.profile():
            dur = entry["ns"] // 1000
            events.append({"cat": "Node", "pid": os.getpid(), "tid": 0,
                           "ts": ts, "dur": dur, "ph": "X",
                           "name": entry["nodes"] + "_kernel_time",
                           "args": {"op_name": entry["op_types"],
                                    "runs": self._runs}})
            ts += dur
        self._artifact.reset_profile()
        self._runs = 0
        base = (f"{self._profile_prefix}_"
                f"{time.strftime('%Y-%m-%d_%H-%M-%S')}_{os.getpid()}")
        path, n = base + ".json", 0
        while os.path.exists(path):  # never over an earlier trace
            n += 1
            path = f"{base}_{n}.json"
        with open(path, "w") as f:
            json.dump(events, f, indent=1)
        return path
