"""End-to-end tests: small models built with the onnx helpers, compiled by
onnxc, run through the C ABI and compared with ONNX Runtime (float32 outputs
within 1e-4 max relative error). Each test prints its error, so `pytest -s`
(or the ctest log) shows the numbers."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import check_against_ort

OPSET = [helper.make_opsetid("", 17)]
RNG = np.random.default_rng(7)


def weight(name, *shape, scale=0.1):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def make_model(nodes, name, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=OPSET)
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def report(name, errors):
    print(f"{name}: max relative error vs ONNX Runtime {max(errors):.3g}")


def mlp(batch):
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"]),
        helper.make_node("Add", ["h1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("Gemm", ["r1", "w2", "b2"], ["h2"], transB=1),
        helper.make_node("Tanh", ["h2"], ["t2"]),
        helper.make_node("Gemm", ["t2", "w3", "b3"], ["logits"], alpha=0.5, beta=2.0),
        helper.make_node("Softmax", ["logits"], ["y"], axis=-1),
    ]
    inits = [weight("w1", 20, 37), weight("b1", 37), weight("w2", 16, 37),
             weight("b2", 16), weight("w3", 16, 5), weight("b3", 1, 5)]
    return make_model(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 20])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 5])], inits)


def test_mlp():
    x = RNG.standard_normal((3, 20)).astype(np.float32)
    report("mlp", check_against_ort(mlp(3), {"x": x}))


def lenet():
    nodes = [
        helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], pads=[2, 2, 2, 2]),
        helper.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"],
                         ["bn"], epsilon=1e-3),
        helper.make_node("Relu", ["bn"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], strides=[1, 1]),
        helper.make_node("Sigmoid", ["c2"], ["s2"]),
        helper.make_node("AveragePool", ["s2"], ["p2"], kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc1w", "fc1b"], ["fc1"], transB=1),
        helper.make_node("Relu", ["fc1"], ["r3"]),
        helper.make_node("Gemm", ["r3", "fc2w", "fc2b"], ["y"], transB=1),
    ]
    var = numpy_helper.from_array(RNG.uniform(0.5, 1.5, 6).astype(np.float32), "bn_v")
    inits = [weight("c1w", 6, 1, 5, 5), weight("c1b", 6), weight("bn_s", 6),
             weight("bn_b", 6), weight("bn_m", 6), var, weight("c2w", 16, 6, 5, 5),
             weight("c2b", 16), weight("fc1w", 120, 16 * 5 * 5), weight("fc1b", 120),
             weight("fc2w", 10, 120), weight("fc2b", 10)]
    return make_model(
        nodes, "lenet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 28, 28])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)


def test_lenet():
    x = RNG.standard_normal((2, 1, 28, 28)).astype(np.float32)
    report("lenet", check_against_ort(lenet(), {"x": x}))


def encoder_block(batch, seq, hidden=32, heads=4, ffn=64):
    """One BERT-style encoder layer as the PyTorch exporter writes it: the
    head split through a Shape -> Gather -> Concat -> Reshape chain, scaled
    dot-product attention with an additive mask, GELU via Erf, and
    LayerNormalization (opset 17)."""
    head = hidden // heads
    nodes, inits = [], []

    def linear(x, name, n_in, n_out):
        inits.extend([weight(name + "_w", n_in, n_out), weight(name + "_b", n_out)])
        nodes.append(helper.make_node("MatMul", [x, name + "_w"], [name + "_mm"]))
        nodes.append(helper.make_node("Add", [name + "_mm", name + "_b"], [name]))
        return name

    inits += [ints("zero", [0]), ints("heads_head", [heads, head]),
              ints("minus1_hidden", [-1, hidden]), ints("axes0", [0])]
    nodes += [helper.make_node("Shape", ["x"], ["x_shape"]),
              helper.make_node("Gather", ["x_shape", "zero"], ["batch_dim"], axis=0),
              helper.make_node("Shape", ["x"], ["x_shape2"]),
              helper.make_node("Slice", ["x_shape2", "one_i", "two_i", "axes0"],
                               ["seq_dim"]),
              helper.make_node("Concat", ["batch_dim", "seq_dim", "heads_head"],
                               ["split_shape"], axis=0)]
    inits += [ints("one_i", [1]), ints("two_i", [2])]
    for name in ("q", "k", "v"):
        linear("x", name, hidden, hidden)
        nodes.append(helper.make_node("Reshape", [name, "split_shape"], [name + "_4d"]))
        perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
        nodes.append(helper.make_node("Transpose", [name + "_4d"], [name + "_t"],
                                      perm=perm))
    inits.append(numpy_helper.from_array(np.array(np.sqrt(head), np.float32), "scale"))
    nodes += [
        helper.make_node("MatMul", ["q_t", "k_t"], ["scores"]),
        helper.make_node("Div", ["scores", "scale"], ["scaled"]),
        # mask: [batch, 1, 1, seq] of 0/1 -> (1 - mask) * -10000
        helper.make_node("Unsqueeze", ["mask", "axes12"], ["mask4"]),
        helper.make_node("Cast", ["mask4"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Sub", ["one_f", "maskf"], ["inv"]),
        helper.make_node("Mul", ["inv", "neg_big"], ["bias"]),
        helper.make_node("Add", ["scaled", "bias"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v_t"], ["ctx"]),
        helper.make_node("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
    ]
    inits += [ints("axes12", [1, 2]),
              numpy_helper.from_array(np.array(1.0, np.float32), "one_f"),
              numpy_helper.from_array(np.array(-10000.0, np.float32), "neg_big")]
    # Merge heads back: Concat(batch, seq, [hidden]).
    inits.append(ints("hidden_i", [hidden]))
    nodes.append(helper.make_node("Concat", ["batch_dim", "seq_dim", "hidden_i"],
                                  ["merge_shape"], axis=0))
    nodes.append(helper.make_node("Reshape", ["ctx_t", "merge_shape"], ["ctx_2d"]))
    linear("ctx_2d", "attn_out", hidden, hidden)
    nodes.append(helper.make_node("Add", ["attn_out", "x"], ["res1"]))
    inits += [weight("ln1_s", hidden, scale=1.0), weight("ln1_b", hidden)]
    nodes.append(helper.make_node("LayerNormalization", ["res1", "ln1_s", "ln1_b"],
                                  ["ln1"], axis=-1, epsilon=1e-12))
    linear("ln1", "ffn1", hidden, ffn)
    inits += [numpy_helper.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"),
              numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    nodes += [helper.make_node("Div", ["ffn1", "sqrt2"], ["g_div"]),
              helper.make_node("Erf", ["g_div"], ["g_erf"]),
              helper.make_node("Add", ["g_erf", "one_f"], ["g_add"]),
              helper.make_node("Mul", ["ffn1", "g_add"], ["g_mul"]),
              helper.make_node("Mul", ["g_mul", "half"], ["gelu"])]
    linear("gelu", "ffn2", ffn, hidden)
    nodes.append(helper.make_node("Add", ["ffn2", "ln1"], ["res2"]))
    # The second LayerNorm decomposed, as older exporters write it.
    inits += [numpy_helper.from_array(np.array(2.0, np.float32), "two_f"),
              numpy_helper.from_array(np.array(1e-12, np.float32), "eps"),
              weight("ln2_s", hidden, scale=1.0), weight("ln2_b", hidden),
              ints("last_axis", [-1])]
    nodes += [helper.make_node("ReduceMean", ["res2"], ["mu"], axes=[-1]),
              helper.make_node("Sub", ["res2", "mu"], ["centered"]),
              helper.make_node("Pow", ["centered", "two_f"], ["sq"]),
              helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1]),
              helper.make_node("Add", ["var", "eps"], ["var_eps"]),
              helper.make_node("Sqrt", ["var_eps"], ["std"]),
              helper.make_node("Div", ["centered", "std"], ["normed"]),
              helper.make_node("Mul", ["normed", "ln2_s"], ["scaled2"]),
              helper.make_node("Add", ["scaled2", "ln2_b"], ["y"])]
    return make_model(
        nodes, "encoder_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, seq, hidden]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, [batch, seq])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, seq, hidden])],
        inits)


def encoder_feeds(batch, seq, hidden=32):
    x = RNG.standard_normal((batch, seq, hidden)).astype(np.float32)
    mask = np.ones((batch, seq), dtype=np.int64)
    mask[0, seq - 3:] = 0
    return {"x": x, "mask": mask}


def test_encoder_block():
    report("encoder_block", check_against_ort(encoder_block(2, 8), encoder_feeds(2, 8)))


@pytest.mark.parametrize("batch", [1, 3, 5])
def test_symbolic_batch(batch):
    """One artifact compiled with a symbolic batch dimension runs every batch."""
    errors = check_against_ort(encoder_block("batch", 8), encoder_feeds(batch, 8))
    report(f"encoder_block batch={batch} (symbolic)", errors)
    errors = check_against_ort(mlp("N"), {"x": RNG.standard_normal((batch, 20)).astype(np.float32)})
    report(f"mlp batch={batch} (symbolic)", errors)
