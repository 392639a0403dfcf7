//===- BlockedRegions.h - Regions of a graph rewritten to a blocked layout ===//
//
// What the layout passes share (passes/layout/NchwcLayout.cpp: f32
// convolutions on [N, C/16, H, W, 16]; targets/cpu/transforms/
// QuantizedChannelsLast.cpp: 8-bit ones on [N, 1, H, W, C]): finding the
// connected regions of ops that can run in the blocked layout, rewriting
// them in block order with a reorder only where a value enters or leaves a
// region, and the blocked form of a pool. Each pass says which ops join and
// how each is rewritten.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNXC_BLOCKEDREGIONS_H
#define ONNXC_DIALECT_ONNXC_BLOCKEDREGIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>

namespace onnxc::fused {

/// The integers of array attribute `name` of `op`, or `size` copies of
/// `defaultValue` when it is absent.
llvm::SmallVector<int64_t> getIntsOr(mlir::Operation *op, llvm::StringRef name,
                                     size_t size, int64_t defaultValue);

/// How an op takes part in a region: 0 = it cannot; a pass numbers its own
/// kinds from 1.
struct RegionKinds {
  /// The op's kind.
  llvm::function_ref<int(mlir::Operation *)> kindOf;
  /// Whether ops of `kind` start a region (the others join one only through
  /// a layout operand produced in it).
  llvm::function_ref<bool(int kind)> isSeed;
  /// The operands of `op` that carry the layout.
  llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Operation *, int)>
      layoutOperands;
};

/// The connected regions of `block`'s ops under `kinds`, each given by its
/// members.
struct BlockedRegions {
  llvm::DenseMap<mlir::Operation *, int> kinds;
  llvm::SmallVector<llvm::SmallVector<mlir::Operation *>> regions;
};
BlockedRegions findBlockedRegions(mlir::Block &block, const RegionKinds &kinds);

struct RegionRewriteCounts {
  int64_t reordersIn = 0, reordersOut = 0;
};

/// [N, C, D...] in the blocked layout of block size `block`:
/// [N, ceil(C / block), D..., block].
mlir::RankedTensorType getBlockedType(mlir::RankedTensorType type,
                                      int64_t block);

/// Rewrites `members` (ops of `block`) in block order: `rewrite(b, op,
/// blocked)` builds op's blocked form before it and returns its first
/// result, calling `blocked(v)` for each layout operand v (a member's
/// result, or a value from outside, reordered once by ReorderToBlocked of
/// block size `blockSize(type)`, where the first member reading it is). A
/// result with users outside the members is reordered back once for all of
/// them. The old ops are erased, and so are constants and NoValues that only
/// they read.
RegionRewriteCounts rewriteBlockedRegions(
    mlir::Block &block, const llvm::DenseSet<mlir::Operation *> &members,
    llvm::function_ref<int64_t(mlir::RankedTensorType)> blockSize,
    llvm::function_ref<
        mlir::Value(mlir::OpBuilder &, mlir::Operation *,
                    llvm::function_ref<mlir::Value(mlir::Value)>)>
        rewrite);

/// Whether `pool`'s window attributes are well formed for `spatial` dims (a
/// kernel_shape of that size; strides, dilations and pads, when given, of
/// theirs): its blocked form extends them by one dim.
bool hasPoolWindow(mlir::Operation *pool, int64_t spatial);

/// `pool` (MaxPool / AveragePool over `spatial` dims) over one more, last,
/// spatial dim with a window of 1 and no padding: its form on blocked
/// tensors, whose last dim is the block. Copies op's attributes into
/// `state` with the window's extended.
void addBlockedPoolAttributes(mlir::OperationState &state,
                              mlir::Operation *pool, int64_t spatial);

} // namespace onnxc::fused

#endif // ONNXC_DIALECT_ONNXC_BLOCKEDREGIONS_H
