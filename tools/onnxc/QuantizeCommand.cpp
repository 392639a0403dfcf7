//===- QuantizeCommand.cpp - `onnxc quantize`: forwarded to Python --------===//
//
// The quantizer rewrites ONNX protos and calibrates by running the float
// model through onnxc's Python session, so it lives in the Python package
// (python/onnxc/quantization.py). This command runs it as
// `PYTHON -m onnxc quantize ARGS...` with the package on PYTHONPATH:
// PYTHON is $ONNXC_PYTHON, else the repository's .venv (bootstrap.sh puts
// onnx and numpy there), else python3; the package is $ONNXC_PYTHON_PATH,
// else this source tree's python/.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

extern char **environ;

namespace onnxc::cli {

namespace {

std::string envOr(const char *name, const std::string &fallback) {
  const char *value = std::getenv(name);
  return value && *value ? value : fallback;
}

} // namespace

int runQuantize(const std::vector<std::string> &args) {
  std::string venvPython = std::string(ONNXC_SOURCE_DIR) + "/.venv/bin/python";
  std::string python = envOr(
      "ONNXC_PYTHON", llvm::sys::fs::can_execute(venvPython) ? venvPython : "");
  if (python.empty()) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("python3");
    if (!found) {
      llvm::errs() << "onnxc: error: quantize needs Python 3 with numpy and "
                      "onnx (set ONNXC_PYTHON)\n";
      return 1;
    }
    python = *found;
  }
  std::string package =
      envOr("ONNXC_PYTHON_PATH", std::string(ONNXC_SOURCE_DIR) + "/python");
  std::string pythonPath = package;
  if (const char *existing = std::getenv("PYTHONPATH"); existing && *existing)
    pythonPath += std::string(":") + existing;
  std::vector<llvm::StringRef> argv = {python, "-m", "onnxc", "quantize"};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::vector<std::string> envStorage;
  for (char **entry = environ; *entry; ++entry)
    if (!llvm::StringRef(*entry).starts_with("PYTHONPATH="))
      envStorage.push_back(*entry);
  envStorage.push_back("PYTHONPATH=" + pythonPath);
  std::vector<llvm::StringRef> env(envStorage.begin(), envStorage.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(python, argv, env, {}, 0, 0, &message);
  if (status < 0) {
    llvm::errs() << "onnxc: error: quantize: could not run " << python << ": "
                 << message << "\n";
    return 1;
  }
  return status;
}

} // namespace onnxc::cli
