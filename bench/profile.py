#!/usr/bin/env python3
"""Where the time goes: one suite model profiled node by node in onnxc and in
ONNX Runtime, grouped by kind of op, side by side.

  .venv/bin/python bench/profile.py efficientnet_b0 [--batch 1] [--threads 1]
                                    [--runs 20] [--onnxc-arg=-O3] [--top 8]

onnxc: the model compiled with `onnxc compile --profile` (plus --onnxc-arg,
and --shape for the batch, as bench/run.py compiles it), its per-node
counters read through the Python Artifact. ONNX Runtime: the suite's session
options plus enable_profiling; its trace's per-node kernel times. Both run
in this process, alternately, one run each per round (a warm-up round left
out), on the same inputs (bench/run.py's, seed 0) and thread count.

The two engines fuse different nodes, so nodes do not pair up one to one;
the table groups both by kind (convolution, GEMM, attention, ...), then
lists each engine's slowest entries, then the onnxc entries that trail the
ONNX Runtime nodes of the same ONNX node names. Each engine's total is what
its own profiler attributes to nodes. onnxc's profiler costs no measurable time;
ONNX Runtime's does on small models, so a session without it runs in the
same rounds and the first line gives its wall time and the unprofiled
ratio. Compare per-node times of small nodes with that in mind, and the
ratios with docs/benchmarks.md's rather than reading them as the benchmark.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from run import make_feeds  # noqa: E402

# Kinds of op, by the first pattern (in order) that the op type contains.
KINDS = [("convolution", ("Conv",)),
         ("GEMM", ("MatMul", "Gemm")),
         ("attention", ("Attention",)),
         ("normalization", ("LayerNorm", "Normalization", "BatchNorm")),
         ("softmax", ("Softmax",)),
         ("pooling", ("Pool", "ReduceMean")),
         ("layout", ("Reorder", "Transpose", "Reshape", "Concat", "Slice",
                     "Gather", "Split", "Squeeze", "Flatten")),
         ("activation/elementwise", ("Gelu", "Sigmoid", "Relu", "Clip", "Mul",
                                     "Add", "Sub", "Div", "Tanh", "Erf",
                                     "Pow", "Sqrt", "Where", "Cast", "Swish",
                                     "HardSigmoid"))]


def kind_of(op_type):
    for kind, patterns in KINDS:
        if any(p in op_type for p in patterns):
            return kind
    return "other"


def compile_profiled(onnx_path, inputs, batch, args, tmp):
    so_path = os.path.join(tmp, "model.so")
    cmd = [args.onnxc, "compile", onnx_path, "-o", so_path, "--profile",
           *args.onnxc_arg]
    for spec in inputs:
        dims = [batch if d == "batch" else d for d in spec["shape"]]
        cmd += ["--shape", f"{spec['name']}=" + "x".join(map(str, dims))]
    subprocess.run(cmd, check=True)
    return so_path


def ort_session(onnx_path, args, tmp, profiling=True):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    if profiling:
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(tmp, "ort")
    return ort.InferenceSession(onnx_path, options,
                                providers=["CPUExecutionProvider"])


def profile_both(so_path, onnx_path, feeds, args, tmp):
    """Runs the two engines alternately in this process, one run each per
    round after a warm-up round, with a pause before each run (as
    bench/run.py does: ONNX Runtime's threads spin for a while after a run),
    so that a slow spell of a shared host hits both. Returns each engine's
    (entries, wall ms per run); an entry is (op types, nodes, ms per run)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "models"))
    from onnxc_runner import Artifact
    artifact = Artifact(so_path)
    artifact.set_num_threads(args.threads)
    session = ort_session(onnx_path, args, tmp)
    # ONNX Runtime's profiler records an event per node and run, which on a
    # small model is a visible share of the run (mobilenet_v2 at batch 1 on
    # 2 threads: 7.7 ms a run profiled, 5.5 ms not): a session without it
    # takes its turn in the same rounds, for the wall time to compare with.
    plain = ort_session(onnx_path, args, tmp, profiling=False)
    onnxc_wall = plain_wall = 0.0
    for r in range(args.runs + 1):
        if r == 1:
            artifact.reset_profile()
            onnxc_wall = plain_wall = 0.0
        time.sleep(args.settle)
        start = time.perf_counter()
        artifact.run(feeds)
        onnxc_wall += time.perf_counter() - start
        time.sleep(args.settle)
        session.run(None, feeds)
        time.sleep(args.settle)
        start = time.perf_counter()
        plain.run(None, feeds)
        plain_wall += time.perf_counter() - start
    onnxc = ([(e["op_types"] or "?", e["nodes"], e["ns"] / 1e6 / args.runs)
              for e in artifact.profile()], onnxc_wall * 1e3 / args.runs)

    with open(session.end_profiling()) as f:
        events = json.load(f)
    runs = sorted((e for e in events if e.get("name") == "model_run"),
                  key=lambda e: e["ts"])[1:]  # the first is the warm-up
    if not runs:
        sys.exit("ONNX Runtime's profile has no model_run events")
    spans = [(r["ts"], r["ts"] + r["dur"]) for r in runs]
    totals = collections.defaultdict(float)
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        if any(lo <= e["ts"] <= hi for lo, hi in spans):
            key = (e["args"].get("op_name", "?"),
                   e["name"][:-len("_kernel_time")])
            totals[key] += e["dur"] / 1e3  # us -> ms
    ort = ([(op, node, ms / len(runs)) for (op, node), ms in totals.items()],
           sum(hi - lo for lo, hi in spans) / 1e3 / len(runs))
    return onnxc, ort, plain_wall * 1e3 / args.runs


# Suffixes ONNX Runtime's graph transformers add to the names of the nodes
# they rewrite: the NCHWc convolution takes its output's name plus "_nchwc",
# and a fused node is named after the node it replaces plus the fusion's.
ORT_NAME_SUFFIXES = re.compile(r"(_output_0_nchwc|/[A-Za-z]+Fusion/)$")


def trailing_entries(onnxc_entries, ort_entries):
    """onnxc's entries next to the ONNX Runtime nodes they stand for,
    matched by ONNX node name (ORT's rewritten nodes carry the name of the
    node they replace, see ORT_NAME_SUFFIXES): a list of (onnxc ms - ORT ms,
    onnxc ms, ORT ms, op types, nodes) for entries with a match, and the ORT
    ms left unmatched (its reorders and the nodes it fused under new
    names)."""
    ort_by_node = collections.defaultdict(float)
    for _, node, ms in ort_entries:
        ort_by_node[ORT_NAME_SUFFIXES.sub("", node)] += ms
    matched, rows = set(), []
    for op_type, nodes, ms in onnxc_entries:
        names = [n for n in nodes.split(", ") if n in ort_by_node]
        if not names:
            continue
        matched.update(names)
        theirs = sum(ort_by_node[n] for n in names)
        rows.append((ms - theirs, ms, theirs, op_type, nodes))
    unmatched = sum(ms for n, ms in ort_by_node.items() if n not in matched)
    return rows, unmatched


def by_kind(entries):
    sums = collections.defaultdict(float)
    for op_type, _, ms in entries:
        sums[kind_of(op_type)] += ms
    return sums


def report(name, batch, threads, onnxc, ort, plain_wall, top):
    (o_entries, o_wall), (r_entries, r_wall) = onnxc, ort
    o_kind, r_kind = by_kind(o_entries), by_kind(r_entries)
    o_total = sum(ms for *_, ms in o_entries)
    r_total = sum(ms for *_, ms in r_entries)
    print(f"## {name}, batch {batch}, {threads} thread"
          f"{'' if threads == 1 else 's'}\n")
    print(f"Per run: onnxc {o_wall:.3f} ms ({o_total:.3f} ms in its "
          f"{len(o_entries)} entries); ONNX Runtime {r_wall:.3f} ms "
          f"({r_total:.3f} ms in its {len(r_entries)} nodes), "
          f"{plain_wall:.3f} ms without its profiler: onnxc/ORT "
          f"{o_wall / plain_wall:.2f} unprofiled.\n")
    print("| kind | onnxc ms | ORT ms | onnxc/ORT |")
    print("|---|---:|---:|---:|")
    kinds = sorted(set(o_kind) | set(r_kind),
                   key=lambda k: -max(o_kind.get(k, 0), r_kind.get(k, 0)))
    for k in kinds + ["total"]:
        o = o_total if k == "total" else o_kind.get(k, 0.0)
        r = r_total if k == "total" else r_kind.get(k, 0.0)
        ratio = f"{o / r:.2f}" if r > 0 else "-"
        label = f"**{k}**" if k == "total" else k
        print(f"| {label} | {o:.3f} | {r:.3f} | {ratio} |")
    for engine, entries in (("onnxc", o_entries), ("ONNX Runtime", r_entries)):
        print(f"\nSlowest in {engine}:\n")
        print("| ms | op type | nodes |")
        print("|---:|---|---|")
        for op_type, nodes, ms in sorted(entries, key=lambda e: -e[2])[:top]:
            print(f"| {ms:.3f} | {op_type} | {nodes} |")
    rows, unmatched = trailing_entries(o_entries, r_entries)
    rows = [r for r in sorted(rows, reverse=True) if r[0] > 0][:top]
    print(f"\nWhere onnxc trails, entry by entry: its entries against the "
          f"ONNX Runtime nodes of the same ONNX names ({unmatched:.3f} ms of "
          f"ORT's have no onnxc entry by name):\n")
    print("| onnxc - ORT ms | onnxc ms | ORT ms | op type | nodes |")
    print("|---:|---:|---:|---|---|")
    for delta, mine, theirs, op_type, nodes in rows:
        print(f"| {delta:+.3f} | {mine:.3f} | {theirs:.3f} | {op_type} | "
              f"{nodes} |")
    print()


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("model", help="a model of the suite (bench/models.py)")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20,
                        help="profiled runs per engine, after one warm-up")
    parser.add_argument("--settle", type=float, default=0.05,
                        help="seconds of pause before each run")
    parser.add_argument("--top", type=int, default=8,
                        help="slowest entries listed per engine")
    parser.add_argument("--onnxc", default=os.environ.get("ONNXC") or os.path.join(
        ROOT, "build", "tools", "onnxc", "onnxc"), help="the onnxc binary")
    parser.add_argument("--onnxc-arg", action="append", default=[],
                        help="extra argument for onnxc compile (repeatable)")
    parser.add_argument("--models-dir",
                        default=os.path.join(ROOT, "build", "bench", "models"))
    args = parser.parse_args(argv)
    if args.threads < 1 or args.runs < 1:
        parser.error("--threads and --runs must be at least 1")
    manifest_path = os.path.join(args.models_dir, "manifest.json")
    if not os.path.exists(manifest_path):
        sys.exit(f"{manifest_path}: no suite yet; bench/run.py generates it")
    with open(manifest_path) as f:
        models = json.load(f)["models"]
    if args.model not in models:
        sys.exit(f"{args.model}: not in {manifest_path} "
                 f"(it has {', '.join(sorted(models))})")
    entry = models[args.model]
    onnx_path = os.path.join(args.models_dir, entry["file"])
    feeds = make_feeds(entry["inputs"], args.batch, 0)
    with tempfile.TemporaryDirectory() as tmp:
        so_path = compile_profiled(onnx_path, entry["inputs"], args.batch,
                                   args, tmp)
        onnxc, ort, plain_wall = profile_both(so_path, onnx_path, feeds,
                                              args, tmp)
    report(args.model, args.batch, args.threads, onnxc, ort, plain_wall,
           args.top)


if __name__ == "__main__":
    main(sys.argv[1:])
