#!/usr/bin/env python3
"""Tree ensembles from scikit-learn (skl2onnx, default options) through
onnxc.InferenceSession against onnxruntime.InferenceSession, in the same
run, at 1 and 2 threads: the median latency of one batch of rows, as a
ratio onnxc / ORT (below 1: onnxc is faster). Outputs are compared first.

    .venv/bin/python bench/tree_ensemble.py [--rows 10000] [--trees 500]
        [--depth 8] [--output docs/benchmarks-ml.md]
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def models(trees, depth):
    from sklearn import ensemble
    return [
        ("random forest regressor", ensemble.RandomForestRegressor(
            trees, max_depth=depth, n_jobs=-1, random_state=0), "regression"),
        ("random forest classifier (3 classes)",
         ensemble.RandomForestClassifier(trees, max_depth=depth, n_jobs=-1,
                                         random_state=0), "classification"),
        ("gradient boosting classifier (binary, depth 3)",
         ensemble.GradientBoostingClassifier(n_estimators=trees, max_depth=3,
                                             random_state=0), "binary"),
    ]


def data(kind, rows, seed):
    from sklearn.datasets import make_classification, make_regression
    if kind == "regression":
        x, y = make_regression(rows, 20, n_informative=10, random_state=seed)
    else:
        x, y = make_classification(rows, 20, n_informative=10,
                                   n_classes=3 if kind == "classification"
                                   else 2, random_state=seed)
    return x.astype(np.float32), y


def median_ms(run, repeats, budget):
    run()  # warm-up
    times, start = [], time.perf_counter()
    while len(times) < repeats or (time.perf_counter() - start < budget
                                   and len(times) < 200):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def flat(outputs):
    arrays = []
    for o in outputs:
        if isinstance(o, list):  # ZipMap: a list of dicts
            o = np.array([list(d.values()) for d in o], dtype=np.float32)
        arrays.append(np.asarray(o))
    return arrays


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--train-rows", type=int, default=4000)
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--output")
    args = parser.parse_args()

    import onnxruntime as ort
    from skl2onnx import to_onnx
    import onnxc

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, kind in models(args.trees, args.depth):
            x, y = data(kind, args.train_rows, 0)
            model.fit(x, y)
            path = os.path.join(tmp, "model.onnx")
            with open(path, "wb") as f:
                f.write(to_onnx(model, x[:1]).SerializeToString())
            batch, _ = data(kind, args.rows, 1)
            feeds = {"X": batch}
            start = time.perf_counter()
            ours_session = onnxc.InferenceSession(
                path, cache_dir=os.path.join(tmp, "cache"))
            compile_s = time.perf_counter() - start
            for threads in (1, 2):
                options = ort.SessionOptions()
                options.intra_op_num_threads = threads
                theirs = ort.InferenceSession(
                    path, options, providers=["CPUExecutionProvider"])
                ours_session._artifact.set_num_threads(threads)
                want = flat(theirs.run(None, feeds))
                got = flat(ours_session.run(None, feeds))
                err = max(float(np.max(np.abs(g.astype(np.float64) -
                                              w.astype(np.float64))))
                          for g, w in zip(got, want))
                ort_ms = median_ms(lambda: theirs.run(None, feeds),
                                   args.repeats, args.budget)
                onnxc_ms = median_ms(lambda: ours_session.run(None, feeds),
                                     args.repeats, args.budget)
                rows.append((name, threads, onnxc_ms, ort_ms, err, compile_s))
                print(f"{name} threads={threads}: onnxc {onnxc_ms:.2f} ms, "
                      f"ORT {ort_ms:.2f} ms, ratio {onnxc_ms / ort_ms:.2f}, "
                      f"max abs diff {err:.2g}", flush=True)

    lines = [
        "# Tree ensembles: onnxc against ONNX Runtime",
        "",
        f"{args.trees} trees (max depth {args.depth}; the boosted model "
        f"depth 3), trained by scikit-learn on {args.train_rows} rows x 20 "
        "features, converted by skl2onnx at its default options (classifiers "
        "end in ZipMap); one batch of "
        f"{args.rows} rows through `onnxc.InferenceSession` and "
        "`onnxruntime.InferenceSession` in the same run, median latency. "
        "Ratio = onnxc / ORT (below 1: onnxc is faster).",
        "",
        f"Machine: {cpu_name()}, "
        f"{os.cpu_count()} cores. Reproduce: `.venv/bin/python "
        "bench/tree_ensemble.py --output docs/benchmarks-ml.md`.",
        "",
        "| model | threads | onnxc ms | ORT ms | ratio | max abs diff | "
        "onnxc compile s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, threads, ours, theirs, err, compile_s in rows:
        lines.append(f"| {name} | {threads} | {ours:.2f} | {theirs:.2f} | "
                     f"{ours / theirs:.2f} | {err:.2g} | {compile_s:.1f} |")
    if args.output:
        notes = os.path.join(HERE, "notes-ml.md")
        with open(args.output, "w") as f:
            f.write("\n".join(lines) + "\n")
            if os.path.exists(notes):
                f.write("\n" + open(notes).read())


if __name__ == "__main__":
    main()
