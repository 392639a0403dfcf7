"""Per-op numerics of the elementwise lowerings (targets/cpu/lowering/
Elementwise*.cpp) against ONNX Runtime: every unary op, broadcasting binary
and variadic ops over their dtypes, comparisons, Where, Clip and the Cast
matrix, with static and symbolic shapes."""
import numpy as np
import pytest
from onnx import helper

from node_cases import bools, check_node, integers, uniform

X = uniform(2, 3, 5)

UNARY = ["Abs", "Neg", "Exp", "Floor", "Ceil", "Sin", "Cos", "Tan", "Atan", "Sinh",
         "Cosh", "Tanh", "Erf", "Sigmoid", "Relu", "Softplus", "Softsign",
         "HardSwish", "Mish", "Sign", "Reciprocal"]


@pytest.mark.parametrize("op", UNARY)
def test_unary_float(op):
    check_node(op, [X])


@pytest.mark.parametrize("op", ["Log", "Sqrt"])
def test_unary_positive(op):
    check_node(op, [uniform(3, 4, low=0.1, high=5.0)])


@pytest.mark.parametrize("op", ["Asin", "Acos"])
def test_unary_unit_interval(op):
    check_node(op, [uniform(3, 4, low=-1.0, high=1.0)])


def test_round_half_to_even():
    check_node("Round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6, -2.6], np.float32)])


@pytest.mark.parametrize("op,attrs", [
    ("LeakyRelu", {"alpha": 0.2}), ("Elu", {"alpha": 0.7}), ("Selu", {}),
    ("Celu", {"alpha": 1.5}), ("ThresholdedRelu", {"alpha": 0.5}),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
    ("Gelu", {}), ("Gelu", {"approximate": "tanh"})])
def test_activation_attributes(op, attrs):
    check_node(op, [X], attrs)


@pytest.mark.parametrize("op,x", [
    ("Relu", integers(3, 4)), ("Abs", integers(3, 4, dtype=np.int8)),
    ("Neg", integers(3, 4, dtype=np.int64)), ("Sign", integers(3, 4)),
    ("Sign", integers(5, dtype=np.uint8, low=0, high=3)), ("Not", bools(3, 4))])
def test_unary_integer_and_bool(op, x):
    check_node(op, [x])


@pytest.mark.parametrize("positive,negative", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_isinf(positive, negative):
    x = np.array([1, np.nan, np.inf, -np.inf], np.float32)
    check_node("IsInf", [x], {"detect_positive": positive, "detect_negative": negative})
    check_node("IsNaN", [x])


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_unary_other_floats(dtype):
    check_node("Exp", [uniform(3, 4, dtype=dtype)])
    check_node("Tanh", [uniform(3, 4, dtype=dtype)])


def test_unary_symbolic():
    check_node("Sigmoid", [uniform(7, 9)], symbolic={0})


BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"]


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("symbolic", [False, True])
def test_binary_broadcast(op, symbolic):
    check_node(op, [uniform(2, 3, 4), uniform(3, 1)], symbolic={0, 1} if symbolic else ())


@pytest.mark.parametrize("cols", [1, 5])
def test_dynamic_dim_against_static(cols):
    """A dynamic dim broadcast against a static 5 is resolved to 5 at compile
    time, but may be 1 at run time."""
    check_node("Add", [uniform(3, cols), uniform(1, 5)], input_dims={0: ["n", "m"]})
    check_node("Mul", [uniform(2, 5), uniform(cols)], input_dims={1: ["k"]})


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_binary_integer(op, dtype):
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -20
    check_node(op, [integers(2, 3, 4, dtype=dtype, low=low), integers(4, dtype=dtype, low=1, high=9)])


def test_div_truncates_toward_zero():
    check_node("Div", [np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)])


def test_binary_half_and_double():
    check_node("Add", [uniform(3, 4, dtype=np.float16), uniform(4, dtype=np.float16)])
    check_node("Mul", [uniform(3, 4, dtype=np.float64), uniform(1, 4, dtype=np.float64)])


def test_variadic():
    check_node("Max", [uniform(3, 4), uniform(4), uniform(1, 1), uniform(3, 1)])
    check_node("Mean", [uniform(3, 4), uniform(4), uniform(3, 1)])
    check_node("Sum", [uniform(5)])


def test_max_propagates_nan():
    check_node("Max", [np.array([1, np.nan, 3], np.float32), np.array([np.nan, 2, 1], np.float32)])


@pytest.mark.parametrize("base,exponent", [
    (uniform(3, 4, low=0.1), uniform(4)),
    (uniform(3, 4), np.array(2.0, np.float32)),
    (uniform(3, 4), np.array([3], np.int64)),
    (integers(3, 4, low=-5, high=5), integers(4, low=0, high=4)),
    (integers(3, 4, dtype=np.int64, low=-5, high=5), integers(4, dtype=np.int64, low=0, high=4)),
    (uniform(3, 4, low=0.1, dtype=np.float64), uniform(4, low=0.0, high=3.0))])
def test_pow(base, exponent):
    check_node("Pow", [base, exponent])


def test_pow_constant_square():
    check_node("Pow", [uniform(3, 4), np.array(2.0, np.float32)], constants={1})


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_mod_integer(fmod, dtype):
    sign = 1 if dtype == np.uint8 else np.array([1, -1, 1, -1, 1])
    low = 0 if dtype == np.uint8 else -20
    check_node("Mod", [integers(4, 5, dtype=dtype, low=low),
                       (integers(5, dtype=dtype, low=1, high=7) * sign).astype(dtype)],
               {"fmod": fmod})


def test_mod_float():
    b = uniform(5, low=1, high=3) * np.array([1, -1, 1, -1, 1], np.float32)
    check_node("Mod", [uniform(4, 5, low=-10, high=10), b], {"fmod": 1})
    check_node("Mod", [uniform(4, 5, low=-10, high=10), b], {"fmod": 0}, reference=True)


@pytest.mark.parametrize("op", ["And", "Or", "Xor"])
def test_logic(op):
    check_node(op, [bools(3, 4), bools(4)])


@pytest.mark.parametrize("op", ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"])
def test_comparison(op):
    check_node(op, [uniform(3, 4).round(), uniform(4).round()])
    check_node(op, [integers(3, 4, low=-3, high=3), integers(1, 4, low=-3, high=3)])
    check_node(op, [integers(3, 4, dtype=np.uint8, low=0, high=3),
                    integers(4, dtype=np.uint8, low=0, high=3)])


def test_equal_bool():
    check_node("Equal", [bools(3, 4), bools(4)])


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bitshift(direction):
    check_node("BitShift", [integers(3, 4, dtype=np.uint8, low=0, high=255),
                            integers(4, dtype=np.uint8, low=0, high=10)], {"direction": direction})
    check_node("BitShift", [integers(3, 4, dtype=np.uint32, low=0, high=255),
                            integers(4, dtype=np.uint32, low=0, high=40)],
               {"direction": direction}, reference=True)


def test_prelu():
    check_node("PRelu", [uniform(2, 3, 4), uniform(3, 1)])
    check_node("PRelu", [uniform(2, 3, 4), uniform(4)], symbolic={0, 1})
    check_node("PRelu", [integers(2, 3, 4), integers(4)], reference=True)


def test_where():
    check_node("Where", [bools(3, 1), uniform(1, 4), uniform(3, 4)])
    check_node("Where", [bools(2, 3, 4), integers(4, dtype=np.int64), integers(3, 1, dtype=np.int64)],
               symbolic={0, 1, 2})
    check_node("Where", [bools(3, 4), uniform(3, 4, dtype=np.float16), uniform(4, dtype=np.float16)])


@pytest.mark.parametrize("bounds", [(-1.0, 1.5), (None, 1.0), (0.0, None), (None, None)])
def test_clip_float(bounds):
    lo, hi = (None if b is None else np.array(b, np.float32) for b in bounds)
    check_node("Clip", [X, lo, hi])


def test_clip_integer_and_constant_bounds():
    check_node("Clip", [integers(3, 4), np.array(-2, np.int32), np.array(3, np.int32)])
    check_node("Clip", [integers(3, 4, dtype=np.uint8, low=0, high=200),
                        np.array(20, np.uint8), np.array(100, np.uint8)], constants={1, 2})


CAST_VALUES = {
    np.float32: np.array([0, -0.0, 1.7, -1.7, 2.5, 100.9, -100.9, 3e4], np.float32),
    np.float64: np.array([0, 1.7, -1.7, 2.5, 100.9, -100.9, 1e5, 7], np.float64),
    np.float16: np.array([0, 1.7, -1.7, 2.5, 100.9, -100.9, 1000, 7], np.float16),
    np.int8: np.array([0, 1, -1, 127, -128, 5, 7, 100], np.int8),
    np.int16: np.array([0, 1, -1, 300, -300, 5, 7, 1000], np.int16),
    np.int32: np.array([0, 1, -1, 70000, -70000, 5, 7, 1 << 30], np.int32),
    np.int64: np.array([0, 1, -1, 1 << 40, -(1 << 40), 5, 7, 255], np.int64),
    np.uint8: np.array([0, 1, 255, 128, 5, 7, 100, 200], np.uint8),
    np.uint16: np.array([0, 1, 65535, 300, 5, 7, 100, 200], np.uint16),
    np.uint32: np.array([0, 1, 4000000000, 300, 5, 7, 100, 200], np.uint32),
    np.uint64: np.array([0, 1, 1 << 63, 300, 5, 7, 100, 200], np.uint64),
    np.bool_: np.array([0, 1, 1, 0, 1, 0, 0, 1], np.bool_),
}


def _castable(values, target):
    """Float values the target integer type can hold (out of range is
    undefined in ONNX)."""
    if values.dtype.kind != "f" or target in (np.float32, np.float64, np.float16, np.bool_):
        return values
    info = np.iinfo(target)
    return values[(values >= max(info.min, -3e4)) & (values <= min(info.max, 3e4))]


@pytest.mark.parametrize("source", list(CAST_VALUES), ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("target", list(CAST_VALUES), ids=lambda t: np.dtype(t).name)
def test_cast(source, target):
    values = _castable(CAST_VALUES[source], target)
    check_node("Cast", [values.reshape(1, -1)],
               {"to": helper.np_dtype_to_tensor_dtype(np.dtype(target))})


def test_cast_like():
    check_node("CastLike", [uniform(2, 3), np.zeros(1, np.int64)])


def test_older_opsets():
    """Older forms, normalized by the importer into the ones lowered here."""
    check_node("Clip", [X], {"min": -1.0, "max": 1.0}, opset=6)
    check_node("Cast", [X], {"to": helper.np_dtype_to_tensor_dtype(np.dtype(np.int32))}, opset=9)
    check_node("Add", [uniform(2, 3, 4), uniform(3, 4)], opset=7)
