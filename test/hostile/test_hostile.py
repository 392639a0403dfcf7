"""Every model of the hostile corpus (hostile_cases.py) must be refused by
`onnxc compile` with a non-zero exit and one clear error line naming the
problem: no crash (signal), no hang (timeout), no output file, and no file
created or changed anywhere but where the output was asked for (onnxc's
temporary folder included)."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_cases import CASES, error_line_pattern, write_case  # noqa: E402

ONNXC = os.environ.get("ONNXC") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "tools", "onnxc", "onnxc")
TIMEOUT_S = 120


def _snapshot(root):
    """{path: (size, mtime)} of everything under `root`."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            found[path] = (st.st_size, st.st_mtime_ns)
    return found


@pytest.mark.parametrize("name,builder,expected", CASES, ids=[c[0] for c in CASES])
def test_hostile_model_is_refused(tmp_path, name, builder, expected):
    case_dir = tmp_path / "case"
    model = write_case(builder, str(case_dir))
    # A file beside the model folder that the external-data cases aim at.
    (tmp_path / "secret.bin").write_bytes(b"\0" * 16)
    temp_dir = tmp_path / "tmp"
    temp_dir.mkdir()
    (tmp_path / "out").mkdir()
    output = tmp_path / "out" / "model.so"
    before = _snapshot(str(tmp_path))
    env = dict(os.environ, TMPDIR=str(temp_dir))
    try:
        proc = subprocess.run([ONNXC, "compile", model, "-o", str(output)],
                              capture_output=True, text=True, env=env,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: onnxc did not finish in {TIMEOUT_S} s")
    stderr = proc.stderr.strip()
    assert proc.returncode > 0, (
        f"{name}: exit {proc.returncode} (negative: killed by a signal)\n{stderr}")
    lines = stderr.splitlines()
    assert len(lines) == 1, f"{name}: expected one error line, got:\n{stderr}"
    assert error_line_pattern(model, expected).match(lines[0]), (
        f"{name}: the error does not say /{expected}/:\n{lines[0]}")
    assert not output.exists(), f"{name}: an output was written"
    assert _snapshot(str(tmp_path)) == before, f"{name}: files were touched"
