//===- onnxc-translate.cpp - Print the imported form of an ONNX model -----===//
//
// `onnxc-translate MODEL.onnx [--shape NAME=1x3] [-o OUT]` imports a model
// and prints the onnx dialect module (docs/internals.md section 1). Errors
// are printed like onnxc's: one line `onnxc: error: <file>: node '<n>': ...`.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Importer.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::cl::opt<std::string> modelPath(llvm::cl::Positional,
                                            llvm::cl::desc("<model.onnx>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string> outputPath("o", llvm::cl::desc("Output file"),
                                             llvm::cl::value_desc("path"),
                                             llvm::cl::init("-"));
static llvm::cl::list<std::string>
    shapes("shape", llvm::cl::desc("Input shape, e.g. input=1x3x224x224"),
           llvm::cl::value_desc("NAME=DIMS"));

/// "<file>: node '<name>': " for a node location, "<file>: " for a file.
static void describeLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(name.getChildLoc()))
      os << file.getFilename().getValue() << ": ";
    os << "node '" << name.getName().getValue() << "': ";
  } else if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ": ";
  }
}

static bool parseShape(llvm::StringRef spec,
                       std::map<std::string, std::vector<int64_t>> &result) {
  auto [name, dims] = spec.rsplit('=');
  if (!spec.contains('=') || name.empty() || dims.empty()) {
    llvm::errs() << "onnxc: error: --shape '" << spec
                 << "': expected NAME=DIMS, e.g. input=1x3x224x224\n";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  std::vector<int64_t> values;
  for (llvm::StringRef part : parts) {
    int64_t value;
    if (part.getAsInteger(10, value) || value < 0) {
      llvm::errs() << "onnxc: error: --shape '" << spec << "': '" << part
                   << "' is not a non-negative dimension\n";
      return false;
    }
    values.push_back(value);
  }
  result[name.str()] = values;
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --mlir-print-debuginfo and the other printing flags.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "onnxc-translate: ONNX -> onnx dialect\n");
  onnxc::ImportOptions options;
  for (const std::string &spec : shapes)
    if (!parseShape(spec, options.inputShapes))
      return 2;

  MLIRContext ctx;
  ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Remark)
      return success();
    llvm::errs() << "onnxc: "
                 << (diag.getSeverity() == DiagnosticSeverity::Error
                         ? "error: "
                         : "warning: ");
    describeLocation(diag.getLocation(), llvm::errs());
    llvm::errs() << diag.str() << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      llvm::errs() << "onnxc: note: ";
      describeLocation(note.getLocation(), llvm::errs());
      llvm::errs() << note.str() << "\n";
    }
    return success();
  });

  OwningOpRef<ModuleOp> module =
      onnxc::importOnnxModel(ctx, modelPath, options);
  if (!module)
    return 1;
  std::string error;
  auto output = openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "onnxc: error: " << outputPath << ": " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
