"""Trained models from PyPI through the user's path: rapidocr_onnxruntime's
PP-OCR detector, classifier and recognizer (Paddle exports), quantized by
ONNX Runtime's quantizer (static QDQ with per-channel int8 weights and
random calibration images; the recognizer also dynamically, its MatMuls
only), compiled by `onnxc compile` with default options at each target
list, run by `onnxc run`, compared with ONNX Runtime on the same file and
timed against it (one thread, each engine's median of --runs, in one
process, ONNX Runtime's session with one intra-op thread).

The wheel is downloaded once into --cache (no model is committed).

    .venv/bin/python bench/pypi_ocr.py [--models det,cls,rec,rec_dyn] \\
        [--targets cpu --targets dnnl,cpu] [--runs 7]

Agreement is printed next to ONNX Runtime's own (its optimized vs
unoptimized runs of the file): quantized models are that sensitive.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_dynamic,
                                      quantize_static)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnxc_runner import Artifact, onnxc_binary  # noqa: E402

WHEEL = "rapidocr_onnxruntime==1.4.4"
MODELS = {  # name: (file in the wheel, input shape, quantization)
    "det": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 320, 320), "static"),
    "cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192), "static"),
    "rec": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320), "static"),
    "rec_dyn": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320), "dynamic"),
}


def fetch_models(cache):
    """The wheel's models directory, downloaded and unpacked once."""
    models = os.path.join(cache, "rapidocr_onnxruntime", "models")
    if os.path.isdir(models):
        return models
    os.makedirs(cache, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--dest", cache, WHEEL], check=True)
    wheel = glob.glob(os.path.join(cache, "rapidocr_onnxruntime-*.whl"))[0]
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(cache)
    return models


class Calibration(CalibrationDataReader):
    def __init__(self, name, shape):
        self.name, self.shape, self.count = name, shape, 0

    def get_next(self):
        self.count += 1
        if self.count > 4:
            return None
        return {self.name: np.random.default_rng(self.count).uniform(
            -1, 1, self.shape).astype(np.float32)}


def quantize(source, path, name, shape, kind):
    if os.path.exists(path):
        return
    if kind == "dynamic":
        quantize_dynamic(source, path, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"])
    else:
        quantize_static(source, path, Calibration(name, shape),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)


def session(path, optimize=True):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    if not optimize:
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, options,
                                providers=["CPUExecutionProvider"])


def median_ms(run, runs):
    run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def check(key, path, name, x, targets, work, runs, ort_ms, want, own):
    artifact = os.path.join(work, f"{key}_{targets.replace(',', '_')}.so")
    compiled = subprocess.run([onnxc_binary(), "compile", path, "-o",
                               artifact, "--targets", targets,
                               "--print-partitions"],
                              capture_output=True, text=True)
    if compiled.returncode:
        print(f"| {key} | {targets} | compile failed: "
              f"{compiled.stderr.strip()[-200:]} |")
        return
    partitions = compiled.stdout.splitlines()[0].split(":")[1].split()[0]
    inputs = os.path.join(work, "x.npy")
    outputs = os.path.join(work, f"out_{key}_{targets.replace(',', '_')}")
    np.save(inputs, x)
    ran = subprocess.run([onnxc_binary(), "run", artifact, "--input",
                          f"{name}={inputs}", "--output-dir", outputs,
                          "--threads", "1"], capture_output=True, text=True)
    if ran.returncode:
        print(f"| {key} | {targets} | run failed: "
              f"{ran.stderr.strip()[-200:]} |")
        return
    got = np.load(os.path.join(outputs, sorted(os.listdir(outputs))[0]))
    error = float(np.abs(got - want).max())
    loaded = Artifact(artifact)
    loaded.set_num_threads(1)
    ms = median_ms(lambda: loaded.run({name: x}), runs)
    print(f"| {key} | {targets} | {partitions} | {error:.3g} | {own:.3g} | "
          f"{ms:.1f} | {ort_ms:.1f} | {ms / ort_ms:.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--targets", action="append",
                        help="a target list (repeat; default: cpu and "
                        "dnnl,cpu)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cache", default=os.path.join(ROOT, "build",
                                                        "bench", "pypi"))
    args = parser.parse_args()
    models = fetch_models(args.cache)
    work = tempfile.mkdtemp(prefix="onnxc-pypi-ocr-")
    print("| model | targets | partitions | max abs vs ORT | ORT's own "
          "(opt on vs off) | onnxc ms | ORT ms | onnxc/ORT |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for key in args.models.split(","):
        file, shape, kind = MODELS[key]
        source = os.path.join(models, file)
        name = session(source).get_inputs()[0].name
        path = os.path.join(args.cache, f"{key}_int8.onnx")
        quantize(source, path, name, shape, kind)
        x = np.random.default_rng(9).uniform(-1, 1, shape).astype(np.float32)
        reference = session(path)
        want = reference.run(None, {name: x})[0]
        own = float(np.abs(session(path, optimize=False).run(
            None, {name: x})[0] - want).max())
        ort_ms = median_ms(lambda: reference.run(None, {name: x}), args.runs)
        for targets in args.targets or ["cpu", "dnnl,cpu"]:
            check(key, path, name, x, targets, work, args.runs, ort_ms, want,
                  own)


if __name__ == "__main__":
    main()
