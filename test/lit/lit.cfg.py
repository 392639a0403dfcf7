# lit configuration for onnxc's FileCheck tests. Loaded through the generated
# build/test/lit/lit.site.cfg.py, which sets the source and build roots.
import os

import lit.formats

config.name = "onnxc"
# The internal shell: portable, and what newer lit releases require.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".onnxtxt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.onnxc_obj_root, "test", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]

tools = {
    "onnxc-opt": "tools/onnxc-opt/onnxc-opt",
    "onnxc-translate": "tools/onnxc-translate/onnxc-translate",
    "onnxc": "tools/onnxc/onnxc",
}
path = [config.llvm_tools_dir]
for rel in tools.values():
    path.append(os.path.dirname(os.path.join(config.onnxc_obj_root, rel)))
config.environment["PATH"] = os.pathsep.join(path + [config.environment.get("PATH", os.environ["PATH"])])

python = os.path.join(config.onnxc_src_root, ".venv", "bin", "python")
config.substitutions.append(("%python", python))
config.substitutions.append(
    ("%onnx_from_text", python + " " + os.path.join(config.test_source_root, "onnx_from_text.py")))
