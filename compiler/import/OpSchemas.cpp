//===- OpSchemas.cpp - The generated ONNX op table ------------------------===//

#include "compiler/import/OpSchemas.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <string>

namespace onnxc {
namespace {
#include "compiler/dialect/OnnxOpSchemas.inc"
} // namespace

llvm::StringRef stringifyAttrKind(OnnxAttrKind kind) {
  switch (kind) {
  case OnnxAttrKind::Float:
    return "FLOAT";
  case OnnxAttrKind::Int:
    return "INT";
  case OnnxAttrKind::String:
    return "STRING";
  case OnnxAttrKind::Tensor:
    return "TENSOR";
  case OnnxAttrKind::Graph:
    return "GRAPH";
  case OnnxAttrKind::Floats:
    return "FLOATS";
  case OnnxAttrKind::Ints:
    return "INTS";
  case OnnxAttrKind::Strings:
    return "STRINGS";
  case OnnxAttrKind::Tensors:
    return "TENSORS";
  case OnnxAttrKind::Graphs:
    return "GRAPHS";
  case OnnxAttrKind::SparseTensor:
    return "SPARSE_TENSOR";
  case OnnxAttrKind::SparseTensors:
    return "SPARSE_TENSORS";
  case OnnxAttrKind::TypeProto:
    return "TYPE_PROTO";
  case OnnxAttrKind::TypeProtos:
    return "TYPE_PROTOS";
  }
  return "UNDEFINED";
}

std::optional<int> OnnxOpSchema::versionForOpset(int64_t opset) const {
  std::optional<int> version;
  for (int since : sinceVersions)
    if (since <= opset)
      version = since;
  return version;
}

const OnnxAttrSchema *OnnxOpSchema::findAttribute(llvm::StringRef name) const {
  for (const OnnxAttrSchema &attr : attributes)
    if (name == attr.name)
      return &attr;
  return nullptr;
}

bool OnnxOpSchema::isOptionalInput(unsigned index) const {
  if (index >= numInputs)
    return variadicInput; // further members of the variadic group
  return inputKinds[index] == 'O';
}

const OnnxOpSchema *lookupOpSchema(llvm::StringRef mlirName) {
  static const llvm::StringMap<const OnnxOpSchema *> byName = [] {
    llvm::StringMap<const OnnxOpSchema *> map;
    for (const OnnxOpSchema &schema : kOnnxOpSchemas)
      map[schema.mlirName] = &schema;
    return map;
  }();
  return byName.lookup(mlirName);
}

std::optional<std::string> dialectOpName(llvm::StringRef domain,
                                         llvm::StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return (llvm::Twine("onnx.") + opType).str();
  if (domain == "ai.onnx.ml")
    return (llvm::Twine("onnx.ml.") + opType).str();
  return std::nullopt;
}

std::optional<int> newestOpset(llvm::StringRef domain) {
  if (domain == "ai.onnx")
    domain = "";
  std::optional<int> newest;
  for (const OnnxOpSchema &schema : kOnnxOpSchemas)
    if (domain == schema.domain)
      newest = std::max(newest.value_or(0), schema.newestVersion());
  return newest;
}

} // namespace onnxc
