//===- VectorizeElementwise.cpp - Elementwise loops on explicit vectors ---===//
//
// An elementwise linalg.generic on buffers (every iterator parallel, the
// output indexed by the loop dims in order) whose innermost loop is static
// and a multiple of 16 (else 8), or dynamic, becomes an scf.parallel over
// the outer dims and over chunks of that loop, whose body loads each input
// as one vector (or one scalar, broadcast, when the input does not vary
// along the innermost dim), applies the generic's scalar ops to vectors and
// stores one vector of the output. The blocked (NCHWc) tensors' innermost
// dim is 16. A dynamic innermost loop (an image of open size) takes chunks
// of 16, the row's last one with masked loads and stores, so that it stops
// at the end of the row; its masked-off lanes compute on ones, which no op
// traps on (an integer division by zero would).
//
// Why not leave it to LLVM's vectorizers: after the workspace plan, the
// operands are slices of one workspace pointer at offsets LLVM cannot prove
// apart, so it fully unrolled the 16-lane loop and kept it scalar (the SLP
// vectorizer may not move a load above a store that might alias it).
// EfficientNet-B0's squeeze-and-excitation products (a [N, Cb, 1, 1, 16]
// scale times a [N, Cb, H, W, 16] map) ran as 16 scalar multiplies a
// vector. The vector ops here need no such proof: a generic's loop reads
// its inputs and writes its output at the same point, so an iteration's
// lanes are independent of each other by the op's semantics.
//
// Left alone: generics with reductions, index ops, other than one output,
// ops that are not elementwise-mappable (arith and math are), element types
// other than f32, f64 and integers of 8 to 64 bits (i1 is bit-packed in an
// LLVM vector), an output or vector-loaded input whose innermost stride is
// not 1, and maps other than dims in order with broadcast (constant 0) dims.
// convert-linalg-to-parallel-loops then lowers them as before.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"
#include "targets/cpu/transforms/BufferUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_VECTORIZEELEMENTWISE
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Whether vectors of `type` load, store and compute as LLVM vectors of the
/// same memory layout.
bool isVectorElement(Type type) {
  if (type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() >= 8 && integer.getWidth() <= 64;
}

/// How an operand is read in the vector loop.
enum class Access { kVector, kBroadcast };

/// The access of an input indexed by `map` over `loops` dims: a vector when
/// the innermost dim is its last index, a broadcast scalar when no index
/// uses it; failure for anything else (the results must be dims or the
/// constant 0).
FailureOr<Access> accessOf(AffineMap map, unsigned loops) {
  unsigned inner = loops - 1;
  bool usesInner = false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (dim.getPosition() == inner) {
        if (i + 1 != map.getNumResults())
          return failure();
        usesInner = true;
      }
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return failure();
  }
  return usesInner ? Access::kVector : Access::kBroadcast;
}

/// The vector width for `op`, or 0 when it is left to the loop lowering.
int64_t vectorWidth(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() == 0 || op.getNumReductionLoops() != 0 ||
      op.hasIndexSemantics())
    return 0;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges.back();
  int64_t width = ShapedType::isDynamic(inner) ? 16
                  : inner % 16 == 0            ? 16
                  : inner % 8 == 0             ? 8
                                               : 0;
  if (width == 0)
    return 0;
  OpOperand *init = op.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(init->get().getType());
  if (!outType || !isVectorElement(outType.getElementType()) ||
      !op.getMatchingIndexingMap(init).isIdentity() ||
      !hasUnitInnerStride(outType))
    return 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Type type = input->get().getType();
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      if (!isVectorElement(type))
        return 0;
      continue;
    }
    if (!isVectorElement(memref.getElementType()))
      return 0;
    FailureOr<Access> access =
        accessOf(op.getMatchingIndexingMap(input), op.getNumLoops());
    if (failed(access) ||
        (*access == Access::kVector && !hasUnitInnerStride(memref)))
      return 0;
  }
  Block &body = op.getRegion().front();
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumRegions() != 0 || inner.getNumResults() != 1)
      return 0;
    if (!isa<arith::ConstantOp>(inner) &&
        !inner.hasTrait<OpTrait::Vectorizable>())
      return 0;
    for (Value v : inner.getOperands())
      if (!isVectorElement(v.getType()) && !v.getType().isInteger(1))
        return 0;
    Type result = inner.getResult(0).getType();
    if (!isVectorElement(result) && !result.isInteger(1))
      return 0;
  }
  return width;
}

/// The indices of an access through `map`: loop dims from `ivs` (the
/// innermost from `lane`), constants 0.
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, AffineMap map,
                             ValueRange ivs, Value lane, Value zero) {
  SmallVector<Value> indices;
  unsigned inner = ivs.size();
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      indices.push_back(zero);
    else if (dim.getPosition() == inner)
      indices.push_back(lane);
    else
      indices.push_back(ivs[dim.getPosition()]);
  }
  return indices;
}

/// One chunk of `width` lanes of `op` at `outer` dims and innermost index
/// `lane`: each input loaded as a vector (masked by `mask` where it is
/// not null; masked-off lanes read ones) or a broadcast scalar, the body's
/// ops on vectors, one (masked) store of the output.
void emitChunk(OpBuilder &nb, Location nloc, linalg::GenericOp op,
               int64_t width, ValueRange outer, Value lane, Value mask,
               Value zero) {
  unsigned loops = op.getNumLoops();
  auto vectorOf = [&](Type element) {
    return VectorType::get({width}, element);
  };
  auto broadcast = [&](Value scalar) -> Value {
    return nb.create<vector::BroadcastOp>(nloc, vectorOf(scalar.getType()),
                                          scalar);
  };
  auto ones = [&](Type element) -> Value {
    TypedAttr one = isa<FloatType>(element)
                        ? TypedAttr(nb.getFloatAttr(element, 1.0))
                        : TypedAttr(nb.getIntegerAttr(element, 1));
    return nb.create<arith::ConstantOp>(
        nloc, SplatElementsAttr::get(vectorOf(element), one));
  };
  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (op.isDpsInit(&operand) && arg.use_empty())
      continue;
    Value source = operand.get();
    auto memref = dyn_cast<MemRefType>(source.getType());
    if (!memref) {
      mapping.map(arg, broadcast(source));
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices = indicesOf(nb, nloc, map, outer, lane, zero);
    Type element = memref.getElementType();
    if (*accessOf(map, loops) != Access::kVector)
      mapping.map(arg,
                  broadcast(nb.create<memref::LoadOp>(nloc, source, indices)));
    else if (mask)
      mapping.map(arg, nb.create<vector::MaskedLoadOp>(nloc, vectorOf(element),
                                                       source, indices, mask,
                                                       ones(element)));
    else
      mapping.map(arg, nb.create<vector::LoadOp>(nloc, vectorOf(element),
                                                 source, indices));
  }
  // A value from outside the body is the same in every lane.
  auto vectorValue = [&](Value v) -> Value {
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Value splat = broadcast(v);
    mapping.map(v, splat);
    return splat;
  };
  for (Operation &inner : body.without_terminator()) {
    Type resultType = vectorOf(inner.getResult(0).getType());
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      auto splat = SplatElementsAttr::get(cast<ShapedType>(resultType),
                                          constant.getValue());
      mapping.map(inner.getResult(0),
                  nb.create<arith::ConstantOp>(nloc, splat));
      continue;
    }
    OperationState state(nloc, inner.getName());
    for (Value operand : inner.getOperands())
      state.addOperands(vectorValue(operand));
    state.addTypes(resultType);
    state.addAttributes(inner.getAttrs());
    mapping.map(inner.getResult(0), nb.create(state)->getResult(0));
  }
  Value yielded = vectorValue(body.getTerminator()->getOperand(0));
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<Value> at =
      indicesOf(nb, nloc, op.getMatchingIndexingMap(init), outer, lane, zero);
  if (mask)
    nb.create<vector::MaskedStoreOp>(nloc, init->get(), at, mask, yielded);
  else
    nb.create<vector::StoreOp>(nloc, yielded, init->get(), at);
}

/// The loop ranges of `op`: static ones as constants, dynamic ones as dims
/// of its output (indexed by the loop dims in order).
SmallVector<Value> loopRanges(OpBuilder &b, Location loc,
                              linalg::GenericOp op) {
  SmallVector<Value> ranges;
  Value output = op.getDpsInitOperand(0)->get();
  for (auto [d, range] : llvm::enumerate(op.getStaticLoopRanges()))
    ranges.push_back(
        ShapedType::isDynamic(range)
            ? b.create<memref::DimOp>(loc, output, d).getResult()
            : b.create<arith::ConstantIndexOp>(loc, range).getResult());
  return ranges;
}

void vectorize(linalg::GenericOp op, int64_t width) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool dynamicRow = ShapedType::isDynamic(op.getStaticLoopRanges().back());
  SmallVector<Value> ranges = loopRanges(b, loc, op);
  unsigned loops = ranges.size();
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value widthValue = b.create<arith::ConstantIndexOp>(loc, width);
  SmallVector<Value> lower(loops, zero), steps(loops, one);
  SmallVector<Value> upper(ranges.begin(), ranges.end() - 1);
  // Whole chunks; with a dynamic row, every chunk that starts in it.
  Value rowEnd = ranges.back();
  upper.push_back(b.create<arith::CeilDivUIOp>(loc, rowEnd, widthValue));

  b.create<scf::ParallelOp>(
      loc, lower, upper, steps,
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        ValueRange outer = ivs.drop_back();
        Value lane = nb.create<arith::MulIOp>(nloc, ivs.back(), widthValue);
        if (!dynamicRow) {
          emitChunk(nb, nloc, op, width, outer, lane, Value(), zero);
          return;
        }
        // Whole chunks unmasked (masked loads of bytes scalarize without
        // AVX-512), the row's last one masked to the lanes before its end.
        Value left = nb.create<arith::SubIOp>(nloc, rowEnd, lane);
        Value whole = nb.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::sge,
                                               left, widthValue);
        nb.create<scf::IfOp>(
            nloc, whole,
            [&](OpBuilder &tb, Location tloc) {
              emitChunk(tb, tloc, op, width, outer, lane, Value(), zero);
              tb.create<scf::YieldOp>(tloc);
            },
            [&](OpBuilder &eb, Location eloc) {
              Value mask = eb.create<vector::CreateMaskOp>(
                  eloc, VectorType::get({width}, eb.getI1Type()),
                  ValueRange{left});
              emitChunk(eb, eloc, op, width, outer, lane, mask, zero);
              eb.create<scf::YieldOp>(eloc);
            });
      });
  op.erase();
}

struct VectorizeElementwisePass
    : impl::VectorizeElementwiseBase<VectorizeElementwisePass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, int64_t>> todo;
    getOperation().walk([&](linalg::GenericOp op) {
      if (int64_t width = vectorWidth(op))
        todo.emplace_back(op, width);
    });
    for (auto [op, width] : todo)
      vectorize(op, width);
  }
};

} // namespace
} // namespace onnxc::cpu
