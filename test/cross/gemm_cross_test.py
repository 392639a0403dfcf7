"""The GEMM micro-kernels of a cross runtime agree with the reference.

Builds test/unit/GemmCrossTest.c (GemmTest.cpp's checks in plain C) with
TRIPLE-gcc against the runtime archive built for TRIPLE and runs it under
qemu-user: on aarch64-linux-gnu that tests the NEON kernel (and the portable
one), elsewhere the portable one.

Usage: gemm_cross_test.py --triple TRIPLE --archive LIBONNXC_RT_CPU_A
                          --work DIR

Skips (exit 77, saying what is missing) when the cross compiler, qemu or the
target's libc is missing, or when ONNXC_SKIP_CROSS is set.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
SKIP = 77


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--triple", required=True)
    parser.add_argument("--archive", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    triple = args.triple
    arch = triple.split("-")[0]

    if os.environ.get("ONNXC_SKIP_CROSS"):
        print(f"gemm-cross: SKIPPED {triple}: ONNXC_SKIP_CROSS is set",
              file=sys.stderr)
        return SKIP
    gcc, qemu = f"{triple}-gcc", f"qemu-{arch}"
    sysroot = Path("/usr") / triple
    missing = [t for t in (gcc, qemu) if shutil.which(t) is None]
    if not (sysroot / "lib").is_dir():
        missing.append(f"{sysroot}/lib (the target's libc)")
    if missing:
        print(f"gemm-cross: SKIPPED {triple}: {', '.join(missing)} missing "
              f"(scripts/bootstrap.sh installs the tools)", file=sys.stderr)
        return SKIP
    if not Path(args.archive).is_file():
        print(f"gemm-cross: no {args.archive}: the {triple} runtime is not "
              f"built (reconfigure now that {gcc} is there)")
        return 1

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    program = work / f"gemm_cross_test.{arch}"
    build = subprocess.run(
        [gcc, "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
         f"-I{SOURCE}", SOURCE / "test/unit/GemmCrossTest.c", args.archive,
         "-lm", "-lpthread", "-o", program],
        capture_output=True, text=True)
    if build.returncode != 0:
        print(f"gemm-cross: building the test failed:\n{build.stdout}"
              f"{build.stderr}")
        return 1
    done = subprocess.run([qemu, "-L", str(sysroot), program],
                          capture_output=True, text=True)
    print(done.stdout + done.stderr, end="")
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
