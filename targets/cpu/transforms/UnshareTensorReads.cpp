//===- UnshareTensorReads.cpp - One to_memref per runtime-call read -------===//
//
// A lowering that calls a kernel reads a tensor through
// `bufferization.to_memref` (plus `memref.cast`s) right before its call, and
// one-shot bufferization takes the to_memref as the point of the read. CSE
// merges identical to_memrefs of one tensor, and their casts, into the
// first: a later call then reads through a memref taken earlier, so the
// analysis sees no read after the ops in between and may let one of them
// write over that buffer (two elementwise ops whose destinations CSE also
// merged, the second written in place): a silent wrong answer. Run after
// CSE, this pass gives each reading op its own to_memref and casts again,
// right before it.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_UNSHARETENSORREADS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The uses of `value` that are not casts, through chains of memref.casts,
/// each with the casts on its way (outermost first).
void collectReads(
    Value value, SmallVector<memref::CastOp> &chain,
    SmallVector<std::pair<OpOperand *, SmallVector<memref::CastOp>>> &reads) {
  for (OpOperand &use : value.getUses()) {
    if (auto cast = llvm::dyn_cast<memref::CastOp>(use.getOwner())) {
      chain.push_back(cast);
      collectReads(cast.getResult(), chain, reads);
      chain.pop_back();
      continue;
    }
    reads.push_back({&use, chain});
  }
}

void unshare(bufferization::ToMemrefOp toMemref) {
  SmallVector<memref::CastOp> chain;
  SmallVector<std::pair<OpOperand *, SmallVector<memref::CastOp>>> reads;
  collectReads(toMemref.getResult(), chain, reads);
  if (reads.size() < 2)
    return;
  // The first read keeps the original ops; every later one gets copies.
  for (auto &[use, casts] : llvm::drop_begin(reads)) {
    OpBuilder b(use->getOwner());
    Value memref = b.clone(*toMemref)->getResult(0);
    for (memref::CastOp cast : casts)
      memref = b.create<memref::CastOp>(cast.getLoc(), cast.getType(), memref);
    use->set(memref);
  }
  // The originals now feed the first read only; move them next to it.
  Operation *first = reads.front().first->getOwner();
  toMemref->moveBefore(first);
  for (memref::CastOp cast : reads.front().second)
    cast->moveBefore(first);
}

struct UnshareTensorReadsPass
    : impl::UnshareTensorReadsBase<UnshareTensorReadsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::ToMemrefOp> toMemrefs;
    getOperation().walk(
        [&](bufferization::ToMemrefOp op) { toMemrefs.push_back(op); });
    for (bufferization::ToMemrefOp op : toMemrefs)
      unshare(op);
    // Casts that fed only moved reads.
    getOperation().walk([](memref::CastOp cast) {
      if (cast.use_empty())
        cast.erase();
    });
  }
};

} // namespace
} // namespace onnxc::cpu
