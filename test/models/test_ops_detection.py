"""Per-op end-to-end tests for the data-dependent ops: NonMaxSuppression and
Unique (runtime calls, targets/cpu/lowering/Detection.cpp, Unique.cpp),
TfIdfVectorizer (TfIdfVectorizer.cpp) and RoiAlign (Detection.cpp), against
ONNX Runtime, or the ONNX reference where ONNX Runtime lacks a kernel."""
import numpy as np
import pytest

from node_cases import check_node

RNG = np.random.default_rng(7)


def random_boxes(batches, n, center=False):
    corners = RNG.uniform(0, 10, (batches, n, 2)).astype(np.float32)
    sizes = RNG.uniform(0.5, 4, (batches, n, 2)).astype(np.float32)
    if center:
        return np.concatenate([corners, sizes], axis=2)
    # Flip some boxes: NMS takes either corner order.
    boxes = np.concatenate([corners, corners + sizes], axis=2)
    flip = RNG.random((batches, n)) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes


def scalar(value, dtype):
    return np.array([value], dtype=dtype)


NMS = [
    ("corners", random_boxes(1, 12), RNG.random((1, 2, 12)).astype(np.float32), 5, 0.3, 0.2, {}, None),
    ("center_two_batches", random_boxes(2, 9, center=True), RNG.random((2, 3, 9)).astype(np.float32), 4, 0.4, None, {"center_point_box": 1}, None),
    ("ties_no_threshold", random_boxes(1, 8), np.full((1, 1, 8), 0.5, np.float32), 100, 0.1, None, {}, None),
    ("symbolic", random_boxes(2, 10), RNG.random((2, 2, 10)).astype(np.float32), 3, 0.5, 0.3, {}, {0: [0, 1], 1: [0, 2]}),
    ("keep_none", random_boxes(1, 5), RNG.random((1, 1, 5)).astype(np.float32), 0, 0.5, None, {}, None),
]


@pytest.mark.parametrize("boxes,scores,max_out,iou,score,attrs,dynamic",
                         [c[1:] for c in NMS], ids=[c[0] for c in NMS])
def test_non_max_suppression(boxes, scores, max_out, iou, score, attrs, dynamic):
    inputs = [boxes, scores, scalar(max_out, np.int64), scalar(iou, np.float32),
              None if score is None else scalar(score, np.float32)]
    check_node("NonMaxSuppression", inputs, attrs, out_dtypes=[np.int64],
             dynamic=dynamic)


def test_non_max_suppression_omitted_inputs():
    # No max_output_boxes_per_class: nothing is kept.
    check_node("NonMaxSuppression", [random_boxes(1, 4), RNG.random((1, 1, 4)).astype(np.float32)],
             out_dtypes=[np.int64])


UNIQUE_TYPES = [np.float32, np.int64, np.int8]
UNIQUE = [
    ("flat_sorted", RNG.integers(0, 5, (3, 4)), {"sorted": 1}),
    ("flat_unsorted", RNG.integers(0, 5, (11,)), {"sorted": 0}),
    ("axis0", RNG.integers(0, 2, (6, 3)), {"axis": 0}),
    ("axis1_3d_unsorted", RNG.integers(0, 2, (2, 5, 2)), {"axis": 1, "sorted": 0}),
    ("axis_negative", RNG.integers(0, 2, (3, 2, 4)), {"axis": -1}),
]


@pytest.mark.parametrize("dtype", UNIQUE_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("x,attrs", [c[1:] for c in UNIQUE], ids=[c[0] for c in UNIQUE])
def test_unique(x, attrs, dtype):
    x = x.astype(dtype)
    types = [dtype, np.int64, np.int64, np.int64]
    # ONNX Runtime's unsorted Unique with an axis is right; the reference's
    # is not (it takes the slices along axis 0).
    check_node("Unique", [x], attrs, out_dtypes=types)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.int32, np.float64],
                         ids=lambda t: np.dtype(t).name)
def test_unique_other_types(dtype):
    x = np.array([3, 1, 200, 3, 0, 1, 7, 200], dtype=dtype)
    attrs = {"sorted": 1}
    types = [dtype, np.int64, np.int64, np.int64]
    check_node("Unique", [x], attrs, out_dtypes=types, reference=True)


def test_unique_symbolic():
    x = RNG.integers(0, 3, (4, 3)).astype(np.float32)
    check_node("Unique", [x], {"axis": 0}, out_dtypes=[np.float32, np.int64, np.int64, np.int64],
             dynamic={0: [0, 1]})


def tfidf_attrs(mode, min_gram, max_gram, skip, weights=None, counts=(0, 4),
                indexes=(0, 1, 2, 3, 4, 5, 6), pool=(2, 3, 5, 4, 5, 6, 7, 8, 6, 7)):
    attrs = dict(mode=mode, min_gram_length=min_gram, max_gram_length=max_gram,
                 max_skip_count=skip, ngram_counts=list(counts),
                 ngram_indexes=list(indexes), pool_int64s=list(pool))
    if weights is not None:
        attrs["weights"] = [float(w) for w in weights]
    return attrs


TOKENS = RNG.integers(2, 9, (3, 9))
TFIDF = [
    ("tf_uni_bi_skip2", TOKENS, tfidf_attrs("TF", 1, 2, 2)),
    ("idf_weights", TOKENS, tfidf_attrs("IDF", 1, 2, 1, weights=[0.5, 1, 2, 3, 4, 5, 6])),
    ("idf_no_weights_1d", TOKENS[0], tfidf_attrs("IDF", 2, 2, 3)),
    ("tfidf_weights", TOKENS, tfidf_attrs("TFIDF", 1, 2, 0, weights=[1, 2, 3, 4, 5, 6, 7])),
    ("tfidf_no_weights_unigrams", TOKENS, tfidf_attrs("TFIDF", 1, 1, 3)),
    ("trigrams_shuffled_columns", TOKENS, tfidf_attrs(
        "TF", 2, 3, 1, counts=(0, 2, 4), indexes=(5, 4, 3, 2, 0),
        pool=(2, 3, 2, 3, 4, 5, 6, 7, 8, 2))),
]


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("x,attrs", [c[1:] for c in TFIDF], ids=[c[0] for c in TFIDF])
def test_tfidf_vectorizer(x, attrs, dtype):
    check_node("TfIdfVectorizer", [x.astype(dtype)], attrs, out_dtypes=[np.float32])


def rois_for(n, height, width):
    start = RNG.uniform(-2, [width - 1, height - 1], (n, 2))
    size = RNG.uniform(0.5, [width, height], (n, 2))
    return np.concatenate([start, start + size], axis=1).astype(np.float32)


ROI_ALIGN = [
    ("avg_adaptive_grid", 2, {"output_height": 3, "output_width": 4}, None),
    ("avg_output_half_pixel", 2, {"output_height": 2, "output_width": 2, "sampling_ratio": 2,
                                  "coordinate_transformation_mode": "output_half_pixel"}, None),
    ("max_scaled", 1, {"mode": "max", "output_height": 3, "output_width": 3, "sampling_ratio": 3,
                       "spatial_scale": 0.5}, None),
    ("max_adaptive_symbolic", 2, {"mode": "max", "output_height": 2, "output_width": 3}, {0: [2, 3], 1: [0]}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("batches,attrs,dynamic", [c[1:] for c in ROI_ALIGN],
                         ids=[c[0] for c in ROI_ALIGN])
def test_roi_align(batches, attrs, dynamic, dtype):
    x = RNG.standard_normal((batches, 3, 9, 11)).astype(dtype)
    scale = attrs.get("spatial_scale", 1.0)
    rois = (rois_for(5, 9, 11) / scale).astype(dtype)
    batch_indices = RNG.integers(0, batches, 5).astype(np.int64)
    inputs = [x, rois, batch_indices]
    check_node("RoiAlign", inputs, attrs, dynamic=dynamic, rtol=1e-4)


def test_roi_align_f16():
    # ONNX Runtime has no float16 RoiAlign: compare with the reference.
    x = RNG.standard_normal((1, 2, 7, 6)).astype(np.float16)
    rois = rois_for(4, 7, 6).astype(np.float16)
    batch_indices = np.zeros(4, np.int64)
    check_node("RoiAlign", [x, rois, batch_indices],
               {"output_height": 2, "output_width": 3, "sampling_ratio": 2},
               reference=True)


def test_unique_scalar():
    check_node("Unique", [np.array(4.5, np.float32)], {},
               out_dtypes=[np.float32, np.int64, np.int64, np.int64], reference=True)
