//===- OpsetNormalize.h - Older opset versions -> the dialect's form -*- C++
//-*-===//
//
// The dialect defines each op in its newest ONNX version. A node from an older
// opset is rewritten here before it is built: attributes that later became
// inputs turn into onnx.Constant operands, attributes that lost their meaning
// are dropped, and ops whose semantics changed are rewritten into ops with the
// old meaning (or refused with "opset <N> of <Op> is not supported").
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_COMPILER_IMPORT_OPSETNORMALIZE_H
#define ONNXC_COMPILER_IMPORT_OPSETNORMALIZE_H

#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace onnxc {

class OpEmitter;
struct OnnxOpSchema;

/// A node between reading and building.
struct PendingNode {
  /// The op to build (a rewrite may pick another one, e.g. Upsample->Resize).
  const OnnxOpSchema *schema;
  /// The version of the op the model uses (the largest since_version of the
  /// op not above the model's opset for its domain).
  int version;
  mlir::Location loc;
  /// In schema order; null for an omitted optional input.
  llvm::SmallVector<mlir::Value> inputs;
  /// Every attribute but the graph ones (which become regions).
  mlir::NamedAttrList attributes;
  /// Per output the node lists: whether it is named (used).
  llvm::SmallVector<bool> outputPresent;
};

/// Brings `node` to the dialect's form. On success either `node` is ready to
/// be built (`replacement` left empty), or the rewrite built the node itself
/// and `replacement` holds one value per listed output (null where the output
/// is not present). On failure an error has been emitted at `node.loc`.
mlir::LogicalResult
normalizeNode(OpEmitter &emitter, PendingNode &node,
              std::optional<llvm::SmallVector<mlir::Value>> &replacement);

/// Finishes a node built from a rewritten `node` once its regions are
/// imported, for rewrites that need the body: Scan-8 (see normalizeScan).
/// Returns the op whose results are the node's outputs (`op` itself when
/// nothing is left to do).
mlir::Operation *finishNormalizedNode(OpEmitter &emitter,
                                      const PendingNode &node,
                                      mlir::Operation *op);

} // namespace onnxc

#endif // ONNXC_COMPILER_IMPORT_OPSETNORMALIZE_H
