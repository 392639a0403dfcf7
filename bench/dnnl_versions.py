"""oneDNN 2.6 (Debian's libdnnl-dev, what the dnnl target links) against
oneDNN 3.x (PyPI's onednn + onednn-devel 2026.1) on the primitives the dnnl
target calls, in one run.

bench/dnnl_versions/dnnl_primitives.c is built once per version; the two
binaries alternate, one process per round, --rounds rounds at each thread
count. A case's figure is the median over rounds of each round's median.
The 3.x wheel and what it depends on are installed into a virtual
environment under build/bench/onednn3 (downloaded once, never committed).

    .venv/bin/python bench/dnnl_versions.py [--threads 1,2] [--rounds 3] \
        [--out docs/dnnl-versions.md]
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "bench", "dnnl_versions", "dnnl_primitives.c")
WORK = os.path.join(ROOT, "build", "bench", "onednn3")
PACKAGES = ["onednn==2026.1.0", "onednn-devel==2026.1.0"]


def install_onednn3():
    """The venv holding the 3.x wheel and its runtime (SYCL, TBB, OpenCL)."""
    venv = os.path.join(WORK, "venv")
    header = os.path.join(venv, "include", "oneapi", "dnnl", "dnnl.h")
    if not os.path.exists(header):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q"] +
                       PACKAGES, check=True)
    return venv


def build(venv):
    """Both binaries: (name, path, environment)."""
    flags = ["-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L"]
    old = os.path.join(WORK, "dnnl_primitives_v2")
    new = os.path.join(WORK, "dnnl_primitives_v3")
    os.makedirs(WORK, exist_ok=True)
    subprocess.run(["cc"] + flags + ["-o", old, SOURCE, "-ldnnl"], check=True)
    lib = os.path.join(venv, "lib")
    # The wheel's libdnnl names its SYCL/TBB/compiler runtime libraries,
    # which live beside it: resolved at run time, not at link time.
    subprocess.run(["cc"] + flags + [
        "-I", os.path.join(venv, "include"), "-o", new, SOURCE, "-L", lib,
        "-l:libdnnl.so.3", "-Wl,--allow-shlib-undefined"], check=True)
    env3 = dict(os.environ, LD_LIBRARY_PATH=lib,
                OCL_ICD_FILENAMES=os.path.join(lib, "libintelocl.so"))
    return [("2.6", old, dict(os.environ)), ("3.x", new, env3)]


def run_once(binary, env, threads):
    """{case: (median us, create us)} of one process, and its banner."""
    env = dict(env, OMP_NUM_THREADS=str(threads))
    # oneDNN 3.x here threads with TBB, which follows the affinity mask:
    # both versions get the same cores.
    cores = ",".join(str(i) for i in range(threads))
    out = subprocess.run(["taskset", "-c", cores, binary], env=env,
                         capture_output=True, text=True, check=True)
    rows = {}
    for line in out.stdout.splitlines():
        name, us, _runs, create = line.split("\t")
        rows[name] = (float(us), float(create))
    banner = [l for l in out.stderr.splitlines() if l.startswith("oneDNN ")]
    return rows, banner[0] if banner else "?"


def measure(binaries, threads, rounds):
    """{version: {case: [(us, create)...]}}, rounds alternating versions."""
    result = {name: {} for name, _, _ in binaries}
    banners = {}
    for _ in range(rounds):
        for name, binary, env in binaries:
            rows, banners[name] = run_once(binary, env, threads)
            for case, value in rows.items():
                result[name].setdefault(case, []).append(value)
    return result, banners


def table(result, threads):
    lines = [f"## {threads} thread{'s' if threads > 1 else ''}", "",
             "| primitive | 2.6 us | 3.x us | 3.x/2.6 | 2.6 create us |"
             " 3.x create us |", "|---|---:|---:|---:|---:|---:|"]
    ratios = []
    for case in result["2.6"]:
        old = [v[0] for v in result["2.6"][case]]
        new = [v[0] for v in result["3.x"][case]]
        old_c = [v[1] for v in result["2.6"][case]]
        new_c = [v[1] for v in result["3.x"][case]]
        ratio = statistics.median(new) / statistics.median(old)
        ratios.append(ratio)
        lines.append(
            f"| {case} | {statistics.median(old):.1f} | "
            f"{statistics.median(new):.1f} | {ratio:.2f} | "
            f"{statistics.median(old_c):.0f} | {statistics.median(new_c):.0f} |")
    geo = statistics.geometric_mean(ratios)
    lines += ["", f"Geometric mean of 3.x/2.6: {geo:.2f}.", ""]
    return lines


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", help="write the tables here (markdown)")
    args = parser.parse_args()
    binaries = build(install_onednn3())
    command = "bench/dnnl_versions.py " + " ".join(sys.argv[1:])
    lines = [
        "# oneDNN 2.6 and 3.x on the dnnl target's primitives", "",
        "_Generated by `.venv/bin/python " + command.strip() +
        "`; do not edit by hand._", "",
        f"Run on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
        f"{cpu_name()}, {os.cpu_count()} logical cores.", ""]
    banners = {}
    for threads in [int(t) for t in args.threads.split(",")]:
        result, banners = measure(binaries, threads, args.rounds)
        lines += table(result, threads)
    lines[6:6] = [f"- {name}: {banner}" for name, banner in banners.items()]
    lines.insert(6 + len(banners), "")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
