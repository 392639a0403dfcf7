//===- WeightGlobals.h - Constant weights rewritten at compile time -------===//
//
// What the passes that re-lay out constant weights for a runtime kernel
// share (PrepackGemmWeights.cpp, WinogradConvWeights.cpp): reading a
// weight's f32 values and emitting the new layout as a constant 1-D global
// that the op's lowering passes instead of the weight.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_TRANSFORMS_WEIGHTGLOBALS_H
#define ONNXC_TARGETS_CPU_TRANSFORMS_WEIGHTGLOBALS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include <vector>

namespace onnxc::cpu {

/// The dense value of a constant (onnx.Constant or a ConstantLike op), or
/// null.
mlir::DenseElementsAttr constantValue(mlir::Value value);

/// The f32 values of `attr` (f32 elements) in row-major order.
std::vector<float> floatValues(mlir::DenseElementsAttr attr);

/// A new private constant `memref<N x f32>` global holding `values`, 64-byte
/// aligned, named `name` (made unique in `symbols`); returns its symbol.
mlir::FlatSymbolRefAttr createWeightGlobal(mlir::OpBuilder &builder,
                                           mlir::SymbolTable &symbols,
                                           mlir::Location loc,
                                           llvm::StringRef name,
                                           llvm::ArrayRef<float> values);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_TRANSFORMS_WEIGHTGLOBALS_H
