//===- Importer.cpp - ONNX ModelProto -> onnx dialect ---------------------===//
//
// The entry points: read the file, parse the protobuf (ModelReader), build the
// module (GraphImporter). The module's form is docs/internals.md section 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/Importer.h"

#include "compiler/import/GraphImporter.h"
#include "compiler/import/ModelReader.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace onnxc {

OwningOpRef<ModuleOp> importOnnxModel(MLIRContext &ctx, llvm::StringRef path,
                                      const ImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(&ctx, path, 0, 0);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(fileLoc) << "cannot read the model: "
                       << buffer.getError().message();
    return nullptr;
  }
  return importOnnxModelFromBuffer(ctx, (*buffer)->getBuffer(), path, options);
}

OwningOpRef<ModuleOp> importOnnxModelFromBuffer(MLIRContext &ctx,
                                                llvm::StringRef bytes,
                                                llvm::StringRef path,
                                                const ImportOptions &options) {
  Location fileLoc = FileLineColLoc::get(&ctx, path, 0, 0);
  ::onnx::ModelProto model;
  if (llvm::Error err = parseModelProto(bytes, model)) {
    emitError(fileLoc) << llvm::toString(std::move(err));
    return nullptr;
  }
  ExternalDataReader externalData(path);
  return importModelProto(ctx, model, path, externalData, options);
}

} // namespace onnxc
