"""Accuracy of the int8 suite models (bench/quantized.py): onnxc and ONNX
Runtime on the same quantized file, each against the float model run by ONNX
Runtime, over a few random inputs; and onnxc against ONNX Runtime on the
quantized file, in units of the output's quantization step where the output
is dequantized (the QDQ CNNs).

    .venv/bin/python bench/int8_accuracy.py [--inputs N]

Uses the models and artifacts bench/run.py left in build/bench (run the int8
suite first). Prints a markdown table.
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from quantized import QUANTIZED  # noqa: E402
import run as bench  # noqa: E402
from onnxc_runner import Artifact  # noqa: E402


def output_step(path):
    """The scale of the DequantizeLinear that makes the first graph output,
    or None (a float output)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path, load_external_data=False)
    inits = {t.name: t for t in model.graph.initializer}
    out = model.graph.output[0].name
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] == out:
            scale = inits.get(node.input[1])
            return float(numpy_helper.to_array(scale)) if scale else None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=4)
    args = parser.parse_args()
    import onnxruntime as ort
    models_dir = os.path.join(ROOT, "build", "bench", "models")
    artifacts = os.path.join(ROOT, "build", "bench", "artifacts")
    with open(os.path.join(models_dir, "manifest.json")) as f:
        manifest = json.load(f)["models"]
    print("| model | onnxc vs ORT, same int8 file | in output steps | "
          "onnxc int8 vs float | ORT int8 vs float | top-1 = float's, "
          "onnxc / ORT |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in QUANTIZED:
        if name not in manifest:
            continue
        spec = manifest[name]
        path = os.path.join(models_dir, spec["file"])
        base = os.path.join(models_dir, manifest[QUANTIZED[name][0]]["file"])
        so = os.path.join(artifacts, f"{name}.b1.so")
        if not os.path.exists(so):
            print(f"| {name} | (no artifact: run the int8 suite) |||||")
            continue
        options = ort.SessionOptions()
        options.log_severity_level = 3
        quant = ort.InferenceSession(path, options,
                                     providers=["CPUExecutionProvider"])
        flt = ort.InferenceSession(base, options,
                                   providers=["CPUExecutionProvider"])
        artifact = Artifact(so)
        step = output_step(path)
        worst = worst_onnxc = worst_ort = 0.0
        top_onnxc = top_ort = 0
        for seed in range(args.inputs):
            feeds = bench.make_feeds(spec["inputs"], 1, seed=100 + seed)
            got = artifact.run(feeds)
            got = list(got.values()) if isinstance(got, dict) else got
            want = quant.run(None, feeds)
            ref = flt.run(None, feeds)
            scale = max(float(np.max(np.abs(ref[0]))), 1e-30)
            worst = max(worst, float(np.max(np.abs(got[0] - want[0]))))
            worst_onnxc = max(worst_onnxc,
                              float(np.max(np.abs(got[0] - ref[0]))) / scale)
            worst_ort = max(worst_ort,
                            float(np.max(np.abs(want[0] - ref[0]))) / scale)
            top_onnxc += int(np.argmax(got[0]) == np.argmax(ref[0]))
            top_ort += int(np.argmax(want[0]) == np.argmax(ref[0]))
        steps = f"{worst / step:.1f}" if step else "(float output)"
        print(f"| {name} | {worst:.3g} | {steps} | {worst_onnxc:.3g} | "
              f"{worst_ort:.3g} | {top_onnxc}/{args.inputs} / "
              f"{top_ort}/{args.inputs} |")


if __name__ == "__main__":
    main()
