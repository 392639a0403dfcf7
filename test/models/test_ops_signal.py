"""Per-op end-to-end tests: DFT and STFT (targets/cpu/lowering/Signal.cpp)
and the ai.onnx.ml Binarizer, Scaler, Normalizer, LinearRegressor,
LinearClassifier, ArrayFeatureExtractor and TreeEnsemble (ClassicMl.cpp)
against ONNX Runtime: real and complex signals, forward,
inverse and one-sided transforms, padding and truncating dft_length, f64,
symbolic dims, windows and frame lengths; every tree node mode, missing
values, set membership and every aggregate function."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxc_runner import check_against_ort, run_ort
from node_cases import check_node

RNG = np.random.default_rng(31)


def f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def i64(v):
    return np.array(v, dtype=np.int64)


DFT = [
    ("real_odd", [f(2, 9, 3, 1), None, i64(1)], {}, None),
    ("complex_inverse", [f(3, 8, 2), None, i64(-2)], dict(inverse=1), None),
    ("negative_axis", [f(2, 5, 4, 2), None, i64(-3)], {}, None),
    ("onesided_odd", [f(2, 7, 1), None, i64(1)], dict(onesided=1), None),
    ("pad_length", [f(2, 6, 1), i64(10), i64(1)], {}, None),
    ("truncate_length", [f(2, 7, 2), i64(4), i64(1)], {}, None),
    ("irfft", [f(1, 5, 3, 2), None, i64(1)], dict(inverse=1, onesided=1), None),
    ("irfft_odd_length", [f(1, 5, 3, 2), i64(9), i64(1)], dict(inverse=1, onesided=1), None),
    ("f64", [f(2, 12, 1, dtype=np.float64), None, i64(1)], {}, None),
    ("symbolic_batch", [f(3, 10, 1), None, i64(1)], dict(onesided=1), {0: [0]}),
]


@pytest.mark.parametrize("inputs,attrs,dynamic", [c[1:] for c in DFT],
                         ids=[c[0] for c in DFT])
def test_dft(inputs, attrs, dynamic):
    # ONNX Runtime's f32 FFT is the less accurate side.
    check_node("DFT", inputs, attrs, dynamic=dynamic, constants={1, 2},
               rtol=1e-4)


def test_dft_default_axis():
    # ONNX Runtime crashes on an omitted axis; numpy gives the expected value.
    x = f(3, 8, 2)
    y = np.fft.ifft(x[..., 0] + 1j * x[..., 1], axis=-1)
    check_node("DFT", [x, None, None], dict(inverse=1), rtol=1e-4,
               expected=[np.stack([y.real, y.imag], -1).astype(np.float32)])


def test_dft_f16():
    # ONNX Runtime's DFT takes f32/f64 only: compare with the reference.
    check_node("DFT", [f(2, 9, 1, dtype=np.float16), None, i64(1)],
               dict(onesided=1), constants={1, 2}, reference=True)


def hann(n):
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


STFT = [
    ("window", [f(2, 64, 1), i64(5), hann(16), None], {}),
    ("frame_length_two_sided", [f(1, 50, 1), i64(7), None, i64(12)], dict(onesided=0)),
    ("complex", [f(1, 40, 2), i64(4), hann(8), None], dict(onesided=0)),
    ("window_and_length", [f(1, 33, 1), i64(3), hann(10), i64(10)], {}),
]


@pytest.mark.parametrize("inputs,attrs", [c[1:] for c in STFT],
                         ids=[c[0] for c in STFT])
def test_stft(inputs, attrs):
    check_node("STFT", inputs, attrs, constants={1, 3}, rtol=1e-4)


def test_stft_frame_shorter_than_window():
    # Frames of the window's length, transformed with (truncated to) the
    # shorter frame_length; the last frames run past the signal (zeros).
    check_node("STFT", [f(1, 30, 1), i64(4), hann(12), i64(8)], {},
               constants={1, 3}, reference=True, rtol=1e-4)


def ml_model(node, inputs, output, output_type):
    graph = helper.make_graph([node], "ml", inputs, [
        helper.make_tensor_value_info(output, output_type, None)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)])
    model.ir_version = 10
    return model


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binarizer(dtype):
    x = f(3, 4, 5, dtype=dtype)
    x[0, 0, :2] = 0.25  # exactly the threshold: not above it
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml",
                            threshold=0.25)
    model = ml_model(node, [helper.make_tensor_value_info("x", elem, ["n", 4, 5])],
                     "y", elem)
    # ONNX Runtime has no f64 Binarizer kernel.
    expected = [(x > 0.25).astype(dtype)] if dtype == np.float64 else None
    check_against_ort(model, {"x": x}, expected=expected)


AFE = [
    ("rows", f(3, 5), i64([[4, 0, 2]])),
    ("3d_int64", RNG.integers(-9, 9, (2, 3, 4)).astype(np.int64), i64([3, 3, 1, 0])),
    ("1d", f(6), i64([5, 1])),
]


@pytest.mark.parametrize("x,indices", [c[1:] for c in AFE],
                         ids=[c[0] for c in AFE])
def test_array_feature_extractor(x, indices):
    elem = TensorProto.FLOAT if x.dtype == np.float32 else TensorProto.INT64
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"],
                            domain="ai.onnx.ml")
    model = ml_model(node, [
        helper.make_tensor_value_info("x", elem, list(x.shape)),
        helper.make_tensor_value_info("i", TensorProto.INT64, list(indices.shape))],
        "y", elem)
    check_against_ort(model, {"x": x, "i": indices})


def tree_node(aggregate, dtype, missing_tracks=True, post_transform=0):
    """Three trees over 3 features, one target each (so every target is hit
    and min/max never see an untouched target). Tree 0: node 0 (x0 <= 0.1)
    -> leaf 0 | node 1 (x1 member {0, 1, 2}) -> leaf 1 | leaf 2. Tree 1:
    node 2 (x2 > -0.3, NaN goes true) -> node 3 (x0 != 0.5) -> leaves 3, 4 |
    node 4 (x1 >= 1.5) -> leaves 5, 6. Tree 2: node 5 (x2 < 0.2) -> node 6
    (x0 == 0) -> leaves 7, 8 | leaf 9."""
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    t = lambda name, values, e=elem: helper.make_tensor(name, e, [len(values)], values)
    return helper.make_node(
        "TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml",
        aggregate_function=aggregate, n_targets=3, post_transform=post_transform,
        tree_roots=[0, 2, 5],
        nodes_featureids=[0, 1, 2, 0, 1, 2, 0],
        nodes_modes=t("modes", [0, 6, 3, 5, 2, 1, 4], TensorProto.UINT8),
        nodes_splits=t("splits", [0.1, 0.0, -0.3, 0.5, 1.5, 0.2, 0.0]),
        membership_values=t("members", [0.0, 1.0, 2.0, np.nan]),
        nodes_truenodeids=[0, 1, 3, 3, 5, 6, 7],
        nodes_trueleafs=[1, 1, 0, 1, 1, 0, 1],
        nodes_falsenodeids=[1, 2, 4, 4, 6, 9, 8],
        nodes_falseleafs=[0, 1, 0, 1, 1, 1, 1],
        nodes_missing_value_tracks_true=[0, 0, int(missing_tracks), 0, 0, 0, 0],
        leaf_targetids=[0, 0, 0, 1, 1, 1, 1, 2, 2, 2],
        leaf_weights=t("weights", [1.5, -2.0, 3.25, 0.5, -1.0, 4.0, 2.5, -0.75, 6.0, 1.0]))


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3], ids=["average", "sum", "min", "max"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tree_ensemble(aggregate, dtype):
    x = RNG.choice([-1.0, 0.0, 0.05, 0.5, 1.0, 1.5, 2.0, np.nan], (16, 3)).astype(dtype)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    model = ml_model(tree_node(aggregate, dtype),
                     [helper.make_tensor_value_info("x", elem, ["n", 3])], "y", elem)
    check_against_ort(model, {"x": x})


@pytest.mark.parametrize("post_transform", [1, 2], ids=["softmax", "logistic"])
def test_tree_ensemble_post_transform(post_transform):
    # ONNX numbers SOFTMAX 1 and LOGISTIC 2; ONNX Runtime 1.32 swaps the two,
    # so the expected values are the untransformed ONNX Runtime scores
    # transformed here.
    x = RNG.choice([-1.0, 0.0, 0.05, 0.5, 1.0, 1.5, 2.0, np.nan], (16, 3)).astype(np.float32)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])]
    raw = run_ort(ml_model(tree_node(1, np.float32), inputs, "y", TensorProto.FLOAT),
                  {"x": x})[0].astype(np.float64)
    if post_transform == 1:
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
    else:
        want = 1 / (1 + np.exp(-raw))
    model = ml_model(tree_node(1, np.float32, post_transform=post_transform),
                     inputs, "y", TensorProto.FLOAT)
    check_against_ort(model, {"x": x}, expected=[want.astype(np.float32)])


SCALER = [
    # (name, input, offset, scale)
    ("per_feature_f32", f(5, 3), [0.5, -1.0, 2.0], [2.0, 0.25, -1.0]),
    ("one_value_f64", f(4, 3, dtype=np.float64), [1.5], [3.0]),
    ("int64_features", RNG.integers(-9, 9, (6, 2)).astype(np.int64),
     [1.0, -2.0], [0.5, 4.0]),
    ("one_row", f(1, 4), [0.0, 1.0, -1.0, 2.0], [1.0, 2.0, 3.0, 4.0]),
]


@pytest.mark.parametrize("x,offset,scale", [c[1:] for c in SCALER],
                         ids=[c[0] for c in SCALER])
def test_scaler(x, offset, scale):
    elem = {np.dtype(np.float32): TensorProto.FLOAT,
            np.dtype(np.float64): TensorProto.DOUBLE,
            np.dtype(np.int64): TensorProto.INT64}[x.dtype]
    attrs = {"scale": scale}
    if offset is not None:
        attrs["offset"] = offset
    node = helper.make_node("Scaler", ["x"], ["y"], domain="ai.onnx.ml",
                            **attrs)
    model = ml_model(node, [helper.make_tensor_value_info("x", elem,
                                                          ["n", x.shape[1]])],
                     "y", TensorProto.FLOAT)
    check_against_ort(model, {"x": x})


@pytest.mark.parametrize("targets,intercepts,rows", [
    (1, [3.0], 7), (3, [0.5, -1.0, 2.0], 4), (2, None, 1)])
def test_linear_regressor(targets, intercepts, rows):
    features = 5
    coefficients = RNG.uniform(-2, 2, targets * features).astype(np.float32)
    attrs = {"coefficients": coefficients.tolist(), "targets": targets}
    if intercepts is not None:
        attrs["intercepts"] = intercepts
    node = helper.make_node("LinearRegressor", ["x"], ["y"],
                            domain="ai.onnx.ml", **attrs)
    model = ml_model(node, [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["n", features])], "y", TensorProto.FLOAT)
    check_against_ort(model, {"x": f(rows, features)})


def test_linear_regressor_post_transform_is_refused_by_name():
    node = helper.make_node("LinearRegressor", ["x"], ["y"],
                            domain="ai.onnx.ml", coefficients=[1.0, 2.0],
                            post_transform="PROBIT")
    model = ml_model(node, [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["n", 2])], "y", TensorProto.FLOAT)
    with pytest.raises(AssertionError, match="post_transform 'PROBIT'"):
        check_against_ort(model, {"x": f(2, 2)})


@pytest.mark.parametrize("post_transform", ["NONE", "SOFTMAX", "LOGISTIC"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_linear_classifier(post_transform, dtype):
    """One coefficient row per class label, as scikit-learn's multinomial
    logistic regression converts."""
    features, labels = 4, [3, 7, 1]
    coefficients = RNG.uniform(-2, 2, len(labels) * features).astype(np.float32)
    node = helper.make_node(
        "LinearClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml",
        classlabels_ints=labels, coefficients=coefficients.tolist(),
        intercepts=[0.5, -0.25, 1.0], multi_class=1,
        post_transform=post_transform)
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.INT64
    graph = helper.make_graph(
        [node], "ml", [helper.make_tensor_value_info("x", elem, ["n", features])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, None),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)])
    model.ir_version = 10
    x = (f(6, features) if dtype == np.float32
         else RNG.integers(-5, 5, (6, features)).astype(np.int64))
    check_against_ort(model, {"x": x})


@pytest.mark.parametrize("norm", ["MAX", "L1", "L2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normalizer(norm, dtype):
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    node = helper.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml",
                            norm=norm)
    model = ml_model(node, [helper.make_tensor_value_info("x", elem, ["n", 5])],
                     "y", TensorProto.FLOAT)
    x = np.abs(f(4, 5, dtype=dtype)) + 0.1 if norm == "MAX" else f(4, 5, dtype=dtype)
    check_against_ort(model, {"x": x})


def test_linear_classifier_binary_one_row_is_refused_by_name():
    node = helper.make_node(
        "LinearClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml",
        classlabels_ints=[0, 1], coefficients=[1.0, 2.0], intercepts=[0.5])
    graph = helper.make_graph(
        [node], "ml", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 2])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, None),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)])
    model.ir_version = 10
    with pytest.raises(AssertionError, match="binary model with one row"):
        check_against_ort(model, {"x": f(2, 2)})
