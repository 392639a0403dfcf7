//===- RuntimeHelpers.h - Runtime functions that lowerings call -*- C++ -*-===//
//
// A few ops (NonMaxSuppression, Unique) are lowered to calls into the C
// runtime (runtime/cpu/*.c, linked into every artifact). Their callees are
// declared by the module pass `onnxc-declare-runtime-helpers`, which runs
// before convert-onnx-to-linalg: a pass on one function may not add symbols
// to the module. Both read the name and signature from runtimeHelperFor.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H
#define ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace onnxc::cpu {

/// A runtime function: its symbol (the C side defines `_mlir_ciface_<name>`,
/// MLIR's C interface) and its signature on converted (signless) types.
struct RuntimeHelper {
  std::string name;
  mlir::FunctionType type;
  /// When set, `name` is not the C function but a small wrapper the pass
  /// defines: it casts its ranked memref arguments to unranked ones and
  /// calls `target` (the C function, of type `targetType`). The casts then
  /// take their stack in the wrapper's frame, not in a loop of the caller.
  std::string target;
  mlir::FunctionType targetType;
};

/// The runtime function the lowering of `op` calls, if it calls one and the
/// op's types are ones it handles.
std::optional<RuntimeHelper> runtimeHelperFor(mlir::Operation *op);

/// The attribute onnxc-declare-runtime-helpers puts on a MatMul/Gemm whose B
/// is a constant (a weight): a FlatSymbolRefAttr naming a zero-initialized
/// mutable `memref<1xi64>` global of the module, the call site's cache slot.
/// Such an op calls `onnxc_rt_matmul_packed_f32`, which packs B into the
/// slot once instead of on every run (runtime/cpu/MatMul.c).
inline constexpr llvm::StringLiteral kPackedBSlotAttr = "onnxc.packed_b_slot";

/// The attributes onnxc-prepack-gemm-weights puts on a MatMul/Gemm whose
/// constant B it packed at compile time: a FlatSymbolRefAttr naming the
/// constant 1-D f32 global holding op(B) packed, and the i32 runtime ISA
/// (onnxc_sgemm_isa) whose layout it is in. Such an op calls
/// `onnxc_rt_matmul_prepacked_f32` with that global in place of B.
inline constexpr llvm::StringLiteral kPrepackedBAttr = "onnxc.prepacked_b";
inline constexpr llvm::StringLiteral kPrepackedIsaAttr = "onnxc.prepacked_isa";

/// The attribute onnxc-winograd-conv-weights puts on an onnxc.BlockedConv
/// whose constant 3x3 W it transformed for Winograd F(2x2, 3x3): a
/// FlatSymbolRefAttr naming the constant 1-D f32 global holding U
/// (runtime/cpu/kernels/ConvWinogradWeights.h). The op's call passes that
/// global in place of W, with the Winograd flag.
inline constexpr llvm::StringLiteral kWinogradWeightsAttr =
    "onnxc.winograd_weights";
/// Beside it, the I64 tile size U was made for: 2 (F(2x2, 3x3)) or 4
/// (F(4x4, 3x3)).
inline constexpr llvm::StringLiteral kWinogradTileAttr = "onnxc.winograd_tile";

/// For an onnxc.BlockedConv that reads a plain [N, C, H, W] image through a
/// ReorderToBlocked and whose call takes that image instead (the NCHW-input
/// flag; lowering/BlockedConvCall.cpp): the image. Else (any other op too)
/// null.
mlir::Value blockedConvPlainInput(mlir::Operation *op);

/// Whether `op` is an onnxc.ReorderToBlocked read only by convs that take
/// its input instead (blockedConvPlainInput): it gets no runtime call, and
/// its unread linalg form is erased as dead code.
bool reorderReadOnlyAsPlainInput(mlir::Operation *op);

/// Whether `op` is an f32 matrix product the runtime GEMM takes:
/// onnx.MatMul, onnx.Gemm, onnxc.FusedMatMul or onnxc.FusedGemm with a
/// ranked f32 result (B is operand 1).
bool isF32GemmOp(mlir::Operation *op);

/// Whether `op` is an 8-bit matrix product with a 2-D B that the int8 GEMM
/// takes (onnx.MatMulInteger; onnx.QLinearMatMul, which lowers to one and
/// hands it its slot): a constant B gets a kPackedBSlotAttr slot too.
/// onnx.QLinearConv with a 4-D W is one too (its slot keeps W packed per
/// group).
bool isInt8WeightProductOp(mlir::Operation *op);
/// The weight's operand index of such an op.
unsigned int8WeightOperand(mlir::Operation *op);

/// The type of a packed-B cache slot global.
mlir::MemRefType packedBSlotType(mlir::MLIRContext *ctx);

/// Why a run-time shape check failed; selects the message of
/// onnxc_rt_shape_error (runtime/cpu/ShapeError.c, same numbering).
enum class ShapeErrorKind : int32_t {
  /// Two dims that must broadcast (equal, or one of them 1) do not.
  Broadcast = 0,
  /// The contracted dims of a matrix product differ.
  InnerDims = 1,
  /// A library call (a dnnl primitive) returned a nonzero status `a`.
  LibraryCall = 2,
  /// A CPU kernel call (the int8 ones) returned a nonzero status `a`
  /// (ONNXC_KERNEL_*: out of memory, operands that do not fit).
  Kernel = 5,
  /// `a` values of an ai.onnx.ml OneHotEncoder with zeros = 0 are none of
  /// its categories.
  UnknownCategory = 6,
};

/// After a call of a runtime kernel that returns an i32 status (0: done),
/// reports a nonzero one as a ShapeErrorKind::Kernel error of the node.
void emitKernelStatusCheck(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value status);

/// What lowered code calls when a run-time shape check fails:
/// `(i32 kind, i64 a, i64 b) -> ()`. onnxc-declare-runtime-helpers declares
/// it in every module with a dynamic dim; onnxc-name-shape-errors (after the
/// conversion to the LLVM dialect) turns each call into one to
/// `onnxc_rt_shape_error(node name, kind, a, b)`, the node name taken from
/// the call's location.
inline constexpr llvm::StringLiteral kShapeErrorCallee =
    "onnxc_rt_shape_error_at";

/// The runtime function onnxc-name-shape-errors calls instead:
/// `(ptr node, i32 kind, i64 a, i64 b) -> ()`.
inline constexpr llvm::StringLiteral kShapeErrorFunction =
    "onnxc_rt_shape_error";

/// Emits `scf.if %failed { call kShapeErrorCallee(kind, a, b) }` (a, b index
/// values) at the builder's insertion point, which must be in a block of an
/// op that is in the module. The run's result is then an error; the caller
/// must still keep the computation in bounds. Emits nothing when `failed` is
/// the constant false, or when the callee is not declared (onnxc-opt without
/// onnxc-declare-runtime-helpers; the driver always runs it).
void emitShapeErrorIf(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value failed, ShapeErrorKind kind, mlir::Value a,
                      mlir::Value bSize);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H
