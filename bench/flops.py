"""The multiply-add work of one run of an ONNX model, counted from the shapes
that ONNX Runtime computes for the given inputs.

Counted: Conv, ConvTranspose, MatMul and Gemm, at 2 FLOPs per multiply-add
(the convention of GFLOP/s figures and of the FMA peak in bench/common).
Everything else (elementwise, normalization, softmax, pooling) is left out,
so the count is a lower bound on the arithmetic, and the count divided by
the machine's FMA peak is a lower bound on the time of any engine that runs
these products in float32: the floor bench/run.py puts under its latency and
time-to-first-result columns. Nodes inside Loop/If/Scan bodies are not
counted (none of the suite's models has them).

ONNX shape inference leaves the transformers' Reshape targets unresolved
(they come from Shape nodes), so the shapes are taken from a run instead:
the inputs of the counted nodes become extra graph outputs of a copy of the
model, which ONNX Runtime runs once with graph optimizations off (so every
original tensor still exists).

  .venv/bin/python bench/flops.py build/bench/models/resnet50.onnx --batch 1
"""

import argparse
import collections
import math
import os
import sys

COUNTED = ("Conv", "ConvTranspose", "MatMul", "Gemm")


def _attr(node, name, default):
    import onnx
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _node_flops(node, shape):
    """2 x multiply-adds of one node, from the shapes of its operands."""
    if node.op_type == "MatMul":
        a, out = shape(node.input[0]), shape(node.output[0])
        return 2 * math.prod(out) * a[-1]
    if node.op_type == "Gemm":
        a, out = shape(node.input[0]), shape(node.output[0])
        k = a[0] if _attr(node, "transA", 0) else a[1]
        return 2 * math.prod(out) * k
    w = shape(node.input[1])
    if node.op_type == "Conv":
        # Each output element: Cin / group x kernel taps.
        return 2 * math.prod(shape(node.output[0])) * math.prod(w[1:])
    # ConvTranspose: each input element scatters into Cout / group x taps.
    return 2 * math.prod(shape(node.input[0])) * math.prod(w[1:])


def count_flops(onnx_path, feeds):
    """Returns {"total": FLOPs, "by_op": {op_type: FLOPs}} for one run on
    `feeds` (name -> numpy array)."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    model = onnx.load(onnx_path)
    graph = model.graph
    known = {t.name: list(t.dims) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            value = _attr(node, "value", None)
            if value is not None:
                known[node.output[0]] = list(value.dims)
    nodes = [n for n in graph.node if n.op_type in COUNTED]
    present = {o.name for o in graph.output}
    wanted = []
    for node in nodes:
        for name in (node.input[0], node.input[1], node.output[0]):
            if name and name not in known and name not in present \
                    and name not in wanted:
                wanted.append(name)
    if wanted:
        # Element types from ONNX's own inference where it has them; the
        # counted ops take float inputs otherwise.
        inferred = onnx.shape_inference.infer_shapes(model)
        types = {v.name: v.type.tensor_type.elem_type
                 for v in list(inferred.graph.value_info) + list(graph.input)}
        for name in wanted:
            graph.output.append(onnx.helper.make_tensor_value_info(
                name, types.get(name) or onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    values = session.run(None, feeds)
    shapes = dict(known)
    shapes.update({n: list(np.shape(v)) for n, v in zip(names, values)})
    by_op = collections.Counter()
    for node in nodes:
        by_op[node.op_type] += _node_flops(node, lambda n: shapes[n])
    return {"total": sum(by_op.values()), "by_op": dict(by_op)}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an .onnx file of the suite")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON object")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import make_feeds
    import json
    here = os.path.dirname(os.path.abspath(args.model))
    with open(os.path.join(here, "manifest.json")) as f:
        specs = {m["file"]: m for m in json.load(f)["models"].values()}
    spec = specs.get(os.path.basename(args.model))
    if spec is None:
        sys.exit(f"{args.model}: not in {here}/manifest.json")
    result = count_flops(args.model, make_feeds(spec["inputs"], args.batch, 0))
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.model}, batch {args.batch}: {result['total'] / 1e9:.3f} GFLOP "
          + ", ".join(f"{op} {n / 1e9:.3f}" for op, n in
                      sorted(result["by_op"].items())))


if __name__ == "__main__":
    main(sys.argv[1:])
