"""Resize with dynamic spatial dims, as detectors and text models are
exported (input [1, C, h, w]): every mode, coordinate transformation, scales
or sizes (with each keep_aspect_ratio_policy) and tf_crop_and_resize's roi,
compiled once without --shape and run at several image sizes against ONNX
Runtime."""
import tempfile

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc_runner import Artifact, compile_model, max_relative_error, run_ort

RNG = np.random.default_rng(11)

CASES = [
    # (name, attributes, scales, sizes, roi)
    ("nearest_2x_yolo", dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                             nearest_mode="floor"), [1, 1, 2, 2], None, None),
    ("nearest_half_pixel", dict(mode="nearest"), [1, 1, 1.5, 0.75], None, None),
    ("linear_half_pixel", dict(mode="linear"), [1, 1, 2, 3], None, None),
    # Scales that give whole sizes: ONNX Runtime stretches align_corners to
    # the whole output size, the ONNX reference (and onnxc) to in * scale.
    ("linear_align_corners", dict(mode="linear",
                                  coordinate_transformation_mode="align_corners"),
     [1, 1, 2, 3], None, None),
    ("linear_pytorch", dict(mode="linear",
                            coordinate_transformation_mode="pytorch_half_pixel"),
     [1, 1, 1.7, 0.6], None, None),
    ("cubic_symmetric", dict(mode="cubic",
                             coordinate_transformation_mode="half_pixel_symmetric"),
     [1, 1, 2, 2], None, None),
    ("sizes_stretch", dict(mode="linear"), None, [1, 3, 9, 5], None),
    ("sizes_not_larger", dict(mode="linear", keep_aspect_ratio_policy="not_larger",
                              axes=[2, 3]), None, [12, 12], None),
    ("sizes_not_smaller", dict(mode="nearest", keep_aspect_ratio_policy="not_smaller",
                               axes=[2, 3]), None, [12, 12], None),
    ("crop_and_resize", dict(mode="linear",
                             coordinate_transformation_mode="tf_crop_and_resize",
                             extrapolation_value=-1.0),
     [1, 1, 2, 2], None, [0, 0, 0.2, -0.1, 1, 1, 0.9, 0.8]),
]


def resize_model(attrs, scales, sizes, roi, elem_type=TensorProto.FLOAT):
    inits, inputs = [], ["x"]
    for name, values, dtype in (("roi", roi, np.float32),
                                ("scales", scales, np.float32),
                                ("sizes", sizes, np.int64)):
        if values is None:
            inputs.append("")
        else:
            inits.append(numpy_helper.from_array(np.array(values, dtype), name))
            inputs.append(name)
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("Resize", inputs, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "resize",
        [helper.make_tensor_value_info("x", elem_type, [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("y", elem_type, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 9
    return model


@pytest.mark.parametrize("name,attrs,scales,sizes,roi", CASES,
                         ids=[c[0] for c in CASES])
def test_dynamic_spatial_dims(name, attrs, scales, sizes, roi):
    model = resize_model(attrs, scales, sizes, roi)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        for h, w in [(8, 10), (5, 7), (1, 4)]:
            x = RNG.standard_normal((1, 3, h, w)).astype(np.float32)
            got = artifact.run({"x": x})[0]
            want = run_ort(model, {"x": x})[0]
            assert got.shape == want.shape, (h, w)
            assert max_relative_error(got, want) < 1e-5, (h, w)


NEAREST = [("floor", "asymmetric", [1, 1, 2, 2]),
           ("ceil", "half_pixel", [1, 1, 1.5, 0.75]),
           ("round_prefer_floor", "align_corners", [1, 1, 2, 3]),
           ("round_prefer_ceil", "pytorch_half_pixel", [1, 1, 0.6, 3]),
           ("round_prefer_floor", "half_pixel_symmetric", [1, 1, 1.7, 2])]


@pytest.mark.parametrize("elem_type", [TensorProto.UINT8, TensorProto.INT8,
                                       TensorProto.INT32, TensorProto.FLOAT],
                         ids=["u8", "s8", "i32", "f32_inf"])
@pytest.mark.parametrize("nearest_mode,transform,scales", NEAREST,
                         ids=[f"{c[0]}_{c[1]}" for c in NEAREST])
def test_nearest_gathers_any_element_type(elem_type, nearest_mode, transform,
                                          scales):
    """Nearest mode reads one input element per output element (an index
    table per axis and one gather): integer tensors (what a QDQ model's
    Resize runs on once its DequantizeLinear/QuantizeLinear pair is
    dropped) and infinities, which the weighted sum of the two taps used to
    turn into NaN (0 * inf), equal ONNX Runtime's exactly."""
    model = resize_model(dict(mode="nearest", nearest_mode=nearest_mode,
                              coordinate_transformation_mode=transform),
                         scales, None, None, elem_type)
    dtype = helper.tensor_dtype_to_np_dtype(elem_type)
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        for h, w in [(8, 10), (5, 7), (1, 4)]:
            if dtype == np.float32:
                x = RNG.standard_normal((1, 3, h, w)).astype(np.float32)
                x[0, 0, :, ::2] = np.inf
                x[0, 1, ::2, :] = -np.inf
            else:
                info = np.iinfo(dtype)
                x = RNG.integers(info.min, info.max, (1, 3, h, w),
                                 endpoint=True).astype(dtype)
            got = artifact.run({"x": x})[0]
            want = run_ort(model, {"x": x})[0]
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want, err_msg=f"{h}x{w}")


def test_antialias_with_dynamic_dims_names_the_fix():
    model = resize_model(dict(mode="linear", antialias=1), [1, 1, 0.5, 0.5],
                         None, None)
    with tempfile.TemporaryDirectory() as tmp:
        with pytest.raises(AssertionError, match="--shape"):
            compile_model(model, tmp)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_sizes_taken_from_another_tensor_at_run_time(mode):
    """An FPN/U-Net neck resizes a map to its skip connection's size:
    sizes = Concat(Shape(x)[:2], Shape(skip)[2:]) through int32 casts, as
    paddle2onnx writes it (PP-Structure's table model). The output dims are
    then only known at run time, and the given sizes are used as they are
    (stretch)."""
    def ints(name, values):
        return numpy_helper.from_array(np.array(values, np.int64), name)
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Slice", ["x_shape", "zero", "two"], ["nc"]),
        helper.make_node("Shape", ["skip"], ["skip_shape"]),
        helper.make_node("Cast", ["skip_shape"], ["skip_shape32"],
                         to=TensorProto.INT32),
        helper.make_node("Slice", ["skip_shape32", "two", "four"], ["hw32"]),
        helper.make_node("Cast", ["hw32"], ["hw"], to=TensorProto.INT64),
        helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode,
                         coordinate_transformation_mode="asymmetric"),
    ]
    graph = helper.make_graph(
        nodes, "resize_to_skip",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["n", 4, "h", "w"]),
         helper.make_tensor_value_info("skip", TensorProto.FLOAT,
                                       ["n", 2, "h2", "w2"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [ints("zero", [0]), ints("two", [2]), ints("four", [4])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        for (h, w), (h2, w2) in [((4, 5), (8, 10)), ((3, 3), (7, 5)),
                                 ((6, 4), (3, 2))]:
            feeds = {"x": RNG.standard_normal((1, 4, h, w)).astype(np.float32),
                     "skip": RNG.standard_normal((1, 2, h2, w2))
                     .astype(np.float32)}
            got = artifact.run(feeds)[0]
            want = run_ort(model, feeds)[0]
            assert got.shape == want.shape == (1, 4, h2, w2)
            assert max_relative_error(got, want) < 1e-5, (h2, w2)
