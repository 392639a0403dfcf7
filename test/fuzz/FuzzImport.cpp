//===- FuzzImport.cpp - libFuzzer target: bytes -> onnx dialect -----------===//
//
// Feeds arbitrary bytes to the importer as a model file. Any outcome but a
// crash, a hang or a sanitizer report is fine: malformed input must end in
// a diagnostic. A module that imports must also verify.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext ctx; // the importer loads the dialects it needs
  // Diagnostics are the expected outcome for most inputs: drop them.
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  // The path only anchors external data; the folder does not exist, so any
  // external reference fails cleanly.
  mlir::OwningOpRef<mlir::ModuleOp> module = onnxc::importOnnxModelFromBuffer(
      ctx, bytes, "/nonexistent-fuzz-dir/model.onnx", {});
  if (module && failed(mlir::verify(*module)))
    std::abort(); // the importer built IR that does not verify
  return 0;
}
