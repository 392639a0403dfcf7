//===- RuntimeCall.h - Arguments and results of kernel calls --*- C++ -*-===//
//
// What the lowerings that call a runtime kernel through a wrapper
// (RuntimeHelpers.h, `target` set) share with each other: tensors cross as
// read-only identity-layout memrefs cast to all-dynamic sizes (the
// wrapper's argument types), and a result is a fresh 64-byte aligned buffer
// the call fills, wrapped as a restrict/writable tensor so it bufferizes in
// place. Used by SoftmaxCall.cpp, LayerNormCall.cpp and AttentionCall.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_RUNTIMECALL_H
#define ONNXC_TARGETS_CPU_LOWERING_RUNTIMECALL_H

#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace onnxc::cpu {

/// The declared wrapper that `op`'s lowering calls, or null (the declaring
/// pass did not run, or skipped it: `--emit static`).
/// The flags of the runtime GEMM's entry point (onnxc_rt_matmul_f32 and its
/// packed forms). Must match runtime/cpu/CpuRuntime.h.
enum GemmCallFlag : int32_t {
  kGemmTransA = 1,
  kGemmTransB = 2,
  kGemmHasBias = 4
};

inline mlir::func::FuncOp lookupRuntimeCallee(mlir::Operation *op) {
  std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
  if (!helper)
    return {};
  return mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
      op, mlir::StringAttr::get(op->getContext(), helper->name));
}

/// `memref` cast to all-dynamic sizes of its rank.
inline mlir::Value castToDynamicMemref(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value memref) {
  auto type = llvm::cast<mlir::MemRefType>(memref.getType());
  auto dynamic = mlir::MemRefType::get(
      llvm::SmallVector<int64_t>(type.getRank(), mlir::ShapedType::kDynamic),
      type.getElementType());
  if (type == dynamic)
    return memref;
  return b.create<mlir::memref::CastOp>(loc, dynamic, memref);
}

/// A ranked tensor as a read-only call argument.
inline mlir::Value runtimeCallArgument(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  auto memrefType =
      mlir::MemRefType::get(type.getShape(), type.getElementType());
  return castToDynamicMemref(b, loc,
                             b.create<mlir::bufferization::ToMemrefOp>(
                                 loc, memrefType, tensor, b.getUnitAttr()));
}

/// A ranked tensor as a read-only call argument of a wrapper that takes its
/// memrefs with fully dynamic strides and offset (the attention kernel reads
/// every stride from the descriptor): the buffer keeps its own layout, so a
/// slice such as one output of a Split crosses without the copy into an
/// identity-layout buffer that runtimeCallArgument would need.
inline mlir::Value runtimeCallStridedArgument(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::Value tensor) {
  auto type = llvm::cast<mlir::RankedTensorType>(tensor.getType());
  int64_t dynamic = mlir::ShapedType::kDynamic;
  auto layout = mlir::StridedLayoutAttr::get(
      b.getContext(), dynamic,
      llvm::SmallVector<int64_t>(type.getRank(), dynamic));
  mlir::Value memref = b.create<mlir::bufferization::ToMemrefOp>(
      loc,
      mlir::MemRefType::get(type.getShape(), type.getElementType(), layout),
      tensor, b.getUnitAttr());
  return b.create<mlir::memref::CastOp>(
      loc,
      mlir::MemRefType::get(llvm::SmallVector<int64_t>(type.getRank(), dynamic),
                            type.getElementType(), layout),
      memref);
}

/// A fresh buffer of `type` whose dynamic dims are `sizes` (one per dim).
inline mlir::Value
allocRuntimeResult(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::RankedTensorType type,
                   llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  llvm::SmallVector<mlir::Value> dynamicSizes;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(
          mlir::getValueOrCreateConstantIndexOp(b, loc, size));
  auto memrefType =
      mlir::MemRefType::get(type.getShape(), type.getElementType());
  return b.create<mlir::memref::AllocOp>(loc, memrefType, dynamicSizes,
                                         b.getI64IntegerAttr(64));
}

/// The tensor a filled result buffer becomes.
inline mlir::Value runtimeResultTensor(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::RankedTensorType type,
                                       mlir::Value buffer) {
  return b.create<mlir::bufferization::ToTensorOp>(
      loc, type, buffer, /*restrict=*/b.getUnitAttr(),
      /*writable=*/b.getUnitAttr());
}

/// Reports a run-time shape error naming the node (RuntimeHelpers.h) when
/// dim `xd` of tensor `x` and dim `yd` of tensor `y` differ (`broadcasts`:
/// unless one is 1). The kernels stay in bounds either way (they fill the
/// result with NaN); this turns the run into an error. Nothing is emitted
/// when both dims are static (the pattern checked them) or when one is a
/// static 1 that broadcasts.
inline void reportDimMismatch(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, int64_t xd, mlir::Value y,
                              int64_t yd, bool broadcasts,
                              ShapeErrorKind kind = ShapeErrorKind::Broadcast) {
  using namespace mlir;
  int64_t xs = llvm::cast<RankedTensorType>(x.getType()).getDimSize(xd);
  int64_t ys = llvm::cast<RankedTensorType>(y.getType()).getDimSize(yd);
  if ((!ShapedType::isDynamic(xs) && !ShapedType::isDynamic(ys)) ||
      (broadcasts && (xs == 1 || ys == 1)))
    return;
  Value xv = dimValue(b, loc, x, xd), yv = dimValue(b, loc, y, yd);
  Value ok = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, xv, yv);
  if (broadcasts) {
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    ok = b.create<arith::OrIOp>(
        loc, ok,
        b.create<arith::OrIOp>(
            loc,
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, xv, one),
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, yv, one)));
  }
  Value failed = b.create<arith::XOrIOp>(
      loc, ok, b.create<arith::ConstantIntOp>(loc, 1, b.getI1Type()));
  emitShapeErrorIf(b, loc, failed, kind, xv, yv);
}

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_RUNTIMECALL_H
