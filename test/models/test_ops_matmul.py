"""Per-op end-to-end tests: MatMul, MatMulInteger and Gemm (targets/cpu/
lowering/MatMul.cpp) against ONNX Runtime: odd sizes, 1-D promotion, batch
broadcasting, symbolic batch dims, integer and half types, transposes and
every C broadcast."""
import numpy as np
import pytest

from node_cases import check_node

RNG = np.random.default_rng(21)


def f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def i(*shape, dtype=np.int32, low=-20, high=20):
    return RNG.integers(low, high, shape).astype(dtype)


MATMUL = [
    ("2d", [f(7, 13), f(13, 5)], None),
    ("batch_a_symbolic", [f(2, 3, 7, 13), f(13, 5)], {0: [0, 1]}),
    ("same_batch_symbolic", [f(2, 3, 7, 13), f(2, 3, 13, 5)], {0: [0], 1: [0]}),
    ("broadcast_batch", [f(2, 1, 7, 13), f(3, 13, 5)], None),
    ("a_2d_b_batched", [f(7, 13), f(3, 13, 5)], None),
    ("b_unit_batch", [f(7, 13), f(1, 1, 13, 5)], None),
    ("vector_vector", [f(13), f(13)], None),
    ("vector_matrix", [f(13), f(2, 13, 5)], None),
    ("matrix_vector", [f(2, 7, 13), f(13)], {0: [0]}),
    ("symbolic_rows", [f(9, 13), f(13, 5)], {0: [0]}),
    ("f64", [f(4, 6, dtype=np.float64), f(6, 3, dtype=np.float64)], None),
    ("i32", [i(2, 7, 13), i(2, 13, 5)], None),
    ("i64_broadcast", [i(3, 1, 4, 6, dtype=np.int64), i(1, 2, 6, 5, dtype=np.int64)], None),
    ("u32", [i(7, 13, dtype=np.uint32, low=0), i(13, 5, dtype=np.uint32, low=0)], None),
    ("u64_batched", [i(3, 4, 5, dtype=np.uint64, low=0), i(5, 2, dtype=np.uint64, low=0)], None),
    ("i64_vector_batched", [i(4, dtype=np.int64), i(2, 4, 2, dtype=np.int64)], None),
    ("two_symbolic_batch_dims", [f(2, 3, 7, 13), f(2, 3, 13, 5)], {0: [0, 1], 1: [0, 1]}),
    # f32 runs on the runtime GEMM (lowering/GemmCall.cpp): K and N over one
    # cache block, one output row, many small batches, and a symbolic batch
    # that is 1 at run time against another symbolic one.
    ("gemm_blocks", [f(33, 700), f(700, 1100)], None),
    ("one_row", [f(1, 300), f(300, 600)], None),
    ("many_small_batches", [f(8, 16, 20), f(8, 20, 12)], None),
    ("symbolic_batch_one_at_run_time", [f(1, 7, 13), f(3, 13, 5)], {0: [0], 1: [0]}),
]


@pytest.mark.parametrize("inputs,dynamic", [c[1:] for c in MATMUL],
                         ids=[c[0] for c in MATMUL])
def test_matmul(inputs, dynamic):
    check_node("MatMul", inputs, dynamic=dynamic)


def test_matmul_f16():
    a, b = f(7, 33, dtype=np.float16), f(33, 5, dtype=np.float16)
    check_node("MatMul", [a, b], rtol=2e-3)


def test_matmul_weights_constant():
    check_node("MatMul", [f(4, 7, 13), f(13, 5)], dynamic={0: [0]}, constants=[1])


GEMM = [
    ("bias_n", [f(7, 13), f(13, 5), f(5)], {}),
    ("trans_ab_alpha_beta_col", [f(13, 7), f(5, 13), f(7, 1)],
     dict(transA=1, transB=1, alpha=0.5, beta=2.0)),
    ("trans_a_full_c", [f(13, 7), f(13, 5), f(7, 5)], dict(transA=1, beta=0.5)),
    ("trans_b_row_c", [f(7, 13), f(5, 13), f(1, 5)], dict(transB=1)),
    ("no_c_alpha", [f(7, 13), f(13, 5), None], dict(alpha=3.0)),
    ("scalar_c", [f(7, 13), f(13, 5), f()], {}),
    ("c_1x1_beta", [f(7, 13), f(13, 5), f(1, 1)], dict(beta=-1.0)),
    ("beta_zero", [f(7, 13), f(13, 5), f(7, 5)], dict(beta=0.0)),
]


@pytest.mark.parametrize("inputs,attrs", [c[1:] for c in GEMM],
                         ids=[c[0] for c in GEMM])
def test_gemm(inputs, attrs):
    check_node("Gemm", inputs, attrs)


def test_gemm_f16():
    check_node("Gemm", [f(7, 13, dtype=np.float16), f(5, 13, dtype=np.float16),
                      f(5, dtype=np.float16)], dict(transB=1, alpha=0.5), rtol=3e-3)


def test_gemm_f64():
    check_node("Gemm", [f(7, 13, dtype=np.float64), f(13, 5, dtype=np.float64),
                      f(7, 5, dtype=np.float64)], dict(beta=0.3))


def test_gemm_symbolic_batch():
    check_node("Gemm", [f(6, 13), f(5, 13), f(5)], dict(transB=1),
             dynamic={0: [0]}, constants=[1, 2])


def test_gemm_int32():
    # ONNX Runtime has no integer Gemm kernel: compare with numpy.
    a, b, c = i(7, 13), i(13, 5), i(5)
    expected = [(2 * (a @ b) + 3 * c).astype(np.int32)]
    check_node("Gemm", [a, b, c], dict(alpha=2.0, beta=3.0), expected=expected)


MATMUL_INTEGER = [
    ("s8_zero_points", [i(7, 13, dtype=np.int8, low=-128, high=128),
                        i(13, 5, dtype=np.int8, low=-128, high=128),
                        np.array(3, np.int8), i(5, dtype=np.int8)]),
    ("u8_s8", [i(7, 13, dtype=np.uint8, low=0, high=256),
               i(13, 5, dtype=np.int8, low=-128, high=128),
               np.array(128, np.uint8), None]),
    ("u8_u8_batched", [i(2, 7, 13, dtype=np.uint8, low=0, high=256),
                       i(13, 5, dtype=np.uint8, low=0, high=256),
                       np.array([12], np.uint8), np.array([200], np.uint8)]),
]


# The int8 GEMM (runtime/cpu/kernels/QGemm.h) through the CLI's default
# path: a weight B packed once into its call site's slot (constants), or
# packed per call (an input B); per-column zero points, s8 A, K not a
# multiple of the kernels' groups, several tiles of rows and columns, rows
# of unknown count (dynamic), and a K whose sums leave int16.
MATMUL_INTEGER_GEMM = [
    ("weight_u8_s8_per_column", [i(2, 40, 77, dtype=np.uint8, low=0, high=256),
                                 i(77, 70, dtype=np.int8, low=-128, high=128),
                                 np.array(131, np.uint8),
                                 i(70, dtype=np.int8, low=-128, high=128)],
     dict(constants=[1, 3])),
    ("weight_s8_u8", [i(13, 300, dtype=np.int8, low=-128, high=128),
                      i(300, 33, dtype=np.uint8, low=0, high=256),
                      np.array(-5, np.int8), np.array(77, np.uint8)],
     dict(constants=[1, 3])),
    ("input_b_no_zero_points", [i(29, 64, dtype=np.uint8, low=0, high=256),
                                i(64, 45, dtype=np.int8, low=-128, high=128)],
     {}),
    ("weight_dynamic_rows", [i(3, 17, 96, dtype=np.uint8, low=200, high=256),
                             i(96, 40, dtype=np.int8, low=-128, high=-100),
                             np.array(0, np.uint8)],
     dict(constants=[1], dynamic={0: [0, 1]})),
    ("vector_a", [i(50, dtype=np.uint8, low=0, high=256),
                  i(50, 9, dtype=np.int8, low=-128, high=128)],
     dict(constants=[1])),
]


@pytest.mark.parametrize("inputs,kwargs", [c[1:] for c in MATMUL_INTEGER_GEMM],
                         ids=[c[0] for c in MATMUL_INTEGER_GEMM])
def test_matmul_integer_gemm(inputs, kwargs):
    check_node("MatMulInteger", inputs, out_dtypes=[np.int32], reference=True,
               **kwargs)


@pytest.mark.parametrize("inputs", [c[1] for c in MATMUL_INTEGER],
                         ids=[c[0] for c in MATMUL_INTEGER])
def test_matmul_integer(inputs):
    # The ONNX reference: ONNX Runtime's u8 x s8 kernel is not exact on x86
    # CPUs without VNNI (vpmaddubsw saturates the int16 sum of two
    # products: -4830 for -11061 in u8_s8 on an AMD EPYC, Zen 3).
    check_node("MatMulInteger", inputs, out_dtypes=[np.int32], reference=True)


# QLinearMatMul with a constant B: the int8 GEMM requantizes in its epilogue
# (runtime/cpu/MatMulInteger.c). Against the ONNX reference, exactly.
def qlinear_matmul_inputs(a_shape, n, a_dtype=np.uint8, b_dtype=np.int8,
                          y_dtype=np.uint8, per_column=True):
    k = a_shape[-1]
    columns = n if per_column else 1
    info = lambda t: (np.iinfo(t).min, np.iinfo(t).max + 1)  # noqa: E731
    b_zero = (np.zeros(columns, b_dtype) if b_dtype == np.int8
              else RNG.integers(*info(b_dtype), columns).astype(b_dtype))
    return [RNG.integers(*info(a_dtype), a_shape).astype(a_dtype),
            np.array(0.03, np.float32), np.array(7, a_dtype),
            RNG.integers(*info(b_dtype), (k, n)).astype(b_dtype),
            (RNG.uniform(0.002, 0.01, columns).astype(np.float32) if per_column
             else np.array(0.004, np.float32)),
            b_zero if per_column else b_zero.reshape(()),
            np.array(0.6, np.float32), np.array(100 if y_dtype == np.uint8 else -3, y_dtype)]


QLINEAR_MATMUL = [
    ("per_column_u8", qlinear_matmul_inputs((9, 40), 33), None),
    ("s8_everywhere_per_tensor", qlinear_matmul_inputs(
        (2, 5, 64), 17, a_dtype=np.int8, y_dtype=np.int8, per_column=False), None),
    ("u8_weights_dynamic_rows", qlinear_matmul_inputs(
        (3, 7, 29), 12, b_dtype=np.uint8), {0: [0, 1]}),
]


@pytest.mark.parametrize("inputs,dynamic", [c[1:] for c in QLINEAR_MATMUL],
                         ids=[c[0] for c in QLINEAR_MATMUL])
def test_qlinear_matmul_int8_gemm(inputs, dynamic):
    check_node("QLinearMatMul", inputs, reference=True, dynamic=dynamic,
               constants=[1, 2, 3, 4, 5, 6, 7])
