"""Constant GEMM weights packed once per call site (runtime/cpu/kernels/Gemm.c,
onnxc_sgemm_strided_cached): every run of one artifact, first or later, on 1
or 2 threads, and runs from several threads at once, match ONNX Runtime.

The products have enough rows (M = 40) to take the packed path, widths that
leave partial NR panels, K over one KC block, transB, and a weight shared by
two MatMuls (two call sites, two slots, one B). With fixed shapes the
compiler packs the single-use weights itself, for the target CPU.
"""
import os
import platform
import subprocess
import sys
import tempfile
import threading

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxc_runner import (Artifact, compile_model, max_relative_error,  # noqa: E402
                          run_ort)
import onnx  # noqa: E402

RNG = np.random.default_rng(7)
ROWS, IN, HIDDEN, OUT = 40, 419, 70, 37


def weight(name, *shape):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)


def model():
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"]),
        helper.make_node("Add", ["h1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("Gemm", ["r1", "w2", "b2"], ["h2"], transB=1),
        helper.make_node("Tanh", ["h2"], ["t2"]),
        helper.make_node("MatMul", ["t2", "w3"], ["y1"]),
        # The same weight again: its own call site and slot.
        helper.make_node("MatMul", ["t2", "w3"], ["y2"]),
        helper.make_node("Add", ["y1", "y2"], ["y"]),
    ]
    inits = [weight("w1", IN, HIDDEN), weight("b1", HIDDEN),
             weight("w2", HIDDEN + 3, HIDDEN), weight("b2", HIDDEN + 3),
             weight("w3", HIDDEN + 3, OUT)]
    graph = helper.make_graph(
        nodes, "packed_weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", IN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", OUT])],
        inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def check(got, feeds, m):
    want = run_ort(m, feeds)[0]
    err = max_relative_error(got[0], want)
    assert err <= 1e-4, f"max relative error {err:.3g}"
    return err


@pytest.mark.parametrize("opt", ["-O0", "-O2", "-O3"])
def test_every_run_matches_ort(opt):
    m = model()
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(m, tmp, args=[opt]))
        errors = []
        for threads in (1, 2):
            artifact.set_num_threads(threads)
            for rows in (ROWS, 3, ROWS + 13):  # 3 rows: the unpacked path
                x = RNG.standard_normal((rows, IN)).astype(np.float32)
                errors.append(check(artifact.run({"x": x}), {"x": x}, m))
    print(f"packed weights {opt}: max relative error vs ONNX Runtime "
          f"{max(errors):.3g}")


def host_has_packed_layout():
    """Whether the compiler packs weights for this host (Compiler.cpp,
    gemmPackingIsa): AArch64, or x86-64 with AVX2 and FMA."""
    if platform.machine() in ("aarch64", "arm64"):
        return True
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    with open("/proc/cpuinfo") as f:
        flags = next((line.split() for line in f if line.startswith("flags")),
                     [])
    return "avx2" in flags and "fma" in flags


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
@pytest.mark.parametrize("mcpu", [None, "haswell", "x86-64"])
def test_weights_packed_at_compile_time(opt, mcpu):
    """With the rows fixed (--shape), the compiler packs w1 and w2 (one user
    each) for the target CPU's GEMM (targets/cpu/transforms/
    PrepackGemmWeights.cpp); w3 (two users) is left to the runtime. The
    host's own target reads them as they are; --mcpu=haswell packs for
    AVX2, which an AVX-512 host repacks once on its first run; a generic
    x86-64 packs nothing. Every run matches ONNX Runtime."""
    if mcpu and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86-64 CPU names")
    m = model()
    args = [opt, "--shape", f"x={ROWS}x{IN}"]
    if mcpu:
        args += ["--mcpu", mcpu]
    with tempfile.TemporaryDirectory() as tmp:
        path = compile_model(m, tmp, args=args)
        calls = subprocess.run(["nm", path], capture_output=True,
                               text=True).stdout
        prepacked = "onnxc_rt_matmul_prepacked_f32_r" in calls
        assert prepacked == (mcpu is not None and mcpu != "x86-64" or
                             mcpu is None and host_has_packed_layout()), calls
        artifact = Artifact(path)
        for threads in (1, 2, 1):
            artifact.set_num_threads(threads)
            for _ in range(2):
                x = RNG.standard_normal((ROWS, IN)).astype(np.float32)
                check(artifact.run({"x": x}), {"x": x}, m)


def test_concurrent_first_runs():
    """Several threads run a fresh artifact at once: they race on the first
    packing of every weight; each result must still be right."""
    m = model()
    feeds = [{"x": RNG.standard_normal((ROWS, IN)).astype(np.float32)}
             for _ in range(4)]
    wants = [run_ort(m, f)[0] for f in feeds]
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(m, tmp, args=["-O3"]))
        artifact.set_num_threads(2)
        results = [None] * len(feeds)
        start = threading.Barrier(len(feeds))

        def worker(i):
            start.wait()
            results[i] = [artifact.run(feeds[i])[0] for _ in range(3)]

        threads = [threading.Thread(target=worker, args=(i,))
                   for i in range(len(feeds))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for got, want in zip(results, wants):
        for g in got:
            assert max_relative_error(g, want) <= 1e-4
