"""Per-op end-to-end tests: LinearAttention (LinearAttention.cpp),
CausalConvWithState (CausalConv.cpp), TensorScatter (DataMovementScatter.cpp)
and DeformConv (DeformConv.cpp) with symbolic dims, odd sizes, groups and
every float type the conformance suite does not cover. ONNX Runtime has no
kernels for these opset 22-27 ops, so the reference is onnx.reference."""
import numpy as np
import pytest

from node_cases import check_node

RNG = np.random.default_rng(27)


def f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def check(op, opset, inputs, attrs, num_outputs, dynamic):
    errors = check_node(op, inputs, attrs, reference=True, opset=opset,
                        num_outputs=num_outputs, dynamic=dynamic)
    print(f"{op} {attrs}: max relative error {max(errors):.3g}")


def gate(*shape):
    return -np.abs(f(*shape))


def rate(*shape):
    return (1 / (1 + np.exp(-f(*shape)))).astype(np.float32)


B, T = 3, 5
# (name, inputs, attrs, symbolic dims)
LINEAR_ATTENTION = [
    ("gated_delta_gqa_per_head_decay_dynamic_batch_and_seq",
     [f(B, T, 4 * 6), f(B, T, 2 * 6), f(B, T, 2 * 5), f(B, 2, 6, 5),
      gate(B, T, 2), rate(B, T, 2)],
     dict(q_num_heads=4, kv_num_heads=2),
     {i: [0, 1] for i in (0, 1, 2, 4, 5)} | {3: [0]}),
    ("delta_mqa_shared_beta",
     [f(2, 7, 3 * 4), f(2, 7, 4), f(2, 7, 3), None, None, rate(2, 7, 1)],
     dict(q_num_heads=3, kv_num_heads=1, update_rule="delta"),
     {0: [1], 1: [1], 2: [1], 5: [1]}),
    ("gated_per_key_decay_explicit_scale",
     [f(1, 4, 8), f(1, 4, 8), f(1, 4, 6), None, gate(1, 4, 8)],
     dict(q_num_heads=2, kv_num_heads=2, update_rule="gated", scale=0.3),
     None),
    ("linear_f16_with_f32_state",
     [f(2, 3, 16, dtype=np.float16), f(2, 3, 16, dtype=np.float16),
      f(2, 3, 16, dtype=np.float16), f(2, 2, 8, 8)],
     dict(q_num_heads=2, kv_num_heads=2, update_rule="linear"),
     {0: [1], 1: [1], 2: [1]}),
]


@pytest.mark.parametrize("name,inputs,attrs,dynamic", LINEAR_ATTENTION,
                         ids=[c[0] for c in LINEAR_ATTENTION])
def test_linear_attention(name, inputs, attrs, dynamic):
    check("LinearAttention", 27, inputs, attrs, 2, dynamic)


CAUSAL_CONV = [
    ("silu_bias_past_dynamic_length",
     [f(2, 3, 7), f(3, 1, 4), f(3), f(2, 3, 3)], dict(activation="silu"),
     {0: [0, 2], 3: [0]}),
    ("input_shorter_than_state", [f(2, 3, 2), f(3, 1, 5)], {}, {0: [2]}),
    ("f16_swish", [f(1, 5, 9, dtype=np.float16), f(5, 1, 3, dtype=np.float16)],
     dict(activation="swish"), None),
]


@pytest.mark.parametrize("name,inputs,attrs,dynamic", CAUSAL_CONV,
                         ids=[c[0] for c in CAUSAL_CONV])
def test_causal_conv_with_state(name, inputs, attrs, dynamic):
    check("CausalConvWithState", 27, inputs, attrs, 2, dynamic)


TENSOR_SCATTER = [
    ("circular_wraps", [f(2, 3, 6, 4), f(2, 3, 4, 4), np.array([3, 1])],
     dict(mode="circular"), {0: [2], 1: [2]}),
    ("linear_axis1_dynamic_cache", [f(2, 6, 4), f(2, 2, 4), np.array([4, 0])],
     dict(axis=1), {0: [1]}),
    ("no_write_indices_int32", [np.arange(40, dtype=np.int32).reshape(2, 5, 4),
                                -np.ones((2, 3, 4), np.int32)], {}, None),
]


@pytest.mark.parametrize("name,inputs,attrs,dynamic", TENSOR_SCATTER,
                         ids=[c[0] for c in TENSOR_SCATTER])
def test_tensor_scatter(name, inputs, attrs, dynamic):
    check("TensorScatter", 24, inputs, attrs, 1, dynamic)


DEFORM_CONV = [
    ("groups_offset_groups_mask_bias_strides_dilations",
     [f(2, 4, 6, 7), f(6, 2, 3, 2), f(2, 2 * 6 * 2, 3, 5) * 2, f(6),
      f(2, 2 * 6, 3, 5)],
     dict(group=2, offset_group=2, strides=[2, 1], pads=[1, 0, 1, 0],
          dilations=[1, 2]), {0: [0, 2, 3], 2: [0], 4: [0]}),
    ("f64_far_offsets", [f(1, 2, 5, 5, dtype=np.float64),
                         f(3, 2, 2, 2, dtype=np.float64),
                         f(1, 8, 4, 4, dtype=np.float64) * 6], {}, None),
]


@pytest.mark.parametrize("name,inputs,attrs,dynamic", DEFORM_CONV,
                         ids=[c[0] for c in DEFORM_CONV])
def test_deform_conv(name, inputs, attrs, dynamic):
    check("DeformConv", 22, inputs, attrs, 1, dynamic)
