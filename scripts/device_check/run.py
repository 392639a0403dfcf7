#!/usr/bin/env python3
"""Runs the prepared GPU check (prepare.py) on the GPU machine: every
artifact on its inputs against ONNX Runtime's CPU outputs, then timings.

    python3 scripts/device_check/run.py build/device_check [--out DIR]

Needs only NumPy and onnxc's Python package (python/ of this repo, which
loads artifacts with ctypes); PyTorch, when present, gives the peers'
timings for the cases manifest.json names a `torch` recipe for.
Writes results.json (and prints a table): per run, max abs / rel error,
pass/fail at rtol 1e-3, and the median latency of onnxc, PyTorch eager and
torch.compile where they apply.
"""
import argparse
import json
import lzma
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from onnxc._abi import Artifact, RunError  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4


def compare(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return {"ok": False, "why": f"shape {got.shape} != {want.shape}"}
    diff = np.abs(got - want)
    bound = ATOL + RTOL * np.abs(want)
    bad = int(np.sum(~(diff <= bound)))
    return {"ok": bad == 0, "max_abs": float(diff.max(initial=0)),
            "max_rel": float((diff / (np.abs(want) + 1e-12)).max(initial=0)),
            "bad": bad, "size": int(want.size)}


def timed(fn, warmup=3, runs=20, budget_s=10.0):
    for _ in range(warmup):
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < runs and time.perf_counter() - start < budget_s:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def unpacked(folder, name, scratch):
    """The artifact's path, an .xz one unpacked into `scratch` first."""
    path = os.path.join(folder, name)
    if not name.endswith(".xz"):
        return path
    out = os.path.join(scratch, name[:-3])
    if not os.path.exists(out):
        with lzma.open(path) as src, open(out, "wb") as dst:
            dst.write(src.read())
    return out


def torch_peer(recipe, feeds):
    """A callable running the PyTorch model of `recipe` (random weights: the
    timing does not depend on them) on the GPU, eager and compiled."""
    import torch
    family, _, name = recipe.partition(".")
    if family == "torchvision":
        import torchvision
        model = getattr(torchvision.models, name)(weights=None)
        args = [torch.from_numpy(feeds["image"]).cuda()]
    elif family == "transformers" and name == "bert":
        from transformers import BertConfig, BertModel
        model = BertModel(BertConfig(attn_implementation="eager"))
        args = [torch.from_numpy(feeds["input_ids"]).cuda(),
                torch.from_numpy(feeds["attention_mask"]).cuda()]
    elif family == "transformers" and name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        model = GPT2LMHeadModel(GPT2Config(attn_implementation="eager",
                                           use_cache=False))
        args = [torch.from_numpy(feeds["input_ids"]).cuda()]
    else:
        raise ValueError(f"unknown torch recipe {recipe}")
    model = model.cuda().eval()
    compiled = torch.compile(model)

    def runner(m):
        def run():
            with torch.no_grad():
                m(*args)
            torch.cuda.synchronize()
        return run
    return runner(model), runner(compiled)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.folder, "manifest.json")) as f:
        manifest = json.load(f)
    results = []
    loaded = {}
    scratch = os.path.join(os.environ.get("TMPDIR", "/tmp"), "onnxc_device_check")
    os.makedirs(scratch, exist_ok=True)
    for entry in manifest:
        name, batch = entry["name"], entry["batch"]
        row = {"name": name, "batch": batch}
        results.append(row)
        try:
            path = unpacked(args.folder, entry["artifact"], scratch)
            if path not in loaded:
                loaded[path] = Artifact(path)
            artifact = loaded[path]
            data = np.load(os.path.join(args.folder, entry["data"]))
            feeds = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
            want = [data[k] for k in data.files if k.startswith("out:")]
            got = artifact.run(feeds)
            checks = [compare(g, w) for g, w in zip(got, want)]
            row["ok"] = all(c["ok"] for c in checks)
            row["outputs"] = checks
            if not args.no_timing and not entry.get("node_test"):
                row["onnxc_ms"] = timed(lambda: artifact.run(feeds))
            if not args.no_timing and entry.get("torch"):
                try:
                    eager, compiled = torch_peer(entry["torch"], feeds)
                    row["torch_eager_ms"] = timed(eager)
                    row["torch_compile_ms"] = timed(compiled, warmup=2)
                except Exception as err:  # a peer failing is reported, not fatal
                    row["torch_error"] = repr(err)
        except (RunError, OSError, ValueError) as err:
            row["ok"] = False
            row["error"] = str(err)
        status = "ok" if row.get("ok") else "FAIL"
        detail = row.get("error") or ", ".join(
            f"max_abs={c.get('max_abs', 0):.2e} bad={c.get('bad')}"
            for c in row.get("outputs", []))
        ms = f"{row['onnxc_ms']:.3f} ms" if "onnxc_ms" in row else ""
        if "torch_eager_ms" in row:
            detail += (f"; torch eager {row['torch_eager_ms']:.3f} ms, "
                       f"compile {row['torch_compile_ms']:.3f} ms")
        print(f"{name:24s} b{batch:<3d} {status:4s} {ms:>12s}  {detail}",
              flush=True)
    passed = sum(1 for r in results if r.get("ok"))
    print(f"{passed}/{len(results)} runs agree with ONNX Runtime CPU "
          f"(rtol {RTOL}, atol {ATOL})")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
