//===- DataMovementScatter.cpp - ScatterElements, ScatterND, TensorScatter ===//
//
// populateDataMovementScatterPatterns. A scatter writes to data-dependent
// positions, which no linalg op expresses, so it is a nest of scf.for loops
// over the updates carrying the output tensor: each step reads an index,
// optionally combines with the current element (reduction), and
// tensor.insert's the result. Bufferization turns the chain into in-place
// stores into one copy of the data. Updates apply in order, so with
// duplicate indices the last one wins (as in ONNX Runtime).
//
// TensorScatter writes one contiguous run per batch row, so each output
// element knows the update element it comes from: it is a parallel
// linalg.generic in gather form instead.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// How an update combines with the element it lands on.
enum class Reduction { None, Add, Mul, Max, Min };

/// Parses the `reduction` attribute; fails with an error on the node for
/// an unknown one or one the element type has no meaning for.
static FailureOr<Reduction> parseReduction(Operation *op, StringRef name,
                                           Type elementType) {
  Reduction reduction = llvm::StringSwitch<Reduction>(name)
                            .Case("none", Reduction::None)
                            .Case("add", Reduction::Add)
                            .Case("mul", Reduction::Mul)
                            .Case("max", Reduction::Max)
                            .Case("min", Reduction::Min)
                            .Default(static_cast<Reduction>(-1));
  if (reduction == static_cast<Reduction>(-1))
    return op->emitError() << "unknown reduction '" << name << "'";
  if (reduction != Reduction::None && elementType.isInteger(1))
    return op->emitError() << "reduction '" << name
                           << "' is not defined for bool";
  return reduction;
}

/// `current` combined with `update` by `reduction`.
static Value combine(OpBuilder &b, Location loc, Reduction reduction,
                     bool isUnsigned, Value current, Value update) {
  bool isFloat = llvm::isa<FloatType>(update.getType());
  switch (reduction) {
  case Reduction::None:
    return update;
  case Reduction::Add:
    return isFloat ? b.create<arith::AddFOp>(loc, current, update).getResult()
                   : b.create<arith::AddIOp>(loc, current, update).getResult();
  case Reduction::Mul:
    return isFloat ? b.create<arith::MulFOp>(loc, current, update).getResult()
                   : b.create<arith::MulIOp>(loc, current, update).getResult();
  case Reduction::Max:
    if (isFloat)
      return b.create<arith::MaximumFOp>(loc, current, update);
    return isUnsigned
               ? b.create<arith::MaxUIOp>(loc, current, update).getResult()
               : b.create<arith::MaxSIOp>(loc, current, update).getResult();
  case Reduction::Min:
    if (isFloat)
      return b.create<arith::MinimumFOp>(loc, current, update);
    return isUnsigned
               ? b.create<arith::MinUIOp>(loc, current, update).getResult()
               : b.create<arith::MinSIOp>(loc, current, update).getResult();
  }
  llvm_unreachable("unknown reduction");
}

/// A loop nest over the dims of `space` carrying `data`; `coordsOf` maps the
/// loop indices to the output coordinates the update at those indices goes
/// to.
static Value
scatterLoops(OpBuilder &b, Location loc, Value data, Value updates,
             Reduction reduction, bool isUnsigned,
             function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
                 coordsOf) {
  auto updatesType = llvm::cast<RankedTensorType>(updates.getType());
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < updatesType.getRank(); ++d) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(dimValue(b, loc, updates, d));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, data,
      [&](OpBuilder &nb, Location nestedLoc, ValueRange ivs,
          ValueRange iterArgs) -> scf::ValueVector {
        Value acc = iterArgs[0];
        SmallVector<Value> coords = coordsOf(nb, nestedLoc, ivs);
        Value update = nb.create<tensor::ExtractOp>(nestedLoc, updates, ivs);
        if (reduction != Reduction::None) {
          Value current = nb.create<tensor::ExtractOp>(nestedLoc, acc, coords);
          update =
              combine(nb, nestedLoc, reduction, isUnsigned, current, update);
        }
        return {nb.create<tensor::InsertOp>(nestedLoc, update, acc, coords)
                    .getResult()};
      });
  return nest.results.front();
}

/// An index read from the indices tensor: negative counts from the end of
/// a dim of `size`, clamped into bounds (out-of-range indices are invalid
/// in ONNX; clamping keeps the write inside the buffer).
static Value scatterIndex(OpBuilder &b, Location loc, Value element,
                          Value size) {
  Value index = b.create<arith::IndexCastOp>(loc, b.getIndexType(), element);
  index = wrapNegativeIndex(b, loc, index, size);
  return clampIntoBounds(b, loc, index, size);
}

/// onnx.ScatterElements: out = data; out[i with i[axis] = indices[i]] =
/// updates[i] for every i in the indices' shape.
struct ScatterElementsLowering : OpConversionPattern<onnx::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    auto updatesType = llvm::dyn_cast<RankedTensorType>(updates.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !indicesType || !updatesType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    if (indicesType.getRank() != rank || updatesType.getRank() != rank)
      return op.emitError() << "data, indices and updates must have the same "
                               "rank";
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;
    FailureOr<Reduction> reduction =
        parseReduction(op, op.getReduction(), type.getElementType());
    if (failed(reduction))
      return failure();
    Value axisSize = dimValue(rewriter, loc, data, axis);
    Value result = scatterLoops(
        rewriter, loc, castIfNeeded(rewriter, loc, data, type), updates,
        *reduction, isUnsignedElement(op.getData()),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
          SmallVector<Value> coords(ivs);
          Value element = b.create<tensor::ExtractOp>(nestedLoc, indices, ivs);
          coords[axis] = scatterIndex(b, nestedLoc, element, axisSize);
          return coords;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.ScatterND: out = data; out[indices[i], ...] = updates[i, ...] for
/// every index tuple i (the last indices dim, k, is the tuple length).
struct ScatterNDLowering : OpConversionPattern<onnx::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    Value updates = adaptor.getUpdates();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    auto updatesType = llvm::dyn_cast<RankedTensorType>(updates.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !indicesType || !updatesType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    int64_t indicesRank = indicesType.getRank();
    // updates has rank (q - 1) + (r - k), which gives k when the last
    // indices dim is dynamic.
    int64_t tupleLength = indicesRank - 1 + rank - updatesType.getRank();
    if (indicesRank < 1 || tupleLength < 1 || tupleLength > rank ||
        (!indicesType.isDynamicDim(indicesRank - 1) &&
         indicesType.getDimSize(indicesRank - 1) != tupleLength))
      return op.emitError() << "the shapes of data, indices and updates do "
                               "not fit";
    FailureOr<Reduction> reduction =
        parseReduction(op, op.getReduction(), type.getElementType());
    if (failed(reduction))
      return failure();
    SmallVector<Value> tupleDimSizes;
    for (int64_t t = 0; t < tupleLength; ++t)
      tupleDimSizes.push_back(dimValue(rewriter, loc, data, t));
    Value result = scatterLoops(
        rewriter, loc, castIfNeeded(rewriter, loc, data, type), updates,
        *reduction, isUnsignedElement(op.getData()),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
          SmallVector<Value> indexCoords(ivs.take_front(indicesRank - 1));
          indexCoords.push_back(Value());
          SmallVector<Value> coords;
          for (int64_t t = 0; t < tupleLength; ++t) {
            indexCoords.back() = indexConst(b, nestedLoc, t);
            Value element =
                b.create<tensor::ExtractOp>(nestedLoc, indices, indexCoords);
            coords.push_back(
                scatterIndex(b, nestedLoc, element, tupleDimSizes[t]));
          }
          coords.append(ivs.begin() + (indicesRank - 1), ivs.end());
          return coords;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.TensorScatter (the KV cache update): out = past_cache, and for
/// every prefix index p (dims before `axis`, p[0] the batch row) and update
/// position s, out[p, w[p[0]] + s, ...] = update[p, s, ...], the cache
/// position taken modulo the cache length in circular mode. Built as a gather:
/// cache position c reads update position c - w (or (c - w) mod length) when
/// that is within the update.
struct TensorScatterLowering : OpConversionPattern<onnx::TensorScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::TensorScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cache = adaptor.getPastCache();
    Value update = adaptor.getUpdate();
    Value writeIndices = adaptor.getWriteIndices();
    auto cacheType = llvm::dyn_cast<RankedTensorType>(cache.getType());
    auto updateType = llvm::dyn_cast<RankedTensorType>(update.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!cacheType || !updateType || !type)
      return failure();
    int64_t rank = cacheType.getRank();
    if (rank < 2 || updateType.getRank() != rank ||
        updateType.getElementType() != cacheType.getElementType())
      return op.emitError() << "past_cache and update must have the same "
                               "element type and rank >= 2";
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 1 || axis >= rank)
      return op.emitError() << "axis " << op.getAxis()
                            << " must name a non-batch dim of rank " << rank;
    bool circular = op.getMode() == "circular";
    if (!circular && op.getMode() != "linear")
      return op.emitError() << "unknown mode '" << op.getMode() << "'";
    bool hasIndices = !isNoneValue(writeIndices);
    if (hasIndices) {
      auto indicesType =
          llvm::dyn_cast<RankedTensorType>(writeIndices.getType());
      if (!indicesType || indicesType.getRank() != 1 ||
          !indicesType.getElementType().isInteger(64))
        return op.emitError("write_indices must be a 1-D int64 tensor");
    }

    Value init =
        emptyTensor(rewriter, loc, type, mixedDims(rewriter, loc, cache));
    Value cacheLength = dimValue(rewriter, loc, cache, axis);
    Value updateLength = dimValue(rewriter, loc, update, axis);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> inputs = {castIfNeeded(rewriter, loc, cache, type)};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    if (hasIndices) {
      inputs.push_back(writeIndices);
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(0, ctx), ctx));
    }
    Value result = buildIndexedGeneric(
        rewriter, loc, init, inputs, maps,
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange args) -> Value {
          Value start =
              hasIndices
                  ? b.create<arith::IndexCastOp>(l, b.getIndexType(), args[1])
                        .getResult()
                  : indexConst(b, l, 0);
          Value source = b.create<arith::SubIOp>(l, ivs[axis], start);
          if (circular)
            source = floorModIndex(b, l, source, cacheLength);
          Value inside = b.create<arith::AndIOp>(
              l,
              b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, source,
                                      indexConst(b, l, 0)),
              b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, source,
                                      updateLength));
          // Read the update only where it lands, so no index leaves it.
          auto select = b.create<scf::IfOp>(
              l, inside,
              [&](OpBuilder &tb, Location tl) {
                SmallVector<Value> coords(ivs);
                coords[axis] = source;
                tb.create<scf::YieldOp>(
                    tl, tb.create<tensor::ExtractOp>(tl, update, coords)
                            .getResult());
              },
              [&](OpBuilder &eb, Location el) {
                eb.create<scf::YieldOp>(el, args[0]);
              });
          return select.getResult(0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDataMovementScatterPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns
      .add<ScatterElementsLowering, ScatterNDLowering, TensorScatterLowering>(
          converter, patterns.getContext());
}

} // namespace onnxc::cpu
