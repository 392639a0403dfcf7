"""Per-op end-to-end tests: MaxPool, AveragePool and LpPool (targets/cpu/
lowering/Pooling.cpp) against ONNX Runtime: 1-D/2-D/3-D, strides, dilations,
asymmetric pads, ceil_mode, count_include_pad, every auto_pad, integer
MaxPool, the Indices output and symbolic dims."""
import numpy as np
import pytest

from node_cases import check_node

RNG = np.random.default_rng(23)


def f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


MAX_POOL = [
    ("2x2_symbolic_batch", f(2, 3, 8, 8), dict(kernel_shape=[2, 2], strides=[2, 2]), {0: [0]}),
    ("pads_ceil", f(1, 2, 7, 9), dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1), None),
    ("dilations", f(1, 2, 9, 9), dict(kernel_shape=[3, 3], dilations=[2, 1], strides=[1, 2]), None),
    ("same_upper", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 3], auto_pad="SAME_UPPER"), None),
    ("same_lower", f(1, 2, 7, 8), dict(kernel_shape=[3, 4], strides=[2, 1], auto_pad="SAME_LOWER"), None),
    ("valid", f(1, 2, 7, 8), dict(kernel_shape=[3, 4], strides=[2, 1], auto_pad="VALID"), None),
    ("1d", f(2, 3, 13), dict(kernel_shape=[3], strides=[2], pads=[1, 1]), None),
    ("3d_ceil", f(1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 2, 2], ceil_mode=1), None),
    ("symbolic_spatial", f(2, 3, 9, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1), {0: [0, 2, 3]}),
    ("int8", RNG.integers(-128, 128, (1, 2, 7, 7)).astype(np.int8), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), None),
    ("uint8", RNG.integers(0, 256, (1, 2, 7, 7)).astype(np.uint8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), None),
]


@pytest.mark.parametrize("x,attrs,dynamic", [c[1:] for c in MAX_POOL],
                         ids=[c[0] for c in MAX_POOL])
def test_max_pool(x, attrs, dynamic):
    check_node("MaxPool", [x], attrs, dynamic=dynamic)


MAX_POOL_INDICES = [
    ("pads", f(2, 3, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    ("column_major", f(2, 3, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 2], storage_order=1)),
    ("1d_ceil", f(2, 3, 9), dict(kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=1)),
    ("3d", f(1, 2, 4, 5, 6), dict(kernel_shape=[2, 2, 3], strides=[2, 2, 2])),
]


@pytest.mark.parametrize("x,attrs", [c[1:] for c in MAX_POOL_INDICES],
                         ids=[c[0] for c in MAX_POOL_INDICES])
def test_max_pool_indices(x, attrs):
    check_node("MaxPool", [x], attrs, out_dtypes=[np.float32, np.int64])


AVERAGE_POOL = [
    ("2x2_symbolic_batch", f(2, 3, 8, 8), dict(kernel_shape=[2, 2], strides=[2, 2]), {0: [0]}),
    ("pads_exclude", f(1, 2, 7, 9), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), None),
    ("pads_include", f(1, 2, 7, 9), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 2, 1, 0], count_include_pad=1), None),
    ("ceil_exclude", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 3], pads=[0, 1, 1, 0], ceil_mode=1), None),
    ("ceil_include", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 3], pads=[0, 1, 1, 0], ceil_mode=1, count_include_pad=1), None),
    ("ceil_no_pads_include", f(1, 1, 5, 5), dict(kernel_shape=[4, 4], strides=[3, 3], ceil_mode=1, count_include_pad=1), None),
    ("same_upper_include", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 3], auto_pad="SAME_UPPER", count_include_pad=1), None),
    ("same_lower", f(1, 2, 7, 8), dict(kernel_shape=[3, 4], strides=[2, 1], auto_pad="SAME_LOWER"), None),
    ("same_kernel_below_stride", f(1, 2, 8, 9), dict(kernel_shape=[2, 1], strides=[4, 3], auto_pad="SAME_UPPER"), None),
    ("valid", f(1, 2, 7, 8), dict(kernel_shape=[3, 4], strides=[2, 1], auto_pad="VALID"), None),
    ("dilations_include", f(1, 2, 9, 9), dict(kernel_shape=[3, 2], dilations=[2, 2], pads=[1, 1, 2, 1], count_include_pad=1), None),
    ("dilations_ceil", f(1, 2, 9, 9), dict(kernel_shape=[3, 2], dilations=[2, 2], pads=[1, 1, 2, 1], ceil_mode=1), None),
    ("1d_ceil", f(2, 3, 13), dict(kernel_shape=[4], strides=[3], pads=[2, 1], ceil_mode=1), None),
    ("3d", f(1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 2, 2], pads=[1, 1, 0, 0, 1, 1]), None),
    ("symbolic_spatial", f(2, 3, 9, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1), {0: [0, 2, 3]}),
    ("symbolic_spatial_include", f(2, 3, 9, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1, count_include_pad=1), {0: [0, 2, 3]}),
]


@pytest.mark.parametrize("x,attrs,dynamic", [c[1:] for c in AVERAGE_POOL],
                         ids=[c[0] for c in AVERAGE_POOL])
def test_average_pool(x, attrs, dynamic):
    check_node("AveragePool", [x], attrs, dynamic=dynamic)


def test_half_and_double():
    x = f(1, 2, 7, 8)
    check_node("MaxPool", [x.astype(np.float16)], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    check_node("MaxPool", [x.astype(np.float64)], dict(kernel_shape=[3, 3], strides=[2, 2]))
    check_node("AveragePool", [x.astype(np.float16)], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             rtol=2e-3)


LP_POOL = [
    ("p2_pads", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 1])),
    ("p1", f(1, 2, 7, 8), dict(kernel_shape=[3, 2], p=1)),
    ("p3_strides", f(1, 2, 7, 8), dict(kernel_shape=[2, 2], p=3, strides=[2, 2])),
    ("1d_same", f(2, 3, 11), dict(kernel_shape=[3], strides=[2], auto_pad="SAME_UPPER")),
]


@pytest.mark.parametrize("x,attrs", [c[1:] for c in LP_POOL], ids=[c[0] for c in LP_POOL])
def test_lp_pool(x, attrs):
    check_node("LpPool", [x], attrs)
