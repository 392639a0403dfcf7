"""ResNet-50- and MobileNetV2-shaped CNNs built with onnx.helper (random
He-initialized weights, no torch needed), quantized by ONNX Runtime's
quantize_static (QDQ, per-channel s8 weights, u8 activations, 8 random
calibration batches), compiled by onnxc with default options, and timed
against ONNX Runtime on the same quantized file in one process, alternating
single runs (median of --runs each, a 50 ms pause between runs).

Agreement is held to ONNX Runtime's own disagreement on the file (graph
optimizations off vs on), as bench/quantized.py does for the suite.

    .venv/bin/python bench/synthetic_int8.py --threads 1,2 [--runs 15] \
        [--targets cpu --targets dnnl,cpu]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_static)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from onnxc_runner import Artifact, onnxc_binary  # noqa: E402


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def conv(self, x, cin, cout, k, stride, relu=True, group=1):
        fan_in = cin // group * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k))
        wn, bn = self.name("w"), self.name("b")
        self.inits += [
            numpy_helper.from_array(
                (w * np.sqrt(2.0 / fan_in)).astype(np.float32), wn),
            numpy_helper.from_array(
                (self.rng.standard_normal(cout) * 0.01).astype(np.float32),
                bn)]
        y = self.node("Conv", [x, wn, bn], pads=[k // 2] * 4,
                      strides=[stride] * 2, group=group)
        return self.node("Relu", [y]) if relu else y


def resnet50(g):
    h = g.conv("x", 3, 64, 7, 2)
    h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2],
               pads=[1] * 4)
    cin = 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2),
                                  (512, 3, 2)]:
        for i in range(blocks):
            s = stride if i == 0 else 1
            a = g.conv(h, cin, width, 1, 1)
            a = g.conv(a, width, width, 3, s)
            a = g.conv(a, width, width * 4, 1, 1, relu=False)
            shortcut = g.conv(h, cin, width * 4, 1, s, relu=False) \
                if i == 0 else h
            h = g.node("Relu", [g.node("Add", [a, shortcut])])
            cin = width * 4
    return h, cin


def mobilenet_v2(g):
    h, cin = g.conv("x", 3, 32, 3, 2), 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                       (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                       (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            e = g.conv(h, cin, cin * t, 1, 1) if t != 1 else h
            d = g.conv(e, cin * t, cin * t, 3, stride, group=cin * t)
            o = g.conv(d, cin * t, c, 1, 1, relu=False)
            h = g.node("Add", [o, h]) if stride == 1 and cin == c else o
            cin = c
    return g.conv(h, cin, 1280, 1, 1), 1280


def build(kind, path):
    g = Graph(0)
    h, cin = {"resnet50": resnet50, "mobilenet_v2": mobilenet_v2}[kind](g)
    f = g.node("Flatten", [g.node("GlobalAveragePool", [h])])
    g.inits += [
        numpy_helper.from_array(
            (g.rng.standard_normal((1000, cin)) * 0.02).astype(np.float32),
            "fc_w"),
        numpy_helper.from_array(np.zeros(1000, np.float32), "fc_b")]
    g.nodes.append(helper.make_node("Gemm", [f, "fc_w", "fc_b"], ["y"],
                                    transB=1))
    graph = helper.make_graph(
        g.nodes, kind,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [1, 3, 224, 224])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1000])],
        g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("",
                                                                        17)])
    model.ir_version = 8
    onnx.save(model, path)


class Calibration(CalibrationDataReader):
    def __init__(self):
        self.i = 0

    def get_next(self):
        self.i += 1
        if self.i > 8:
            return None
        return {"x": np.random.default_rng(self.i).standard_normal(
            (1, 3, 224, 224)).astype(np.float32)}


def ort_session(path, threads, level=ort.GraphOptimizationLevel.ORT_ENABLE_ALL):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = level
    return ort.InferenceSession(path, options,
                                providers=["CPUExecutionProvider"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--targets", action="append",
                        help="a target list for onnxc compile --targets "
                        "(repeat to compare; default: cpu)")
    args = parser.parse_args()
    target_lists = args.targets or ["cpu"]
    work = tempfile.mkdtemp(prefix="onnxc-synthetic-int8-")
    x = np.random.default_rng(5).standard_normal(
        (1, 3, 224, 224)).astype(np.float32)
    print("| model | targets | threads | onnxc ms | ORT ms | onnxc/ORT |"
          " max abs vs ORT | ORT's own (opt on vs off) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for kind in args.models.split(","):
        float_path = os.path.join(work, kind + ".onnx")
        path = os.path.join(work, kind + "_int8.onnx")
        build(kind, float_path)
        quantize_static(float_path, path, Calibration(),
                        quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
        own = np.abs(
            ort_session(path, 1,
                        ort.GraphOptimizationLevel.ORT_DISABLE_ALL).run(
                None, {"x": x})[0] - ort_session(path, 1).run(
                None, {"x": x})[0]).max()
        for targets in target_lists:
            artifact_path = os.path.join(
                work, f"{kind}_int8_{targets.replace(',', '_')}.so")
            subprocess.run([onnxc_binary(), "compile", path, "-o",
                            artifact_path, "--targets", targets, "--quiet"],
                           check=True)
            for threads in [int(t) for t in args.threads.split(",")]:
                time_one(kind, targets, threads, path, artifact_path, x, own,
                         args.runs)


def time_one(kind, targets, threads, path, artifact_path, x, own, runs):
    session = ort_session(path, threads)
    artifact = Artifact(artifact_path)
    artifact.set_num_threads(threads)
    want = session.run(None, {"x": x})[0]
    got = artifact.run({"x": x})
    got = list(got.values())[0] if isinstance(got, dict) else got[0]
    error = float(np.abs(got - want).max())
    if error > 2 * own + 1e-6:
        sys.exit(f"{kind} at {targets}: onnxc and ORT differ by {error}, "
                 f"more than twice ORT's own {own}")
    times = {"onnxc": [], "ort": []}
    for _ in range(runs):
        for engine, run in (("onnxc", lambda: artifact.run({"x": x})),
                            ("ort", lambda: session.run(None, {"x": x}))):
            start = time.perf_counter()
            run()
            times[engine].append(time.perf_counter() - start)
            time.sleep(0.05)
    mine, theirs = (np.median(times[e]) * 1e3 for e in ("onnxc", "ort"))
    print(f"| {kind}_int8 | {targets} | {threads} | {mine:.1f} | "
          f"{theirs:.1f} | {mine / theirs:.2f} | {error:.3g} | {own:.3g} |",
          flush=True)


if __name__ == "__main__":
    main()
