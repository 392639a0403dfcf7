//===- ConstantEvaluator.h - Evaluate onnx ops on constants -----*- C++ -*-===//
//
// The evaluator behind onnxc-constant-folding: a host tensor (elements as
// doubles or int64s) and one evaluation function per supported onnx op.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_GRAPH_CONSTANTEVALUATOR_H
#define ONNXC_PASSES_GRAPH_CONSTANTEVALUATOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace onnxc::constfold {

/// A tensor being evaluated. Float element types (f16, bf16, f32, f64, float8)
/// keep their elements in `floats`; integers and bool in `ints` (unsigned ones
/// zero-extended, bool as 0/1). Results are rounded to the element type when
/// they become an attribute again (`toAttr`), so each op computes exactly
/// what a float32/float16 kernel would: one double operation on two exactly
/// representable operands, rounded once.
struct HostTensor {
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  bool isFloat() const;
  int64_t getNumElements() const;
  /// Element `i` as a double / as an integer, whatever the storage.
  double getFloat(int64_t i) const;
  int64_t getInt(int64_t i) const;

  static std::optional<HostTensor> fromAttr(mlir::DenseElementsAttr attr);
  /// The elements as an attribute of `elementType`, wrapped (integers) or
  /// rounded to nearest even (floats).
  mlir::DenseElementsAttr toAttr() const;
};

enum class EvalStatus {
  Folded,      // `results` holds one tensor per op result
  Unsupported, // the op (or this form of it) is not evaluated
  TooLarge,    // a result would exceed the element limit
};

/// Evaluates `op`. `inputs[i]` is the value of operand i, or nullopt for an
/// omitted optional input. Shape and Size read their input's static type
/// instead (`inputs[0]` may be nullopt). Anything the evaluator cannot
/// compute exactly as the ONNX spec says (a division by zero, an
/// out-of-range index) gives Unsupported: the op stays and fails at run time
/// the way the model would.
EvalStatus evaluate(mlir::Operation *op,
                    llvm::ArrayRef<std::optional<HostTensor>> inputs,
                    int64_t maxElements,
                    llvm::SmallVectorImpl<HostTensor> &results);

/// True if `evaluate` knows how to compute `op` (by op name).
bool canEvaluate(mlir::Operation *op);

} // namespace onnxc::constfold

#endif // ONNXC_PASSES_GRAPH_CONSTANTEVALUATOR_H
