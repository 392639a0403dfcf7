"""End-to-end tests of the runtime softmax, layer norm and attention kernels
(runtime/cpu/kernels/Transformer.h, lowered by SoftmaxCall.cpp,
LayerNormCall.cpp, AttentionCall.cpp) against ONNX Runtime: odd sizes that
hit the vector tails, dynamic batch/sequence dims, broadcast biases and
masks, -inf/NaN/inf rows, grouped heads, heads split by a transpose; and
the forms the kernels do not take (other axes, statistics outputs, causal,
boolean masks), which stay on the linalg lowering."""
import tempfile

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxc_runner import Artifact, compile_model, max_relative_error, run_ort

RNG = np.random.default_rng(11)
INF = np.float32(np.inf)


def f(*shape, scale=1.0):
    return (scale * RNG.standard_normal(shape)).astype(np.float32)


def value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def model(nodes, inputs, outputs=("y",), opset=17, fused=False):
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                               for o in outputs])
    opsets = [helper.make_opsetid("", opset)]
    if fused:
        opsets.append(helper.make_opsetid("onnxc", 1))
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 10
    return m


def expected(m, feeds):
    """ORT's outputs; the onnx reference implementation's where ORT refuses
    a form the spec allows (it does not broadcast an Attention mask's query
    dim)."""
    try:
        return run_ort(m, feeds)
    except Exception as error:  # onnxruntime's Fail
        if "inconsistent" not in str(error):
            raise
        from onnx.reference import ReferenceEvaluator
        return ReferenceEvaluator(m).run(None, feeds)


def check(m, feeds, reference=None, rtol=1e-4, args=()):
    """Compiles `m`, runs it and compares with ORT on `reference` (or m),
    NaN where ORT has NaN."""
    want = expected(reference or m, feeds)
    with tempfile.TemporaryDirectory() as tmp:
        got = Artifact(compile_model(m, tmp, args=args)).run(feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert np.array_equal(np.isnan(g), np.isnan(w)), "NaN positions differ"
        err = max_relative_error(g, w)
        assert err <= rtol, f"max relative error {err:.3g} > {rtol}"


# ---- Softmax ----------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 7, 16, 33, 769])
def test_softmax_last_axis_dynamic(n):
    x = f(3, 5, n, scale=4.0)
    m = model([helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
              [value("x", ["b", "s", n])], opset=13)
    check(m, {"x": x})


def test_softmax_extreme_rows():
    x = f(6, 21, scale=3.0)
    x[0, ::2] = -INF           # masked entries
    x[1, :] = -INF             # every entry -inf: NaN (as ORT)
    x[2, 4] = np.nan           # NaN row
    x[3, 7] = INF              # +inf row: NaN
    x[4, 3] = 300.0            # exp underflows to 0 elsewhere
    m = model([helper.make_node("Softmax", ["x"], ["y"], axis=1)],
              [value("x", [6, 21])], opset=13)
    check(m, {"x": x})


def test_softmax_other_axis_stays_linalg():
    x = f(4, 9, 5)
    m = model([helper.make_node("Softmax", ["x"], ["y"], axis=1)],
              [value("x", [4, 9, 5])], opset=13)
    check(m, {"x": x})


@pytest.mark.parametrize("bias_shape", [("n", 1, 1, "k"), ("n", 4, "q", 1), ("k",)])
def test_bias_softmax_broadcasts(bias_shape):
    scores = f(2, 4, 5, 19, scale=3.0)
    concrete = tuple({"n": 2, "q": 5, "k": 19}.get(d, d) for d in bias_shape)
    bias = f(*concrete, scale=2.0)
    bias.reshape(-1)[::5] = -10000.0
    inputs = [value("s", ["n", 4, "q", "k"]), value("m", list(bias_shape))]
    fused = model([helper.make_node("BiasSoftmax", ["s", "m"], ["y"], domain="onnxc")],
                  inputs, fused=True)
    reference = model([helper.make_node("Add", ["s", "m"], ["t"]),
                       helper.make_node("Softmax", ["t"], ["y"], axis=-1)], inputs)
    check(fused, {"s": scores, "m": bias}, reference=reference)


# ---- Layer norm -------------------------------------------------------------

@pytest.mark.parametrize("n,with_bias", [(1, True), (13, False), (64, True), (769, True)])
def test_layer_norm_last_axis_dynamic(n, with_bias):
    x = f(2, 7, n, scale=2.0) + 50.0  # an offset mean tests the variance
    inputs = [value("x", ["b", "s", n]), value("g", [n])]
    names = ["x", "g"]
    feeds = {"x": x, "g": f(n)}
    if with_bias:
        inputs.append(value("bb", [n]))
        names.append("bb")
        feeds["bb"] = f(n)
    m = model([helper.make_node("LayerNormalization", names, ["y"], axis=-1,
                                epsilon=1e-5)], inputs)
    check(m, feeds)


def test_layer_norm_nan_inf_rows():
    x = f(4, 10)
    x[1, 3] = np.nan
    x[2, 0] = INF
    m = model([helper.make_node("LayerNormalization", ["x", "g"], ["y"])],
              [value("x", [4, 10]), value("g", [10])])
    check(m, {"x": x, "g": f(10)})


def test_layer_norm_forms_left_to_linalg():
    """Two normalized axes, and the Mean/InvStdDev outputs."""
    x, g = f(3, 4, 6), f(4, 6)
    m = model([helper.make_node("LayerNormalization", ["x", "g"], ["y"], axis=-2)],
              [value("x", [3, 4, 6]), value("g", [4, 6])])
    check(m, {"x": x, "g": g})
    m = model([helper.make_node("LayerNormalization", ["x", "g1"], ["y", "mean", "inv"])],
              [value("x", [3, 4, 6]), value("g1", [6])], outputs=("y", "mean", "inv"))
    check(m, {"x": x, "g1": f(6)})


@pytest.mark.parametrize("n,bias,beta", [(5, True, True), (48, False, True),
                                         (769, True, False)])
def test_skip_layer_norm_dynamic(n, bias, beta):
    x, skip = f(2, 9, n), f(2, 9, n)
    feeds = {"x": x, "skip": skip, "g": f(n)}
    inputs = [value("x", ["b", "s", n]), value("skip", ["b", "s", n]), value("g", [n])]
    fused_in = ["x", "skip", "g", "", ""]
    ref_nodes = [helper.make_node("Add", ["x", "skip"], ["s0"])]
    last = "s0"
    if beta:
        feeds["be"] = f(n)
        inputs.append(value("be", [n]))
        fused_in[3] = "be"
    if bias:
        feeds["bi"] = f(n)
        inputs.append(value("bi", [n]))
        fused_in[4] = "bi"
        ref_nodes.append(helper.make_node("Add", ["s0", "bi"], ["s1"]))
        last = "s1"
    ref_nodes.append(helper.make_node("LayerNormalization",
                                      [last, "g"] + (["be"] if beta else []), ["y"],
                                      epsilon=1e-12))
    fused = model([helper.make_node("SkipLayerNorm", fused_in, ["y"], domain="onnxc",
                                    epsilon=1e-12)], inputs, fused=True)
    check(fused, feeds, reference=model(ref_nodes, inputs))


# ---- Attention --------------------------------------------------------------

def attention_model(q_shape, k_shape, v_shape, mask_shape=None, mask_type=TensorProto.FLOAT,
                    pre_transpose=False, **attrs):
    """onnx.Attention (opset 23) on inputs q, k, v (and mask); with
    `pre_transpose` the inputs are [b, s, h, d] and split into heads by a
    Transpose, as exporters write it."""
    nodes, inputs = [], []
    names = []
    for name, shape in (("q", q_shape), ("k", k_shape), ("v", v_shape)):
        inputs.append(value(name, shape))
        if pre_transpose:
            nodes.append(helper.make_node("Transpose", [name], [name + "_h"],
                                          perm=[0, 2, 1, 3]))
            names.append(name + "_h")
        else:
            names.append(name)
    if mask_shape is not None:
        inputs.append(helper.make_tensor_value_info("mask", mask_type, mask_shape))
        names.append("mask")
    nodes.append(helper.make_node("Attention", names, ["y"], **attrs))
    return model(nodes, inputs, opset=23)


@pytest.mark.parametrize("batch,heads,kv_heads,q_len,kv_len,size,v_size", [
    (1, 2, 2, 5, 5, 8, 8),
    (2, 4, 2, 17, 33, 16, 12),   # grouped heads, Dv != D
    (1, 3, 1, 70, 130, 64, 64),
    (2, 2, 2, 1, 9, 3, 5),
])
def test_attention_shapes(batch, heads, kv_heads, q_len, kv_len, size, v_size):
    m = attention_model(["b", heads, "q", size], ["b", kv_heads, "k", size],
                        ["b", kv_heads, "k", v_size])
    check(m, {"q": f(batch, heads, q_len, size), "k": f(batch, kv_heads, kv_len, size),
              "v": f(batch, kv_heads, kv_len, v_size)})


@pytest.mark.parametrize("mask_kind", ["qk", "b11k", "bhqk", "short", "all_masked"])
def test_attention_masks(mask_kind):
    b, h, q, k, d = 2, 3, 6, 11, 8
    shapes = {"qk": (q, k), "b11k": (b, 1, 1, k), "bhqk": (b, h, q, k),
              "short": (b, 1, q, k - 4), "all_masked": (q, k)}
    mask = f(*shapes[mask_kind], scale=2.0)
    if mask_kind == "b11k":
        mask[1, 0, 0, 5:] = -1e9
    if mask_kind == "all_masked":
        mask[::2, :] = -INF    # these query rows attend nothing: Y = 0
        mask[1, 3] = -INF
    m = attention_model([b, h, q, d], [b, h, k, d], [b, h, k, d],
                        mask_shape=list(shapes[mask_kind]), scale=0.3)
    check(m, {"q": f(b, h, q, d), "k": f(b, h, k, d), "v": f(b, h, k, d), "mask": mask})


def test_attention_heads_transposed_dynamic():
    """BERT's layout: [b, s, h, d] inputs, heads split by Transpose, a
    [b, 1, 1, s] mask, dynamic batch and sequence."""
    b, s, h, d = 2, 23, 4, 16
    mask = np.zeros((b, 1, 1, s), np.float32)
    mask[1, 0, 0, 15:] = np.finfo(np.float32).min
    m = attention_model(["b", "s", h, d], ["b", "s", h, d], ["b", "s", h, d],
                        mask_shape=["b", 1, 1, "s"], pre_transpose=True)
    check(m, {"q": f(b, s, h, d), "k": f(b, s, h, d), "v": f(b, s, h, d), "mask": mask})


@pytest.mark.parametrize("opt", ["-O0", "-O2", "-O3"])
@pytest.mark.parametrize("seq", [9, "s"])
def test_attention_on_split_projection(opt, seq):
    """GPT-2's layout: Q, K and V are column slices of one fused projection
    (Split), split into heads by Reshape and Transpose, with an additive mask
    sliced out of a larger buffer: the kernel reads them as strided views."""
    b, s, h, d = 1, 9, 3, 8
    width = h * d
    consts = [
        helper.make_tensor("sizes", TensorProto.INT64, [3], [width] * 3),
        helper.make_tensor("heads", TensorProto.INT64, [4], [0, 0, h, d]),
        helper.make_tensor("starts", TensorProto.INT64, [2], [1, 2]),
        helper.make_tensor("ends", TensorProto.INT64, [2], [1 + s, 2 + s]),
        helper.make_tensor("axes", TensorProto.INT64, [2], [2, 3]),
    ]
    nodes = [helper.make_node("Split", ["x", "sizes"], ["q", "k", "v"], axis=2),
             helper.make_node("Slice", ["big_mask", "starts", "ends", "axes"],
                              ["mask"])]
    names = []
    for name in ("q", "k", "v"):
        nodes.append(helper.make_node("Reshape", [name, "heads"], [name + "4"]))
        nodes.append(helper.make_node("Transpose", [name + "4"], [name + "_h"],
                                      perm=[0, 2, 1, 3]))
        names.append(name + "_h")
    nodes.append(helper.make_node("Attention", names + ["mask"], ["y_h"],
                                  scale=0.25))
    nodes.append(helper.make_node("Transpose", ["y_h"], ["y"], perm=[0, 2, 1, 3]))
    graph = helper.make_graph(
        nodes, "g",
        [value("x", [b, seq, 3 * width]), value("big_mask", [1, 1, s + 3, s + 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], consts)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    big_mask = f(1, 1, s + 3, s + 4, scale=2.0)
    big_mask[0, 0, 1:, 2:][np.triu_indices(s, 1)] = -INF
    check(m, {"x": f(b, s, 3 * width), "big_mask": big_mask}, args=(opt,))


def test_attention_nan_input():
    b, h, q, k, d = 1, 2, 4, 6, 8
    qv = f(b, h, q, d)
    qv[0, 1, 2, 3] = np.nan   # poisons that query row only
    vv = f(b, h, k, d)
    vv[0, 0, 5, 0] = INF
    m = attention_model([b, h, q, d], [b, h, k, d], [b, h, k, d])
    check(m, {"q": qv, "k": f(b, h, k, d), "v": vv})


def test_attention_forms_left_to_linalg():
    """Causal and a boolean mask: the linalg lowering's, still right."""
    b, h, q, d = 1, 2, 5, 8
    feeds = {"q": f(b, h, q, d), "k": f(b, h, q, d), "v": f(b, h, q, d)}
    m = attention_model([b, h, q, d], [b, h, q, d], [b, h, q, d], is_causal=1)
    check(m, feeds)
    bool_mask = RNG.random((q, q)) > 0.3
    np.fill_diagonal(bool_mask, True)
    m = attention_model([b, h, q, d], [b, h, q, d], [b, h, q, d], mask_shape=[q, q],
                        mask_type=TensorProto.BOOL)
    check(m, dict(feeds, mask=bool_mask))


# ---- Run-time shape errors ---------------------------------------------------

def run_error(m, feeds):
    from onnxc_runner import RunError
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(m, tmp))
        with pytest.raises(RunError) as info:
            artifact.run(feeds)
    return str(info.value)


def test_skip_layer_norm_mismatched_dynamic_dims():
    inputs = [value("x", ["b", "s", 8]), value("skip", ["c", "s", 8]), value("g", [8])]
    node = helper.make_node("SkipLayerNorm", ["x", "skip", "g"], ["y"], domain="onnxc",
                            name="sln")
    message = run_error(model([node], inputs, fused=True),
                        {"x": f(2, 3, 8), "skip": f(3, 3, 8), "g": f(8)})
    assert "sln" in message


def test_attention_mismatched_dynamic_batch():
    m = attention_model(["b", 2, 4, 8], ["c", 2, 5, 8], ["c", 2, 5, 8])
    m.graph.node[-1].name = "attn"
    message = run_error(m, {"q": f(1, 2, 4, 8), "k": f(2, 2, 5, 8), "v": f(2, 2, 5, 8)})
    assert "attn" in message
