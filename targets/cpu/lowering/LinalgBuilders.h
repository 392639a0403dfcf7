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
/// tensor.expand_shape, for a graph input the size of the first graph input
/// dim with the same `onnxc.dim_params` name (run() checks that they agree),
/// else a tensor.dim. (LLVM 19's canonicalizer folds a
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

/// Creates the onnx op `name` with `attrs` and results of `resultTypes`;
/// returns its first result. For lowerings that decompose an op into onnx
/// ops, which the same conversion lowers next (Fused.cpp, ClassicMl.cpp):
/// `b` is the pattern's rewriter.
mlir::Value createOnnxOp(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef name, mlir::ValueRange operands,
                         mlir::TypeRange resultTypes,
                         llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

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

/// The run-time sizes of a multidirectional broadcast of operands with sizes
/// `operandSizes` (each right-aligned) to a result of shape `resultShape`:
/// a static result dim is its size; else a static operand size other than
/// 1; else the last dynamic operand size that is not 1 at run time (an
/// arith.select chain; the one dynamic size itself when there is one); else
/// 1. Nothing is checked here: an operand is only safe to read after
/// broadcastOperandTo.
llvm::SmallVector<mlir::OpFoldResult> broadcastShapes(
    mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> resultShape,
    llvm::ArrayRef<llvm::SmallVector<mlir::OpFoldResult>> operandSizes);

/// broadcastShapes for `operands` (ranked tensors) and `resultType`.
llvm::SmallVector<mlir::OpFoldResult>
broadcastSizes(mlir::OpBuilder &b, mlir::Location loc,
               mlir::RankedTensorType resultType, mlir::ValueRange operands);

/// Checks at run time that every dynamic dim `i` of `operand` (sizes
/// `sizes`) with a non-null `targets[i]` is that target or 1, and returns a
/// tensor whose dim `i` is the target (static where the target is): the
/// operand itself when all sizes match (a compare and an scf.if, no copy), a
/// broadcast copy when some are 1, and zeros after reporting the first
/// mismatch through emitShapeErrorIf otherwise (so nothing reads out of
/// bounds). Dims without a target, static dims and dims whose size is the
/// target itself are left alone; without any such dim, `operand` is returned.
mlir::Value broadcastOperandTo(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value operand,
                               llvm::ArrayRef<mlir::OpFoldResult> sizes,
                               llvm::ArrayRef<mlir::OpFoldResult> targets);

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
/// `resultType` (check with broadcastMap first). The iteration sizes are
/// broadcastSizes and every operand goes through broadcastOperandTo, so
/// dynamic dims follow numpy's rule at run time (1 broadcasts, equal sizes
/// pass as they are, anything else is a run-time error naming the node).
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
