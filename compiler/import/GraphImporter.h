//===- GraphImporter.h - ONNX graphs -> the onnx dialect --------*- C++ -*-===//

#ifndef ONNXC_COMPILER_IMPORT_GRAPHIMPORTER_H
#define ONNXC_COMPILER_IMPORT_GRAPHIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onnxc {

class ExternalDataReader;
struct ImportOptions;

/// Builds the module of docs/internals.md section 1 from a parsed `model`
/// read from `path`. Emits errors and returns null on failure. The data of
/// the main graph's initializers is released from `model` as it is copied
/// into the module.
mlir::OwningOpRef<mlir::ModuleOp>
importModelProto(mlir::MLIRContext &ctx, ::onnx::ModelProto &model,
                 llvm::StringRef path, ExternalDataReader &externalData,
                 const ImportOptions &options);

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_GRAPHIMPORTER_H
