#!/usr/bin/env python3
"""Writes the ONNX backend node tests of the pinned onnx release into a folder.

The reference is the onnx release pinned in scripts/requirements.txt (1.23.2):
the tests, their models and their expected outputs are the ones that release
defines, so the conformance table always describes one known version of the
standard. The onnx wheel does not ship the test data files of the onnx
repository (onnx/backend/test/data/node), only the Python generators
(`onnx.backend.test.case.node.collect_testcases()`), so this script runs the
generators and writes the same layout:

    OUT/<test name>/model.onnx
    OUT/<test name>/test_data_set_<i>/input_<j>.pb, output_<j>.pb
    OUT/<test name>/case.json     rtol/atol of the case, onnx version

Inputs and outputs are serialized as the onnx repository does: a TensorProto
for a tensor, a SequenceProto / OptionalProto / MapProto for the other types.
A test whose case.json names the running onnx version is not written again,
and the STAMP file (written last) lets a later call skip the generators (they
take about half a minute) altogether. Tests that the onnx version no longer
defines are removed.

Usage: generate.py [--out DIR] [--force]   (default DIR: build/conformance-data)
"""
import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(REPO, "build", "conformance-data")
# Bump when the written layout changes, so old folders are regenerated.
FORMAT = 1
STAMP = "STAMP"


def stamp_text():
    return f"onnx {onnx.__version__} format {FORMAT}\n"


def is_current(out):
    """True if `out` holds a complete generation for the running onnx."""
    try:
        with open(os.path.join(out, STAMP)) as f:
            return f.read() == stamp_text()
    except OSError:
        return False


def _value_proto(value, value_info):
    """Serializes one input/output value as the graph declares its type."""
    kind = value_info.type.WhichOneof("value")
    name = value_info.name
    if kind == "sequence_type":
        return numpy_helper.from_list(value, name)
    if kind == "optional_type":
        return numpy_helper.from_optional(value, name)
    if kind == "map_type":
        return numpy_helper.from_dict(value, name)
    if isinstance(value, onnx.TensorProto):
        return value
    return numpy_helper.from_array(np.asarray(value), name)


def _case_done(test_dir):
    try:
        with open(os.path.join(test_dir, "case.json")) as f:
            return json.load(f).get("onnx") == onnx.__version__
    except (OSError, ValueError):
        return False


def write_case(case, out):
    """Writes one TestCase into OUT/<name> (through a temporary folder, so
    an interrupted run never leaves a half-written test behind)."""
    final = os.path.join(out, case.name)
    tmp = final + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    graph = case.model.graph
    with open(os.path.join(tmp, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(tmp, f"test_data_set_{i}")
        os.makedirs(ds)
        for prefix, values, infos in (("input", inputs, graph.input),
                                      ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                proto = _value_proto(value, infos[j])
                with open(os.path.join(ds, f"{prefix}_{j}.pb"), "wb") as f:
                    f.write(proto.SerializeToString())
    with open(os.path.join(tmp, "case.json"), "w") as f:
        json.dump({"name": case.name, "rtol": case.rtol, "atol": case.atol,
                   "onnx": onnx.__version__}, f, sort_keys=True)
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)


def collect():
    """The node TestCases of the installed onnx (its generators print
    numpy warnings for deliberate overflows; those are silenced)."""
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings(), np.errstate(all="ignore"), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return collect_testcases()


def generate(out=DEFAULT_OUT, force=False, log=sys.stderr):
    """Brings `out` up to date; returns the number of tests written."""
    if not force and is_current(out):
        return 0
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, STAMP)
    if os.path.exists(stamp):
        os.remove(stamp)
    print(f"generating the onnx {onnx.__version__} node tests into {out} ...",
          file=log, flush=True)
    cases = collect()
    names = {c.name for c in cases}
    written = 0
    for case in cases:
        if force or not _case_done(os.path.join(out, case.name)):
            write_case(case, out)
            written += 1
    for entry in os.listdir(out):
        path = os.path.join(out, entry)
        if entry not in names and os.path.isdir(path) and (
                entry.endswith(".tmp") or
                os.path.exists(os.path.join(path, "case.json"))):
            shutil.rmtree(path)
    with open(stamp, "w") as f:
        f.write(stamp_text())
    print(f"{len(cases)} node tests ({written} written)", file=log, flush=True)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="folder to write the tests into (default %(default)s)")
    parser.add_argument("--force", action="store_true",
                        help="rewrite every test even if the stamp is current")
    args = parser.parse_args(argv)
    generate(args.out, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
