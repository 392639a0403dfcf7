"""Per-op numerics of the reduction, softmax and normalization lowerings
(targets/cpu/lowering/Reduction.cpp, Softmax.cpp, Normalization.cpp) against
ONNX Runtime: axes (constant, absent, negative, empty with
noop_with_empty_axes), keepdims, symbolic dims, integer and half types."""
import numpy as np
import pytest

from node_cases import bools, check_node, integers, uniform

X = uniform(3, 4, 5)
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
          "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare"]


def axes(*values):
    return np.array(values, np.int64)


@pytest.mark.parametrize("op", REDUCE)
def test_reduce_float(op):
    check_node(op, [X, axes(1)], constants={1})
    check_node(op, [X, axes(0, 2)], {"keepdims": 0}, constants={1})
    check_node(op, [X, axes(-1)], constants={1}, symbolic={0})
    check_node(op, [X, None])
    check_node(op, [X, None], {"keepdims": 0})
    check_node(op, [uniform(2, 3, dtype=np.float16), axes(1)], constants={1})
    check_node(op, [uniform(2, 3, dtype=np.float64), axes(0)], constants={1})


@pytest.mark.parametrize("op", REDUCE)
def test_reduce_noop_with_empty_axes(op):
    check_node(op, [X, None], {"noop_with_empty_axes": 1}, reference=True)


def test_reduce_log_sum():
    check_node("ReduceLogSum", [uniform(3, 4, 5, low=0.1), axes(1)], constants={1})
    check_node("ReduceLogSum", [uniform(3, 4, low=0.1), None], {"keepdims": 0}, symbolic={0})


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                                "ReduceL1", "ReduceSumSquare", "ReduceMean"])
def test_reduce_integer(op):
    check_node(op, [integers(3, 4, 5, low=-4, high=5), axes(1)], constants={1},
               out_dtypes=[np.int32])
    check_node(op, [integers(3, 4, dtype=np.int64), axes(0)], {"keepdims": 0}, constants={1})


def test_reduce_bool():
    check_node("ReduceMax", [bools(3, 4), axes(1)], constants={1}, reference=True)
    check_node("ReduceMin", [bools(3, 4), axes(1)], constants={1}, reference=True)


def test_reduce_log_sum_exp_infinities():
    x = np.array([[1, np.inf, 2], [-np.inf, -np.inf, -np.inf], [1000, 1000, 999],
                  [np.nan, 1, 2]], np.float32)
    check_node("ReduceLogSumExp", [x, axes(1)], constants={1})


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("last", [0, 1])
def test_arg_reduce(op, keepdims, last):
    ties = RNG_TIES.copy()
    check_node(op, [ties], {"axis": 1, "keepdims": keepdims, "select_last_index": last})
    check_node(op, [ties], {"axis": -1, "keepdims": keepdims, "select_last_index": last},
               symbolic={0})


RNG_TIES = np.random.default_rng(3).integers(0, 3, (3, 4, 5)).astype(np.float32)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_reduce_types(op):
    check_node(op, [integers(3, 4, low=0, high=3)], {"axis": 0})
    check_node(op, [uniform(4, 6, dtype=np.float16)], {"axis": 1})


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool(op):
    check_node(op, [uniform(2, 3, 5, 7)])
    check_node(op, [uniform(2, 3, 5, 7)], symbolic={0})
    check_node(op, [uniform(2, 3, 9)])
    check_node(op, [uniform(1, 2, 3, 4, 5, dtype=np.float16)])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(op, axis):
    check_node(op, [X], {"axis": axis})
    check_node(op, [X], {"axis": axis}, symbolic={0})


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_types_and_range(op):
    check_node(op, [uniform(2, 7, dtype=np.float16)])
    check_node(op, [uniform(2, 7, dtype=np.float64)])
    check_node(op, [uniform(13, low=-100, high=100)])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3), (1, 3, 7)])
def test_batch_normalization(shape):
    c = shape[1]
    params = [uniform(c), uniform(c), uniform(c), uniform(c, low=0.1, high=2.0)]
    check_node("BatchNormalization", [uniform(*shape)] + params, {"epsilon": 1e-3},
               constants={1, 2, 3, 4})
    check_node("BatchNormalization", [uniform(*shape)] + params, symbolic={0})


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_batch_normalization_types(dtype):
    params = [uniform(3, dtype=dtype), uniform(3, dtype=dtype), uniform(3, dtype=dtype),
              uniform(3, low=0.1, high=2.0, dtype=dtype)]
    check_node("BatchNormalization", [uniform(2, 3, 4, dtype=dtype)] + params)


@pytest.mark.parametrize("axis", [-1, 1, 0, 2])
def test_layer_normalization(axis):
    shape = (2, 3, 5)
    check_node("LayerNormalization", [uniform(*shape), uniform(*shape[axis:]),
                                      uniform(*shape[axis:])], {"axis": axis}, opset=17)


def test_layer_normalization_variants():
    check_node("LayerNormalization", [uniform(2, 3, 5), uniform(5), None], {"epsilon": 1e-2},
               opset=17)
    check_node("LayerNormalization", [uniform(2, 3, 5), uniform(5), uniform(5)],
               num_outputs=3, opset=17)
    check_node("LayerNormalization", [uniform(4, 6, 8), uniform(6, 8), uniform(8)],
               {"axis": 1}, num_outputs=3, opset=17, symbolic={0})
    check_node("LayerNormalization", [uniform(4, 8, dtype=np.float16),
                                      uniform(8, dtype=np.float16), uniform(8, dtype=np.float16)],
               num_outputs=3, opset=17, out_dtypes=[np.float16, np.float32, np.float32])
    check_node("LayerNormalization", [uniform(4, 8, dtype=np.float64),
                                      uniform(8, dtype=np.float64), uniform(8, dtype=np.float64)],
               {"stash_type": 0}, opset=17, out_dtypes=[np.float64])


def test_instance_normalization():
    check_node("InstanceNormalization", [uniform(2, 3, 4, 5), uniform(3), uniform(3)])
    check_node("InstanceNormalization", [uniform(2, 3, 7), uniform(3), uniform(3)],
               {"epsilon": 0.1}, symbolic={0})
    check_node("InstanceNormalization", [uniform(2, 3, 7, dtype=np.float16),
                                         uniform(3, dtype=np.float16), uniform(3, dtype=np.float16)])


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalization(p):
    check_node("LpNormalization", [X], {"p": p})
    check_node("LpNormalization", [X], {"p": p, "axis": 1}, symbolic={0})
    check_node("LpNormalization", [np.zeros((2, 3), np.float32)], {"p": p})


def test_older_opsets():
    """Older forms, normalized by the importer into the ones lowered here."""
    check_node("Softmax", [X], {"axis": 1}, opset=11)
    check_node("LogSoftmax", [X], {"axis": 0}, opset=11)
    check_node("ReduceSum", [X], {"axes": [0, -1], "keepdims": 0}, opset=11)
    check_node("ReduceMean", [X], {"axes": [1]}, opset=13)
    check_node("ReduceMax", [X], {"axes": [2]}, opset=17)
