//===- Compiler.h - The onnxc compilation pipeline --------------*- C++ -*-===//

#ifndef ONNXC_COMPILER_DRIVER_COMPILER_H
#define ONNXC_COMPILER_DRIVER_COMPILER_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnxc {

enum class EmitKind {
  Onnx, // the imported onnx dialect module
  Mlir, // the graph after shape inference, graph passes and partitioning
  Llvm, // LLVM IR of the artifact
  Obj,  // a native object file
  Lib,  // a shared library linked with the runtime
  // An object file and its header for a run without allocation: every
  // buffer is planned into the caller's workspace (fails for a model that
  // would still allocate, e.g. one with dynamic dims).
  Static,
};

struct CompilerOptions {
  std::string modelPath;
  std::string outputPath; // "-" writes text kinds to stdout
  int optLevel = 2; // the graph optimizer's and LLVM's level, 0..3
  bool printPassStats = false; // what each graph pass rewrote, node counts
  EmitKind emit = EmitKind::Lib;
  std::map<std::string, std::vector<int64_t>> inputShapes;
  // --targets, in priority order; the host target (cpu) is always the
  // implicit last.
  std::vector<std::string> targets;
  // Options meant for one target, by name (--cuda-arch: "cuda-arch"),
  // handed to the targets as they are (LoweringOptions::targetOptions).
  std::map<std::string, std::string> targetOptions;
  // A status line on stderr while compiling (only shown on a terminal;
  // off with --quiet).
  bool progress = false;
  // --print-partitions: each partition and every refusal, to stdout.
  bool printPartitions = false;
  // --partition-graph: the graph coloured by target, as Graphviz.
  std::string partitionGraphPath;
  std::string triple; // empty: the host
  std::string cpu;    // empty: the host CPU (for the host triple)
  // --header: the generated C header to write (llvm, obj and lib emits).
  std::string headerPath;
  // --name: a C identifier; the artifact defines <name>_model_entry and the
  // header's names start with <name>. An object file built with a name
  // exports nothing else, so several link into one program.
  std::string name;
  // A graph whose nodes keep the images of its static batch apart is
  // compiled for one image and run once per image (passes/graph/
  // BatchSplit.h); --no-batch-split runs the batch as one.
  bool batchSplit = true;
  // --profile: the artifact times each node of every run and exports the
  // totals (onnxc_profile in onnxc.h; `onnxc run --profile` prints them).
  bool profile = false;
  const char *argv0 = "onnxc";
};

/// Compiles a model as `options` says. On failure prints one line
/// `onnxc: error: ...` per error to stderr and returns false.
bool compileModel(const CompilerOptions &options);

/// Imports `options.modelPath`, infers shapes, optimizes the graph at
/// `options.optLevel` and writes it as an ONNX model to `options.outputPath`
/// (never over the model itself). Same error reporting as compileModel.
bool optimizeModel(const CompilerOptions &options);

} // namespace onnxc

#endif // ONNXC_COMPILER_DRIVER_COMPILER_H
