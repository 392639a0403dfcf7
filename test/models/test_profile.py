"""onnxc compile --profile: the per-node timers change no result, report the
model's own nodes, add up inside the run that they time, survive runs from
several threads at once, and the CLI refuses what it cannot profile with a
clear error. No assertion is about how long anything takes."""
import json
import os
import subprocess
import tempfile
import threading

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import (Artifact, compile_model, max_relative_error,
                          onnxc_binary, run_ort)

RNG = np.random.default_rng(11)


def small_cnn():
    """Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> Softmax, with
    named nodes (the profiler reports ONNX node names)."""
    w = numpy_helper.from_array(
        RNG.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(RNG.standard_normal(8).astype(np.float32), "b")
    fc = numpy_helper.from_array(
        RNG.standard_normal((8, 5)).astype(np.float32), "fc")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc"], ["g"], name="gemm"),
        helper.make_node("Softmax", ["g"], ["y"], name="softmax"),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [w, b, fc])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_profiled_artifact_computes_the_same_results():
    model = small_cnn()
    feeds = {"x": RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)}
    want = run_ort(model, feeds)[0]
    with tempfile.TemporaryDirectory() as tmp:
        plain = Artifact(compile_model(model, tmp, "plain"))
        timed = Artifact(compile_model(model, tmp, "timed", args=["--profile"]))
        got_plain = plain.run(feeds)[0]
        got_timed = timed.run(feeds)[0]
    # The timers only read a clock: the arithmetic is the same code.
    np.testing.assert_array_equal(got_timed, got_plain)
    err = max_relative_error(got_timed, want)
    print(f"max relative error vs ONNX Runtime {err:.3g}")
    assert err <= 1e-4


def test_profile_names_the_nodes_and_fits_in_the_run():
    model = small_cnn()
    with tempfile.TemporaryDirectory() as tmp:
        so = compile_model(model, tmp, args=["--profile"])
        x = os.path.join(tmp, "x.npy")
        np.save(x, RNG.standard_normal((2, 3, 16, 16)).astype(np.float32))
        out = os.path.join(tmp, "profile.json")
        proc = subprocess.run(
            [onnxc_binary(), "run", so, "--input", f"x={x}", "--threads", "1",
             "--repeat", "4", "--profile", "--profile-json", out],
            capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        with open(out) as f:
            report = json.load(f)
        info = subprocess.run([onnxc_binary(), "info", so],
                              capture_output=True, text=True)
    print(proc.stdout)
    assert report["runs"] == 3  # --repeat 4: the first is a warm-up
    assert report["threads"] == 1
    entries = report["entries"]
    names = set()
    for e in entries:
        names.update(e["nodes"].split(", "))
    # The nodes that compute must each appear; the Relu is fused into the
    # convolution's kernel call, Flatten is a view and may have no code.
    for node in ("conv", "relu", "pool", "gemm", "softmax"):
        assert node in names, f"node {node} missing from {entries}"
    assert names <= {n.name for n in model.graph.node}, names
    conv = next(e for e in entries if "conv" in e["nodes"].split(", "))
    assert "Conv" in conv["op_types"], conv
    # The convolution's entry was lapped (a counter left at zero would mean
    # its boundary was never reached), and every entry is timed inside the
    # run that the CLI times around it.
    assert conv["ns_per_run"] > 0, conv
    assert sum(e["ns_per_run"] for e in entries) <= report["wall_ns_per_run"]
    assert (f"profile: {len(entries)} timed entries" in info.stdout), \
        info.stdout
    # The text report lists every entry and the per-op-type sums.
    assert "by op type:" in proc.stdout
    for e in entries:
        assert e["nodes"] in proc.stdout


def test_profile_counts_runs_from_several_threads():
    model = small_cnn()
    feeds = {"x": RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)}
    want = run_ort(model, feeds)[0]
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp, args=["--profile"]))
        artifact.set_num_threads(2)
        artifact.run(feeds)
        artifact.reset_profile()
        assert all(e["ns"] == 0 for e in artifact.profile())
        results, errors = [], []

        def worker():
            try:
                for _ in range(5):
                    results.append(artifact.run(feeds)[0])
            except Exception as e:  # reported below, not lost in the thread
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len(results) == 20
        for got in results:
            assert max_relative_error(got, want) <= 1e-4
        # Every entry was lapped 20 times; the clock is monotonic, so each
        # counter is non-negative and the calls that compute add up to more
        # than nothing.
        profile = artifact.profile()
        assert sum(e["ns"] for e in profile) > 0
        artifact.reset_profile()
        assert all(e["ns"] == 0 for e in artifact.profile())


def test_profile_errors_name_the_fix():
    model = small_cnn()
    with tempfile.TemporaryDirectory() as tmp:
        so = compile_model(model, tmp)  # no --profile
        x = os.path.join(tmp, "x.npy")
        np.save(x, np.zeros((2, 3, 16, 16), np.float32))
        proc = subprocess.run([onnxc_binary(), "run", so, "--input", f"x={x}",
                               "--profile"], capture_output=True, text=True)
        assert proc.returncode != 0
        assert so in proc.stderr and "onnxc compile --profile" in proc.stderr
        try:
            Artifact(so).profile()
            raise AssertionError("profile() of an artifact without timers")
        except RuntimeError as e:
            assert "--profile" in str(e)

        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        proc = subprocess.run(
            [onnxc_binary(), "compile", path, "--emit", "static", "--profile",
             "-o", os.path.join(tmp, "static.o")],
            capture_output=True, text=True)
        assert proc.returncode != 0
        assert "--profile does not apply to --emit static" in proc.stderr
        assert not os.path.exists(os.path.join(tmp, "static.o"))

        proc = subprocess.run([onnxc_binary(), "run", so, "--input", f"x={x}",
                               "--repeat", "0"], capture_output=True, text=True)
        assert proc.returncode != 0 and "--repeat must be >= 1" in proc.stderr


def test_session_profiling_as_in_onnx_runtime():
    """onnxc.InferenceSession with SessionOptions.enable_profiling, the way
    ONNX Runtime is profiled: end_profiling() writes trace events whose
    op_name and summed durations a script reading ORT's profiles can use."""
    import onnxc
    model = small_cnn()
    feeds = {"x": RNG.standard_normal((2, 3, 16, 16)).astype(np.float32)}
    want = run_ort(model, feeds)[0]
    with tempfile.TemporaryDirectory() as tmp:
        options = onnxc.SessionOptions()
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(tmp, "trace")
        session = onnxc.InferenceSession(model, options, cache_dir=tmp)
        for _ in range(3):
            got = session.run(None, feeds)[0]
        assert max_relative_error(got, want) <= 1e-4
        path = session.end_profiling()
        assert path.startswith(os.path.join(tmp, "trace"))
        with open(path) as f:
            events = json.load(f)
        nodes = {e["name"][:-len("_kernel_time")] for e in events}
        assert "conv, relu" in nodes and "gemm" in nodes, nodes
        assert all(e["cat"] == "Node" and e["args"]["runs"] == 3
                   for e in events)
        conv = next(e for e in events if e["name"] == "conv, relu_kernel_time")
        assert "Conv" in conv["args"]["op_name"] and conv["dur"] > 0, conv
        # The counters restart: a second trace covers only the runs after.
        session.run(None, feeds)
        second = session.end_profiling()
        assert second != path and os.path.exists(path)
        with open(second) as f:
            assert all(e["args"]["runs"] == 1 for e in json.load(f))

        # Without enable_profiling there is nothing to write, as in ORT; a
        # compiled artifact without timers cannot be profiled.
        plain = onnxc.InferenceSession(model, cache_dir=tmp)
        assert plain.end_profiling() == ""
        try:
            onnxc.InferenceSession(plain.artifact_path, options)
            raise AssertionError("profiling an artifact without timers")
        except RuntimeError as e:
            assert "--profile" in str(e)
