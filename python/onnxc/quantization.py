"""Dynamic int8 quantization of a float ONNX model, with ONNX Runtime's
argument names where they fit:

    import onnxc
    onnxc.quantize_dynamic("model.onnx", "model.int8.onnx")

Every MatMul whose B is a 2-D float initializer (and every Gemm with a
constant B, alpha = 1 and a 1-D or absent C) becomes the standard form that
ONNX Runtime's quantize_dynamic writes and both engines run on int8 kernels:

    x -> DynamicQuantizeLinear -> (xq, x_scale, x_zero)
    MatMulInteger(xq, Wq, x_zero, W_zero) -> Cast(float)
      -> Mul(x_scale * W_scale) [-> Add(bias)]

The weights are quantized symmetrically to s8 (zero point 0) per tensor, or
per output column with `per_channel=True`; `weight_type="u8"` quantizes them
asymmetrically to u8 instead. Products that read one activation share its
DynamicQuantizeLinear. Needs the `onnx` package.
"""
import os
import sys

import numpy as np

QUANTIZED_OPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                 "MatMulInteger", "ConvInteger", "QLinearConv", "QLinearMatMul",
                 "MatMulIntegerToFloat", "DynamicQuantizeMatMul"}


class QuantizationError(ValueError):
    """A model or an argument this quantizer cannot take."""


def _weight_type(value):
    name = getattr(value, "name", value)  # onnxruntime's QuantType.QInt8
    name = str(name).lower()
    if name in ("s8", "qint8", "int8"):
        return "s8"
    if name in ("u8", "quint8", "uint8"):
        return "u8"
    raise QuantizationError(f"weight_type {value!r}: use 's8' or 'u8'")


def _quantize_weight(w, weight_type, axis):
    """(quantized W, scale, zero point) of a float W: one scale and zero
    point per index of `axis`, or one for all (None). s8 is symmetric (zero
    point 0), u8 asymmetric."""
    keep = axis is not None
    reduce = tuple(d for d in range(w.ndim) if d != axis) if keep else None
    lo = np.minimum(np.min(w, axis=reduce, keepdims=keep), 0.0)
    hi = np.maximum(np.max(w, axis=reduce, keepdims=keep), 0.0)
    if weight_type == "s8":
        scale = np.maximum(np.abs(lo), np.abs(hi)) / 127.0
        scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
        zero = np.zeros_like(scale, dtype=np.int8)
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    else:
        scale = ((hi - lo) / 255.0).astype(np.float32)
        scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
        zero = np.clip(np.rint(-lo / scale), 0, 255).astype(np.uint8)
        q = np.clip(np.rint(w / scale) + zero, 0, 255).astype(np.uint8)
    shape = (w.shape[axis],) if keep else ()
    return q, scale.reshape(shape), zero.reshape(shape)


def quantize_dynamic(model_input, model_output, weight_type="s8",
                     per_channel=False, op_types_to_quantize=("MatMul", "Gemm"),
                     nodes_to_exclude=()):
    """Writes `model_input` (a path or ModelProto) dynamically quantized to
    `model_output`; returns the number of products quantized."""
    import onnx
    from onnx import helper, numpy_helper

    weight_type = _weight_type(weight_type)
    model = (onnx.load(model_input) if isinstance(model_input, (str, os.PathLike))
             else model_input)
    graph = model.graph
    if not any(o.domain in ("", "ai.onnx") and o.version >= 11
               for o in model.opset_import):
        raise QuantizationError("the model's opset is below 11, which "
                                "DynamicQuantizeLinear needs")
    already = sorted({n.op_type for n in graph.node} & QUANTIZED_OPS)
    if already:
        raise QuantizationError(
            f"the model is already quantized (it has {', '.join(already)})")
    inits = {t.name: t for t in graph.initializer}
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    exclude = set(nodes_to_exclude)
    new_nodes, new_inits, quantized_inputs = [], [], {}
    count = 0

    def fresh(base):
        fresh.n += 1
        return f"{base}_q{fresh.n}"
    fresh.n = 0

    def dynamic_quantize(x):
        if x not in quantized_inputs:
            names = (fresh(x + "_quantized"), fresh(x + "_scale"),
                     fresh(x + "_zero_point"))
            new_nodes.append(helper.make_node(
                "DynamicQuantizeLinear", [x], list(names),
                name=fresh(x + "_DynamicQuantizeLinear")))
            quantized_inputs[x] = names
        return quantized_inputs[x]

    for node in graph.node:
        b_name = node.input[1] if len(node.input) > 1 else ""
        w_proto = inits.get(b_name)
        w = numpy_helper.to_array(w_proto) if w_proto is not None else None
        plain = (node.op_type in op_types_to_quantize and node.name not in exclude
                 and w is not None and w.dtype == np.float32 and w.ndim == 2)
        if plain and node.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            c = inits.get(node.input[2]) if len(node.input) > 2 and node.input[2] else None
            plain = (attrs.get("alpha", 1.0) == 1.0 and not attrs.get("transA", 0)
                     and (len(node.input) < 3 or not node.input[2]
                          or (c is not None and len(c.dims) == 1
                              and attrs.get("beta", 1.0) == 1.0)))
            if plain and attrs.get("transB", 0):
                w = w.T
        elif plain and node.op_type != "MatMul":
            plain = False
        if not plain:
            new_nodes.append(node)
            continue
        count += 1
        q, scale, zero = _quantize_weight(w, weight_type,
                                          1 if per_channel else None)
        stem = node.name or node.output[0]
        wq, ws, wz = fresh(b_name + "_quantized"), fresh(b_name + "_scale"), \
            fresh(b_name + "_zero_point")
        new_inits += [numpy_helper.from_array(q, wq),
                      numpy_helper.from_array(scale, ws),
                      numpy_helper.from_array(zero, wz)]
        xq, xs, xz = dynamic_quantize(node.input[0])
        product, as_float = fresh(stem + "_int32"), fresh(stem + "_float")
        scales, scaled = fresh(stem + "_scales"), fresh(stem + "_scaled")
        bias = node.input[2] if node.op_type == "Gemm" and len(node.input) > 2 else ""
        out = node.output[0]
        new_nodes += [
            helper.make_node("MatMulInteger", [xq, wq, xz, wz], [product],
                             name=fresh(stem + "_MatMulInteger")),
            helper.make_node("Cast", [product], [as_float],
                             to=onnx.TensorProto.FLOAT,
                             name=fresh(stem + "_Cast")),
            helper.make_node("Mul", [xs, ws], [scales],
                             name=fresh(stem + "_scales_Mul")),
            helper.make_node("Mul", [as_float, scales],
                             [scaled if bias else out],
                             name=fresh(stem + "_Mul")),
        ]
        if bias:
            new_nodes.append(helper.make_node("Add", [scaled, bias], [out],
                                              name=fresh(stem + "_bias_Add")))
        readers[b_name] -= 1
    # Float weights nothing reads any more are dropped.
    kept = [t for t in graph.initializer if readers.get(t.name, 0) > 0
            or t.name in {i.name for i in graph.input}]
    del graph.node[:]
    graph.node.extend(new_nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    onnx.save(model, model_output)
    return count


def _feeds_from(calibration_data_reader):
    """The calibration feeds: an ONNX Runtime CalibrationDataReader (its
    get_next() until None) or an iterable of {input name: array}."""
    if hasattr(calibration_data_reader, "get_next"):
        feeds = []
        while True:
            batch = calibration_data_reader.get_next()
            if batch is None:
                return feeds
            feeds.append(batch)
    return list(calibration_data_reader or [])


def _activation_parameters(lo, hi, activation_type):
    """Scale and zero point of a tensor whose values span [lo, hi] (0 is
    always inside, so that it quantizes exactly)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    qmin, qmax = (0, 255) if activation_type == "u8" else (-128, 127)
    scale = (hi - lo) / (qmax - qmin) if hi > lo else 1.0
    zero = int(np.clip(np.rint(qmin - lo / scale), qmin, qmax))
    dtype = np.uint8 if activation_type == "u8" else np.int8
    return np.array(scale, np.float32), np.array(zero, dtype)


def _calibrate(model, tensors, feeds, session_options):
    """{tensor: (min, max)} over the feeds, the float model run by onnxc
    with the tensors as extra outputs."""
    import onnx
    from onnx import helper
    from .session import InferenceSession

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    present = {o.name for o in probe.graph.output}
    for name in tensors:
        if name not in present:
            probe.graph.output.append(
                helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = InferenceSession(probe, **session_options)
    expected = {i.name for i in session.get_inputs()}
    ranges = {}
    for index, batch in enumerate(feeds):
        if set(batch) != expected:
            raise QuantizationError(
                f"calibration feed {index} has inputs {sorted(batch)}, the "
                f"model takes {sorted(expected)}")
        values = session.run(list(tensors), batch)
        for name, value in zip(tensors, values):
            lo, hi = float(np.min(value)), float(np.max(value))
            old = ranges.get(name, (lo, hi))
            ranges[name] = (min(lo, old[0]), max(hi, old[1]))
    return ranges


def _static_candidates(graph, inits, op_types, exclude):
    """The nodes quantize_static rewrites, with their weight's channel axis
    and their bias initializer (or None)."""
    from onnx import helper
    chosen = []
    for node in graph.node:
        if node.op_type not in op_types or node.name in exclude:
            continue
        w = inits.get(node.input[1]) if len(node.input) > 1 else None
        if w is None or w.data_type != 1:  # FLOAT
            continue
        bias = node.input[2] if len(node.input) > 2 and node.input[2] else None
        if bias and (bias not in inits or len(inits[bias].dims) != 1):
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv" and len(w.dims) >= 3:
            chosen.append((node, 0, bias))
        elif node.op_type == "MatMul" and len(w.dims) == 2:
            chosen.append((node, 1, None))
        elif (node.op_type == "Gemm" and len(w.dims) == 2
              and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0
              and not attrs.get("transA", 0)):
            chosen.append((node, 0 if attrs.get("transB", 0) else 1, bias))
    return chosen


def _dequantize_weight(name, axis, per_channel, inits, constant, nodes):
    """W quantized to symmetric s8 (per `axis` channel when per_channel)
    and its DequantizeLinear; returns the float name it makes and W's
    scale."""
    from onnx import helper, numpy_helper
    w = numpy_helper.to_array(inits[name])
    quantized, scale, zero = _quantize_weight(w, "s8",
                                              axis if per_channel else None)
    out = name + "_dequantized"
    nodes.append(helper.make_node(
        "DequantizeLinear",
        [constant(quantized, name + "_quantized"),
         constant(scale, name + "_scale"), constant(zero, name + "_zero")],
        [out], axis=axis, name=name + "_DequantizeLinear"))
    return out, scale


def _dequantize_bias(name, x_scale, w_scale, inits, constant, nodes):
    """The bias as int32 with scale x_scale * w_scale (what QLinearConv
    takes) and its DequantizeLinear; returns the float name it makes."""
    from onnx import helper, numpy_helper
    b = numpy_helper.to_array(inits[name]).astype(np.float64)
    scale = np.broadcast_to(np.float32(x_scale) * w_scale.astype(np.float32),
                            b.shape).astype(np.float32)
    out = name + "_dequantized"
    nodes.append(helper.make_node(
        "DequantizeLinear",
        [constant(np.rint(b / scale).astype(np.int32), name + "_quantized"),
         constant(scale, name + "_scale"),
         constant(np.zeros(b.shape, np.int32), name + "_zero")],
        [out], axis=0, name=name + "_DequantizeLinear"))
    return out


def quantize_static(model_input, model_output, calibration_data_reader,
                    per_channel=True, activation_type="u8", weight_type="s8",
                    op_types_to_quantize=("Conv", "MatMul", "Gemm"),
                    nodes_to_exclude=(), calibrate_method="minmax",
                    session_options=None):
    """Writes `model_input` quantized in the QDQ format to `model_output`,
    with activation ranges calibrated by running the float model with
    onnxc over `calibration_data_reader`'s feeds (min/max). Weights are
    symmetric s8, per output channel by default; biases int32 with scale
    x_scale * w_scale; a Relu after a quantized node folds into its
    output's range. Returns the number of nodes quantized."""
    import onnx
    from onnx import helper, numpy_helper

    method = str(getattr(calibrate_method, "name", calibrate_method)).lower()
    if method != "minmax":
        raise QuantizationError(f"calibrate_method {calibrate_method!r}: only "
                                f"'minmax' is implemented")
    activation_type = _weight_type(activation_type)
    if _weight_type(weight_type) != "s8":
        raise QuantizationError("quantize_static writes s8 weights only")
    model = (onnx.load(model_input) if isinstance(model_input, (str, os.PathLike))
             else model_input)
    graph = model.graph
    if not any(o.domain in ("", "ai.onnx") and o.version >= 13
               for o in model.opset_import):
        raise QuantizationError("the model's opset is below 13, which "
                                "per-axis DequantizeLinear needs")
    already = sorted({n.op_type for n in graph.node} & QUANTIZED_OPS)
    if already:
        raise QuantizationError(
            f"the model is already quantized (it has {', '.join(already)})")
    feeds = _feeds_from(calibration_data_reader)
    if not feeds:
        raise QuantizationError("static quantization needs calibration data: "
                                "the reader gave no feeds")
    inits = {t.name: t for t in graph.initializer}
    chosen = _static_candidates(graph, inits, set(op_types_to_quantize),
                                set(nodes_to_exclude))
    # A Relu that alone reads a quantized node's output is folded into that
    # output's quantization, as ONNX Runtime's quantizer does: calibrated on
    # the Relu's output (min 0), the Q/DQ clamps negative values to 0 itself.
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    graph_outputs = {o.name for o in graph.output}
    output_of = {}  # id(chosen node) -> the name its quantized output takes
    folded = set()
    for node, _, _ in chosen:
        y = node.output[0]
        users = readers.get(y, [])
        if (len(users) == 1 and users[0].op_type == "Relu"
                and y not in graph_outputs):
            output_of[id(node)] = users[0].output[0]
            folded.add(id(users[0]))
        else:
            output_of[id(node)] = y
    tensors = []
    for node, _, _ in chosen:
        for name in (node.input[0], output_of[id(node)]):
            if name not in tensors and name not in inits:
                tensors.append(name)
    ranges = _calibrate(model, tensors, feeds, session_options or {})

    new_inits, counter = [], [0]

    def constant(value, base):
        counter[0] += 1
        name = f"{base}_{counter[0]}"
        new_inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    qdq_nodes, dequantized = [], {}

    def quantize_dequantize(name, out_name):
        """Q then DQ of `name` with its calibrated parameters, into
        `out_name`."""
        scale, zero = _activation_parameters(*ranges[name], activation_type)
        s, z = constant(scale, name + "_scale"), constant(zero, name + "_zero")
        q = f"{name}_quantized"
        qdq_nodes.append(helper.make_node("QuantizeLinear", [name, s, z], [q],
                                          name=f"{name}_QuantizeLinear"))
        qdq_nodes.append(helper.make_node("DequantizeLinear", [q, s, z],
                                          [out_name],
                                          name=f"{name}_DequantizeLinear"))
        return float(scale)

    scales, clones = {}, {}
    made_here = {output_of[id(node)] for node, _, _ in chosen}
    for node, axis, bias in chosen:
        x = node.input[0]
        if x not in dequantized:
            if x in made_here:  # a quantized node's output: already Q/DQ
                dequantized[x] = x
            else:
                dequantized[x] = x + "_dequantized"
                scales[x] = quantize_dequantize(x, dequantized[x])
        w_dequantized, w_scale = _dequantize_weight(
            node.input[1], axis, per_channel, inits, constant, qdq_nodes)
        inputs = [dequantized[x], w_dequantized]
        if bias:
            if x not in scales:
                scales[x] = float(_activation_parameters(
                    *ranges[x], activation_type)[0])
            inputs.append(_dequantize_bias(bias, scales[x], w_scale, inits,
                                           constant, qdq_nodes))
        y = output_of[id(node)]
        clone = helper.make_node(node.op_type, inputs, [y + "_float"],
                                 name=node.name)
        clone.attribute.extend(node.attribute)
        clones[id(node)] = clone
        ranges[y + "_float"] = ranges[y]
        scales[y] = quantize_dequantize(y + "_float", y)

    # The graph's nodes in order, each Q/DQ node placed right before the
    # first node that comes after all of its inputs (a topological order).
    body = [clones.get(id(node), node) for node in graph.node
            if id(node) not in folded]
    available = {i.name for i in graph.input} | set(inits)
    available |= {t.name for t in new_inits}
    pending, ordered = list(qdq_nodes), []
    for node in body + [None]:
        ready = True
        while ready:
            ready = [n for n in pending if all(i in available for i in n.input)]
            for n in ready:
                ordered.append(n)
                available.update(n.output)
                pending.remove(n)
        if node is not None:
            ordered.append(node)
            available.update(node.output)
    del graph.node[:]
    graph.node.extend(ordered + pending)
    readers = {name for node in graph.node for name in node.input}
    kept = [t for t in graph.initializer if t.name in readers]
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    onnx.save(model, model_output)
    return len(chosen)


def _npy_feeds(directory, input_names):
    """Calibration feeds from a folder: one .npz per feed ({input: array}),
    or, for a one-input model, one .npy per feed."""
    if not os.path.isdir(directory):
        raise QuantizationError(f"--calibration-data {directory}: not a folder")
    feeds = []
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry)
        if entry.endswith(".npz"):
            with np.load(path) as data:
                feeds.append({k: data[k] for k in data.files})
        elif entry.endswith(".npy"):
            if len(input_names) != 1:
                raise QuantizationError(
                    f"{path}: a .npy feed needs a one-input model (this one "
                    f"takes {', '.join(input_names)}); use .npz")
            feeds.append({input_names[0]: np.load(path)})
    return feeds


def main(argv=None):
    """`python -m onnxc quantize MODEL -o OUT --mode dynamic|static ...`
    (onnxc/__main__.py), which `onnxc quantize` forwards to."""
    import argparse
    parser = argparse.ArgumentParser(
        prog="onnxc quantize",
        description="Quantize a float ONNX model to int8 (QDQ for static, "
                    "MatMulInteger for dynamic); ONNX Runtime and onnxc run "
                    "the result.")
    parser.add_argument("model")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--mode", choices=("dynamic", "static"),
                        default="dynamic")
    parser.add_argument("--calibration-data", metavar="DIR",
                        help="static: a folder of feeds (.npz per feed, or "
                             ".npy for a one-input model)")
    parser.add_argument("--method", default="minmax",
                        help="static calibration (minmax)")
    parser.add_argument("--per-channel", action="store_true")
    parser.add_argument("--activation-type", default="u8",
                        choices=("u8", "s8"))
    parser.add_argument("--weight-type", default="s8", choices=("s8", "u8"))
    parser.add_argument("--exclude-nodes", nargs="*", default=[])
    args = parser.parse_args(argv)
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("onnxc quantize: needs the onnx package (pip install onnx)",
              file=sys.stderr)
        return 1
    try:
        if not os.path.exists(args.model):
            raise QuantizationError(f"{args.model}: no such file")
        if args.mode == "dynamic":
            count = quantize_dynamic(args.model, args.output,
                                     weight_type=args.weight_type,
                                     per_channel=args.per_channel,
                                     nodes_to_exclude=args.exclude_nodes)
        else:
            if not args.calibration_data:
                raise QuantizationError(
                    "--mode static needs --calibration-data DIR")
            import onnx
            model = onnx.load(args.model)
            inputs = [i.name for i in model.graph.input
                      if i.name not in {t.name for t in model.graph.initializer}]
            feeds = _npy_feeds(args.calibration_data, inputs)
            count = quantize_static(model, args.output, feeds,
                                    per_channel=args.per_channel,
                                    activation_type=args.activation_type,
                                    weight_type=args.weight_type,
                                    nodes_to_exclude=args.exclude_nodes,
                                    calibrate_method=args.method)
    except QuantizationError as error:
        print(f"onnxc quantize: {args.model}: {error}", file=sys.stderr)
        return 1
    print(f"{args.output}: {count} nodes quantized ({args.mode})")
    return 0

