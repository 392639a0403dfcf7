"""Per-op numerics of RNN, GRU and LSTM (targets/cpu/lowering/Recurrent.cpp)
against ONNX Runtime, beyond the node-test suite: bidirectional passes with
per-batch sequence_lens, layout 1, symbolic batch and sequence dims,
linear_before_reset, peepholes, input_forget, clip, non-default activations
with alpha/beta, f64 and f16 (against the onnx reference: ONNX Runtime has
only float kernels), and an omitted Y."""
import numpy as np
import pytest

from node_cases import check_node, node_model, uniform
from onnxc_runner import check_against_ort, run_ort

SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
OUTPUTS = {"RNN": 2, "GRU": 2, "LSTM": 3}
LENS = np.array([5, 2, 4], np.int32)


def inputs(op, directions=1, layout=0, lens=None, initial=True, peepholes=False,
           dtype=np.float32):
    """X, W, R, B, sequence_lens, initial_h[, initial_c, P] for `op`."""
    gates = GATES[op]
    x = uniform(SEQ, BATCH, INPUT, dtype=dtype, low=-1, high=1)
    state = uniform(directions, BATCH, HIDDEN, dtype=dtype, low=-1, high=1)
    if layout:
        x, state = x.transpose(1, 0, 2).copy(), state.transpose(1, 0, 2).copy()
    args = [x,
            uniform(directions, gates * HIDDEN, INPUT, dtype=dtype, low=-0.7, high=0.7),
            uniform(directions, gates * HIDDEN, HIDDEN, dtype=dtype, low=-0.7, high=0.7),
            uniform(directions, 2 * gates * HIDDEN, dtype=dtype, low=-0.5, high=0.5),
            lens, state if initial else None]
    if op == "LSTM":
        args.append(state * 2 if initial else None)
        args.append(uniform(directions, 3 * HIDDEN, dtype=dtype, low=-0.5, high=0.5)
                    if peepholes else None)
    return args


def run(op, args, attrs, **kwargs):
    attrs = {"hidden_size": HIDDEN, **attrs}
    # out_dtypes: the onnx reference implementation (the default probe) lacks
    # most activations.
    kwargs.update(num_outputs=OUTPUTS[op], out_dtypes=[args[0].dtype] * OUTPUTS[op])
    if not attrs.get("layout"):
        return check_node(op, args, attrs, rtol=1e-4, **kwargs)
    # ONNX Runtime has no layout 1: the expected outputs are those of the
    # layout-0 node on the transposed inputs, transposed back.
    model, feeds = node_model(op, args, attrs, **kwargs)
    swapped = [a.transpose(1, 0, 2).copy() if i in (0, 5, 6) and a is not None else a
               for i, a in enumerate(args)]
    kwargs.pop("input_dims", None)
    reference, reference_feeds = node_model(op, swapped, {**attrs, "layout": 0}, **kwargs)
    y, *states = run_ort(reference, reference_feeds)
    expected = [y.transpose(2, 0, 1, 3)] + [s.transpose(1, 0, 2) for s in states]
    return check_against_ort(model, feeds, rtol=1e-4, expected=expected)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_bidirectional_sequence_lens(op):
    run(op, inputs(op, 2, lens=LENS, peepholes=True), {"direction": "bidirectional"})


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_reverse_sequence_lens_no_initial_state(op):
    run(op, inputs(op, 1, lens=LENS, initial=False), {"direction": "reverse"})


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_layout_1(op):
    run(op, inputs(op, 2, layout=1, lens=LENS), {"direction": "bidirectional", "layout": 1})
    run(op, inputs(op, 1, layout=1), {"layout": 1})


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("layout", [0, 1])
def test_symbolic_batch_and_sequence(op, layout):
    args = inputs(op, 2, layout=layout, lens=LENS)
    seq_batch = ["batch", "seq"] if layout else ["seq", "batch"]
    state = ["batch", 2, HIDDEN] if layout else [2, "batch", HIDDEN]
    dims = {0: seq_batch + [INPUT], 4: ["batch"], 5: state, 6: state}
    run(op, args, {"direction": "bidirectional", "layout": layout}, input_dims=dims)


def test_gru_linear_before_reset():
    run("GRU", inputs("GRU", 2, lens=LENS), {"direction": "bidirectional",
                                             "linear_before_reset": 1})
    run("GRU", inputs("GRU", 1, layout=1), {"linear_before_reset": 1, "layout": 1})


def test_lstm_input_forget_clip_peepholes():
    run("LSTM", inputs("LSTM", 1, peepholes=True), {"input_forget": 1, "clip": 0.8})


def test_activations_with_alpha_beta():
    run("RNN", inputs("RNN", 2), {
        "direction": "bidirectional", "activations": ["LeakyRelu", "HardSigmoid"],
        "activation_alpha": [0.3, 0.25], "activation_beta": [0.4]})
    run("GRU", inputs("GRU", 1), {
        "activations": ["HardSigmoid", "Softsign"], "activation_alpha": [0.3],
        "activation_beta": [0.45], "clip": 1.5})
    run("GRU", inputs("GRU", 1), {"activations": ["Sigmoid", "Elu"],
                                  "activation_alpha": [0.7]})
    run("LSTM", inputs("LSTM", 1), {
        "activations": ["Sigmoid", "Softplus", "ScaledTanh"],
        "activation_alpha": [1.3], "activation_beta": [0.6]})
    run("RNN", inputs("RNN", 1), {"activations": ["Relu"]})
    run("RNN", inputs("RNN", 1), {"activations": ["ThresholdedRelu"],
                                  "activation_alpha": [0.2]})
    run("RNN", inputs("RNN", 1), {"activations": ["Affine"], "activation_alpha": [0.5],
                                  "activation_beta": [0.1]})


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_f64(op):
    """ONNX Runtime has no double kernels for these: the onnx reference
    implementation (which ignores sequence_lens) is the expectation."""
    args = inputs(op, 2, peepholes=True, dtype=np.float64)
    check_node(op, args, {"hidden_size": HIDDEN, "direction": "bidirectional"},
               num_outputs=OUTPUTS[op], rtol=1e-9, reference=True)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_f16(op):
    """Computed in f32 and rounded once; the reference computes in f16."""
    args = inputs(op, 1, peepholes=True, dtype=np.float16)
    check_node(op, args, {"hidden_size": HIDDEN}, num_outputs=OUTPUTS[op],
               rtol=5e-3, reference=True)


@pytest.mark.parametrize("op", ["GRU", "LSTM"])
def test_only_final_state(op):
    """Y omitted: the node's first output name is empty."""
    model, feeds = node_model(op, inputs(op, 1, lens=LENS), {"hidden_size": HIDDEN},
                              num_outputs=OUTPUTS[op],
                              out_dtypes=[np.float32] * OUTPUTS[op])
    model.graph.node[0].output[0] = ""
    del model.graph.output[0]
    check_against_ort(model, feeds, rtol=1e-4)
