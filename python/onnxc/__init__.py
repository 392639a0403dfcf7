"""onnxc: compile ONNX models ahead of time and run them from Python.

    import onnxc
    onnxc.compile("model.onnx", "model.so", opt_level=2)
    session = onnxc.InferenceSession("model.onnx")   # or "model.so"
    outputs = session.run(None, {session.get_inputs()[0].name: x})

InferenceSession follows ONNX Runtime's (run, get_inputs, get_outputs,
NodeArg's name/shape/type), so code written for ONNX Runtime switches with
`import onnxc as ort` for the session part.

Why ctypes and not a compiled extension (nanobind/pybind11): a compiled
artifact already exports a plain C ABI (one entry point returning a struct of
metadata and function pointers), so calling it needs no C++ glue, and the
package stays pure Python: it installs with pip from the repository without a
compiler or a build of onnxc's C++ sources, and works with any Python 3 and
numpy version. The cost is ctypes' per-call overhead (microseconds, small
next to a model run); ctypes releases the GIL while the model runs, so
threads can run one session at once as with ONNX Runtime.
Compilation drives the `onnxc` executable (see find_onnxc), which is where
the compiler lives anyway.
"""
from ._abi import Artifact, LoadError, RunError
from ._compiler import CompileError, compile, find_onnxc
from .quantization import QuantizationError, quantize_dynamic, quantize_static
from .session import (InferenceSession, NodeArg, SessionOptions,
                      default_cache_dir)

__all__ = ["Artifact", "CompileError", "InferenceSession", "NodeArg",
           "LoadError", "QuantizationError", "RunError", "SessionOptions",
           "compile", "default_cache_dir", "find_onnxc",
           "get_available_providers", "quantize_dynamic", "quantize_static"]
__version__ = "0.1.0"


def get_available_providers():
    """As ONNX Runtime's: onnxc runs on the CPU."""
    return ["CPUExecutionProvider"]
