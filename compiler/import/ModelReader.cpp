//===- ModelReader.cpp - Reading a ModelProto and its external data -------===//

#include "compiler/import/ModelReader.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>

namespace onnxc {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error parseModelProto(llvm::StringRef bytes, ::onnx::ModelProto &model) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return makeError("the model is larger than protobuf's 2 GiB limit (store "
                     "the weights as external data)");
  google::protobuf::io::ArrayInputStream stream(bytes.data(),
                                                static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return makeError("not a valid ONNX model (not a protobuf ModelProto, or "
                     "truncated)");
  if (!model.has_graph())
    return makeError("not a valid ONNX model (it has no graph)");
  if (model.ir_version() <= 0)
    return makeError("not a valid ONNX model (it has no ir_version)");
  return llvm::Error::success();
}

ExternalDataReader::ExternalDataReader(llvm::StringRef modelPath) {
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(modelPath));
  if (dir.empty())
    dir = ".";
  modelDir = dir.str().str();
}

llvm::Expected<std::string> ExternalDataReader::realModelDir() {
  if (resolvedModelDir.empty()) {
    llvm::SmallString<256> real;
    if (std::error_code ec = llvm::sys::fs::real_path(modelDir, real))
      return makeError("cannot resolve the model's folder '" + modelDir +
                       "': " + ec.message());
    resolvedModelDir = real.str().str();
  }
  return resolvedModelDir;
}

/// Whether the relative `location` stays in its base folder when read
/// component by component (`a/../b` does, `../b` and `a/../../b` do not).
static bool staysInFolder(llvm::StringRef location) {
  int depth = 0;
  for (auto it = llvm::sys::path::begin(location),
            end = llvm::sys::path::end(location);
       it != end; ++it) {
    if (*it == "..") {
      if (--depth < 0)
        return false;
    } else if (*it != ".") {
      ++depth;
    }
  }
  return true;
}

/// Parses a non-negative decimal offset or length.
static llvm::Expected<uint64_t> parseSize(llvm::StringRef key,
                                          llvm::StringRef text) {
  uint64_t value;
  if (text.getAsInteger(10, value))
    return makeError("external data " + key + " '" + text +
                     "' is not a non-negative integer");
  return value;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
ExternalDataReader::read(const ::onnx::TensorProto &tensor,
                         uint64_t expectedBytes) {
  std::string location;
  std::optional<uint64_t> offset, length;
  bool hasLocation = false;
  for (const ::onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
      hasLocation = true;
    } else if (entry.key() == "offset" || entry.key() == "length") {
      auto value = parseSize(entry.key(), entry.value());
      if (!value)
        return value.takeError();
      (entry.key() == "offset" ? offset : length) = *value;
    }
  }
  if (!hasLocation || location.empty())
    return makeError("external data has no 'location'");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows))
    return makeError("external data location '" + location +
                     "' is an absolute path; it must be relative to the "
                     "model's folder");
  if (!staysInFolder(location))
    return makeError("external data location '" + location +
                     "' leaves the model's folder");

  llvm::SmallString<256> path(modelDir);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realPath;
  if (std::error_code ec = llvm::sys::fs::real_path(path, realPath))
    return makeError("cannot open external data file '" + location +
                     "': " + ec.message());
  auto dir = realModelDir();
  if (!dir)
    return dir.takeError();
  std::string dirPrefix =
      llvm::StringRef(*dir).ends_with("/") ? *dir : *dir + "/";
  if (!llvm::StringRef(realPath).starts_with(dirPrefix))
    return makeError("external data location '" + location + "' resolves to '" +
                     realPath + "', outside the model's folder");

  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(realPath, status))
    return makeError("cannot open external data file '" + location +
                     "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return makeError("external data location '" + location +
                     "' is not a regular file");
  uint64_t fileSize = status.getSize();
  uint64_t start = offset.value_or(0);
  if (start > fileSize)
    return makeError("external data offset " + llvm::Twine(start) +
                     " is past the end of '" + location + "' (" +
                     llvm::Twine(fileSize) + " bytes)");
  uint64_t size = length.value_or(fileSize - start);
  if (size > fileSize - start)
    return makeError("external data offset " + llvm::Twine(start) +
                     " + length " + llvm::Twine(size) +
                     " is past the end of '" + location + "' (" +
                     llvm::Twine(fileSize) + " bytes)");
  if (size != expectedBytes)
    return makeError("external data has " + llvm::Twine(size) +
                     " bytes, but the tensor's shape and type need " +
                     llvm::Twine(expectedBytes));
  if (size == 0)
    return llvm::MemoryBuffer::getMemBuffer("", location,
                                            /*RequiresNullTerminator=*/false);
  auto buffer = llvm::MemoryBuffer::getFileSlice(realPath, size, start);
  if (!buffer)
    return makeError("cannot read external data file '" + location +
                     "': " + buffer.getError().message());
  return std::move(*buffer);
}

} // namespace onnxc
