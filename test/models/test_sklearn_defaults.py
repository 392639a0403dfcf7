"""scikit-learn models converted by skl2onnx at the converter's default
options (classifiers end in ZipMap: a sequence of maps), run through
onnxc.InferenceSession and ONNX Runtime's session: the same outputs, of the
same Python types (numpy arrays; lists of {label: probability} dicts)."""

import os
import sys

import numpy as np
import onnxruntime
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import onnxc  # noqa: E402


def models():
    from sklearn import (cluster, decomposition, ensemble, linear_model,
                         naive_bayes, neighbors, neural_network, pipeline,
                         preprocessing, svm, tree)
    return {
        "logistic_regression": linear_model.LogisticRegression(max_iter=500),
        "random_forest": ensemble.RandomForestClassifier(
            10, max_depth=5, random_state=0),
        "gradient_boosting": ensemble.GradientBoostingClassifier(
            n_estimators=10, random_state=0),
        "decision_tree": tree.DecisionTreeClassifier(random_state=0),
        "extra_trees": ensemble.ExtraTreesClassifier(10, random_state=0),
        "svc": svm.SVC(),
        "k_nearest_neighbours": neighbors.KNeighborsClassifier(),
        "mlp": neural_network.MLPClassifier(max_iter=300, random_state=0),
        "scaler_pca_svc": pipeline.make_pipeline(
            preprocessing.StandardScaler(), decomposition.PCA(3), svm.SVC()),
        "scaler_logistic_regression": pipeline.make_pipeline(
            preprocessing.StandardScaler(),
            linear_model.LogisticRegression(max_iter=500)),
        "gaussian_naive_bayes": naive_bayes.GaussianNB(),
        "random_forest_regressor": ensemble.RandomForestRegressor(
            10, max_depth=5, random_state=0),
        "gradient_boosting_regressor": ensemble.GradientBoostingRegressor(
            n_estimators=10, random_state=0),
        "svr": svm.SVR(),
        "ridge": linear_model.Ridge(),
        "k_nearest_neighbours_regressor": neighbors.KNeighborsRegressor(),
        "k_means": cluster.KMeans(3, n_init=3, random_state=0),
    }


def same(got, want, name):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{name}: {type(got)}"
        assert got.shape == want.shape and got.dtype == want.dtype, name
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)
        return
    assert isinstance(want, list) and isinstance(got, list), name
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        assert isinstance(g, dict) and list(g) == list(w), f"{name}: {g} {w}"
        for key in w:
            assert type(key) is type(list(g)[list(w).index(key)]), name
            assert abs(g[key] - w[key]) <= 1e-5 + 1e-5 * abs(w[key]), \
                f"{name}[{key}]: {g[key]} vs {w[key]}"


@pytest.mark.parametrize("name", sorted(models()))
def test_default_conversion(name, tmp_path):
    from sklearn.datasets import load_diabetes, load_iris
    from skl2onnx import to_onnx
    model = models()[name]
    regressor = "regressor" in name or name in ("svr", "ridge")
    x, y = (load_diabetes if regressor else load_iris)(return_X_y=True)
    x = x.astype(np.float32)
    model.fit(x, y)
    onx = to_onnx(model, x[:1])
    path = str(tmp_path / "model.onnx")
    with open(path, "wb") as f:
        f.write(onx.SerializeToString())
    feeds = {onx.graph.input[0].name: x[::9]}
    ort = onnxruntime.InferenceSession(path,
                                       providers=["CPUExecutionProvider"])
    ours = onnxc.InferenceSession(path, cache_dir=str(tmp_path / "cache"))
    assert [o.type for o in ours.get_outputs()] == \
        [o.type for o in ort.get_outputs()]
    for o, got, want in zip(ort.get_outputs(), ours.run(None, feeds),
                            ort.run(None, feeds)):
        same(got, want, o.name)


def mixed_data(rows, seed):
    """Three numeric columns (one with NaN) and two integer-coded ones."""
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(rows, 3)).astype(np.float32)
    numeric[::7, 1] = np.nan
    codes = rng.integers(0, 4, (rows, 2)).astype(np.float32)
    return np.concatenate([numeric, codes], axis=1)


def column_transformer(handle_unknown):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    return Pipeline([
        ("columns", ColumnTransformer([
            ("numeric", make_pipeline(SimpleImputer(), StandardScaler()),
             [0, 1, 2]),
            ("codes", OneHotEncoder(handle_unknown=handle_unknown), [3, 4])])),
        ("classifier", LogisticRegression())])


def compiled_pair(model, x, tmp_path):
    from skl2onnx import to_onnx
    onx = to_onnx(model, x[:1])
    path = str(tmp_path / "model.onnx")
    with open(path, "wb") as f:
        f.write(onx.SerializeToString())
    ort = onnxruntime.InferenceSession(path,
                                       providers=["CPUExecutionProvider"])
    ours = onnxc.InferenceSession(path, cache_dir=str(tmp_path / "cache"))
    return onx, ort, ours


@pytest.mark.parametrize("handle_unknown", ["ignore", "error"])
def test_column_transformer_with_imputer_and_one_hot(handle_unknown,
                                                     tmp_path):
    """SimpleImputer (ai.onnx.ml Imputer, NaN replaced), StandardScaler and
    OneHotEncoder on integer codes (zeros 1 for handle_unknown='ignore', 0
    for 'error') in a ColumnTransformer before a classifier."""
    x = mixed_data(200, 0)
    model = column_transformer(handle_unknown).fit(x, (x[:, 0] > 0) * 1)
    onx, ort, ours = compiled_pair(model, x, tmp_path)
    ops = {n.op_type for n in onx.graph.node}
    assert {"Imputer", "OneHotEncoder"} <= ops, ops
    feeds = {onx.graph.input[0].name: mixed_data(30, 1)}
    for o, got, want in zip(ort.get_outputs(), ours.run(None, feeds),
                            ort.run(None, feeds)):
        same(got, want, o.name)


def test_unknown_category_fails_the_run_by_name(tmp_path):
    """handle_unknown='error' (zeros = 0): a code outside the categories
    fails the run, as in ONNX Runtime, naming the node; 'ignore' gives
    zeros for it (compared above)."""
    x = mixed_data(200, 0)
    model = column_transformer("error").fit(x, (x[:, 0] > 0) * 1)
    onx, ort, ours = compiled_pair(model, x, tmp_path)
    bad = mixed_data(4, 2)
    bad[2, 4] = 9.0  # no such code
    feeds = {onx.graph.input[0].name: bad}
    with pytest.raises(Exception):
        ort.run(None, feeds)
    with pytest.raises(onnxc.RunError, match="none of its categories"):
        ours.run(None, feeds)
