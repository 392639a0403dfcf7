"""One-node models for the per-op end-to-end tests (test_ops_*.py): build the
node with the onnx helpers, compile it with onnxc, run it and compare with
ONNX Runtime (or with an expected value where ONNX Runtime lacks a kernel)."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import check_against_ort

OPSET = 22
_TENSOR_TYPES = {np.dtype(k): v for k, v in {
    np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE,
    np.float16: TensorProto.FLOAT16, np.int8: TensorProto.INT8,
    np.uint8: TensorProto.UINT8, np.int32: TensorProto.INT32,
    np.int64: TensorProto.INT64, np.uint32: TensorProto.UINT32,
    np.uint64: TensorProto.UINT64}.items()}


def single_op_model(op, inputs, attrs, output_types, dynamic=None, constant=()):
    """`inputs`: arrays, or None for an omitted optional input. `dynamic`:
    {input index: [dims]} made symbolic. `constant`: indices of inputs that
    become initializers. Returns (model, feeds)."""
    dynamic = dynamic or {}
    names, graph_inputs, inits, feeds = [], [], [], {}
    for i, value in enumerate(inputs):
        if value is None:
            names.append("")
            continue
        name = f"in{i}"
        names.append(name)
        if i in constant:
            inits.append(numpy_helper.from_array(value, name))
            continue
        dims = [f"d{i}_{d}" if d in dynamic.get(i, ()) else size
                for d, size in enumerate(value.shape)]
        graph_inputs.append(helper.make_tensor_value_info(
            name, _TENSOR_TYPES[value.dtype], dims))
        feeds[name] = value
    outputs = [f"out{i}" for i in range(len(output_types))]
    node = helper.make_node(op, names, outputs, name=f"{op.lower()}_node", **attrs)
    graph = helper.make_graph(
        [node], op.lower(), graph_inputs,
        [helper.make_tensor_value_info(n, _TENSOR_TYPES[np.dtype(t)], None)
         for n, t in zip(outputs, output_types)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    return model, feeds


def check_op(op, inputs, attrs=None, output_types=None, dynamic=None,
             constant=(), rtol=1e-4, expected=None):
    """Compiles and runs one `op` node, compares with ONNX Runtime (or
    `expected`) and prints the error. The output types default to input 0's."""
    output_types = output_types or [inputs[0].dtype]
    # Rank-0 inputs become initializers: onnxc_runner.Artifact.run passes
    # numpy scalars through np.ascontiguousarray, which makes them 1-D.
    constant = set(constant) | {k for k, v in enumerate(inputs)
                                if v is not None and v.ndim == 0}
    model, feeds = single_op_model(op, inputs, attrs or {}, output_types,
                                   dynamic, constant)
    errors = check_against_ort(model, feeds, rtol=rtol, expected=expected)
    print(f"{op} {attrs or {}}: max relative error {max(errors):.3g}")
    return errors
