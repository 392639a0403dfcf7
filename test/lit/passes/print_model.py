"""Prints an ONNX model one fact per line for FileCheck (after checking it
with onnx.checker): opsets, inputs, outputs, initializers, nodes, value_info.
Usage: print_model.py MODEL.onnx"""
import sys

import onnx
from onnx import helper


def dims(type_proto):
    shape = type_proto.tensor_type.shape
    return [d.dim_param if d.dim_param else (d.dim_value if d.HasField("dim_value") else "")
            for d in shape.dim]


def dtype(type_proto):
    return helper.tensor_dtype_to_np_dtype(type_proto.tensor_type.elem_type).name \
        .replace("float32", "float")


def attr(a):
    value = helper.get_attribute_value(a)
    if isinstance(value, onnx.GraphProto):
        value = "graph"
    elif isinstance(value, onnx.TensorProto):
        value = "tensor"
    elif isinstance(value, bytes):
        value = value.decode()
    return f"{a.name}={value}"


model = onnx.load(sys.argv[1])
onnx.checker.check_model(model)
for opset in model.opset_import:
    print("opset", opset.domain or "ai.onnx", opset.version)
g = model.graph
for v in g.input:
    print("input", v.name, dtype(v.type), dims(v.type))
for v in g.output:
    print("output", v.name, dtype(v.type), dims(v.type))
for t in g.initializer:
    print("initializer", t.name, helper.tensor_dtype_to_np_dtype(t.data_type).name,
          list(t.dims))
for n in g.node:
    attrs = ",".join(attr(a) for a in n.attribute)
    domain = f"{n.domain}." if n.domain else ""
    print(f"node {domain}{n.op_type}{'<' + attrs + '>' if attrs else ''}"
          f"({', '.join(n.input)}) -> {', '.join(n.output)}")
for v in g.value_info:
    print("value_info", v.name, dtype(v.type), dims(v.type))
