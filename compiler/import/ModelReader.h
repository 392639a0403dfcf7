//===- ModelReader.h - Reading a ModelProto and its external data -*- C++
//-*-===//
//
// The file-level half of the importer: parsing the protobuf, and reading the
// data of tensors stored in separate files (data_location = EXTERNAL), which
// must never reach outside the model's folder.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_IMPORT_MODELREADER_H
#define ONNXC_COMPILER_IMPORT_MODELREADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace onnx {
class ModelProto;
class TensorProto;
} // namespace onnx

namespace onnxc {

/// Parses `bytes` into `model`; the error says why it is not a ModelProto.
llvm::Error parseModelProto(llvm::StringRef bytes, ::onnx::ModelProto &model);

/// Reads external tensor data for the model at `modelPath`. A location must be
/// a relative path that stays inside the model's folder, also once symbolic
/// links are resolved.
class ExternalDataReader {
public:
  explicit ExternalDataReader(llvm::StringRef modelPath);

  /// The bytes of `tensor`'s data, which must be exactly `expectedBytes` long
  /// (the byte size of its shape and element type).
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  read(const ::onnx::TensorProto &tensor, uint64_t expectedBytes);

private:
  /// The model's folder, with symbolic links resolved.
  llvm::Expected<std::string> realModelDir();

  std::string modelDir;
  std::string resolvedModelDir;
};

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_MODELREADER_H
