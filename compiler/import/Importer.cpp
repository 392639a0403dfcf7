// STUB: replaced by the importer work.
#include "compiler/import/Importer.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
namespace onnxc {
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(mlir::MLIRContext &ctx,
                                                  llvm::StringRef path,
                                                  const ImportOptions &) {
  mlir::emitError(mlir::FileLineColLoc::get(&ctx, path, 0, 0))
      << "the importer is not built yet";
  return nullptr;
}
} // namespace onnxc
