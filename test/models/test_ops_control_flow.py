"""Numerics of the If, Loop and Scan lowerings (targets/cpu/lowering/
ControlFlow.cpp) against ONNX Runtime: run-time conditions, branches of
different shapes, loops that stop early (scan outputs of run-time length),
unsigned loop-carried values, symbolic dims, scan axes and directions, and
Scan-8's batch."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from node_cases import integers, uniform
from onnxc_runner import check_against_ort

F, I64, B, U8, I32 = (TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL,
                      TensorProto.UINT8, TensorProto.INT32)


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, opset=21):
    graph = helper.make_graph(nodes, "control_flow", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10 if opset >= 21 else 4
    return m


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=helper.make_tensor(name + "_v", {
                                np.dtype(np.int64): I64,
                                np.dtype(np.float32): F}[array.dtype],
                                array.shape, array.flatten().tolist()))


@pytest.mark.parametrize("cond", [True, False])
def test_if_branches_of_different_shapes(cond):
    # then: Exp of x [3]; else: y [5] + outer x's sum, with a nested If.
    then_graph = helper.make_graph(
        [helper.make_node("Exp", ["x"], ["t"])], "then", [],
        [value("t", F, [3])])
    inner_then = helper.make_graph(
        [helper.make_node("Neg", ["y"], ["n"])], "inner_then", [],
        [value("n", F, [5])])
    inner_else = helper.make_graph(
        [helper.make_node("Identity", ["y"], ["i"])], "inner_else", [],
        [value("i", F, [5])])
    else_graph = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=1),
         helper.make_node("Add", ["y", "s"], ["e0"]),
         helper.make_node("Not", ["c"], ["nc"]),
         helper.make_node("If", ["nc"], ["e"], then_branch=inner_then,
                          else_branch=inner_else)],
        "else", [], [value("e", F, [5])])
    m = model([helper.make_node("If", ["c"], ["out"], then_branch=then_graph,
                                else_branch=else_graph)],
              [value("c", B, []), value("x", F, [3]), value("y", F, [5])],
              [value("out", F, None)])
    check_against_ort(m, {"c": np.array(cond), "x": uniform(3),
                          "y": uniform(5)})


def loop_model(with_trip_count, with_cond, state_type=F, counter_shape=()):
    """Loop: state += x * iteration; scan output state; the body's condition
    is iteration < limit. counter_shape: the declared shape of the iteration
    number, M and the conditions ([1] as paddle2onnx writes them)."""
    counter = list(counter_shape)
    body = helper.make_graph(
        [const("one", np.array(1, np.int64)),
         helper.make_node("Cast", ["i"], ["fi"], to=state_type),
         helper.make_node("Mul", ["x", "fi"], ["step"]),
         helper.make_node("Add", ["s", "step"], ["s_out"]),
         helper.make_node("Add", ["i", "one"], ["next"]),
         helper.make_node("Less", ["next", "limit"], ["c_out"]),
         helper.make_node("Identity", ["s_out"], ["row"])],
        "body",
        [value("i", I64, counter), value("c", B, counter),
         value("s", state_type, None)],
        [value("c_out", B, counter), value("s_out", state_type, None),
         value("row", state_type, None)])
    inputs = [value("x", state_type, ["n"]), value("s0", state_type, ["n"]),
              value("limit", I64, [])]
    names = ["", "", "s0"]
    if with_trip_count:
        inputs.append(value("m", I64, counter))
        names[0] = "m"
    if with_cond:
        inputs.append(value("c0", B, counter))
        names[1] = "c0"
    return model([helper.make_node("Loop", names, ["s_final", "rows"],
                                   body=body)],
                 inputs, [value("s_final", state_type, None),
                          value("rows", state_type, None)])


# (A loop that runs no iteration is left out: ONNX Runtime then returns 1-D
# empty scan outputs, whatever the rows' rank.)
@pytest.mark.parametrize("m,limit,c0", [(7, 4, True), (3, 10, True),
                                        (1, 10, True), (9, 9, True)])
def test_loop_trip_count_and_condition(m, limit, c0):
    feeds = {"x": uniform(6), "s0": uniform(6), "limit": np.array(limit),
             "m": np.array(m, np.int64), "c0": np.array(c0)}
    check_against_ort(loop_model(True, True), feeds)


@pytest.mark.parametrize("limit", [3, 8])
def test_loop_without_cond_input(limit):
    # The body's condition still stops the loop, as in ONNX Runtime.
    feeds = {"x": uniform(4), "s0": uniform(4), "limit": np.array(limit),
             "m": np.array(6, np.int64)}
    check_against_ort(loop_model(True, False), feeds)


def test_loop_while_without_trip_count():
    feeds = {"x": uniform(2), "s0": uniform(2), "limit": np.array(5),
             "c0": np.array(True)}
    check_against_ort(loop_model(False, True), feeds)


def test_loop_counters_of_shape_one():
    # paddle2onnx declares the iteration number and conditions [1] (PP-
    # Structure's table decoder); ONNX Runtime takes any one-element tensor.
    feeds = {"x": uniform(3), "s0": uniform(3), "limit": np.array(5),
             "m": np.array([7], np.int64), "c0": np.array([True])}
    check_against_ort(loop_model(True, True, counter_shape=[1]), feeds)


def test_loop_unsigned_state():
    feeds = {"x": integers(5, dtype=np.uint8, low=0, high=60),
             "s0": integers(5, dtype=np.uint8, low=0, high=250),
             "limit": np.array(100), "m": np.array(4, np.int64),
             "c0": np.array(True)}
    check_against_ort(loop_model(True, True, U8), feeds)


def scan_model(attrs, x_shape, s0_shape, state_elem=F, opset=21, batch=None):
    """Scan: state += slice; outputs (state, state * slice)."""
    slice_shape = None
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "v"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "v"], ["row"])],
        "body", [value("s", state_elem, slice_shape),
                 value("v", state_elem, slice_shape)],
        [value("s_out", state_elem, slice_shape),
         value("row", state_elem, slice_shape)])
    inputs = ["", "s0", "x"] if batch else ["s0", "x"]
    return model([helper.make_node("Scan", inputs, ["s_final", "rows"],
                                   body=body, num_scan_inputs=1, **attrs)],
                 [value("s0", state_elem, s0_shape),
                  value("x", state_elem, x_shape)],
                 [value("s_final", state_elem, None),
                  value("rows", state_elem, None)], opset=opset)


@pytest.mark.parametrize("attrs", [
    {},
    {"scan_input_directions": [1]},
    {"scan_input_axes": [1], "scan_output_axes": [1]},
    {"scan_input_axes": [-1], "scan_output_axes": [-1],
     "scan_input_directions": [1], "scan_output_directions": [1]},
    {"scan_output_directions": [1]},
])
def test_scan_axes_and_directions(attrs):
    axis = attrs.get("scan_input_axes", [0])[0]
    x = uniform(5, 3)
    s0 = uniform(3 if axis == 0 else 5)
    check_against_ort(scan_model(attrs, [5, 3], list(s0.shape)),
                      {"s0": s0, "x": x})


def test_scan_symbolic_length_and_rows():
    x = integers(7, 4, dtype=np.int32)
    s0 = integers(4, dtype=np.int32)
    check_against_ort(scan_model({"scan_output_axes": [1]}, ["t", "w"], ["w"],
                                 I32),
                      {"s0": s0, "x": x})


def test_scan8_batch():
    x = uniform(3, 4, 2)
    s0 = uniform(3, 2)
    check_against_ort(scan_model({"directions": [1]}, [3, 4, 2], [3, 2],
                                 opset=8, batch=True), {"s0": s0, "x": x})


@pytest.mark.parametrize("n", [5, 1, 7])
def test_scan_rows_of_run_time_shape_feed_later_ops(n):
    """A scan output whose rows take their dims from a state of run-time
    shape (a k-nearest-neighbours classifier's distance scan: state X [N, 4],
    one row of the training set per iteration, rows of N distances), read
    by later ops. Its buffer got its dims only on the first iteration, and
    the canonicalizer folded the loop to the placeholder's (zero) dims: the
    Transpose then saw N = 0 and the model returned empty outputs."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["state_in"], ["state_out"]),
         helper.make_node("Sub", ["state_in", "row"], ["d"]),
         helper.make_node("ReduceSumSquare", ["d", "axes"], ["dist"],
                          keepdims=0)],
        "distances",
        [value("state_in", F, ["N", 4]), value("row", F, [4])],
        [value("state_out", F, ["N", 4]), value("dist", F, ["N"])],
        [helper.make_tensor("axes", I64, [1], [1])])
    nodes = [
        helper.make_node("Scan", ["x", "train"], ["x_out", "all"], body=body,
                         num_scan_inputs=1),
        helper.make_node("Transpose", ["all"], ["per_sample"], perm=[1, 0]),
        helper.make_node("ReduceMin", ["per_sample", "one"], ["nearest"],
                         keepdims=0),
        helper.make_node("Shape", ["per_sample"], ["shape"]),
    ]
    m = model([const("one", np.array([1], np.int64))] + nodes,
              [value("x", F, ["N", 4]), value("train", F, [6, 4])],
              [value("nearest", F, ["N"]), value("shape", I64, [2])])
    check_against_ort(m, {"x": uniform(n, 4), "train": uniform(6, 4)})
