"""ai.onnx.ml SVMRegressor and SVMClassifier against ONNX Runtime, on
scikit-learn models converted by skl2onnx (every kernel, one-vs-one with 2
and 4 classes, nu-SVMs, one-class, a scaler + PCA + SVC pipeline, int64
features) and on a hand-built liblinear-form classifier."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxc_runner import check_against_ort


def data(classes, seed):
    from sklearn.datasets import make_classification
    x, y = make_classification(120, 5, n_informative=4, n_redundant=0,
                               n_classes=classes, n_clusters_per_class=1,
                               random_state=seed)
    return x.astype(np.float32), y * 3 + 1  # labels that are not indices


def convert(model, x):
    from skl2onnx import to_onnx
    return to_onnx(model, x[:1], target_opset={"": 17, "ai.onnx.ml": 3},
                   options={id(model): {"zipmap": False}}
                   if hasattr(model, "classes_") else None)


def classifier_cases():
    from sklearn import decomposition, pipeline, preprocessing, svm
    return {
        "svc_rbf_4_classes": (svm.SVC(), 4),
        "svc_rbf_binary": (svm.SVC(), 2),
        "svc_linear_3_classes": (svm.SVC(kernel="linear"), 3),
        "svc_poly_3_classes": (svm.SVC(kernel="poly", degree=3), 3),
        "svc_poly_degree_4_binary": (svm.SVC(kernel="poly", degree=4), 2),
        "svc_sigmoid_binary": (svm.SVC(kernel="sigmoid", gamma=0.05), 2),
        "nu_svc_3_classes": (svm.NuSVC(), 3),
        "scaler_pca_svc": (pipeline.make_pipeline(
            preprocessing.StandardScaler(), decomposition.PCA(3), svm.SVC()),
            3),
    }


@pytest.mark.parametrize("name", sorted(classifier_cases()))
def test_sklearn_classifier(name):
    model, classes = classifier_cases()[name]
    x, y = data(classes, seed=len(name))
    model.fit(x, y)
    onx = convert(model, x)
    check_against_ort(onx, {onx.graph.input[0].name: x[:50]}, rtol=1e-5)


def regressor_cases():
    from sklearn import svm
    return {
        "svr_rbf": svm.SVR(),
        "svr_linear": svm.SVR(kernel="linear"),
        "svr_poly": svm.SVR(kernel="poly", degree=2),
        "nu_svr": svm.NuSVR(),
        "one_class_svm": svm.OneClassSVM(gamma=0.2),
    }


@pytest.mark.parametrize("name", sorted(regressor_cases()))
def test_sklearn_regressor(name):
    model = regressor_cases()[name]
    x, y = data(2, seed=7)
    target = (x @ np.arange(1, 6, dtype=np.float32)).astype(np.float32)
    model.fit(x) if name == "one_class_svm" else model.fit(x, target)
    onx = convert(model, x)
    check_against_ort(onx, {onx.graph.input[0].name: x[:50]}, rtol=1e-5)


def test_int64_features():
    from sklearn import svm
    x, y = data(3, seed=3)
    xi = np.round(x * 4).astype(np.int64)
    model = svm.SVC().fit(xi.astype(np.float32), y)
    from skl2onnx import to_onnx
    onx = to_onnx(model, xi[:1], target_opset={"": 17, "ai.onnx.ml": 3},
                  options={id(model): {"zipmap": False}})
    check_against_ort(onx, {onx.graph.input[0].name: xi[:40]}, rtol=1e-5)


def linear_classifier(classes, coefficients, post):
    node = helper.make_node(
        "SVMClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml",
        classlabels_ints=list(range(10, 10 + classes)),
        coefficients=coefficients, rho=[0.25], kernel_type="LINEAR",
        kernel_params=[0.0, 0.0, 0.0],
        post_transform=post)
    graph = helper.make_graph(
        [node], "svm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, None),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX"])
@pytest.mark.parametrize("classes,positive", [(2, True), (2, False),
                                              (3, False)])
def test_liblinear_form(post, classes, positive):
    rng = np.random.default_rng(classes)
    coefficients = rng.uniform(0 if positive else -1, 1, classes * 3)
    x = rng.uniform(-1, 1, (30, 3)).astype(np.float32)
    check_against_ort(linear_classifier(classes, coefficients.tolist(), post),
                      {"x": x}, rtol=1e-5)


def test_probabilities_are_refused_by_name():
    from sklearn import svm
    x, y = data(3, seed=1)
    onx = convert(svm.SVC(probability=True, random_state=0).fit(x, y), x)
    with pytest.raises(AssertionError, match="probability outputs"):
        check_against_ort(onx, {onx.graph.input[0].name: x[:4]})
