//===- MapLoopsToGrid.cpp - Loop nests -> 1-D grids of thread blocks ------===//
//
// After linalg -> parallel loops, a partition's body is a sequence of
// loop nests (some inside scf.if), each one kernel. Each outermost
// scf.parallel has all its dims
// collapsed into one (any rank, dynamic sizes), which is tiled by 256 and
// mapped: tiles to blocks along x, the 256 iterations of a tile to threads
// (those past the end are masked). Reductions stay sequential loops inside
// a thread. An outermost scf.for (a nest with no parallel dim, such as a
// reduction to one value) runs as a kernel of one thread: slow, but its
// buffers are in device memory, where the host cannot read them.
//
// VerifyHostCode then fails, naming the op, on host code that would still
// read or write a buffer: every buffer is in device memory by now.
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

using namespace mlir;

namespace onnxc::cuda {
namespace {

constexpr int64_t kBlockSize = 256;

bool touchesMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *inner) {
    return llvm::isa<memref::LoadOp, memref::StoreOp>(inner)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// `loop` (no results) inside a one-iteration scf.parallel.
scf::ParallelOp wrapInParallel(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto parallel = b.create<scf::ParallelOp>(loc, ValueRange{zero},
                                            ValueRange{one}, ValueRange{one});
  loop->moveBefore(parallel.getBody()->getTerminator());
  return parallel;
}

void setMapping(scf::ParallelOp loop, gpu::Processor processor) {
  MLIRContext *ctx = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  auto attr =
      gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity, identity);
  (void)gpu::setMappingAttr(loop, {attr});
}

void mapToGrid(scf::ParallelOp loop) {
  IRRewriter rewriter(loop.getContext());
  if (loop.getNumLoops() > 1) {
    std::vector<unsigned> all(loop.getNumLoops());
    std::iota(all.begin(), all.end(), 0u);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(loop);
    Operation *before = loop->getPrevNode();
    Block *block = loop->getBlock();
    collapseParallelLoops(rewriter, loop, {all});
    // The collapsed loop replaced `loop` at the same place.
    Operation *next = before ? before->getNextNode() : &block->front();
    while (next && !llvm::isa<scf::ParallelOp>(next))
      next = next->getNextNode();
    loop = llvm::cast<scf::ParallelOp>(next);
  }
  auto [tiles, threads] =
      scf::tileParallelLoop(loop, {kBlockSize}, /*noMinMaxBounds=*/true);
  setMapping(tiles, gpu::Processor::BlockX);
  setMapping(threads, gpu::Processor::ThreadX);
}

struct MapLoopsToGridPass
    : PassWrapper<MapLoopsToGridPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MapLoopsToGridPass)

  StringRef getArgument() const final { return "onnxc-cuda-map-loops-to-grid"; }
  StringRef getDescription() const final {
    return "Map each outermost loop nest of a cuda partition to a 1-D grid "
           "of 256-thread blocks";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, gpu::GPUDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // The outermost loops, also those inside scf.if (the broadcasting of
      // dynamic dims).
      SmallVector<scf::ParallelOp> nests;
      SmallVector<scf::ForOp> serial;
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto parallel = llvm::dyn_cast<scf::ParallelOp>(op)) {
          nests.push_back(parallel);
          return WalkResult::skip();
        }
        if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
          if (loop.getNumResults() == 0 && touchesMemory(loop))
            serial.push_back(loop);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
      for (scf::ForOp loop : serial)
        nests.push_back(wrapInParallel(loop));
      for (scf::ParallelOp nest : nests)
        mapToGrid(nest);
    }
    // Fold the tile sizes into constants, which the conversion to
    // gpu.launch needs as the block size. Folding only: the canonicalizer
    // would merge the tile loop with the thread loop.
    (void)applyPatternsAndFoldGreedily(getOperation(),
                                       RewritePatternSet(&getContext()));
  }
};

/// A load or store of a buffer in host memory: the dims of a dynamic
/// reshape (memref.alloc is left only for those) or an argument that
/// DeviceBuffers did not copy (it reads only shapes and axes).
bool isHostBufferAccess(Operation *op) {
  Value memref;
  if (auto load = llvm::dyn_cast<memref::LoadOp>(op))
    memref = load.getMemref();
  else if (auto store = llvm::dyn_cast<memref::StoreOp>(op))
    memref = store.getMemref();
  return memref && (memref.getDefiningOp<memref::AllocOp>() ||
                    llvm::isa<BlockArgument>(memref));
}

struct VerifyHostCodePass
    : PassWrapper<VerifyHostCodePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyHostCodePass)

  StringRef getArgument() const final { return "onnxc-cuda-verify-host-code"; }
  StringRef getDescription() const final {
    return "Fail on host code of a cuda partition that reads or writes a "
           "buffer (all buffers are in device memory)";
  }

  void runOnOperation() override {
    bool failed = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (llvm::isa<gpu::LaunchOp>(op))
          return WalkResult::skip();
        if (isHostBufferAccess(op))
          return WalkResult::advance();
        if (llvm::isa<memref::LoadOp, memref::StoreOp, memref::CopyOp,
                      linalg::LinalgOp, scf::ParallelOp>(op)) {
          op->emitError("the cuda target could not map this op to a kernel "
                        "(it would read device memory on the host)");
          failed = true;
        }
        return WalkResult::advance();
      });
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createMapLoopsToGridPass() {
  return std::make_unique<MapLoopsToGridPass>();
}

std::unique_ptr<Pass> createVerifyHostCodePass() {
  return std::make_unique<VerifyHostCodePass>();
}

} // namespace onnxc::cuda
