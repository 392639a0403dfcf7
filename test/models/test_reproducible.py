"""Compiling the same model twice gives byte-identical artifacts, whatever
the working directory or the model's path: no timestamps, temporary names or
absolute paths leak into the output. (The shared library's SONAME is its file
name, so both compiles write the same file name into different folders.)"""
import os
import shutil
import subprocess

import pytest

from onnxc_runner import onnxc_binary

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["resnet_small", "bert_small"]


def _compile(model, output, cwd, emit):
    subprocess.run([os.path.abspath(onnxc_binary()), "compile", model, "-o", output, "--emit", emit],
                   cwd=cwd, check=True, capture_output=True)
    with open(os.path.join(cwd, output), "rb") as f:
        return f.read()


@pytest.mark.parametrize("emit", ["lib", "obj"])
@pytest.mark.parametrize("name", MODELS)
def test_two_compiles_are_byte_identical(tmp_path, name, emit):
    source = os.path.join(HERE, "torch", name + ".onnx")
    first_dir, second_dir = tmp_path / "a", tmp_path / "b" / "nested"
    first_dir.mkdir()
    second_dir.mkdir(parents=True)
    # The second compile reads a copy of the model from another folder,
    # through a relative path, from another working directory.
    copy = second_dir / "model.onnx"
    shutil.copyfile(source, copy)
    suffix = ".so" if emit == "lib" else ".o"
    first = _compile(os.path.abspath(source), str(first_dir / ("m" + suffix)),
                     cwd=HERE, emit=emit)
    second = _compile("model.onnx", "m" + suffix, cwd=str(second_dir), emit=emit)
    assert len(first) > 0
    assert first == second, f"{name} ({emit}): the two artifacts differ"
