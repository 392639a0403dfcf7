"""Generated loops on the runtime thread pool (onnxc-parallelize-loops):
the same models at 1 and 2 threads, and from several caller threads at once,
agree with ONNX Runtime; a run-time shape error still reaches the caller."""
import os
import subprocess
import tempfile
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnxc_runner import (Artifact, RunError, compile_model,
                          max_relative_error, run_ort)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch")
RNG = np.random.default_rng(5)


def saved_inputs(name):
    with np.load(os.path.join(HERE, name + ".inputs.npz")) as data:
        return {k: data[k] for k in data.files}


def task_functions(path):
    """The outlined loop nests in an artifact (local symbols *_task*)."""
    out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "main_graph_task" in line]


def check_threads(artifact, model, feeds_list, rtol=1e-4):
    """Every feed at 1, 2 and 3 threads (3: more workers than most CI
    machines' cores, where the pool leaves their placement to the kernel),
    then all feeds from 4 caller threads at once (2 pool threads): each
    result matches ONNX Runtime."""
    wants = [run_ort(model, feeds) for feeds in feeds_list]

    def check(got, want, what):
        for i, (g, w) in enumerate(zip(got, want)):
            assert g.shape == w.shape, f"{what} output {i}"
            err = max_relative_error(g, w)
            print(f"{what} output {i}: max relative error vs ONNX Runtime "
                  f"{err:.3g}")
            assert err <= rtol, f"{what} output {i}"

    try:
        for threads in (1, 2, 3):
            artifact.set_num_threads(threads)
            for n, (feeds, want) in enumerate(zip(feeds_list, wants)):
                check(artifact.run(feeds), want, f"{threads} threads, feed {n}")

        artifact.set_num_threads(2)
        errors = []

        def caller(index):
            try:
                for repeat in range(3):
                    n = (index + repeat) % len(feeds_list)
                    check(artifact.run(feeds_list[n]), wants[n],
                          f"caller {index} feed {n}")
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        callers = [threading.Thread(target=caller, args=(i,)) for i in range(4)]
        for t in callers:
            t.start()
        for t in callers:
            t.join()
        assert not errors, errors[0]
    finally:
        artifact.set_num_threads(0)


@pytest.mark.parametrize("shape", [None, "image=2x3x64x64"])
def test_resnet_small(shape):
    model = onnx.load(os.path.join(HERE, "resnet_small.onnx"))
    feeds = saved_inputs("resnet_small")
    args = ("--shape", shape) if shape else ()
    with tempfile.TemporaryDirectory() as tmp:
        path = compile_model(model, tmp, args=args)
        # Static shapes: the big nests are outlined at compile time; dynamic
        # ones too, with a run-time size check.
        assert task_functions(path), "no loop nest was parallelized"
        other = {"image": RNG.standard_normal(feeds["image"].shape)
                 .astype(np.float32)}
        check_threads(Artifact(path), model, [feeds, other])


def test_bert_small():
    model = onnx.load(os.path.join(HERE, "bert_small.onnx"))
    feeds = saved_inputs("bert_small")
    batch, seq = feeds["input_ids"].shape
    ids = RNG.integers(0, 1000, (batch, seq), dtype=np.int64)
    mask = np.ones((batch, seq), dtype=np.int64)
    mask[:, seq // 2:] = 0
    with tempfile.TemporaryDirectory() as tmp:
        artifact = Artifact(compile_model(model, tmp))
        check_threads(artifact, model,
                      [feeds, {"input_ids": ids, "attention_mask": mask}])


def broadcast_model():
    """Exp(Add(x, y)) * 2 on [?, ?] inputs: big enough to split, and the Add
    checks its dynamic broadcast at run time."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["m", "n"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["p", "q"])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    nodes = [helper.make_node("Add", ["x", "y"], ["sum"], name="add"),
             helper.make_node("Exp", ["sum"], ["e"], name="exp"),
             helper.make_node("Mul", ["e", "two"], ["out"], name="scale")]
    graph = helper.make_graph(nodes, "broadcast", [x, y], [out], [two])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_dynamic_broadcast_and_shape_error():
    model = broadcast_model()
    x = RNG.standard_normal((512, 1024)).astype(np.float32)
    row = RNG.standard_normal((1, 1024)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = compile_model(model, tmp)
        assert task_functions(path), "no loop nest was parallelized"
        artifact = Artifact(path)
        check_threads(artifact, model, [{"x": x, "y": x}, {"x": x, "y": row}])
        # The loops that report shape errors stay on the calling thread, so
        # the error reaches this run at 2 threads too.
        artifact.set_num_threads(2)
        try:
            bad = RNG.standard_normal((512, 3)).astype(np.float32)
            with pytest.raises(RunError, match="node 'add': cannot broadcast"):
                artifact.run({"x": x, "y": bad})
            # And the next good run is clean.
            got = artifact.run({"x": x, "y": x})
            assert max_relative_error(got[0], run_ort(model, {"x": x, "y": x})[0]) <= 1e-4
        finally:
            artifact.set_num_threads(0)
