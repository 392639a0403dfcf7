"""Per-op end-to-end tests of the cpu lowering of the data-movement and shape
ops (targets/cpu/lowering/DataMovement*.cpp): single-node models compiled by
onnxc, run through the C ABI and compared with ONNX Runtime (exact for
integers and bools).

Every input is fed one of three ways: a graph input with a static shape
("in"), a graph input whose dims all get their own symbolic name ("dyn": the
lowering sees `?` dims, unit dims included, and reads index inputs at run
time), or an initializer ("init": a compile-time constant). Distinct names
matter here: node_cases.py's `symbolic` names dims by broadcast position,
which would tell shape inference that e.g. Concat's inputs agree along the
axis; "dyn" uses its `dynamic` mode instead."""
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from node_cases import check_node
from onnxc_runner import check_against_ort

OPSET = 21
RNG = np.random.default_rng(5)
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*values):
    return np.array(values, dtype=np.int64)


def scalar(value, dtype):
    return np.array(value, dtype=dtype)


def run(op, inputs, kinds=None, attrs=None, outputs=1, expected=None):
    """Builds a one-node model of `op` and checks it against ONNX Runtime.
    `inputs` are arrays or None (an omitted optional input); `kinds` gives
    each one's feeding ("in", "dyn", "init"; default "in")."""
    kinds = kinds or ["in"] * len(inputs)
    return check_node(op, inputs, attrs, opset=OPSET, num_outputs=outputs,
                      constants={k for k, kind in enumerate(kinds) if kind == "init"},
                      dynamic={k: "all" for k, kind in enumerate(kinds) if kind == "dyn"},
                      rtol=1e-6, expected=expected)


def make_model(graph):
    """A model of `graph` whose outputs declare their element type only
    (from ONNX's shape inference): their shapes are onnxc's to infer."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for output, typed in zip(model.graph.output, inferred.graph.output):
        output.type.tensor_type.elem_type = typed.type.tensor_type.elem_type
    return model


STATIC, DYNAMIC, CONSTANT = "in", "dyn", "init"


# --- Constant, Identity, Dropout, Shape, Size ---------------------------------

@pytest.mark.parametrize("value", [
    f32(3, 4), i64(1, -2, 3), np.array([[0, 200], [255, 7]], dtype=np.uint8),
    np.array([True, False, True]), np.array([1.5, -2.25], dtype=np.float16),
    np.array(3.25, dtype=np.float64), np.zeros((0, 3), dtype=np.float32)])
def test_constant(value):
    node = helper.make_node("Constant", [], ["y"],
                            value=numpy_helper.from_array(value))
    graph = helper.make_graph([node], "constant", [],
                              [helper.make_empty_tensor_value_info("y")])
    check_against_ort(make_model(graph), {})


def test_constant_value_ints():
    node = helper.make_node("Constant", [], ["y"], value_ints=[4, -5, 6])
    graph = helper.make_graph([node], "constant", [],
                              [helper.make_empty_tensor_value_info("y")])
    check_against_ort(make_model(graph), {})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("value", [f32(2, 3), i64(4, 5), np.array([True, False])])
def test_identity(value, kind):
    run("Identity", [value], [kind])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
def test_dropout_inference(kind):
    run("Dropout", [f32(3, 5), None, None], [kind, None, None], outputs=2)


def test_dropout_ratio_not_training():
    run("Dropout", [f32(4), scalar(0.3, np.float32), np.array(False)],
        [DYNAMIC, CONSTANT, CONSTANT], outputs=2)


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("attrs", [{}, {"start": 1}, {"start": -2},
                                   {"start": 1, "end": -1}, {"end": 10},
                                   {"start": -10, "end": 2}, {"start": 2, "end": 1}])
def test_shape(attrs, kind):
    run("Shape", [f32(2, 3, 4)], [kind], attrs)


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("shape", [(2, 3, 4), (0, 3), ()])
def test_size(shape, kind):
    run("Size", [f32(*shape)], [kind])


# --- ConstantOfShape, Range ----------------------------------------------------

@pytest.mark.parametrize("kind", [STATIC, CONSTANT])
@pytest.mark.parametrize("value", [None, np.array([7], dtype=np.int64),
                                   np.array([2.5], dtype=np.float64),
                                   np.array([True]), np.array([9], dtype=np.uint8),
                                   np.array([-3], dtype=np.int32)])
def test_constant_of_shape(value, kind):
    attrs = {} if value is None else {"value": numpy_helper.from_array(value)}
    run("ConstantOfShape", [i64(2, 3)], [kind], attrs)


def test_constant_of_shape_scalar_and_empty():
    run("ConstantOfShape", [np.zeros(0, dtype=np.int64)], [STATIC])
    run("ConstantOfShape", [i64(3, 0)], [STATIC])


@pytest.mark.parametrize("kind", [STATIC, CONSTANT])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("start,limit,delta", [(3, 10, 3), (10, 4, -2), (10, 4, 2),
                                               (-5, 5, 1), (0, 1, 5)])
def test_range(start, limit, delta, dtype, kind):
    run("Range", [scalar(start, dtype), scalar(limit, dtype), scalar(delta, dtype)],
        [kind] * 3)


def test_range_fractional():
    run("Range", [scalar(0.5, np.float32), scalar(3.2, np.float32),
                  scalar(0.3, np.float32)])
    run("Range", [scalar(1.0, np.float64), scalar(-1.0, np.float64),
                  scalar(-0.25, np.float64)])


# --- Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Tile -----------

@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, CONSTANT),
                                   (STATIC, STATIC), (DYNAMIC, STATIC)])
@pytest.mark.parametrize("data,shape", [
    (f32(2, 3, 4), i64(6, 4)), (f32(2, 3, 4), i64(-1, 4)), (f32(2, 3, 4), i64(0, -1)),
    (f32(2, 3, 4), i64(0, 3, 2, 2)), (f32(2, 12), i64(2, 3, -1)), (f32(6), i64(2, 3)),
    (f32(2, 3, 4), i64(-1)), (f32(1, 1), i64()), (f32(0, 4), i64(-1, 2)),
    (f32(4, 6), i64(6, 4))])
def test_reshape(data, shape, kinds):
    run("Reshape", [data, shape], list(kinds))


@pytest.mark.parametrize("kinds", [(DYNAMIC, STATIC), (STATIC, CONSTANT)])
def test_reshape_allowzero(kinds):
    run("Reshape", [f32(2, 0, 4), i64(0, 4, 0)], list(kinds), {"allowzero": 1})
    # Zero elements: the element count does not fix the other dims.
    run("Reshape", [f32(3, 0), i64(5, 0)], list(kinds), {"allowzero": 1})


def test_reshape_int_and_bool():
    run("Reshape", [np.arange(12, dtype=np.int64), i64(3, -1)], [DYNAMIC, STATIC])
    run("Reshape", [RNG.random((2, 6)) > 0.5, i64(4, 3)], [DYNAMIC, CONSTANT])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3])
def test_flatten(axis, kind):
    run("Flatten", [f32(2, 3, 4)], [kind], {"axis": axis})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("axes", [i64(0), i64(-2), i64(0, 2), i64(2, 0)])
def test_squeeze(axes, kind):
    run("Squeeze", [f32(1, 3, 1, 4), axes], [kind, CONSTANT])


def test_squeeze_no_axes():
    run("Squeeze", [f32(1, 3, 1, 4), None], [STATIC, None])
    run("Squeeze", [f32(1, 1), None], [STATIC, None])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("axes", [i64(0), i64(-1), i64(1, 0), i64(-1, 0, 3)])
def test_unsqueeze(axes, kind):
    run("Unsqueeze", [f32(3, 4), axes], [kind, CONSTANT])


def test_unsqueeze_scalar():
    run("Unsqueeze", [scalar(2.5, np.float32), i64(0, 1)], [STATIC, CONSTANT])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1], [1, 0, 2]])
def test_transpose(perm, kind):
    attrs = {} if perm is None else {"perm": perm}
    run("Transpose", [f32(2, 3, 5)], [kind], attrs)


def test_transpose_types():
    run("Transpose", [np.arange(24, dtype=np.int32).reshape(2, 3, 4)], [DYNAMIC],
        {"perm": [2, 1, 0]})
    run("Transpose", [RNG.random((3, 2)) > 0.5], [STATIC])
    run("Transpose", [f32(7, 1, 5).astype(np.float16)], [DYNAMIC], {"perm": [1, 2, 0]})


@pytest.mark.parametrize("dims", ["static", "open"])
@pytest.mark.parametrize("dtype,perm,shape", [
    (np.float32, [0, 2, 3, 1], (1, 40, 19, 21)),   # NCHW -> NHWC, edge tiles
    (np.uint8, [0, 2, 3, 1], (2, 96, 9, 70)),      # 64-wide u8 tiles
    (np.float32, [0, 3, 1, 2], (1, 33, 17, 48)),   # NHWC -> NCHW
    (np.int64, [1, 0], (130, 45)),
    (np.float16, [2, 1, 0], (17, 3, 70)),
    (np.float32, [0, 2, 3, 1], (1, 5, 16, 16)),   # inner loop below a tile
])
def test_transpose_in_tiles(dtype, perm, shape, dims):
    """Transposes big enough for the tiled loops of
    transforms/TileTransposedLoops.cpp (sizes that leave partial tiles,
    tiles of 16, 32 and 64 elements), with an op fused after them, at one
    and two threads (the split of the tiled nest), with static and open
    dims (whose nests are linearized across every dim): exact against ORT."""
    import tempfile
    from onnxc_runner import Artifact, compile_model, run_ort
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    out_shape = [shape[p] for p in perm]
    in_dims = list(shape) if dims == "static" else [
        f"d{i}" for i in range(len(shape))]
    one = numpy_helper.from_array(np.array(1, dtype), "one")
    graph = helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["t"], perm=perm),
         helper.make_node("Add", ["t", "one"], ["y"])],
        "transpose_tiles",
        [helper.make_tensor_value_info("x", elem, in_dims)],
        [helper.make_tensor_value_info("y", elem, None)], [one])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    if np.issubdtype(dtype, np.integer):
        x = RNG.integers(0, 100, shape).astype(dtype)
    else:
        x = RNG.standard_normal(shape).astype(dtype)
    want = run_ort(model, {"x": x})[0]
    assert want.shape == tuple(out_shape)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        for threads in (1, 2):
            artifact.set_num_threads(threads)
            got = artifact.run({"x": x})[0]
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got, want), f"{threads} threads"


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, CONSTANT),
                                   (DYNAMIC, STATIC), (STATIC, STATIC)])
@pytest.mark.parametrize("data,shape", [
    (f32(3, 1), i64(2, 1, 4)), (f32(3, 1), i64(3, 4)), (f32(1, 4), i64(3, 1)),
    (f32(2, 3), i64(1, 1)), (f32(2, 1, 3), i64(2, 4, 1)), (f32(1), i64(0)),
    (f32(5), i64(1, 5))])
def test_expand(data, shape, kinds):
    run("Expand", [data, shape], list(kinds))


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, STATIC)])
@pytest.mark.parametrize("repeats", [i64(2, 3), i64(1, 1), i64(3, 1), i64(0, 2)])
def test_tile(repeats, kinds):
    run("Tile", [f32(2, 3), repeats], list(kinds))


def test_tile_int_3d():
    run("Tile", [np.arange(6, dtype=np.int64).reshape(1, 2, 3), i64(2, 1, 2)],
        [DYNAMIC, STATIC])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space(mode, kind):
    run("DepthToSpace", [f32(2, 8, 3, 2)], [kind], {"blocksize": 2, "mode": mode})


@pytest.mark.parametrize("mode,block", [("DCR", 2), ("CRD", 2), ("CRD", 3)])
def test_depth_to_space_then_elementwise_with_open_sizes(mode, block):
    """DepthToSpace copies rows into a [N, D, H, b, W, b] view, and the
    elementwise ops after it stay on the collapsed output's rows (the
    fusion pass does not expand them onto the short block dim): the values
    must be those of ONNX Runtime either way, with open image sizes."""
    c = 4 * block * block
    nodes = [helper.make_node("DepthToSpace", ["x"], ["d"], blocksize=block,
                              mode=mode),
             helper.make_node("Mul", ["d", "two"], ["m"]),
             helper.make_node("Relu", ["m"], ["y"])]
    graph = helper.make_graph(
        nodes, "d2s_chain",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                       ["n", c, "h", "w"])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    check_against_ort(model, {"x": f32(2, c, 5, 7)}, rtol=0)


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
def test_space_to_depth(kind):
    run("SpaceToDepth", [f32(2, 3, 4, 6)], [kind], {"blocksize": 2})


# --- Slice, Gather*, Concat, Split, Pad -----------------------------------------

SLICES = [  # starts, ends, axes, steps
    (i64(1, 0), i64(4, INT64_MAX), i64(0, 1), i64(1, 2)),
    (i64(-1, 4), i64(INT64_MIN, -100), i64(0, 1), i64(-2, -1)),
    (i64(10, -2), i64(-10, 1), i64(0, -1), i64(-1, -3)),
    (i64(3), i64(1), i64(1), i64(1)),
    (i64(-3), i64(-1), i64(-1), None),
    (i64(0, 1), i64(3, 5), None, None),
    (i64(4), i64(-7), i64(1), i64(-2)),
]


@pytest.mark.parametrize("kinds", [
    (STATIC, CONSTANT, CONSTANT, CONSTANT, CONSTANT),
    (DYNAMIC, STATIC, STATIC, CONSTANT, CONSTANT),
    (DYNAMIC, STATIC, STATIC, CONSTANT, STATIC),
    (STATIC, CONSTANT, CONSTANT, CONSTANT, STATIC)])
@pytest.mark.parametrize("starts,ends,axes,steps", SLICES)
def test_slice(starts, ends, axes, steps, kinds):
    run("Slice", [f32(5, 6), starts, ends, axes, steps], list(kinds))


def test_slice_int32_indices_and_zero_dim():
    run("Slice", [f32(5, 6), np.array([1], np.int32), np.array([-1], np.int32),
                  np.array([-1], np.int32), None], [DYNAMIC, STATIC, STATIC, CONSTANT, None])
    run("Slice", [f32(0, 3), i64(0), i64(2), i64(1), i64(-1)],
        [DYNAMIC, STATIC, STATIC, CONSTANT, STATIC])


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, STATIC), (STATIC, STATIC)])
@pytest.mark.parametrize("axis,indices", [
    (0, i64(2, 0, -1)), (1, np.array([[0, -1, 2], [4, 1, -5]], np.int64)),
    (-1, i64(1)), (1, scalar(-3, np.int64)), (2, scalar(0, np.int64)),
    (0, np.array([[3], [1]], np.int32))])
def test_gather(axis, indices, kinds):
    run("Gather", [f32(4, 5, 3), indices], list(kinds), {"axis": axis})


def test_gather_int_data():
    run("Gather", [np.arange(10, dtype=np.int64), i64(3, -1, 0)], [DYNAMIC, STATIC])
    run("Gather", [np.arange(6, dtype=np.uint8).reshape(2, 3), scalar(1, np.int64)],
        [STATIC, CONSTANT], {"axis": 1})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis, kind):
    data = f32(3, 4)
    shape = (2, 4) if axis == 0 else (3, 2)
    size = data.shape[axis]
    indices = RNG.integers(-size, size, shape).astype(np.int64)
    run("GatherElements", [data, indices], [kind, kind], {"axis": axis})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("data,indices,batch_dims", [
    (f32(4, 5, 3), np.array([[0, 1], [3, -1]], np.int64), 0),
    (f32(4, 5, 3), np.array([[[0, 1, 2]], [[3, -1, 0]]], np.int64), 0),
    (f32(4, 5), np.array([[2], [0], [-1]], np.int64), 0),
    (f32(2, 3, 4), np.array([[1], [0]], np.int64), 1),
    (f32(2, 3, 4), np.array([[[1, 2]], [[0, 3]]], np.int64), 1)])
def test_gather_nd(data, indices, batch_dims, kind):
    # The indices keep a static last dim: it fixes the result rank.
    run("GatherND", [data, indices], [kind, STATIC], {"batch_dims": batch_dims})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("axis,shapes", [
    (0, [(2, 3), (4, 3), (0, 3), (1, 3)]), (1, [(2, 3), (2, 1), (2, 0)]),
    (-1, [(2, 3)]), (0, [(1, 2, 2)] * 5)])
def test_concat(axis, shapes, kind):
    run("Concat", [f32(*s) for s in shapes], [kind] * len(shapes), {"axis": axis})


def test_concat_mixed_and_int():
    run("Concat", [i64(1, 2), i64(3)], [STATIC, DYNAMIC], {"axis": 0})
    run("Concat", [i64(1, 2), i64(3), i64(4, 5)], [CONSTANT, DYNAMIC, STATIC], {"axis": 0})


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, STATIC)])
def test_split_sizes(kinds):
    run("Split", [f32(7, 4), i64(2, 5)], list(kinds), {"axis": 0}, outputs=2)
    run("Split", [f32(3, 4), i64(1, 0, 3)], list(kinds), {"axis": -1}, outputs=3)


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("size,outputs", [(6, 3), (7, 3), (5, 2)])
def test_split_num_outputs(size, outputs, kind):
    run("Split", [f32(2, size), None], [kind, None],
        {"axis": 1, "num_outputs": outputs}, outputs=outputs)


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT, CONSTANT, CONSTANT),
                                   (DYNAMIC, STATIC, STATIC, CONSTANT)])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
@pytest.mark.parametrize("pads,axes", [(i64(1, 2, 2, 3), None), (i64(0, 1, 0, 0), None),
                                       (i64(2, 1), i64(-1)), (i64(1, 0, 0, 2), i64(1, 0))])
def test_pad(pads, axes, mode, kinds):
    value = scalar(1.5, np.float32) if mode == "constant" else None
    run("Pad", [f32(3, 4), pads, value, axes], list(kinds), {"mode": mode})


@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT, CONSTANT, CONSTANT),
                                   (DYNAMIC, STATIC, STATIC, CONSTANT)])
def test_pad_negative(kinds):
    run("Pad", [f32(3, 4), i64(-1, 2, 1, -2), scalar(7.0, np.float32), None],
        list(kinds), {"mode": "constant"})


def test_pad_int():
    run("Pad", [np.arange(6, dtype=np.int64).reshape(2, 3), i64(0, 1, 1, 0),
                scalar(-3, np.int64), None], [DYNAMIC, STATIC, STATIC, CONSTANT])


# --- Trilu, OneHot, ScatterElements, ScatterND ---------------------------------

@pytest.mark.parametrize("kinds", [(STATIC, CONSTANT), (DYNAMIC, STATIC)])
@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [0, 1, -2, 10])
def test_trilu(k, upper, kinds):
    run("Trilu", [f32(2, 4, 5), scalar(k, np.int64)], list(kinds), {"upper": upper})


def test_trilu_default_k():
    run("Trilu", [np.arange(9, dtype=np.int32).reshape(3, 3), None], [DYNAMIC, None])


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    run("OneHot", [np.array([[0, 2, -1], [5, -4, 1]], np.int64), scalar(4, np.int64),
                   np.array([0.5, 2.0], np.float32)], [DYNAMIC, STATIC, STATIC],
        {"axis": axis})


def test_one_hot_float_indices():
    # Float indices truncate toward zero (2.7 -> 2), as in ONNX Runtime.
    run("OneHot", [np.array([0.0, 2.7, -1.0], np.float32), scalar(3, np.int64),
                   i64(0, 7)], [STATIC, CONSTANT, STATIC])


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_elements(reduction, kind):
    indices = np.array([[1, 1, 4], [0, -1, 1]], np.int64)
    if reduction == "none":
        indices = np.array([[1, 0, 4], [0, -1, 2]], np.int64)
    run("ScatterElements", [f32(4, 5), indices, f32(2, 3)], [kind] * 3,
        {"axis": 1, "reduction": reduction})


@pytest.mark.parametrize("kind", [STATIC, DYNAMIC])
@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_scatter_nd(reduction, kind):
    run("ScatterND", [f32(4, 3), np.array([[1], [-1]], np.int64), f32(2, 3)],
        [kind] * 3, {"reduction": reduction})
    run("ScatterND", [f32(2, 3, 4), np.array([[0, 1], [1, 2]], np.int64), f32(2, 4)],
        [kind] * 3, {"reduction": reduction})


def test_scatter_nd_int():
    run("ScatterND", [np.arange(6, dtype=np.int32).reshape(2, 3),
                      np.array([[0, 1], [1, 2], [0, 0]], np.int64),
                      np.array([10, 20, 30], np.int32)], [DYNAMIC] * 3,
        {"reduction": "add"})
