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

/// Parses `bytes` into `model`; false (after an error naming `path`) if they
/// are not a model.
static bool parseModel(MLIRContext &ctx, llvm::StringRef bytes,
                       llvm::StringRef path, ::onnx::ModelProto &model) {
  if (llvm::Error err = parseModelProto(bytes, model)) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0))
        << llvm::toString(std::move(err));
    return false;
  }
  return true;
}

OwningOpRef<ModuleOp> importOnnxModel(MLIRContext &ctx, llvm::StringRef path,
                                      const ImportOptions &options) {
  ::onnx::ModelProto model;
  {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      emitError(FileLineColLoc::get(&ctx, path, 0, 0))
          << "cannot read the model: " << buffer.getError().message();
      return nullptr;
    }
    // The parsed model copies what it needs; the file's bytes go here.
    if (!parseModel(ctx, (*buffer)->getBuffer(), path, model))
      return nullptr;
  }
  ExternalDataReader externalData(path);
  return importModelProto(ctx, model, path, externalData, options);
}

OwningOpRef<ModuleOp> importOnnxModelFromBuffer(MLIRContext &ctx,
                                                llvm::StringRef bytes,
                                                llvm::StringRef path,
                                                const ImportOptions &options) {
  ::onnx::ModelProto model;
  if (!parseModel(ctx, bytes, path, model))
    return nullptr;
  ExternalDataReader externalData(path);
  return importModelProto(ctx, model, path, externalData, options);
}

} // namespace onnxc
