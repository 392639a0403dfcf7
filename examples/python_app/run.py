#!/usr/bin/env python3
"""Runs examples/models/tiny_cnn.onnx with ONNX Runtime-style code, once
through onnxc and once through ONNX Runtime, and checks they agree.

`classify` is ordinary ONNX Runtime code; it takes the module it runs with,
so the only difference between the two runs is the import:

    import onnxruntime as ort      vs      import onnxc as ort

Usage: run.py [IMAGE.npy]   (default: examples/models/tiny_cnn.input.npy)
Prints the class probabilities onnxc computed, one a line.
"""
import os
import sys

import numpy as np

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")


def classify(ort, model_path, image):
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    outputs = session.get_outputs()
    signature = ([(i.name, i.type, i.shape) for i in inputs],
                 [(o.name, o.type, o.shape) for o in outputs])
    batch = np.concatenate([image, image[:, :, ::-1, :]])  # two images
    (probabilities,) = session.run([outputs[0].name], {inputs[0].name: batch})
    everything = session.run(None, {inputs[0].name: image})
    return signature, probabilities, everything


def main():
    import onnxruntime
    import onnxc

    image_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        MODELS, "tiny_cnn.input.npy")
    image = np.load(image_path)
    model = os.path.join(MODELS, "tiny_cnn.onnx")
    sig_c, probs_c, all_c = classify(onnxc, model, image)
    sig_o, probs_o, all_o = classify(onnxruntime, model, image)
    if sig_c != sig_o:
        sys.exit(f"signatures differ:\n onnxc {sig_c}\n  ORT  {sig_o}")
    for got, want in [(probs_c, probs_o)] + list(zip(all_c, all_o)):
        if got.shape != want.shape or got.dtype != want.dtype:
            sys.exit(f"output {got.dtype}{got.shape} vs ORT's {want.dtype}{want.shape}")
        err = float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-6))
        if err > 1e-4:
            sys.exit(f"max relative error vs ONNX Runtime {err:.3g}")
    print(f"inputs/outputs: {sig_c}", file=sys.stderr)
    print(f"onnxc and ONNX Runtime agree on {len(all_c)} output(s) and a "
          f"batch of {probs_c.shape[0]}", file=sys.stderr)
    for p in all_c[0].reshape(-1):
        print(f"{p:.8g}")


if __name__ == "__main__":
    main()
