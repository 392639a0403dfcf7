#!/usr/bin/env python3
"""Prepares the GPU check that scripts/device_check.sh runs on a machine with
an NVIDIA GPU (and no LLVM/MLIR): compiles each case here with
`onnxc compile --targets cuda,cpu`, draws its inputs, computes the expected
outputs with ONNX Runtime's CPU provider, and writes everything into one
folder (build/device_check by default) that travels to the GPU machine.

    .venv/bin/python scripts/device_check/prepare.py [--out build/device_check]
        [--models NAME=PATH[:BATCHES] ...] [--node-tests N]

Cases:
  - the generated model tests of this file (`cases()`): an MLP, a CNN block,
    a transformer encoder layer, elementwise chains, reductions, softmax,
    layer norm, data movement; each with its own dynamic batch;
  - any --models given (e.g. torchvision or transformers exports, such as
    bench/models.py writes), run at the batch sizes listed after ':'
    (default 1). Their float weights are first rounded to 16 levels per
    tensor (`--coarse-weights`, on by default for them): the architecture
    and the work are the model's, the values still random-like, and the
    artifact then compresses (xz) to fit the device tool's 64 MiB per call.
    The expected outputs are computed on the rounded weights. A PyTorch
    peer for timing is named with NAME=PATH:BATCHES:torchvision.resnet50 or
    :transformers.bert (see run.py);
  - --node-tests N: the first N ONNX node tests (build/conformance-data) whose
    artifacts have a cuda partition, with their own inputs and outputs.
The folder holds per case: NAME.so (the artifact, NAME.so.xz when large),
NAME.partitions.txt (--print-partitions), NAME.bB.npz (inputs `in:NAME`,
expected `out:NAME`) and manifest.json. Its size must stay under 64 MiB.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ONNXC = os.path.join(ROOT, "build", "tools", "onnxc", "onnxc")


def const(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def rand(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def model(nodes, inputs, outputs, inits, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def mlp(rng):
    w1, b1 = rand(rng, 256, 512, scale=0.05), rand(rng, 512)
    w2, b2 = rand(rng, 512, 10, scale=0.05), rand(rng, 10)
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["l"]),
             helper.make_node("Softmax", ["l"], ["y"], axis=-1)]
    return model(nodes, [vi("x", ["N", 256])], [vi("y", ["N", 10])],
                 [const("w1", w1), const("b1", b1), const("w2", w2),
                  const("b2", b2)]), {"x": (256,)}


def cnn(rng):
    w1 = rand(rng, 16, 3, 3, 3, scale=0.2)
    w2 = rand(rng, 16, 16, 3, 3, scale=0.1)
    scale, bias = rand(rng, 16) * 0.1 + 1, rand(rng, 16) * 0.1
    mean, var = rand(rng, 16) * 0.1, np.abs(rand(rng, 16)) + 0.5
    fc = rand(rng, 16, 8, scale=0.2)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "s", "b", "m", "v"],
                         ["n1"]),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("Add", ["c2", "c2"], ["a2"]),
        helper.make_node("Sigmoid", ["a2"], ["s2"]),
        helper.make_node("Mul", ["a2", "s2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["y"]),
    ]
    return model(nodes, [vi("x", ["N", 3, 32, 32])], [vi("y", ["N", 8])],
                 [const("w1", w1), const("w2", w2), const("s", scale),
                  const("b", bias), const("m", mean), const("v", var),
                  const("fc", fc)]), {"x": (3, 32, 32)}


def encoder(rng, d=64, heads=4, ff=128):
    """One post-norm transformer encoder layer, as exporters write it."""
    inits = {}

    def w(name, *shape, scale=0.1):
        inits[name] = rand(rng, *shape, scale=scale)
        return name

    hd = d // heads
    nodes = []
    for p in "qkv":
        nodes += [helper.make_node("MatMul", ["x", w("w" + p, d, d)], [p + "0"]),
                  helper.make_node("Add", [p + "0", w("b" + p, d)], [p + "1"]),
                  helper.make_node("Reshape", [p + "1", "hshape"], [p + "2"]),
                  helper.make_node("Transpose", [p + "2"], [p],
                                   perm=[0, 2, 1, 3])]
    nodes += [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"]),
        helper.make_node("Mul", ["s0", "scale"], ["s1"]),
        helper.make_node("Softmax", ["s1"], ["pr"], axis=-1),
        helper.make_node("MatMul", ["pr", "v"], ["c0"]),
        helper.make_node("Transpose", ["c0"], ["c1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["c1", "dshape"], ["c2"]),
        helper.make_node("MatMul", ["c2", w("wo", d, d)], ["o0"]),
        helper.make_node("Add", ["o0", w("bo", d)], ["o1"]),
        helper.make_node("Add", ["o1", "x"], ["r1"]),
        helper.make_node("LayerNormalization", ["r1", w("g1", d), w("be1", d)],
                         ["n1"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n1", w("w1", d, ff)], ["f0"]),
        helper.make_node("Add", ["f0", w("bf1", ff)], ["f1"]),
        helper.make_node("Erf", ["f1"], ["f2"]),
        helper.make_node("MatMul", ["f2", w("w2", ff, d)], ["f3"]),
        helper.make_node("Add", ["f3", w("bf2", d)], ["f4"]),
        helper.make_node("Add", ["f4", "n1"], ["r2"]),
        helper.make_node("LayerNormalization", ["r2", w("g2", d), w("be2", d)],
                         ["y"], axis=-1, epsilon=1e-5),
    ]
    init = [const(k, v) for k, v in inits.items()]
    init += [numpy_helper.from_array(np.array([0, 0, heads, hd], np.int64), "hshape"),
             numpy_helper.from_array(np.array([0, 0, d], np.int64), "dshape"),
             const("scale", np.float32(1 / np.sqrt(hd)))]
    return model(nodes, [vi("x", ["N", 16, d])], [vi("y", ["N", 16, d])],
                 init), {"x": (16, d)}


def elementwise(rng):
    nodes = [helper.make_node("Mul", ["x", "z"], ["a"]),
             helper.make_node("Sub", ["a", "x"], ["b"]),
             helper.make_node("Tanh", ["b"], ["c"]),
             helper.make_node("Exp", ["c"], ["d"]),
             helper.make_node("Div", ["d", "two"], ["e"]),
             helper.make_node("Clip", ["e", "lo", "hi"], ["f"]),
             helper.make_node("ReduceMean", ["f", "axes"], ["y"], keepdims=1),
             helper.make_node("Max", ["f", "x"], ["m"]),
             # A product keeps the chain on the device (the partitioner
             # leaves groups without one on the host).
             helper.make_node("MatMul", ["m", "w"], ["y2"])]
    return model(nodes, [vi("x", ["N", 7, 33]), vi("z", [1, 33])],
                 [vi("y", ["N", 7, 1]), vi("y2", ["N", 7, 5])],
                 [const("two", 2.0), const("lo", 0.2), const("hi", 1.5),
                  const("w", rand(rng, 33, 5)),
                  numpy_helper.from_array(np.array([2], np.int64), "axes")],
                 opset=18), \
        {"x": (7, 33), "z": (1, 33)}


CASES = {"mlp": mlp, "cnn": cnn, "encoder": encoder,
         "elementwise": elementwise}


def inputs_for(m, fixed, batch, rng):
    feeds = {}
    for inp in m.graph.input:
        shape = fixed.get(inp.name)
        dims = [d.dim_value if d.HasField("dim_value") else batch
                for d in inp.type.tensor_type.shape.dim]
        if shape is not None and len(shape) == len(dims) - 1:
            dims = [batch] + list(shape)
        elem = inp.type.tensor_type.elem_type
        if elem == TensorProto.INT64 and "mask" in inp.name:
            feeds[inp.name] = np.ones(dims, np.int64)
        elif elem == TensorProto.INT64:
            feeds[inp.name] = rng.integers(0, 100, dims).astype(np.int64)
        else:
            feeds[inp.name] = rand(rng, *dims)
    return feeds


def coarse_weights(path, out_path, levels=16):
    """`path` with every float initializer rounded to `levels` values per
    tensor (symmetric around 0, scaled to the tensor's max magnitude)."""
    m = onnx.load(path)
    for init in m.graph.initializer:
        if init.data_type != TensorProto.FLOAT:
            continue
        w = numpy_helper.to_array(init)
        peak = float(np.abs(w).max()) if w.size else 0.0
        if peak == 0.0:
            continue
        step = peak / (levels // 2)
        init.CopyFrom(numpy_helper.from_array(
            (np.round(w / step) * step).astype(np.float32), init.name))
    onnx.save(m, out_path)
    return out_path


def node_tests(count, out, data=os.path.join(ROOT, "build", "conformance-data")):
    """The first `count` node tests whose artifact has a cuda partition."""
    found = []
    for test in sorted(os.listdir(data)):
        if len(found) == count:
            break
        model_path = os.path.join(data, test, "model.onnx")
        if not os.path.exists(model_path):
            continue
        if not compile_case(model_path, test, out) or \
                "cuda:" not in open(os.path.join(out, test + ".partitions.txt")).read():
            for ext in (".so", ".partitions.txt"):
                if os.path.exists(os.path.join(out, test + ext)):
                    os.remove(os.path.join(out, test + ext))
            continue
        m = onnx.load(model_path)
        case = os.path.join(data, test, "test_data_set_0")
        arrays = {}
        for kind, values in (("in", m.graph.input), ("out", m.graph.output)):
            for i, v in enumerate(values):
                proto = onnx.TensorProto()
                with open(os.path.join(case, f"{'input' if kind == 'in' else 'output'}_{i}.pb"), "rb") as f:
                    proto.ParseFromString(f.read())
                arrays[f"{kind}:{v.name}"] = numpy_helper.to_array(proto)
        np.savez(os.path.join(out, f"{test}.b0.npz"), **arrays)
        found.append({"name": test, "batch": 0, "artifact": test + ".so",
                      "data": f"{test}.b0.npz", "node_test": True})
    return found


def compress(out, name, limit=4 << 20):
    """xz-compresses a large artifact (run.py unpacks it)."""
    path = os.path.join(out, name + ".so")
    if os.path.getsize(path) > limit:
        subprocess.run(["xz", "-6", "-T0", "-f", path], check=True)
        return name + ".so.xz"
    return name + ".so"


def compile_case(path, name, out):
    artifact = os.path.join(out, name + ".so")
    result = subprocess.run(
        [ONNXC, "compile", path, "--targets", "cuda,cpu", "--print-partitions",
         "-o", artifact], capture_output=True, text=True)
    with open(os.path.join(out, name + ".partitions.txt"), "w") as f:
        f.write(result.stdout + result.stderr)
    if result.returncode:
        print(f"{name}: compile failed:\n{result.stderr}", file=sys.stderr)
        return False
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "device_check"))
    parser.add_argument("--models", nargs="*", default=[],
                        help="NAME=PATH[:B1,B2] exported models to add")
    parser.add_argument("--only", nargs="*", help="generated cases to keep")
    parser.add_argument("--node-tests", type=int, default=0,
                        help="add the first N node tests with cuda partitions")
    parser.add_argument("--no-coarse-weights", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(0)
    manifest = []
    todo = []
    for name, make in CASES.items():
        if args.only and name not in args.only:
            continue
        m, fixed = make(rng)
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(m, path)
        todo.append((name, path, fixed, [1, 4]))
    peers = {}
    for spec in args.models:
        name, rest = spec.split("=", 1)
        path, _, rest = rest.partition(":")
        batches, _, peer = rest.partition(":")
        if not args.no_coarse_weights:
            path = coarse_weights(path, os.path.join(args.out, name + ".onnx"))
        todo.append((name, path, {}, [int(b) for b in batches.split(",")]
                     if batches else [1]))
        if peer:
            peers[name] = peer
    for name, path, fixed, batches in todo:
        if not compile_case(path, name, args.out):
            continue
        artifact = compress(args.out, name)
        m = onnx.load(path)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        for batch in batches:
            feeds = inputs_for(m, fixed, batch, rng)
            expected = sess.run(None, feeds)
            arrays = {"in:" + k: v for k, v in feeds.items()}
            for o, v in zip(sess.get_outputs(), expected):
                arrays["out:" + o.name] = v
            np.savez(os.path.join(args.out, f"{name}.b{batch}.npz"), **arrays)
            manifest.append({"name": name, "batch": batch,
                             "artifact": artifact,
                             "data": f"{name}.b{batch}.npz",
                             "torch": peers.get(name)})
        if path.startswith(args.out):
            os.remove(path)
    if args.node_tests:
        manifest += node_tests(args.node_tests, args.out)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    size = sum(os.path.getsize(os.path.join(args.out, f))
               for f in os.listdir(args.out))
    print(f"{len(manifest)} runs prepared in {args.out} ({size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
