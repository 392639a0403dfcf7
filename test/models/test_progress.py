"""The status line of `onnxc compile`: shown on a terminal (phases, the
pass pipelines' [k/n] counts), cleared at the end, absent with --quiet and
when stderr is not a terminal (the case of every other test)."""
import os
import pty
import select
import subprocess
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import onnxc_binary


def small_model():
    w = numpy_helper.from_array(np.ones((8, 8), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def compile_with_stderr_on_a_terminal(args):
    master, slave = pty.openpty()
    proc = subprocess.Popen([onnxc_binary(), "compile", *args],
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(), out.decode(errors="replace")


def test_status_line_on_a_terminal():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        import onnx
        onnx.save(small_model(), path)
        code, err = compile_with_stderr_on_a_terminal(
            [path, "-o", os.path.join(tmp, "m.so")])
        assert code == 0, err
        for phase in ("importing the model", "optimizing the graph",
                      "lowering [", "generating machine code", "linking"):
            assert phase in err, err
        # Each status replaces the last; the line is cleared at the end.
        assert err.endswith("\r\x1b[K"), repr(err[-80:])

        code, quiet = compile_with_stderr_on_a_terminal(
            [path, "-o", os.path.join(tmp, "q.so"), "--quiet"])
        assert code == 0 and quiet == "", repr(quiet)


def test_no_status_line_when_stderr_is_not_a_terminal():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        import onnx
        onnx.save(small_model(), path)
        proc = subprocess.run([onnxc_binary(), "compile", path, "-o",
                               os.path.join(tmp, "m.so")],
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == ""


def test_errors_start_on_a_clean_line():
    with tempfile.TemporaryDirectory() as tmp:
        code, err = compile_with_stderr_on_a_terminal(
            [os.path.join(tmp, "missing.onnx"), "-o", os.path.join(tmp, "m.so")])
        assert code != 0
        line = err.split("\r\x1b[K")[-1]
        assert line.startswith("onnxc: error:"), repr(err)
