#!/usr/bin/env python3
"""Writes a binary ONNX model from ONNX's textual syntax (onnx.parser).

Usage: onnx_from_text.py INPUT [-o OUT] [options]

INPUT is a file in the textual syntax ("-" for stdin); lines starting with
`#` or `//` are dropped first, so a lit test's RUN lines can sit in it. The
model is written unchecked, so tests can build invalid ones on purpose.

Options that rework the parsed model (initializers are named by NAME):
  --raw-data               store every initializer in raw_data
  --raw-bytes NAME=DELTA   add (or with a negative DELTA, drop) bytes at the end
                           of NAME's raw_data
  --external NAME=LOC[,offset=N][,length=N]
                           move NAME's data to the file LOC (relative to OUT's
                           folder; written there, at the offset), with those
                           external_data entries
  --truncate N             write only the first N bytes of the model
"""
import argparse
import os
import sys

import onnx
from onnx import numpy_helper, parser


def read_text(path):
    text = sys.stdin.read() if path == "-" else open(path).read()
    lines = [l for l in text.splitlines()
             if not l.lstrip().startswith(("#", "//"))]
    return "\n".join(lines)


def initializer(model, name):
    for tensor in model.graph.initializer:
        if tensor.name == name:
            return tensor
    sys.exit(f"onnx_from_text: no initializer '{name}'")


def to_raw(tensor):
    array = numpy_helper.to_array(tensor)
    raw = numpy_helper.from_array(array, tensor.name)
    tensor.CopyFrom(raw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--raw-data", action="store_true")
    ap.add_argument("--raw-bytes", action="append", default=[])
    ap.add_argument("--external", action="append", default=[])
    ap.add_argument("--truncate", type=int)
    args = ap.parse_args()

    model = parser.parse_model(read_text(args.input))
    if args.raw_data:
        for tensor in model.graph.initializer:
            to_raw(tensor)
    for spec in args.raw_bytes:
        name, delta = spec.split("=")
        tensor = initializer(model, name)
        if not tensor.HasField("raw_data"):
            to_raw(tensor)
        delta = int(delta)
        data = tensor.raw_data
        tensor.raw_data = data + b"\0" * delta if delta >= 0 else data[:delta]
    for spec in args.external:
        name, rest = spec.split("=", 1)
        location, *fields = rest.split(",")
        keys = dict(f.split("=") for f in fields)
        tensor = initializer(model, name)
        if not tensor.HasField("raw_data"):
            to_raw(tensor)
        data = tensor.raw_data
        tensor.ClearField("raw_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", location
        for key in ("offset", "length"):
            if key in keys:
                entry = tensor.external_data.add()
                entry.key, entry.value = key, keys[key]
        folder = "." if args.output == "-" else os.path.dirname(args.output)
        path = os.path.join(folder or ".", location)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"\0" * int(keys.get("offset", 0)) + data)

    data = model.SerializeToString()
    if args.truncate is not None:
        data = data[: args.truncate]
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
