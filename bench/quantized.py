"""Quantized variants of the bench suite, made with ONNX Runtime's own
quantizer from the float models bench/models.py exports:

- `*_int8` CNNs: onnxruntime.quantization.quantize_static in the QDQ format,
  per-channel s8 weights, u8 activations, MinMax calibration on 8 batches of
  the suite's normal-distributed inputs;
- `bert_base_int8`, `gpt2_int8`: quantize_dynamic, s8 weights (MatMulInteger and
  DynamicQuantizeLinear);
- `*_int8_onnxc`: the same models quantized by onnxc's own quantizer
  (python/onnxc/quantization.py, what `onnxc quantize` runs), with the same
  calibration feeds for the static ones.

These are the files users get from ORT's tools, timed against ORT running the
same file. The agreement allowed with ORT is the larger of --rtol and twice
ORT's own disagreement with itself on the file (graph optimizations on vs
off), measured here: a quantized model amplifies one-ulp float differences
into whole quantization steps wherever a value sits on a rounding boundary,
so no engine matches another exactly.

Needs onnx, onnxruntime and numpy only (not torch): bench/run.py calls
derive() for the names in QUANTIZED once the float model exists.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

QUANTIZED = {
    "resnet50_int8": ("resnet50", "static"),
    "mobilenet_v2_int8": ("mobilenet_v2", "static"),
    "bert_base_int8": ("bert_base", "dynamic"),
    "gpt2_int8": ("gpt2", "dynamic"),
    "resnet50_int8_onnxc": ("resnet50", "onnxc-static"),
    "mobilenet_v2_int8_onnxc": ("mobilenet_v2", "onnxc-static"),
    "bert_base_int8_onnxc": ("bert_base", "onnxc-dynamic"),
    "gpt2_int8_onnxc": ("gpt2", "onnxc-dynamic"),
}
# onnxc's variants are held to the agreement of ONNX Runtime's file of the
# same model and kind: on onnxc's dynamic file ORT's two graph levels give
# the same bits, which says nothing about how far a rounding flip carries.
SIBLING = {"resnet50_int8_onnxc": "resnet50_int8",
           "mobilenet_v2_int8_onnxc": "mobilenet_v2_int8",
           "bert_base_int8_onnxc": "bert_base_int8",
           "gpt2_int8_onnxc": "gpt2_int8"}
# Bump when a recipe below changes, so cached files are regenerated.
RECIPE = 2
CALIBRATION_BATCHES = 8


def recipe_of(name, base_recipe):
    return f"{base_recipe}+{QUANTIZED[name][1]}.{RECIPE}"


def _feeds(inputs, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    feeds = {}
    for spec in inputs:
        shape = [1 if d == "batch" else d for d in spec["shape"]]
        if spec["fill"] == "normal":
            feeds[spec["name"]] = rng.standard_normal(shape).astype(spec["dtype"])
        elif spec["fill"].startswith("ids:"):
            feeds[spec["name"]] = rng.integers(
                0, int(spec["fill"][4:]), shape).astype(spec["dtype"])
        else:
            feeds[spec["name"]] = np.ones(shape, dtype=spec["dtype"])
    return feeds


def _ort_self_error(path, inputs):
    """Max relative error between ORT with all graph optimizations and with
    none, on one batch: how much ORT disagrees with itself on this file."""
    import numpy as np
    import onnxruntime as ort
    feeds = _feeds(inputs, seed=1234)
    outputs = []
    for level in (ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
                  ort.GraphOptimizationLevel.ORT_DISABLE_ALL):
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        options.log_severity_level = 3
        session = ort.InferenceSession(path, options,
                                       providers=["CPUExecutionProvider"])
        outputs.append(session.run(None, feeds))
    worst = 0.0
    for a, b in zip(*outputs):
        scale = max(float(np.max(np.abs(b))), 1e-30)
        worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    return worst


def derive(name, base_entry, models_dir):
    """Writes `name`'s file next to its float model; returns its manifest
    entry."""
    from onnxruntime import quantization as q
    base, method = QUANTIZED[name]
    src = os.path.join(models_dir, base_entry["file"])
    dst = os.path.join(models_dir, name + ".onnx")
    inputs = base_entry["inputs"]
    if method.startswith("onnxc-"):
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
        import onnxc
        if method == "onnxc-dynamic":
            onnxc.quantize_dynamic(src, dst, weight_type="s8")
            how = "onnxc quantize --mode dynamic"
        else:
            feeds = [_feeds(inputs, seed) for seed in range(CALIBRATION_BATCHES)]
            onnxc.quantize_static(src, dst, feeds, per_channel=True)
            how = "onnxc quantize --mode static --per-channel"
    elif method == "dynamic":
        q.quantize_dynamic(src, dst, weight_type=q.QuantType.QInt8)
        how = "onnxruntime quantize_dynamic, s8 weights"
    else:
        class Reader(q.CalibrationDataReader):
            def __init__(self):
                self.batches = iter([_feeds(inputs, seed)
                                     for seed in range(CALIBRATION_BATCHES)])

            def get_next(self):
                return next(self.batches, None)

        q.quantize_static(src, dst, Reader(), quant_format=q.QuantFormat.QDQ,
                          per_channel=True,
                          activation_type=q.QuantType.QUInt8,
                          weight_type=q.QuantType.QInt8)
        how = ("onnxruntime quantize_static QDQ, per-channel s8 weights, "
               "u8 activations")
    entry = dict(base_entry)
    entry.update({
        "file": name + ".onnx",
        "description": f"{base_entry['description']}, int8 ({how})",
        "size_bytes": os.path.getsize(dst),
        "recipe": recipe_of(name, base_entry.get("recipe")),
        "quantized_from": base,
        "ort_self_rel_error": _ort_self_error(dst, inputs),
    })
    print(f"{name}: wrote {dst} ({entry['size_bytes'] / 1e6:.1f} MB); ORT "
          f"optimized vs not: max relative error "
          f"{entry['ort_self_rel_error']:.3g}", flush=True)
    return entry
