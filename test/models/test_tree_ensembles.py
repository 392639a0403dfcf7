"""ai.onnx.ml TreeEnsembleRegressor / TreeEnsembleClassifier (opsets 1-3),
the ops every tree converter writes, against ONNX Runtime.

Two kinds of models: scikit-learn's trees, forests and boosting converted by
skl2onnx (what users bring; ZipMap off, since onnxc has no sequences of
maps yet), and hand-built ensembles for the rules converters rarely reach:
base values, MIN/MAX/AVERAGE, several targets, SOFTMAX_ZERO, NaN with
missing-value tracks, the two-class label rules, and malformed trees.
"""

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxc_runner import check_against_ort

RNG = np.random.default_rng(31)


# ---- Converted scikit-learn models -------------------------------------

def sklearn_cases():
    from sklearn import ensemble, tree
    from sklearn.datasets import make_classification, make_regression
    xc, yc = make_classification(300, 8, n_informative=5, n_classes=3,
                                 random_state=0)
    xb, yb = make_classification(300, 8, n_informative=5, random_state=1)
    xr, yr = make_regression(300, 8, n_targets=1, random_state=2)
    xm, ym = make_regression(300, 8, n_targets=3, random_state=3)
    # Class labels that are not 0..C-1 catch a label read as its index.
    yc, yb = yc * 4 + 3, np.where(yb == 1, 7, 2)
    return {
        "decision_tree_3_classes": (tree.DecisionTreeClassifier(
            max_depth=6, random_state=0), xc, yc),
        "random_forest_3_classes": (ensemble.RandomForestClassifier(
            20, max_depth=6, random_state=0), xc, yc),
        "extra_trees_binary": (ensemble.ExtraTreesClassifier(
            15, max_depth=5, random_state=0), xb, yb),
        "random_forest_binary": (ensemble.RandomForestClassifier(
            10, max_depth=5, random_state=0), xb, yb),
        "gradient_boosting_binary": (ensemble.GradientBoostingClassifier(
            n_estimators=20, random_state=0), xb, yb),
        "gradient_boosting_3_classes": (ensemble.GradientBoostingClassifier(
            n_estimators=10, random_state=0), xc, yc),
        "decision_tree_regressor": (tree.DecisionTreeRegressor(
            max_depth=8, random_state=0), xr, yr),
        "random_forest_regressor": (ensemble.RandomForestRegressor(
            20, max_depth=6, random_state=0), xr, yr),
        "gradient_boosting_regressor": (ensemble.GradientBoostingRegressor(
            n_estimators=30, random_state=0), xr, yr),
        "random_forest_3_targets": (ensemble.RandomForestRegressor(
            10, max_depth=5, random_state=0), xm, ym),
        "extra_trees_regressor": (ensemble.ExtraTreesRegressor(
            10, max_depth=6, random_state=0), xr, yr),
    }


@pytest.mark.parametrize("name", sorted([
    "decision_tree_3_classes", "random_forest_3_classes",
    "extra_trees_binary", "random_forest_binary", "gradient_boosting_binary",
    "gradient_boosting_3_classes", "decision_tree_regressor",
    "random_forest_regressor", "gradient_boosting_regressor",
    "random_forest_3_targets", "extra_trees_regressor"]))
def test_sklearn_model(name):
    from skl2onnx import to_onnx
    model, x, y = sklearn_cases()[name]
    x = x.astype(np.float32)
    model.fit(x, y)
    options = ({id(model): {"zipmap": False}}
               if hasattr(model, "predict_proba") else None)
    onx = to_onnx(model, x[:1], options=options,
                  target_opset={"": 17, "ai.onnx.ml": 3})
    ops = {n.op_type for n in onx.graph.node}
    assert ops & {"TreeEnsembleClassifier", "TreeEnsembleRegressor"}, ops
    check_against_ort(onx, {onx.graph.input[0].name: x[:64]}, rtol=1e-5)


# ---- Hand-built ensembles ------------------------------------------------

def two_trees():
    """Two trees over 3 features: tree 0 has 2 splits and 3 leaves, tree 1
    is one split (BRANCH_GT with a missing-value track) and 2 leaves. Node
    ids are not in walk order, to catch ids read as positions."""
    return dict(
        nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1],
        nodes_nodeids=[0, 4, 1, 2, 3, 0, 1, 2],
        nodes_featureids=[0, 0, 2, 0, 0, 1, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_LT", "LEAF", "LEAF",
                     "BRANCH_GT", "LEAF", "LEAF"],
        nodes_values=[0.1, 0.0, -0.3, 0.0, 0.0, 0.25, 0.0, 0.0],
        nodes_truenodeids=[1, 0, 2, 0, 0, 1, 0, 0],
        nodes_falsenodeids=[4, 0, 3, 0, 0, 2, 0, 0],
        nodes_missing_value_tracks_true=[0, 0, 1, 0, 0, 1, 0, 0])


def features(n=40):
    x = RNG.uniform(-1, 1, (n, 3)).astype(np.float32)
    x[::7, 2] = np.nan
    x[3::9, 1] = np.nan
    return x


def tree_model(op, attrs, outputs, feature_type=TensorProto.FLOAT):
    node = helper.make_node(op, ["x"], [name for name, _ in outputs],
                            domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node], "trees",
        [helper.make_tensor_value_info("x", feature_type, ["n", 3])],
        [helper.make_tensor_value_info(name, t, None) for name, t in outputs])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    model.ir_version = 8
    return model


def regressor(targets, aggregate="SUM", post="NONE", base=None,
              feature_type=TensorProto.FLOAT):
    leaves = [(0, 4), (0, 2), (0, 3), (1, 1), (1, 2)]
    tree_ids, node_ids, ids, weights = [], [], [], []
    for tree, node in leaves:
        # Every leaf votes for target 0; with more targets, some leaves
        # skip some targets (a MIN/MAX with no vote is the base value).
        for target in range(targets):
            if target and (tree + node + target) % 3 == 0:
                continue
            tree_ids.append(tree)
            node_ids.append(node)
            ids.append(target)
            weights.append(float(RNG.uniform(-2, 2)))
    attrs = dict(two_trees(), n_targets=targets, aggregate_function=aggregate,
                 post_transform=post, target_treeids=tree_ids,
                 target_nodeids=node_ids, target_ids=ids,
                 target_weights=weights)
    if base is not None:
        attrs["base_values"] = base
    return tree_model("TreeEnsembleRegressor", attrs,
                      [("y", TensorProto.FLOAT)], feature_type)


@pytest.mark.parametrize("aggregate", ["SUM", "AVERAGE", "MIN", "MAX"])
@pytest.mark.parametrize("targets", [1, 3])
def test_regressor_aggregates(aggregate, targets):
    base = [0.5] if targets == 1 else [0.5, -1.0, 2.0]
    check_against_ort(regressor(targets, aggregate, base=base),
                      {"x": features()}, rtol=1e-6)


@pytest.mark.parametrize("post", ["LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
@pytest.mark.parametrize("targets", [1, 3])
def test_regressor_post_transform(post, targets):
    # One target: ONNX Runtime applies no transform but PROBIT.
    check_against_ort(regressor(targets, post=post), {"x": features()},
                      rtol=1e-6)


def test_regressor_double_features():
    model = regressor(3, "AVERAGE", base=[1.0, 2.0, 3.0],
                      feature_type=TensorProto.DOUBLE)
    check_against_ort(model, {"x": features().astype(np.float64)}, rtol=1e-6)


def classifier(labels, votes, post="NONE", base=None):
    """`votes`: (tree, node, class id, weight) tuples."""
    attrs = dict(two_trees(), classlabels_int64s=labels, post_transform=post,
                 class_treeids=[v[0] for v in votes],
                 class_nodeids=[v[1] for v in votes],
                 class_ids=[v[2] for v in votes],
                 class_weights=[float(v[3]) for v in votes])
    if base is not None:
        attrs["base_values"] = base
    return tree_model("TreeEnsembleClassifier", attrs,
                      [("label", TensorProto.INT64),
                       ("scores", TensorProto.FLOAT)])


LEAVES = [(0, 4), (0, 2), (0, 3), (1, 1), (1, 2)]


def votes_for(classes, low=0.0, high=1.0):
    return [(t, n, c, RNG.uniform(low, high)) for t, n in LEAVES
            for c in classes]


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX",
                                  "SOFTMAX_ZERO"])
@pytest.mark.parametrize("base", [None, [0.1, -0.2, 0.3, 0.0]])
def test_classifier_four_classes(post, base):
    # Class 3 gets no vote from some leaves: without base values it only
    # counts where some leaf voted for it.
    votes = [v for v in votes_for(range(4), -1, 1)
             if not (v[2] == 3 and v[0] == 0)]
    check_against_ort(classifier([5, 9, 2, 11], votes, post, base),
                      {"x": features()}, rtol=1e-6)


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX"])
@pytest.mark.parametrize("base", [None, [0.2], [0.2, -0.1]])
@pytest.mark.parametrize("voted,low", [
    ([0], 0.0),      # one class id, positive weights (forests)
    ([0], -1.0),     # one class id, mixed signs (boosting)
    ([1], -1.0),     # votes for the second class only
    ([0, 1], 0.0),   # both classes (ONNX Runtime labels 1 and 0 here)
])
def test_classifier_two_classes(post, base, voted, low):
    check_against_ort(classifier([4, 8], votes_for(voted, low), post, base),
                      {"x": features()}, rtol=1e-6)


def compile_error(model):
    with pytest.raises(AssertionError) as failure:
        check_against_ort(model, {"x": features(4)})
    return str(failure.value)


def test_vote_on_a_branch_node_is_refused_by_name():
    model = classifier([0, 1, 2], [(0, 0, 1, 1.0)] + votes_for([0]))
    assert "which is not a leaf" in compile_error(model)


def test_branch_to_a_missing_node_is_refused_by_name():
    attrs = two_trees()
    attrs["nodes_falsenodeids"][0] = 9
    model = tree_model("TreeEnsembleRegressor", dict(
        attrs, n_targets=1, target_treeids=[0], target_nodeids=[4],
        target_ids=[0], target_weights=[1.0]), [("y", TensorProto.FLOAT)])
    assert "branches to node 9, which the tree lacks" in compile_error(model)


def test_probit_is_refused_by_name():
    model = regressor(2, post="PROBIT")
    assert "post_transform PROBIT is not supported" in compile_error(model)
