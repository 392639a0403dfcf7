//===- main.cpp - The onnxc command line ----------------------------------===//
//
//   onnxc compile MODEL.onnx -o OUT.so [-O0..-O3] [--emit ...] [--shape ...]
//                 [--header OUT.h] [--name PREFIX] [--profile]
//   onnxc optimize MODEL.onnx -o OPTIMIZED.onnx [-O0..-O3] [--shape ...]
//   onnxc run ARTIFACT.so --input NAME=FILE ... [--output-dir DIR] [--threads
//   N]
//             [--repeat N] [--profile] [--profile-json FILE]
//   onnxc info MODEL.onnx|ARTIFACT.so
//
//===----------------------------------------------------------------------===//

#include "tools/onnxc/Commands.h"

#include <CLI/CLI.hpp>

#include <cstdio>

using namespace onnxc::cli;

int main(int argc, char **argv) {
  CLI::App app{"onnxc: an ahead-of-time compiler for ONNX models"};
  app.require_subcommand(1);

  CompileOptions compile;
  CLI::App *compileCmd =
      app.add_subcommand("compile", "compile an ONNX model to a native artifact");
  compileCmd->add_option("model", compile.model, "the .onnx model")->required();
  compileCmd->add_option("-o,--output", compile.output, "the artifact to write");
  compileCmd
      ->add_option("-O", compile.optLevel,
                   "optimization level: 0 none, 1 basic graph rewrites, 2 "
                   "extended (fusions; the default), 3 layout")
      ->check(CLI::Range(0, 3));
  compileCmd->add_flag("--print-pass-stats", compile.printPassStats,
                       "print what each graph pass rewrote and the node "
                       "count before and after the graph optimizer");
  compileCmd
      ->add_option("--emit", compile.emit,
                   "what to write: onnx (imported graph), mlir (optimized "
                   "graph), llvm (LLVM IR), obj (object file), lib (shared "
                   "library, the default), static (object file + header "
                   "whose run with a caller workspace never allocates; "
                   "static shapes only)")
      ->check(CLI::IsMember({"onnx", "mlir", "llvm", "obj", "lib", "static"}));
  compileCmd->add_option("--shape", compile.shapes,
                         "fix an input's shape: NAME=1x3x224x224");
  compileCmd->add_flag("--no-batch-split", compile.noBatchSplit,
                       "run a static batch as one, even when every node "
                       "keeps its images apart (by default such a graph is "
                       "compiled for one image and run once per image)");
  compileCmd->add_flag("--profile", compile.profile,
                       "time each node in every run (onnxc run --profile "
                       "prints the times; costs two clock reads per node)");
  compileCmd->add_option(
      "--targets", compile.targets,
      "targets in priority order, comma-separated (e.g. dnnl,cpu): each node "
      "goes to the first that takes it; cpu is always the implicit last");
  compileCmd->add_option("--cuda-arch", compile.cudaArch,
                         "GPU architecture of the cuda target's kernels "
                         "(default sm_90)");
  compileCmd
      ->add_option("--gpu-math", compile.gpuMath,
                   "f32 products on the GPU: fp32 (default) or tf32 (inputs "
                   "rounded to a 10-bit mantissa for the tensor cores)")
      ->check(CLI::IsMember({"fp32", "tf32"}));
  compileCmd->add_flag("--quiet", compile.quiet,
                       "no status line on stderr (shown only on a terminal: "
                       "the phase, the pass, the time so far)");
  compileCmd->add_flag("--print-partitions", compile.printPartitions,
                       "print each partition (target, nodes, boundary "
                       "values) and why targets refused nodes");
  compileCmd->add_option("--partition-graph", compile.partitionGraph,
                         "write the graph coloured by target as Graphviz "
                         "(FILE.dot)");
  compileCmd->add_option("--mtriple", compile.mtriple, "target triple");
  compileCmd->add_option("--mcpu", compile.mcpu, "target CPU");
  compileCmd->add_option("--header", compile.header,
                         "also write a C header describing the model and "
                         "declaring its entry point");
  compileCmd->add_option("--name", compile.name,
                         "a C identifier: the artifact defines "
                         "<name>_model_entry (the only global symbol of an "
                         "object file) and the header's names start with it");

  OptimizeOptions optimize;
  CLI::App *optimizeCmd = app.add_subcommand(
      "optimize", "write the optimized graph as an ONNX model");
  optimizeCmd->add_option("model", optimize.model, "the .onnx model")
      ->required();
  optimizeCmd->add_option("-o,--output", optimize.output,
                          "the optimized .onnx model to write")
      ->required();
  optimizeCmd
      ->add_option("-O", optimize.optLevel,
                   "optimization level 0..3 (default 2), as for compile")
      ->check(CLI::Range(0, 3));
  optimizeCmd->add_flag("--print-pass-stats", optimize.printPassStats,
                        "print what each graph pass rewrote");
  optimizeCmd->add_option("--shape", optimize.shapes,
                          "fix an input's shape: NAME=1x3x224x224");

  RunOptions run;
  CLI::App *runCmd = app.add_subcommand("run", "run a compiled artifact");
  runCmd->add_option("artifact", run.artifact, "the compiled .so")->required();
  runCmd->add_option("--input", run.inputs, "NAME=FILE (.npy or .pb)");
  runCmd->add_option("--output-dir", run.outputDir,
                     "write each output as DIR/<name>.npy");
  runCmd->add_option("--threads", run.threads,
                     "threads the kernels and parallel loops use (default 0: one per core)");
  runCmd->add_option("--repeat", run.repeat,
                     "run the model N times on the same inputs (default 1)");
  runCmd->add_flag("--profile", run.profile,
                   "print the time per node and per op type (an artifact "
                   "compiled with --profile; with --repeat, the first run "
                   "is a warm-up left out)");
  runCmd->add_option("--profile-json", run.profileJson,
                     "write the per-node times to FILE as JSON");

  InfoOptions info;
  CLI::App *infoCmd = app.add_subcommand(
      "info", "describe a model or a compiled artifact");
  infoCmd->add_option("path", info.path, "a .onnx model or artifact")->required();

  CLI::App *targetsCmd = app.add_subcommand(
      "targets", "list the targets built into this onnxc (for --targets)");

  // Everything after `quantize` goes to the Python quantizer, which parses
  // and documents its own options (`onnxc quantize --help`).
  CLI::App *quantizeCmd = app.add_subcommand(
      "quantize", "quantize a float model to int8: MODEL -o OUT --mode "
                  "dynamic|static [--calibration-data DIR] [--per-channel] "
                  "... (--help for all)");
  quantizeCmd->prefix_command();
  quantizeCmd->set_help_flag();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (*compileCmd)
    return runCompile(compile);
  if (*optimizeCmd)
    return runOptimize(optimize);
  if (*runCmd)
    return runRun(run);
  if (*targetsCmd)
    return runTargets();
  if (*quantizeCmd)
    return runQuantize(quantizeCmd->remaining());
  return runInfo(info);
}
