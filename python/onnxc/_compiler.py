"""`onnxc.compile`: drives the onnxc command line compiler."""
import os
import shutil
import subprocess
import tempfile


class CompileError(RuntimeError):
    """onnxc refused the model; the message is onnxc's own error output."""


def find_onnxc():
    """The onnxc executable: $ONNXC, then bin/onnxc inside this package (where
    a bundled build puts it), then `onnxc` on PATH, then the build tree of the
    repository this package sits in (build/tools/onnxc/onnxc)."""
    path = os.environ.get("ONNXC")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "bin", "onnxc")
    if os.access(bundled, os.X_OK):
        return bundled
    on_path = shutil.which("onnxc")
    if on_path:
        return on_path
    in_repo = os.path.join(here, "..", "..", "build", "tools", "onnxc", "onnxc")
    if os.access(in_repo, os.X_OK):
        return os.path.normpath(in_repo)
    raise CompileError("onnxc executable not found: set $ONNXC or put onnxc "
                       "on PATH")


def _shape_args(shapes):
    args = []
    for name, dims in (shapes or {}).items():
        dims = list(dims)
        if not all(isinstance(d, int) and d >= 0 for d in dims):
            raise ValueError(f"shapes['{name}']: expected non-negative ints, "
                             f"got {dims}")
        args += ["--shape", f"{name}=" + "x".join(str(d) for d in dims)]
    return args


def compile(model, output=None, opt_level=2, shapes=None, extra_args=()):
    """Compiles `model` to a shared library and returns its path.

    model: a .onnx path, or an onnx.ModelProto (saved to a temporary file).
    output: the .so to write; by default next to a model path (model.so), or
        a fresh file in a temporary directory for a ModelProto.
    opt_level: 0..3, as onnxc's -O.
    shapes: {input name: dims} fixing input shapes (onnxc --shape).
    extra_args: more `onnxc compile` arguments.
    Raises CompileError with onnxc's message when the model is refused."""
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0..3, got {opt_level!r}")
    args = [f"-O{opt_level}"] + _shape_args(shapes) + list(extra_args)
    with tempfile.TemporaryDirectory(prefix="onnxc-") as tmp:
        if isinstance(model, (str, os.PathLike)):
            model_path = os.fspath(model)
            if output is None:
                output = os.path.splitext(model_path)[0] + ".so"
        else:
            import onnx  # only needed for in-memory models

            if not isinstance(model, onnx.ModelProto):
                raise TypeError("model must be a path or an onnx.ModelProto, "
                                f"got {type(model).__name__}")
            model_path = os.path.join(tmp, "model.onnx")
            onnx.save(model, model_path)
            if output is None:
                output = os.path.join(tempfile.mkdtemp(prefix="onnxc-"),
                                      "model.so")
        output = os.fspath(output)
        proc = subprocess.run(
            [find_onnxc(), "compile", model_path, "-o", output, *args],
            capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(proc.stderr.strip() or
                           f"onnxc exited with status {proc.returncode}")
    return output
