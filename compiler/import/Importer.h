//===- Importer.h - ONNX ModelProto -> onnx dialect -------------*- C++ -*-===//

#ifndef ONNXC_COMPILER_IMPORT_IMPORTER_H
#define ONNXC_COMPILER_IMPORT_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnxc {

struct ImportOptions {
  /// Input shapes that replace the model's declared ones (--shape): every
  /// given dim must agree with a static dim of the model.
  std::map<std::string, std::vector<int64_t>> inputShapes;
};

/// Reads the .onnx file at `path` into a module holding one `func.func
/// @main_graph` (see Importer.cpp for the conventions). On failure emits
/// errors (naming the file, and the node where there is one) through `ctx`'s
/// diagnostic engine and returns null.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(mlir::MLIRContext &ctx,
                                                  llvm::StringRef path,
                                                  const ImportOptions &options);

/// The same for a model already in memory; `path` names it in diagnostics
/// and anchors external data files.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModelFromBuffer(mlir::MLIRContext &ctx, llvm::StringRef bytes,
                          llvm::StringRef path, const ImportOptions &options);

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_IMPORTER_H
