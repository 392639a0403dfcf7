"""The cuda target through the user's path: `onnxc compile --targets
cuda,cpu`, --print-partitions, --cuda-arch, `onnxc info`, the Python
session's CUDAExecutionProvider. The kernels are a fatbin that the toolkit's
ptxas built for the requested architecture.

Running needs an NVIDIA GPU. On a machine with one (libcuda.so.1 loads and
sees a device) every output is compared with ONNX Runtime; on one without,
the same runs must fail cleanly with ONNXC_NO_DEVICE and a one-line message
(the case of CI). scripts/device_check.sh runs these models and more on the
GPU machine the project borrows."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnxc_runner import (Artifact, max_relative_error,
                          onnxc_binary, run_ort)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts", "device_check"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import prepare  # noqa: E402  the device check's generated models
import onnxc  # noqa: E402

NO_DEVICE = 5  # ONNXC_NO_DEVICE


def gpu_present():
    """Whether the CUDA driver loads and sees a device."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (driver.cuInit(0) == 0 and
            driver.cuDeviceGetCount(ctypes.byref(count)) == 0 and
            count.value > 0)


GPU = gpu_present()


def compile_cuda(model, tmp_path, name="model", extra=()):
    path = os.path.join(tmp_path, name + ".onnx")
    onnx.save(model, path)
    out = os.path.join(tmp_path, name + ".so")
    proc = subprocess.run(
        [onnxc_binary(), "compile", path, "--targets", "cuda,cpu",
         "--print-partitions", "-o", out, *extra],
        capture_output=True, text=True)
    return proc, out


def check_run(artifact_path, model, feeds):
    """Agrees with ONNX Runtime on a GPU; fails to load with ONNXC_NO_DEVICE
    without one."""
    if not GPU:
        with pytest.raises(onnxc.LoadError) as err:
            Artifact(artifact_path)
        assert err.value.code == NO_DEVICE, str(err.value)
        assert "no CUDA device" in str(err.value)
        return
    got = Artifact(artifact_path).run(feeds)
    for g, w in zip(got, run_ort(model, feeds)):
        assert g.shape == w.shape
        assert max_relative_error(g, w) < 1e-3


@pytest.mark.parametrize("case", sorted(prepare.CASES))
@pytest.mark.parametrize("batch", [1, 3])
def test_generated_models_run_on_cuda(case, batch, tmp_path):
    rng = np.random.default_rng(1)
    model, fixed = prepare.CASES[case](rng)
    proc, artifact = compile_cuda(model, tmp_path, case)
    assert proc.returncode == 0, proc.stderr
    # Every node of these models is one the cuda target takes.
    assert "partitions of main_graph: 1 " in proc.stdout, proc.stdout
    assert "#0 cuda:" in proc.stdout, proc.stdout
    check_run(artifact, model, prepare.inputs_for(model, fixed, batch, rng))


def test_refused_nodes_fall_back_to_the_cpu_with_a_reason(tmp_path):
    """TopK (an int64 output) stays on the host; the products around it are
    cuda partitions, with the transfers between them."""
    rng = np.random.default_rng(2)
    w = prepare.const("w", prepare.rand(rng, 16, 16))
    k = onnx.numpy_helper.from_array(np.array([4], np.int64), "k")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["a"]),
             helper.make_node("TopK", ["a", "k"], ["v", "i"]),
             helper.make_node("MatMul", ["v", "w4"], ["y"])]
    w4 = prepare.const("w4", prepare.rand(rng, 4, 16))
    model = prepare.model(nodes, [prepare.vi("x", ["N", 16])],
                          [prepare.vi("y", ["N", 16])], [w, k, w4])
    proc, artifact = compile_cuda(model, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "#0 cuda:" in proc.stdout and "#1 cpu:" in proc.stdout
    assert "#2 cuda:" in proc.stdout, proc.stdout
    assert "cuda refused 1 TopK node" in proc.stdout, proc.stdout
    check_run(artifact, model, {"x": prepare.rand(rng, 3, 16)})


def test_cli_run_fails_at_load_without_a_device(tmp_path):
    """`onnxc run` (the C loader) refuses the artifact in one line."""
    if GPU:
        pytest.skip("a GPU is present")
    model, _ = prepare.mlp(np.random.default_rng(3))
    proc, artifact = compile_cuda(model, tmp_path)
    assert proc.returncode == 0, proc.stderr
    x = os.path.join(tmp_path, "x.npy")
    np.save(x, np.zeros((1, 256), np.float32))
    run = subprocess.run([onnxc_binary(), "run", artifact, "--input", f"x={x}"],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "no CUDA device" in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_info_lists_the_partitions(tmp_path):
    model, _ = prepare.mlp(np.random.default_rng(3))
    proc, artifact = compile_cuda(model, tmp_path)
    assert proc.returncode == 0, proc.stderr
    info = subprocess.run([onnxc_binary(), "info", artifact],
                          capture_output=True, text=True, check=True).stdout
    assert "cuda" in info, info


TOOLKIT = os.environ.get("CUDA_HOME", "/usr/local/cuda")


@pytest.mark.skipif(not os.path.exists(os.path.join(TOOLKIT, "bin", "ptxas")),
                    reason=f"no CUDA toolkit (ptxas) under {TOOLKIT}")
@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_kernels_are_built_by_ptxas_for_the_arch(arch, tmp_path):
    """onnxc runs the toolkit's ptxas on each kernel's PTX for --cuda-arch
    (a failure would fail the compile): a toolkit whose ptxas logs its
    arguments shows it."""
    toolkit = tmp_path / "toolkit"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "nvvm").mkdir()
    os.symlink(os.path.join(TOOLKIT, "nvvm", "libdevice"),
               toolkit / "nvvm" / "libdevice")
    os.symlink(os.path.join(TOOLKIT, "bin", "fatbinary"),
               toolkit / "bin" / "fatbinary")
    log = tmp_path / "ptxas.log"
    ptxas = toolkit / "bin" / "ptxas"
    ptxas.write_text(f'#!/bin/sh\necho "$@" >> {log}\n'
                     f'exec {os.path.join(TOOLKIT, "bin", "ptxas")} "$@"\n')
    ptxas.chmod(0o755)
    model, _ = prepare.cnn(np.random.default_rng(4))
    env = dict(os.environ, ONNXC_CUDA_PATH=str(toolkit))
    path = os.path.join(tmp_path, "cnn.onnx")
    onnx.save(model, path)
    proc = subprocess.run(
        [onnxc_binary(), "compile", path, "--targets", "cuda,cpu",
         "--cuda-arch", arch, "-o", os.path.join(tmp_path, "cnn.so")],
        capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    assert calls, "ptxas never ran"
    assert all(f"-arch {arch}" in call for call in calls), calls


def test_bad_options_are_clean_errors(tmp_path):
    model, _ = prepare.mlp(np.random.default_rng(5))
    proc, _ = compile_cuda(model, tmp_path, extra=["--cuda-arch", "volta"])
    assert proc.returncode != 0
    assert "--cuda-arch 'volta'" in proc.stderr, proc.stderr
    proc, _ = compile_cuda(model, tmp_path,
                           extra=["--emit", "static", "--shape", "x=1x256"])
    assert proc.returncode != 0
    assert "target 'cuda'" in proc.stderr and "--emit static" in proc.stderr


def test_cpu_only_artifacts_do_not_link_the_cuda_runtime(tmp_path):
    """A model with no cuda partition (nothing claimed) carries no CUDA
    code, and a cpu artifact never references the driver."""
    model = prepare.model(
        [helper.make_node("Shape", ["x"], ["s"])],
        [prepare.vi("x", ["N", 4])],
        [helper.make_tensor_value_info("s", TensorProto.INT64, [2])], [])
    proc, artifact = compile_cuda(model, tmp_path)
    assert proc.returncode == 0, proc.stderr
    symbols = subprocess.run(["nm", artifact], capture_output=True,
                             text=True).stdout
    assert "mgpu" not in symbols and "onnxc_cuda" not in symbols


def test_python_session_maps_the_cuda_provider(tmp_path):
    rng = np.random.default_rng(6)
    model, fixed = prepare.mlp(rng)
    path = os.path.join(tmp_path, "mlp.onnx")
    onnx.save(model, path)
    def session():
        return onnxc.InferenceSession(
            path, providers=["CUDAExecutionProvider", "CPUExecutionProvider"],
            cache_dir=str(tmp_path))
    feeds = prepare.inputs_for(model, fixed, 2, rng)
    if not GPU:
        with pytest.raises(onnxc.LoadError) as err:
            session()
        assert err.value.code == NO_DEVICE
        return
    for g, w in zip(session().run(None, feeds), run_ort(model, feeds)):
        assert max_relative_error(g, w) < 1e-3


@pytest.mark.parametrize("math,flag", [("fp32", 0), ("tf32", 1)])
def test_gpu_math_reaches_the_runtime(math, flag, tmp_path):
    """--gpu-math is what each partition call tells the runtime (TF32 is
    allowed in cuBLAS only with tf32)."""
    model, _ = prepare.mlp(np.random.default_rng(7))
    path = os.path.join(tmp_path, "mlp.onnx")
    onnx.save(model, path)
    proc = subprocess.run(
        [onnxc_binary(), "compile", path, "--targets", "cuda,cpu",
         "--gpu-math", math, "--emit", "llvm", "-o", "-"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"call void @onnxc_cuda_begin(i32 {flag})" in proc.stdout


def test_gpu_math_takes_fp32_or_tf32(tmp_path):
    model, _ = prepare.mlp(np.random.default_rng(8))
    proc, _ = compile_cuda(model, tmp_path, extra=["--gpu-math", "fp16"])
    assert proc.returncode != 0
    assert "--gpu-math" in proc.stderr
