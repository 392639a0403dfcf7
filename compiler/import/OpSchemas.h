//===- OpSchemas.h - What the importer knows of each ONNX op ----*- C++ -*-===//
//
// The facts about every op of the onnx dialect that the importer needs and the
// MLIR op definitions do not carry: its ONNX domain and type, every opset
// version in which it changed, its formal inputs and outputs, and its
// attributes. The table is generated from the ONNX schemas into
// compiler/dialect/OnnxOpSchemas.inc (see scripts/gen_onnx_dialect.py).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_IMPORT_OPSCHEMAS_H
#define ONNXC_COMPILER_IMPORT_OPSCHEMAS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace onnxc {

/// The kinds of AttributeProto::AttributeType, with the same numbers.
enum class OnnxAttrKind : uint8_t {
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Strings = 8,
  Tensors = 9,
  Graphs = 10,
  SparseTensor = 11,
  SparseTensors = 12,
  TypeProto = 13,
  TypeProtos = 14,
};

/// The ONNX spelling of an attribute kind ("INT", "FLOATS", ...).
llvm::StringRef stringifyAttrKind(OnnxAttrKind kind);

struct OnnxAttrSchema {
  const char *name;
  OnnxAttrKind kind;
  bool required;
};

/// One op of the dialect, in its newest version.
struct OnnxOpSchema {
  const char *mlirName; // "onnx.Conv", "onnx.ml.Scaler"
  const char *domain;   // "" or "ai.onnx.ml"
  const char *opType;   // "Conv"
  /// Every opset version in which the op was (re)defined, ascending.
  llvm::ArrayRef<int> sinceVersions;
  unsigned numInputs; // formal inputs; a variadic one counts once
  bool variadicInput; // the last formal input is variadic
  unsigned minInputs; // inputs a node must list
  unsigned numOutputs;
  bool variadicOutput;
  unsigned minOutputs;
  /// One letter per formal input/output: 'S' single, 'O' optional,
  /// 'V' variadic.
  const char *inputKinds;
  const char *outputKinds;
  /// The attributes of the newest version, sorted by name. Graph attributes
  /// are the op's regions, in this order.
  llvm::ArrayRef<OnnxAttrSchema> attributes;

  /// The version of the op a model with `opset` for its domain uses: the
  /// largest since_version <= opset, or nothing if the op did not exist yet.
  std::optional<int> versionForOpset(int64_t opset) const;
  /// The newest version (the one the dialect defines).
  int newestVersion() const { return sinceVersions.back(); }
  const OnnxAttrSchema *findAttribute(llvm::StringRef name) const;
  bool isOptionalInput(unsigned index) const;
};

/// The schema of the dialect op `mlirName` ("onnx.Conv"), or null.
const OnnxOpSchema *lookupOpSchema(llvm::StringRef mlirName);

/// The dialect op name for an ONNX op: "onnx.<opType>" for the default domain
/// ("" or "ai.onnx"), "onnx.ml.<opType>" for "ai.onnx.ml"; nothing for any
/// other domain.
std::optional<std::string> dialectOpName(llvm::StringRef domain,
                                         llvm::StringRef opType);

/// The newest opset of `domain` ("" or "ai.onnx", "ai.onnx.ml") that the
/// schemas define (the largest since_version of its ops); nothing for a
/// domain the dialect does not have.
std::optional<int> newestOpset(llvm::StringRef domain);

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_OPSCHEMAS_H
