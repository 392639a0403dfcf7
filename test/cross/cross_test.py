"""Cross-compiled artifacts agree with host ones.

For each model (a small CNN and a small BERT encoder from test/models/torch,
with their saved inputs, and float16 conversions built here) compiles an artifact for the host and one for
TRIPLE, runs the host one natively and the foreign one under qemu-user with
test/cross/run_npy.c built by TRIPLE-gcc, and compares every output.

Usage: cross_test.py --onnxc ONNXC --host-runner RUN_NPY --triple TRIPLE
                     --work DIR

A missing cross compiler or qemu fails the test (scripts/bootstrap.sh installs
both); ONNXC_SKIP_CROSS=1 skips it instead (exit 77) with a loud message.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parents[2]
MODELS = ["resnet_small", "bert_small", "float16_cast"]
# Relative to the largest host output. Code generation differs between
# targets (FMA contraction, vector widths, libm), so not bitwise.
TOLERANCE = 1e-5


def make_float16_model(work):
    """float16 conversions and arithmetic, which targets without float16
    instructions (RV64GC) run through compiler helpers; inputs from
    subnormal to overflow. Returns the model path and its inputs."""
    import onnx
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16),
        helper.make_node("Mul", ["h", "h"], ["square"]),
        helper.make_node("Cast", ["square"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "float16_cast",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info("square", TensorProto.FLOAT16, [4, 64]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 64])])
    path = work / "float16_cast.onnx"
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((4, 64)) *
         np.exp2(rng.integers(-26, 17, (4, 64)))).astype(np.float32)
    return path, {"x": x}


def run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"cross: {' '.join(map(str, cmd))} failed "
                 f"({done.returncode}):\n{done.stdout}{done.stderr}")
    return done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--onnxc", required=True)
    parser.add_argument("--host-runner", required=True)
    parser.add_argument("--triple", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    triple = args.triple
    arch = triple.split("-")[0]

    if os.environ.get("ONNXC_SKIP_CROSS"):
        print(f"cross: SKIPPED {triple}: ONNXC_SKIP_CROSS is set; the "
              f"{triple} artifacts are NOT tested", file=sys.stderr)
        return 77
    gcc, qemu = f"{triple}-gcc", f"qemu-{arch}"
    sysroot = Path("/usr") / triple
    missing = [t for t in (gcc, qemu) if shutil.which(t) is None]
    if not (sysroot / "lib").is_dir():
        missing.append(f"{sysroot}/lib (the target's libc)")
    if missing:
        sys.exit(f"cross: {', '.join(missing)} missing: run "
                 f"scripts/bootstrap.sh, or set ONNXC_SKIP_CROSS=1 to skip")

    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    runner = work / f"run_npy.{arch}"
    run([gcc, "-O2", "-Wall", "-Wextra", "-Werror",
         f"-I{SOURCE / 'runtime/include'}", SOURCE / "test/cross/run_npy.c",
         "-o", runner, "-ldl"])
    emulator = [qemu, "-L", str(sysroot)]

    failed = False
    for model in MODELS:
        if model == "float16_cast":
            onnx_path, inputs = make_float16_model(work)
        else:
            onnx_path = SOURCE / "test/models/torch" / f"{model}.onnx"
            inputs = np.load(
                SOURCE / "test/models/torch" / f"{model}.inputs.npz")
        feeds = []
        for name, value in inputs.items():
            path = work / f"{model}.{name}.npy"
            np.save(path, np.ascontiguousarray(value))
            feeds.append(f"{name}={path}")
        outputs = {}
        for side, extra, prefix, program in (
                ("host", [], [], args.host_runner),
                (triple, ["--mtriple", triple], emulator, runner)):
            artifact = work / f"lib{model}.{side}.so"
            run([args.onnxc, "compile", onnx_path, "-o", artifact, *extra])
            out_dir = work / f"{model}.{side}"
            out_dir.mkdir()
            run([*prefix, program, artifact, out_dir, *feeds])
            outputs[side] = {p.stem: np.load(p) for p in out_dir.glob("*.npy")}
        # The host's loader refuses the foreign artifact, saying why.
        info = subprocess.run([args.onnxc, "info",
                               work / f"lib{model}.{triple}.so"],
                              capture_output=True, text=True)
        machine = {"aarch64": "AArch64", "riscv64": "RISC-V"}.get(arch, arch)
        if info.returncode == 0 or f"an artifact for {machine}" not in info.stderr:
            print(f"cross: onnxc info on the {triple} artifact: "
                  f"{info.returncode} {info.stderr.strip()}")
            failed = True
        host, foreign = outputs["host"], outputs[triple]
        if not host or sorted(host) != sorted(foreign):
            print(f"cross: {model}: outputs {sorted(host)} (host) vs "
                  f"{sorted(foreign)} ({triple})")
            failed = True
            continue
        for name in sorted(host):
            a, b = host[name], foreign[name]
            if a.shape != b.shape or a.dtype != b.dtype:
                print(f"cross: {model}/{name}: {a.dtype}{a.shape} (host) vs "
                      f"{b.dtype}{b.shape} ({triple})")
                failed = True
                continue
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            # Infinities and NaNs where the host has them, the rest close.
            finite = np.isfinite(a64)
            same_nonfinite = np.array_equal(finite, np.isfinite(b64)) and \
                np.array_equal(a64[~finite], b64[~finite], equal_nan=True)
            diff = float(np.max(np.abs(a64 - b64)[finite], initial=0))
            scale = max(float(np.max(np.abs(a64[finite]), initial=0)), 1e-6)
            ok = same_nonfinite and diff <= TOLERANCE * scale
            failed |= not ok
            print(f"cross: {model}/{name} {a.dtype}{list(a.shape)}: "
                  f"host vs {triple} max abs diff {diff:.3g}, "
                  f"relative {diff / scale:.3g}"
                  f"{'' if same_nonfinite else ', inf/NaN differ'} "
                  f"({'ok' if ok else f'FAIL, tolerance {TOLERANCE}'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
