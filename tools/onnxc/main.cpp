//===- main.cpp - The onnxc command line ----------------------------------===//
//
//   onnxc compile MODEL.onnx -o OUT.so [-O0..-O3] [--emit ...] [--shape ...]
//                 [--header OUT.h] [--name PREFIX]
//   onnxc run ARTIFACT.so --input NAME=FILE ... [--output-dir DIR]
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
  compileCmd->add_option("-O", compile.optLevel, "optimization level 0..3")
      ->check(CLI::Range(0, 3));
  compileCmd
      ->add_option("--emit", compile.emit,
                   "what to write: onnx (imported graph), mlir (optimized "
                   "graph), llvm (LLVM IR), obj (object file), lib (shared "
                   "library, the default)")
      ->check(CLI::IsMember({"onnx", "mlir", "llvm", "obj", "lib"}));
  compileCmd->add_option("--shape", compile.shapes,
                         "fix an input's shape: NAME=1x3x224x224");
  compileCmd->add_option("--mtriple", compile.mtriple, "target triple");
  compileCmd->add_option("--mcpu", compile.mcpu, "target CPU");
  compileCmd->add_option("--header", compile.header,
                         "also write a C header describing the model and "
                         "declaring its entry point");
  compileCmd->add_option("--name", compile.name,
                         "a C identifier: the artifact defines "
                         "<name>_model_entry (the only global symbol of an "
                         "object file) and the header's names start with it");

  RunOptions run;
  CLI::App *runCmd = app.add_subcommand("run", "run a compiled artifact");
  runCmd->add_option("artifact", run.artifact, "the compiled .so")->required();
  runCmd->add_option("--input", run.inputs, "NAME=FILE (.npy or .pb)");
  runCmd->add_option("--output-dir", run.outputDir,
                     "write each output as DIR/<name>.npy");

  InfoOptions info;
  CLI::App *infoCmd = app.add_subcommand(
      "info", "describe a model or a compiled artifact");
  infoCmd->add_option("path", info.path, "a .onnx model or artifact")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (*compileCmd)
    return runCompile(compile);
  if (*runCmd)
    return runRun(run);
  return runInfo(info);
}
