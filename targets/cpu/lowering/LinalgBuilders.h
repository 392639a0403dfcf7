//===- LinalgBuilders.h - Broadcasts, reductions, scalar casts --*- C++ -*-===//
//
// Builders shared by the elementwise, reduction, softmax and normalization
// lowerings: one broadcasting linalg.generic for an elementwise computation,
// one linalg.generic for a reduction over a set of dims, and ONNX Cast
// semantics on scalars. Values are signless (after type conversion); the
// ONNX element types passed alongside say how to read them.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_LINALGBUILDERS_H
#define ONNXC_TARGETS_CPU_LOWERING_LINALGBUILDERS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace onnxc::cpu {

/// Builds the scalar computation of a linalg.generic body from its block
/// arguments and returns the value to yield.
using ScalarBodyBuilder = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// The size of dim `d` of ranked tensor `value`: an attribute when static,
/// the matching output_shape operand when `value` comes from a
/// tensor.expand_shape, else a tensor.dim. (LLVM 19's canonicalizer folds a
/// tensor.dim of an expand_shape group with two dynamic dims into a division
/// by the dynamic-size sentinel, so such dims must not be queried.)
mlir::OpFoldResult tensorSize(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value value, int64_t d);

/// tensorSize for every dim of `value`.
llvm::SmallVector<mlir::OpFoldResult>
tensorSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);

/// Whether `type` is f16 or bf16: such values are computed in f32 (as ONNX
/// Runtime's CPU kernels do) and rounded once at the end.
bool isHalfFloat(mlir::Type type);

/// The type arithmetic on elements of `type` happens in: f32 for half floats,
/// `type` otherwise.
mlir::Type computeType(mlir::Type type);

/// Converts scalar `value` of ONNX element type `from` to ONNX element type
/// `to` with ONNX Cast semantics: float -> int truncates toward zero, -> bool
/// is `!= 0`, bool -> number is 0/1, int -> int wraps; float8 converts
/// through f32 (`saturate` as Cast's attribute). `value` is signless (a
/// float8 value is its i8 encoding).
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Type from, mlir::Type to,
                       bool saturate = true);

/// Whether `type` is one of the ONNX float8 types (f8E4M3FN, f8E4M3FNUZ,
/// f8E5M2, f8E5M2FNUZ), which the cpu target keeps as i8 encodings.
bool isFloat8(mlir::Type type);

/// Decodes the i8 encoding `bits` of float8 type `float8` to f32 (exact).
mlir::Value float8ToF32(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value bits, mlir::Type float8);

/// Encodes f32 `value` as the i8 encoding of float8 type `float8`, rounding
/// to nearest even; `saturate` clamps out-of-range values (Float8.cpp).
mlir::Value f32ToFloat8(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, mlir::Type float8, bool saturate);

/// Extends a half-float scalar to f32; anything else is returned as is.
mlir::Value promoteHalf(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value);

/// Converts a float scalar computed in computeType(type) back to `type`.
mlir::Value demoteTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                     mlir::Type type);

/// How an operand of type `operandType` is read in an iteration space of
/// `resultType`'s shape under multidirectional broadcasting: dims are
/// right-aligned and a static unit dim facing a non-unit result dim reads
/// index 0. Null when the operand cannot broadcast to the result.
mlir::AffineMap broadcastMap(mlir::RankedTensorType operandType,
                             mlir::RankedTensorType resultType);

/// The sizes of a broadcast result: static dims of `resultType`, else the
/// first operand dim that is static and not 1, else a dynamic operand dim
/// (dynamic dims are assumed equal, as shape inference does), else 1.
llvm::SmallVector<mlir::OpFoldResult>
broadcastSizes(mlir::OpBuilder &b, mlir::Location loc,
               mlir::RankedTensorType resultType, mlir::ValueRange operands);

/// One all-parallel linalg.generic producing a tensor of `resultType` with
/// sizes `resultSizes`, reading `operands` through `maps`; `body` computes
/// each element from the operands' elements.
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType resultType,
                                 llvm::ArrayRef<mlir::OpFoldResult> resultSizes,
                                 mlir::ValueRange operands,
                                 llvm::ArrayRef<mlir::AffineMap> maps,
                                 ScalarBodyBuilder body);

/// buildParallelGeneric over `resultType`'s shape reading every operand
/// through broadcastMap. Operands must be ranked tensors that broadcast to
/// `resultType` (check with broadcastMap first). A dynamic operand dim facing
/// a static result dim n != 1 is checked at run time: a size of 1 there is
/// broadcast (through a copy), as ONNX allows.
mlir::Value buildBroadcastGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::RankedTensorType resultType,
                                  mlir::ValueRange operands,
                                  ScalarBodyBuilder body);

/// Builds the combination of one more element into an accumulator:
/// (builder, loc, inputs, accumulator) -> new accumulator.
using ReductionCombiner = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange, mlir::Value)>;

/// The map from an iteration space of rank `rank` to a tensor that lacks
/// the dims marked in `reducedDims` (the result of buildReduction).
mlir::AffineMap reducedMap(mlir::MLIRContext *ctx,
                           llvm::ArrayRef<bool> reducedDims);

/// Reduces `input` over the dims marked in `reducedDims` (dropping them)
/// into a tensor filled first with scalar `init`, whose type is the
/// accumulator's. `extraInputs` are tensors of the result's shape (e.g. a
/// previous reduction) read alongside each element. The combiner gets
/// (element, extra inputs...) and the accumulator.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input, llvm::ArrayRef<bool> reducedDims,
                           mlir::Value init, mlir::ValueRange extraInputs,
                           ReductionCombiner combine);

/// Re-inserts the dims marked in `reducedDims` as unit dims into `reduced`
/// (a buildReduction result of `input`): ONNX's keepdims.
mlir::Value keepReducedDims(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value reduced, mlir::Value input,
                            llvm::ArrayRef<bool> reducedDims);

/// The number of elements in the dims of `input` marked in `dims`, as an
/// `index` value.
mlir::Value reducedElementCount(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value input, llvm::ArrayRef<bool> dims);

/// The smallest (`largest` false) or largest value of element type `type`:
/// -inf/+inf for floats, the integer limits (unsigned when `isUnsigned`)
/// otherwise; false/true for i1.
mlir::Value extremeScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, bool largest, bool isUnsigned);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_LINALGBUILDERS_H
