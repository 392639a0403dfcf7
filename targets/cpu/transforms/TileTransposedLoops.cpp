//===- TileTransposedLoops.cpp - Transposing loops in square tiles --------===//
//
// An all-parallel linalg.generic on buffers that writes its output in order
// but reads an input whose contiguous (last) index follows another loop
// (`k`) than the innermost one: a Transpose, the NCHW <-> NHWC reorders of
// the layout passes (onnxc.ReorderToBlocked / ReorderFromBlocked), or such
// a copy with elementwise ops fused in. Lowered as it is, its innermost loop
// reads that input with a large stride: one element per cache line and, for
// planes of a few kilobytes, one page per element. A 96x80x80 u8 plane to
// channels-last took 2.3 ms (3.7 ns an element).
//
// Such a generic becomes an scf.parallel over every loop, with loops `k` and
// the innermost stepping by a tile (64 bytes of the input's, and of the
// output's, elements), and inside it two scf.for over the tile, the
// innermost still the output's: a tile reads T input rows of one cache line
// each and writes T output rows, all in L1. The body is the generic's own,
// on scalars. The tiled indices are `affine.apply (iv + j)` with j below
// the tile, which transforms/ParallelizeLoops.cpp still splits on.
//
// Left alone: generics the vectorizer took (they read every input in
// order), index ops, reductions, more than one output, outputs not in
// identity order or without a unit inner stride, and loops whose sizes
// along `k` or the innermost are below 8 (a [.., 3] channels-last image: its
// input rows are reused from one output row to the next already).
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"
#include "targets/cpu/transforms/BufferUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_TILETRANSPOSEDLOOPS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

constexpr int64_t kMinTiledLoop = 8;
constexpr int64_t kMinElements = 1024;
constexpr int64_t kTileBytes = 64;

int64_t tileFor(Type element) {
  int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  return std::clamp<int64_t>(kTileBytes / bytes, kMinTiledLoop, 64);
}

/// The single loop dim `expr` uses, if it uses exactly one.
std::optional<unsigned> singleDim(AffineExpr expr) {
  std::optional<unsigned> found;
  bool several = false;
  expr.walk([&](AffineExpr e) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      if (found && *found != dim.getPosition())
        several = true;
      found = dim.getPosition();
    }
  });
  if (several)
    return std::nullopt;
  return found;
}

bool isLargeEnough(int64_t size) {
  return ShapedType::isDynamic(size) || size >= kMinTiledLoop;
}

/// What a match found: the loop the transposed input is contiguous along,
/// and the tile sizes of that loop and of the innermost.
struct TransposedNest {
  unsigned contiguousLoop;
  int64_t contiguousTile;
  int64_t innerTile;
};

std::optional<TransposedNest> matchTransposedNest(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() < 2 || op.getNumReductionLoops() != 0 ||
      op.hasIndexSemantics() || op.getNumResults() != 0)
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(init->get().getType());
  if (!outType || !outType.getElementType().isIntOrFloat() ||
      !op.getMatchingIndexingMap(init).isIdentity() ||
      !hasUnitInnerStride(outType))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = op.getNumLoops() - 1;
  // A dynamic size counts as large.
  int64_t elements = 1;
  for (int64_t r : ranges)
    elements *= ShapedType::isDynamic(r) ? kMinElements : r;
  if (elements < kMinElements || !isLargeEnough(ranges[inner]))
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || !type.getElementType().isIntOrFloat() ||
        !hasUnitInnerStride(type) || type.getRank() == 0)
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> k = singleDim(map.getResults().back());
    if (!k || *k == inner || !isLargeEnough(ranges[*k]))
      continue;
    // The innermost loop must move this input by more than its rows do.
    bool innerIsStrided =
        llvm::any_of(map.getResults().drop_back(),
                     [&](AffineExpr e) { return e.isFunctionOfDim(inner); });
    if (!innerIsStrided)
      continue;
    return TransposedNest{*k, tileFor(type.getElementType()),
                          tileFor(outType.getElementType())};
  }
  return std::nullopt;
}

/// The trip count of one tile of `loop` at `iv`: `tile`, or what is left of
/// the loop when its size is not a static multiple of it.
Value tileTrips(OpBuilder &b, Location loc, Value iv, Value size,
                std::optional<int64_t> staticSize, int64_t tile) {
  if (staticSize && *staticSize % tile == 0)
    return b.create<arith::ConstantIndexOp>(loc, tile);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), s0 = getAffineSymbolExpr(0, ctx);
  auto map =
      AffineMap::get(1, 1, {getAffineConstantExpr(tile, ctx), s0 - d0}, ctx);
  return b.create<affine::AffineMinOp>(loc, map, ValueRange{iv, size});
}

/// `iv + j`, as ParallelizeLoops recognizes a tiled index.
Value tiledIndex(OpBuilder &b, Location loc, Value iv, Value j) {
  MLIRContext *ctx = b.getContext();
  auto map = AffineMap::get(
      2, 0, getAffineDimExpr(0, ctx) + getAffineDimExpr(1, ctx), ctx);
  return b.create<affine::AffineApplyOp>(loc, map, ValueRange{iv, j});
}

/// One element of `op` at loop indices `indices`: the inputs loaded, the
/// body cloned, the yielded value stored.
void emitElement(OpBuilder &b, Location loc, linalg::GenericOp op,
                 ValueRange indices) {
  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    Value source = operand.get();
    if (!isa<MemRefType>(source.getType())) {
      mapping.map(arg, source);
      continue;
    }
    SmallVector<Value> at;
    for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
        at.push_back(indices[dim.getPosition()]);
        continue;
      }
      auto map = AffineMap::get(indices.size(), 0, expr);
      at.push_back(b.create<affine::AffineApplyOp>(loc, map, indices));
    }
    mapping.map(arg, b.create<memref::LoadOp>(loc, source, at));
  }
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  b.create<memref::StoreOp>(loc, mapping.lookupOrDefault(yield.getOperand(0)),
                            op.getDpsInitOperand(0)->get(), indices);
}

void tile(linalg::GenericOp op, const TransposedNest &nest) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops(), inner = loops - 1, k = nest.contiguousLoop;
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> lbs(loops, zero), ubs, steps(loops, one);
  for (Range &range : ranges)
    ubs.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
  steps[k] = b.create<arith::ConstantIndexOp>(loc, nest.contiguousTile);
  steps[inner] = b.create<arith::ConstantIndexOp>(loc, nest.innerTile);
  auto staticSize = [&](unsigned d) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(staticRanges[d]))
      return std::nullopt;
    return staticRanges[d];
  };
  b.create<scf::ParallelOp>(
      loc, lbs, ubs, steps, [&](OpBuilder &pb, Location ploc, ValueRange ivs) {
        Value kTrips = tileTrips(pb, ploc, ivs[k], ubs[k], staticSize(k),
                                 nest.contiguousTile);
        Value innerTrips = tileTrips(pb, ploc, ivs[inner], ubs[inner],
                                     staticSize(inner), nest.innerTile);
        auto kLoop = pb.create<scf::ForOp>(ploc, zero, kTrips, one);
        OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
        auto innerLoop = kb.create<scf::ForOp>(ploc, zero, innerTrips, one);
        OpBuilder eb = OpBuilder::atBlockBegin(innerLoop.getBody());
        SmallVector<Value> indices(ivs);
        indices[k] = tiledIndex(eb, ploc, ivs[k], kLoop.getInductionVar());
        indices[inner] =
            tiledIndex(eb, ploc, ivs[inner], innerLoop.getInductionVar());
        emitElement(eb, ploc, op, indices);
      });
  op.erase();
}

struct TileTransposedLoopsPass
    : impl::TileTransposedLoopsBase<TileTransposedLoopsPass> {
  void runOnOperation() override {
    // linalg.transpose (the Transpose op's lowering) as the generic it is.
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp op) {
      if (op.hasPureBufferSemantics())
        transposes.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::TransposeOp op : transposes) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    SmallVector<std::pair<linalg::GenericOp, TransposedNest>> work;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<TransposedNest> nest = matchTransposedNest(op))
        work.emplace_back(op, *nest);
    });
    for (auto &[op, nest] : work)
      tile(op, nest);
  }
};

} // namespace
} // namespace onnxc::cpu
