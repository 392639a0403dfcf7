//===- CompileCommand.cpp - `onnxc compile` and `onnxc optimize` ----------===//

#include "compiler/driver/Compiler.h"
#include "targets/Target.h"
#include "tools/onnxc/Commands.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace onnxc::cli {

/// Parses NAME=1x3x224x224 into `shapes`; false (after printing) if malformed.
static bool parseShape(llvm::StringRef spec,
                       std::map<std::string, std::vector<int64_t>> &shapes) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || dims.empty() || !spec.contains('=')) {
    llvm::errs() << "onnxc: error: --shape '" << spec
                 << "': expected NAME=DIMS, e.g. input=1x3x224x224\n";
    return false;
  }
  std::vector<int64_t> values;
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t v;
    if (part.getAsInteger(10, v) || v < 0) {
      llvm::errs() << "onnxc: error: --shape '" << spec << "': '" << part
                   << "' is not a non-negative dimension\n";
      return false;
    }
    values.push_back(v);
  }
  shapes[name.str()] = values;
  return true;
}

int runCompile(const CompileOptions &opts) {
  CompilerOptions options;
  options.modelPath = opts.model;
  options.outputPath = opts.output;
  options.optLevel = opts.optLevel;
  options.printPassStats = opts.printPassStats;
  options.batchSplit = !opts.noBatchSplit;
  options.profile = opts.profile;
  options.triple = opts.mtriple;
  options.cpu = opts.mcpu;
  options.headerPath = opts.header;
  options.name = opts.name;
  options.targetOptions["cuda-arch"] = opts.cudaArch;
  options.targetOptions["gpu-math"] = opts.gpuMath;
  options.progress = !opts.quiet;
  if (!opts.targets.empty()) {
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(opts.targets).split(names, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef name : names)
      options.targets.push_back(name.trim().str());
  }
  options.printPartitions = opts.printPartitions;
  options.partitionGraphPath = opts.partitionGraph;
  options.emit = llvm::StringSwitch<EmitKind>(opts.emit)
                     .Case("onnx", EmitKind::Onnx)
                     .Case("mlir", EmitKind::Mlir)
                     .Case("llvm", EmitKind::Llvm)
                     .Case("obj", EmitKind::Obj)
                     .Case("static", EmitKind::Static)
                     .Default(EmitKind::Lib);
  for (const std::string &spec : opts.shapes)
    if (!parseShape(spec, options.inputShapes))
      return 2;
  return compileModel(options) ? 0 : 1;
}

int runOptimize(const OptimizeOptions &opts) {
  CompilerOptions options;
  options.modelPath = opts.model;
  options.outputPath = opts.output;
  options.optLevel = opts.optLevel;
  options.printPassStats = opts.printPassStats;
  for (const std::string &spec : opts.shapes)
    if (!parseShape(spec, options.inputShapes))
      return 2;
  return optimizeModel(options) ? 0 : 1;
}

int runTargets() {
  for (const Target *target : allTargets()) {
    llvm::outs() << target->name() << " ("
                 << memorySpaceName(target->memorySpace()) << " memory"
                 << (target == &hostTarget() ? ", the host target" : "")
                 << "): " << target->description() << "\n";
    for (const std::string &needed : target->loadRequirements())
      llvm::outs() << "  an artifact with its partitions needs " << needed
                   << " where it runs\n";
  }
  return 0;
}

} // namespace onnxc::cli
