//===- FuzzCompile.cpp - libFuzzer target: bytes -> LLVM IR ---------------===//
//
// Runs the whole compiler (import, shape inference, graph passes,
// partitioning, CPU lowering, translation to LLVM IR) on arbitrary bytes
// written to a model file. Errors are fine; crashes, hangs and sanitizer
// reports are not. Run with -close_fd_mask=2 to silence the error lines.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Compiler.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace {

/// A private scratch folder for the model and the output, per process.
const std::string &scratchDir() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/onnxc-fuzz-XXXXXX";
    const char *made = mkdtemp(pattern);
    return std::string(made ? made : "/tmp");
  }();
  return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string model = scratchDir() + "/model.onnx";
  std::FILE *file = std::fopen(model.c_str(), "wb");
  if (!file)
    return 0;
  std::fwrite(data, 1, size, file);
  std::fclose(file);

  onnxc::CompilerOptions options;
  options.modelPath = model;
  options.outputPath = scratchDir() + "/model.ll";
  options.emit = onnxc::EmitKind::Llvm;
  options.optLevel = 0; // the LLVM optimizer is not what is being fuzzed
  onnxc::compileModel(options);
  return 0;
}
