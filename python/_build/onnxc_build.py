"""A PEP 517 build backend for the pure-Python onnxc package.

It writes the wheel (the onnxc/ sources plus metadata from pyproject.toml)
with the standard library alone, so `pip install ./python` works with no
network and no build requirements (setuptools' backend needs `wheel`, which a
bare environment may lack).
"""
import base64
import hashlib
import os
import re
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "onnxc"


def _project():
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    try:
        import tomllib

        return tomllib.loads(text)["project"]
    except ImportError:  # Python < 3.11: the few keys used below
        def value(key):
            m = re.search(rf'^{key}\s*=\s*"([^"]*)"', text, re.M)
            return m.group(1) if m else ""

        deps = re.search(r"^dependencies\s*=\s*\[([^\]]*)\]", text, re.M)
        return {"name": value("name"), "version": value("version"),
                "description": value("description"),
                "requires-python": value("requires-python"),
                "dependencies": re.findall(r'"([^"]+)"', deps.group(1)) if deps else []}


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}"]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    for dep in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for dep in deps:
            lines.append(f'Requires-Dist: {dep}; extra == "{extra}"')
    return "\n".join(lines) + "\n"


def _dist_info(project):
    return f"{project['name']}-{project['version']}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    dist_info = os.path.join(metadata_directory, _dist_info(project))
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(project))
    return _dist_info(project)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    name = f"{project['name']}-{project['version']}-py3-none-any.whl"
    dist_info = _dist_info(project)
    files = []
    for root, dirs, names in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if not n.endswith((".pyc", ".pyo")):
                path = os.path.join(root, n)
                files.append((os.path.relpath(path, HERE), open(path, "rb").read()))
    files.append((f"{dist_info}/METADATA", _metadata(project).encode()))
    files.append((f"{dist_info}/WHEEL",
                  b"Wheel-Version: 1.0\nGenerator: onnxc_build\n"
                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in files:
            wheel.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
            record.append(f"{arcname},sha256={digest.rstrip(b'=').decode()},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return name
