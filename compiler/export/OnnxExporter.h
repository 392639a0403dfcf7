//===- OnnxExporter.h - onnx dialect -> ONNX ModelProto ---------*- C++ -*-===//

#ifndef ONNXC_COMPILER_EXPORT_ONNXEXPORTER_H
#define ONNXC_COMPILER_EXPORT_ONNXEXPORTER_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace onnxc {

/// Writes `module` (a `main_graph` of onnx ops and `onnxc` fused ops, before
/// partitioning) to `path` as an ONNX model: onnx ops in their domains
/// (ai.onnx, ai.onnx.ml), `onnxc.X` ops as op type X of domain `onnxc`
/// (version 1) with their attributes, top-level constants as initializers,
/// every typed intermediate value as value_info. Each domain's opset is the
/// model's own or, if higher, the newest version of any op used (the
/// dialect's op forms are the newest ones). Errors name the node at fault.
mlir::LogicalResult exportOnnxModel(mlir::ModuleOp module,
                                    llvm::StringRef path);

} // namespace onnxc

#endif // ONNXC_COMPILER_EXPORT_ONNXEXPORTER_H
