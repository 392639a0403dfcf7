"""The hostile-model corpus: malformed and malicious ONNX files, each with the
error onnxc must report for it.

Every case is built here, from code, rather than checked in as opaque bytes:
the builder says what is wrong with the file, and a case can be regenerated
when the onnx package changes. `write_case(case, folder)` writes the model
(and any side files, e.g. external data or a symlink) into `folder` and
returns the model's path.

A case is (name, builder, expected): `builder(folder)` returns the model bytes
(and may write side files into `folder`); `expected` is a regular expression
the single error line must match after "onnxc: error: <model path>".
"""
import os
import re

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 21


def _model(nodes, inputs, outputs, inits=(), opset=OPSET, domains=()):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, list(inits))
    imports = [helper.make_opsetid("", opset)] + [
        helper.make_opsetid(d, 1) for d in domains]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    return model


def _f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def _relu_model():
    return _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                  [_f32("x", [2, 3])], [_f32("y", [2, 3])])


def _tensor(name, data_type, dims, raw=None, floats=None):
    """A TensorProto built field by field: onnx.helper refuses the
    inconsistent ones this corpus needs."""
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = data_type
    tensor.dims.extend(dims)
    if raw is not None:
        tensor.raw_data = raw
    if floats is not None:
        tensor.float_data.extend(floats)
    return tensor


def _bytes(model):
    return model.SerializeToString()


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


# --- Broken protobuf ----------------------------------------------------------

def empty_file(folder):
    return b""


def random_bytes(folder):
    return np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8).tobytes()


def truncated(folder):
    data = _bytes(_relu_model())
    return data[: len(data) // 2]


def graph_field_as_varint(folder):
    # ModelProto.graph is field 7 (a message); write it as a varint instead.
    # Protobuf keeps a field of the wrong wire type as an unknown field, so
    # the model parses, but has no graph.
    model = _relu_model()
    model.ClearField("graph")
    return _bytes(model) + bytes([7 << 3 | 0]) + _varint(5)


def length_past_end(folder):
    # A length-delimited field (graph) that claims more bytes than follow.
    return bytes([7 << 3 | 2]) + _varint(1 << 30) + b"\x00" * 16


def no_graph(folder):
    model = _relu_model()
    model.ClearField("graph")
    return _bytes(model)


def deeply_nested_unknown_fields(folder):
    # 100k nested length-delimited fields in an unknown field of the graph
    # (GraphProto has no field 7): a parser that recursed into unknown data
    # without a depth limit would overflow its stack. Protobuf skips it; the
    # model then lacks an ir_version.
    inner = b""
    for _ in range(100_000):
        inner = bytes([7 << 3 | 2]) + _varint(len(inner)) + inner
    return inner


# --- Broken graphs ------------------------------------------------------------

def undefined_input(folder):
    return _bytes(_model([helper.make_node("Relu", ["nowhere"], ["y"], name="relu")],
                         [_f32("x", [2])], [_f32("y", [2])]))


def graph_cycle(folder):
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
             helper.make_node("Relu", ["a"], ["b"], name="second")]
    return _bytes(_model(nodes, [_f32("x", [2])], [_f32("b", [2])]))


def duplicate_output_name(folder):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="one"),
             helper.make_node("Neg", ["x"], ["y"], name="two")]
    return _bytes(_model(nodes, [_f32("x", [2])], [_f32("y", [2])]))


def duplicate_input_name(folder):
    return _bytes(_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [_f32("x", [2]), _f32("x", [2])], [_f32("y", [2])]))


def output_not_produced(folder):
    return _bytes(_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [_f32("x", [2])], [_f32("z", [2])]))


def unknown_op(folder):
    return _bytes(_model([helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery")],
                         [_f32("x", [2])], [_f32("y", [2])]))


def unknown_domain(folder):
    node = helper.make_node("Relu", ["x"], ["y"], name="foreign",
                            domain="com.example.nowhere")
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", [2])],
                         domains=["com.example.nowhere"]))


def future_opset(folder):
    return _bytes(_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [_f32("x", [2])], [_f32("y", [2])], opset=999))


def empty_op_type(folder):
    return _bytes(_model([helper.make_node("", ["x"], ["y"], name="blank")],
                         [_f32("x", [2])], [_f32("y", [2])]))


def unknown_attribute_flood(folder):
    attrs = {f"junk{i}": i for i in range(20_000)}
    node = helper.make_node("Relu", ["x"], ["y"], name="flooded", **attrs)
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", [2])]))


def wrong_attribute_type(folder):
    node = helper.make_node("Transpose", ["x"], ["y"], name="transpose", perm="1,0")
    return _bytes(_model([node], [_f32("x", [2, 3])], [_f32("y", [3, 2])]))


def _field(number, payload):
    """A length-delimited protobuf field."""
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def deeply_nested_subgraphs(folder):
    # If inside If inside ... 2000 levels deep, encoded by hand (protobuf's
    # Python runtime refuses to build messages this deep). Each level nests
    # NodeProto > AttributeProto > GraphProto.
    out_info = _f32("r", [2]).SerializeToString()
    graph = _field(1, _field(1, "x") + _field(2, "r") + _field(4, "Identity")) \
        + _field(2, "leaf") + _field(12, out_info)
    for depth in range(2000):
        attr = _field(1, "then_branch") + _varint(20 << 3) + _varint(5) \
            + _field(6, graph)
        other = _field(1, "else_branch") + _varint(20 << 3) + _varint(5) \
            + _field(6, _field(1, _field(1, "x") + _field(2, "r")
                               + _field(4, "Identity")) + _field(12, out_info))
        node = _field(1, "c") + _field(2, "r") + _field(3, f"if{depth}") \
            + _field(4, "If") + _field(5, attr) + _field(5, other)
        graph = _field(1, node) + _field(2, f"level{depth}") + _field(12, out_info)
    model = _model([], [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                        _f32("x", [2])], [_f32("r", [2])])
    model.ClearField("graph")
    return model.SerializeToString() + _field(7, graph)


# --- Absurd shapes and tensor sizes -------------------------------------------

def input_dims_overflow(folder):
    huge = 1 << 40
    return _bytes(_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [_f32("x", [huge, huge])], [_f32("y", [huge, huge])]))


def negative_input_dim(folder):
    return _bytes(_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                         [_f32("x", [2, -5])], [_f32("y", [2, -5])]))


def initializer_count_overflow(folder):
    weight = _tensor("w", TensorProto.FLOAT, [1 << 32, 1 << 32, 1 << 32], raw=b"")
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", None)], [weight]))


def initializer_negative_dim(folder):
    weight = _tensor("w", TensorProto.FLOAT, [-2, 3], raw=b"")
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [3])], [_f32("y", None)], [weight]))


def raw_data_too_short(folder):
    weight = _tensor("w", TensorProto.FLOAT, [4, 4],
                     raw=np.zeros(5, np.float32).tobytes())
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [4, 4])], [_f32("y", [4, 4])], [weight]))


def raw_data_too_long(folder):
    weight = _tensor("w", TensorProto.FLOAT, [2],
                     raw=np.zeros(9, np.float32).tobytes())
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", [2])], [weight]))


def typed_data_count_mismatch(folder):
    weight = _tensor("w", TensorProto.FLOAT, [3, 3], floats=[1.0, 2.0])
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [3, 3])], [_f32("y", [3, 3])], [weight]))


def undefined_data_type(folder):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2], vals=[1.0, 2.0])
    weight.data_type = 0
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", [2])], [weight]))


def out_of_range_data_type(folder):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2], vals=[1.0, 2.0])
    weight.data_type = 99
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [2])], [_f32("y", [2])], [weight]))


def reshape_to_huge(folder):
    shape = numpy_helper.from_array(np.array([1 << 62, 1 << 62], np.int64), "shape")
    node = helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")
    return _bytes(_model([node], [_f32("x", [4])], [_f32("y", None)], [shape]))


def conv_zero_stride(folder):
    weight = numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[0, 0])
    return _bytes(_model([node], [_f32("x", [1, 1, 8, 8])], [_f32("y", None)], [weight]))


def conv_kernel_larger_than_input(folder):
    weight = numpy_helper.from_array(np.ones((1, 1, 9, 9), np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv")
    return _bytes(_model([node], [_f32("x", [1, 1, 4, 4])], [_f32("y", None)], [weight]))


def matmul_inner_mismatch(folder):
    node = helper.make_node("MatMul", ["a", "b"], ["y"], name="matmul")
    return _bytes(_model([node], [_f32("a", [2, 3]), _f32("b", [4, 5])],
                         [_f32("y", None)]))


# --- External data ------------------------------------------------------------

def _external_model(folder, location, offset=None, length=None, data=None):
    if data is not None:
        with open(os.path.join(folder, "weights.bin"), "wb") as f:
            f.write(data)
    weight = _tensor("w", TensorProto.FLOAT, [4])
    weight.data_location = TensorProto.EXTERNAL
    entries = {"location": location}
    if offset is not None:
        entries["offset"] = str(offset)
    if length is not None:
        entries["length"] = str(length)
    for key, value in entries.items():
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _bytes(_model([node], [_f32("x", [4])], [_f32("y", [4])], [weight]))


_SIXTEEN_BYTES = np.arange(4, dtype=np.float32).tobytes()


def external_parent_dir(folder):
    return _external_model(folder, "../secret.bin")


def external_sneaky_parent_dir(folder):
    os.makedirs(os.path.join(folder, "sub"), exist_ok=True)
    return _external_model(folder, "sub/../../secret.bin")


def external_absolute_path(folder):
    return _external_model(folder, "/etc/passwd")


def external_symlink_out(folder):
    os.symlink("/etc/passwd", os.path.join(folder, "link.bin"))
    return _external_model(folder, "link.bin")


def external_missing_file(folder):
    return _external_model(folder, "missing.bin")


def external_directory(folder):
    os.makedirs(os.path.join(folder, "adir"), exist_ok=True)
    return _external_model(folder, "adir")


def external_offset_past_end(folder):
    return _external_model(folder, "weights.bin", offset=64, data=_SIXTEEN_BYTES)


def external_length_past_end(folder):
    return _external_model(folder, "weights.bin", offset=8, length=16,
                           data=_SIXTEEN_BYTES)


def external_huge_length(folder):
    return _external_model(folder, "weights.bin", offset=0,
                           length=(1 << 64) - 1, data=_SIXTEEN_BYTES)


def external_negative_offset(folder):
    return _external_model(folder, "weights.bin", offset=-8, data=_SIXTEEN_BYTES)


def external_wrong_size(folder):
    return _external_model(folder, "weights.bin", data=_SIXTEEN_BYTES * 2)


# name, builder, the message onnxc must print (a regular expression).
CASES = [
    ("empty_file", empty_file, r"no graph"),
    ("random_bytes", random_bytes, r"not a valid ONNX model"),
    ("truncated", truncated, r"not a valid ONNX model"),
    ("graph_field_as_varint", graph_field_as_varint, r"no graph"),
    ("length_past_end", length_past_end, r"not a valid ONNX model"),
    ("no_graph", no_graph, r"no graph"),
    ("deeply_nested_unknown_fields", deeply_nested_unknown_fields, r"no ir_version"),
    ("undefined_input", undefined_input, r"node 'relu'.*'nowhere'"),
    ("graph_cycle", graph_cycle, r"node 'first'.*'b'"),
    ("duplicate_output_name", duplicate_output_name, r"node 'two'.*'y'"),
    ("duplicate_input_name", duplicate_input_name, r"'x'"),
    ("output_not_produced", output_not_produced, r"'z'"),
    ("unknown_op", unknown_op, r"node 'mystery'.*NoSuchOp"),
    ("unknown_domain", unknown_domain, r"node 'foreign'.*com\.example\.nowhere"),
    ("future_opset", future_opset, r"opset 999"),
    ("empty_op_type", empty_op_type, r"node 'blank'"),
    ("unknown_attribute_flood", unknown_attribute_flood, r"node 'flooded'.*junk"),
    ("wrong_attribute_type", wrong_attribute_type, r"node 'transpose'.*perm"),
    ("deeply_nested_subgraphs", deeply_nested_subgraphs, r"not a valid ONNX model"),
    ("input_dims_overflow", input_dims_overflow, r"'x'.*(overflow|too large)"),
    ("negative_input_dim", negative_input_dim, r"'x'.*-5"),
    ("initializer_count_overflow", initializer_count_overflow, r"'w'.*64 bits"),
    ("initializer_negative_dim", initializer_negative_dim, r"'w'.*-2"),
    ("raw_data_too_short", raw_data_too_short, r"'w'.*20 bytes.*64"),
    ("raw_data_too_long", raw_data_too_long, r"'w'.*36 bytes.*8"),
    ("typed_data_count_mismatch", typed_data_count_mismatch, r"'w'.*2 .*9"),
    ("undefined_data_type", undefined_data_type, r"'w'.*(type|dtype)"),
    ("out_of_range_data_type", out_of_range_data_type, r"'w'.*(type|dtype)"),
    ("reshape_to_huge", reshape_to_huge, r"node 'reshape'.*64 bits"),
    ("conv_zero_stride", conv_zero_stride, r"node 'conv'.*stride"),
    ("conv_kernel_larger_than_input", conv_kernel_larger_than_input, r"node 'conv'"),
    ("matmul_inner_mismatch", matmul_inner_mismatch, r"node 'matmul'"),
    ("external_parent_dir", external_parent_dir, r"leaves the model's folder"),
    ("external_sneaky_parent_dir", external_sneaky_parent_dir, r"leaves the model's folder"),
    ("external_absolute_path", external_absolute_path, r"absolute path"),
    ("external_symlink_out", external_symlink_out, r"outside the model's folder"),
    ("external_missing_file", external_missing_file, r"cannot open external data"),
    ("external_directory", external_directory, r"not a regular file"),
    ("external_offset_past_end", external_offset_past_end, r"offset 64 is past the end"),
    ("external_length_past_end", external_length_past_end, r"past the end"),
    ("external_huge_length", external_huge_length, r"past the end|not a non-negative"),
    ("external_negative_offset", external_negative_offset, r"not a non-negative integer"),
    ("external_wrong_size", external_wrong_size, r"32 bytes.*16"),
]


def write_case(builder, folder):
    """Writes the case's model (and side files) into `folder`; returns the
    model path."""
    os.makedirs(folder, exist_ok=True)
    data = builder(folder)
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(data)
    return path


def error_line_pattern(model_path, expected):
    """The full single-line error onnxc must print for a case."""
    return re.compile(r"onnxc: error: " + re.escape(model_path) + r".*" + expected)
