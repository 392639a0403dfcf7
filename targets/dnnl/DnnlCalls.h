//===- DnnlCalls.h - Nodes of dnnl partitions as runtime calls --*- C++ -*-===//
//
// Every node a dnnl partition holds becomes one call of a function of
// runtime/dnnl/DnnlRuntime.h: tensors cross as unranked memrefs, the
// result is a fresh buffer the call fills, and the first argument is the
// call site's cache slot (a zero-initialized mutable memref<1xi64> global)
// where the runtime keeps the site's primitives, so they are created once,
// not per run. A nonzero status becomes the run's error, naming the node.
//
// Each op family has a claim (what the lowering takes, and why not) and a
// lowering; DnnlTarget.cpp asks the claims, LowerToDnnlCalls.cpp calls the
// lowerings, so the two cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_DNNL_DNNLCALLS_H
#define ONNXC_TARGETS_DNNL_DNNLCALLS_H

#include "targets/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <optional>

namespace onnxc::dnnl {

/// Builds the calls of one module: declares each runtime function once and
/// makes one cache slot per call site.
class DnnlCallBuilder {
public:
  explicit DnnlCallBuilder(mlir::ModuleOp module);

  /// A fresh cache slot, as the memref<*xi64> argument.
  mlir::Value slot(mlir::OpBuilder &b, mlir::Location loc);
  /// A ranked tensor as a read-only unranked memref argument (integers
  /// signless, as the host pipeline converts them).
  mlir::Value tensorArgument(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value tensor);
  /// A fresh 64-byte aligned buffer of `type` (dynamic dims from `sizes`).
  mlir::Value allocResult(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::RankedTensorType type,
                          llvm::ArrayRef<mlir::OpFoldResult> sizes);
  /// `buffer` as the memref<*xf32> argument the call fills.
  mlir::Value resultArgument(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value buffer);
  /// Calls `name` (declared on first use with the arguments' types and an
  /// i32 status), reports a nonzero status as the node's run-time error,
  /// and replaces `op`'s first result by `buffer` as a tensor, through the
  /// op's fused activation when it has one.
  void callAndReplace(mlir::OpBuilder &b, mlir::Operation *op,
                      llvm::StringRef name, mlir::ValueRange args,
                      mlir::Value buffer);

private:
  /// `x` through `op`'s fused activation, as onnx ops the host pipeline
  /// lowers once the partition is inlined.
  mlir::Value applyActivation(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Operation *op, mlir::Value x);

  mlir::ModuleOp module;
  mlir::SymbolTable symbols;
  int64_t nextSlot = 0;
};

/// Whether a fused op's `activation` (with its parameters) is one the cpu
/// target knows (cpu::kernelActivationFor). Fused activations do not run as
/// oneDNN post-ops: those do not keep NaN as ONNX does (Relu and Clip turn
/// it into 0 everywhere, Sigmoid in the one-pixel GEMM convolution), so
/// every call passes "no activation" and callAndReplace applies it on the
/// host.
bool hasKnownActivation(mlir::Operation *op);

/// Claims and lowerings, per family (LowerConv.cpp, LowerQuantizedConv.cpp,
/// LowerConvTranspose.cpp, LowerMatMul.cpp, LowerPooling.cpp,
/// LowerNormalization.cpp). A claim returns std::nullopt for ops of other
/// families.
std::optional<Claim> claimConv(mlir::Operation *op);
std::optional<Claim> claimQuantizedConv(mlir::Operation *op);
std::optional<Claim> claimConvTranspose(mlir::Operation *op);
std::optional<Claim> claimMatMul(mlir::Operation *op);
std::optional<Claim> claimQuantizedMatMul(mlir::Operation *op);
std::optional<Claim> claimPooling(mlir::Operation *op);
std::optional<Claim> claimNormalization(mlir::Operation *op);
mlir::LogicalResult lowerConv(mlir::Operation *op, DnnlCallBuilder &calls);
mlir::LogicalResult lowerQuantizedConv(mlir::Operation *op,
                                       DnnlCallBuilder &calls);
mlir::LogicalResult lowerConvTranspose(mlir::Operation *op,
                                       DnnlCallBuilder &calls);
mlir::LogicalResult lowerMatMul(mlir::Operation *op, DnnlCallBuilder &calls);
mlir::LogicalResult lowerQuantizedMatMul(mlir::Operation *op,
                                         DnnlCallBuilder &calls);
mlir::LogicalResult lowerPooling(mlir::Operation *op, DnnlCallBuilder &calls);
mlir::LogicalResult lowerNormalization(mlir::Operation *op,
                                       DnnlCallBuilder &calls);

/// An index-valued size as the i64 scalar argument of a call (a constant
/// when it folds).
mlir::Value i64Argument(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::OpFoldResult size);

/// `tensor` (ranked) with signless integers, as the host pipeline converts
/// onnx's ui8 / si8: what index ops on a partition's integer tensors (dims)
/// must read, since the conversion does not retype them.
mlir::Value signlessTensor(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value tensor);

/// A ranked f32 tensor type, or null.
mlir::RankedTensorType f32Tensor(mlir::Value value);

/// Whether `value` is an absent optional input.
bool isAbsent(mlir::Value value);

/// The pass that lowers every dnnl partition's nodes (LowerToDnnlCalls.cpp).
std::unique_ptr<mlir::Pass> createLowerToDnnlCallsPass();

} // namespace onnxc::dnnl

#endif // ONNXC_TARGETS_DNNL_DNNLCALLS_H
