//===- QuantizedOperands.h - Checks of int8 ops' operands -------*- C++ -*-===//
//
// What the claims of the dnnl target's int8 convolutions and products ask
// of their scales and zero points (defined in LowerQuantizedConv.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_DNNL_QUANTIZEDOPERANDS_H
#define ONNXC_TARGETS_DNNL_QUANTIZEDOPERANDS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace onnxc::dnnl {

/// A ranked tensor of 8-bit integers, or null.
mlir::RankedTensorType int8Tensor(mlir::Value value);

/// Whether `value` is an f32 tensor of a static shape with one element, or
/// `count` (0: one only) in at most one dim.
bool isF32Scale(mlir::Value value, int64_t count);

/// Whether `value` is a one-element tensor of `type`'s element type.
bool isZeroPointOf(mlir::Value value, mlir::RankedTensorType type);

/// Whether a weight's zero point is absent or a constant of zeros (oneDNN's
/// int8 primitives take int8 weights with zero points 0 here).
bool hasZeroWeightPoints(mlir::Value zero);

} // namespace onnxc::dnnl

#endif // ONNXC_TARGETS_DNNL_QUANTIZEDOPERANDS_H
