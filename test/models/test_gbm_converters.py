"""LightGBM and XGBoost models converted by onnxmltools (default options:
classifiers end in ZipMap), run through onnxc.InferenceSession and ONNX
Runtime's session: the same outputs and output types. LightGBM's
classifiers declare their label output [1] for [N] (ONNX Runtime warns and
runs); NaN features exercise the missing-value tracks."""

import os
import sys

import numpy as np
import onnxruntime
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import onnxc  # noqa: E402
from test_sklearn_defaults import same  # noqa: E402


def cases():
    import lightgbm
    import xgboost
    return {
        "lightgbm_binary": (lightgbm.LGBMClassifier(n_estimators=30,
                                                    verbose=-1), 2),
        "lightgbm_3_classes": (lightgbm.LGBMClassifier(n_estimators=20,
                                                       verbose=-1), 3),
        "lightgbm_regressor_nan": (lightgbm.LGBMRegressor(n_estimators=40,
                                                          verbose=-1), 0),
        "xgboost_binary": (xgboost.XGBClassifier(n_estimators=30,
                                                 max_depth=4), 2),
        "xgboost_3_classes": (xgboost.XGBClassifier(n_estimators=20,
                                                    max_depth=4), 3),
        "xgboost_regressor_nan": (xgboost.XGBRegressor(n_estimators=40,
                                                       max_depth=4), 0),
    }


@pytest.mark.parametrize("name", sorted([
    "lightgbm_binary", "lightgbm_3_classes", "lightgbm_regressor_nan",
    "xgboost_binary", "xgboost_3_classes", "xgboost_regressor_nan"]))
def test_converted_model(name, tmp_path):
    from onnxmltools import convert_lightgbm, convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType
    from sklearn.datasets import make_classification, make_regression
    model, classes = cases()[name]
    if classes:
        x, y = make_classification(400, 8, n_informative=5,
                                   n_classes=classes, random_state=0)
    else:
        x, y = make_regression(400, 8, random_state=0)
        x[::5, 2] = np.nan
    x = x.astype(np.float32)
    model.fit(x, y)
    convert = convert_lightgbm if name.startswith("lightgbm") \
        else convert_xgboost
    onx = convert(model, initial_types=[("X", FloatTensorType([None, 8]))],
                  target_opset=15)
    path = str(tmp_path / "model.onnx")
    with open(path, "wb") as f:
        f.write(onx.SerializeToString())
    feeds = {"X": x[:40]}
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # LightGBM's stale label shape
    ort = onnxruntime.InferenceSession(path, options,
                                       providers=["CPUExecutionProvider"])
    ours = onnxc.InferenceSession(path, cache_dir=str(tmp_path / "cache"))
    assert [o.type for o in ours.get_outputs()] == \
        [o.type for o in ort.get_outputs()]
    for o, got, want in zip(ort.get_outputs(), ours.run(None, feeds),
                            ort.run(None, feeds)):
        same(got, want, o.name)
