//===- Selection.cpp - NonZero, Compress, ReverseSequence, MaxUnpool ------===//
//
// Ops that select, reorder or place elements by values read at run time.
// MaxUnpool scatters its input into a zero tensor with one scf.for (the
// indices come from the data). NonZero and Compress
// have data-dependent result sizes: a first scf.for counts the selected
// elements, the result is allocated with that count, and a second scf.for
// fills it (tensor.insert on a loop-carried tensor, in place after
// bufferization). ReverseSequence is one linalg.generic whose body computes
// the source index.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Whether scalar `value` is non-zero (NaN counts as non-zero, like numpy).
Value isNonZero(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (llvm::isa<FloatType>(type))
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, value,
                                   scalarConst(b, loc, type, 0.0));
  if (type.isInteger(1))
    return value;
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, value,
                                 scalarConst(b, loc, type, 0));
}

/// The row-major multi-index of linear position `linear` in `dims`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> dims) {
  SmallVector<Value> indices(dims.size());
  for (int64_t d = dims.size() - 1; d >= 0; --d) {
    indices[d] = b.create<arith::RemUIOp>(loc, linear, dims[d]);
    linear = b.create<arith::DivUIOp>(loc, linear, dims[d]);
  }
  return indices;
}

/// Counts the positions in [0, n) for which `pred` holds.
Value countWhere(OpBuilder &b, Location loc, Value n,
                 llvm::function_ref<Value(OpBuilder &, Location, Value)> pred) {
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, zero, n, one, ValueRange{zero},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange iter) {
        Value add = nb.create<arith::SelectOp>(nloc, pred(nb, nloc, i),
                                               indexConst(nb, nloc, 1),
                                               indexConst(nb, nloc, 0));
        nb.create<scf::YieldOp>(
            nloc, ValueRange{nb.create<arith::AddIOp>(nloc, iter[0], add)});
      });
  return loop.getResult(0);
}

/// Fills `init` by visiting positions [0, n) in order: where `pred` holds,
/// `store` inserts into the tensor at slot k (k counts the hits so far).
/// Slots from `capacity` on are dropped: a result type with a static size
/// (declared by the model) must not be written past its end.
Value fillWhere(
    OpBuilder &b, Location loc, Value n, Value init, Value capacity,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> pred,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
        store) {
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, zero, n, one, ValueRange{init, zero},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange iter) {
        Value fits = nb.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::slt,
                                              iter[1], capacity);
        auto ifOp = nb.create<scf::IfOp>(
            nloc, nb.create<arith::AndIOp>(nloc, pred(nb, nloc, i), fits),
            [&](OpBuilder &tb, Location tloc) {
              Value stored = store(tb, tloc, iter[0], i, iter[1]);
              Value next = tb.create<arith::AddIOp>(tloc, iter[1],
                                                    indexConst(tb, tloc, 1));
              tb.create<scf::YieldOp>(tloc, ValueRange{stored, next});
            },
            [&](OpBuilder &eb, Location eloc) {
              eb.create<scf::YieldOp>(eloc, ValueRange{iter[0], iter[1]});
            });
        nb.create<scf::YieldOp>(nloc, ifOp.getResults());
      });
  return loop.getResult(0);
}

/// NonZero(x): the [rank, count] i64 indices of the non-zero elements in
/// row-major order.
struct NonZeroLowering : ConversionPattern {
  NonZeroLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.NonZero", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = operands[0];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!xType || type.getRank() != 2 || !type.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "expected a ranked input");
    Location loc = op->getLoc();
    int64_t rank = xType.getRank();
    SmallVector<Value> dims;
    Value total = indexConst(rewriter, loc, 1);
    for (int64_t d = 0; d < rank; ++d) {
      dims.push_back(dimValue(rewriter, loc, x, d));
      total = rewriter.create<arith::MulIOp>(loc, total, dims.back());
    }
    auto pred = [&](OpBuilder &b, Location l, Value i) {
      return isNonZero(
          b, l, b.create<tensor::ExtractOp>(l, x, delinearize(b, l, i, dims)));
    };
    Value count = countWhere(rewriter, loc, total, pred);
    Value init =
        rewriter
            .create<linalg::FillOp>(
                loc, zeroScalar(rewriter, loc, type.getElementType()),
                emptyTensor(rewriter, loc, type,
                            {rewriter.getIndexAttr(rank), OpFoldResult(count)}))
            .result();
    Value result = fillWhere(
        rewriter, loc, total, init, dimValue(rewriter, loc, init, 1), pred,
        [&](OpBuilder &b, Location l, Value t, Value i, Value k) {
          SmallVector<Value> indices = delinearize(b, l, i, dims);
          for (int64_t d = 0; d < rank; ++d) {
            Value coord =
                b.create<arith::IndexCastOp>(l, b.getI64Type(), indices[d]);
            t = b.create<tensor::InsertOp>(l, coord, t,
                                           ValueRange{indexConst(b, l, d), k});
          }
          return t;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Compress(input, condition, axis): the slices of `input` along `axis` (of
/// the flattened input without axis) whose condition is true; a condition
/// shorter than the axis selects nothing past its end.
struct CompressLowering : ConversionPattern {
  CompressLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.Compress", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value input = operands[0], condition = operands[1];
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto conditionType = llvm::dyn_cast<RankedTensorType>(condition.getType());
    if (!inputType || !conditionType || conditionType.getRank() != 1 ||
        !conditionType.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "expected a 1-D bool condition");
    Location loc = op->getLoc();
    int64_t axis = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("axis")) {
      axis = normalizeAxis(attr.getInt(), inputType.getRank());
      if (axis < 0 || axis >= inputType.getRank())
        return op->emitError()
               << "axis " << attr.getInt() << " is out of range";
    } else {
      // No axis: select from the flattened input.
      Value total = indexConst(rewriter, loc, 1);
      for (int64_t d = 0; d < inputType.getRank(); ++d)
        total = rewriter.create<arith::MulIOp>(
            loc, total, dimValue(rewriter, loc, input, d));
      auto flatType = RankedTensorType::get({inputType.hasStaticShape()
                                                 ? inputType.getNumElements()
                                                 : ShapedType::kDynamic},
                                            inputType.getElementType());
      input =
          reshapeTo(rewriter, loc, input, flatType, {getAsOpFoldResult(total)});
      inputType = flatType;
    }
    if (type.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "unexpected result rank");

    Value limit = rewriter.create<arith::MinSIOp>(
        loc, dimValue(rewriter, loc, condition, 0),
        dimValue(rewriter, loc, input, axis));
    auto pred = [&](OpBuilder &b, Location l, Value j) -> Value {
      return b.create<tensor::ExtractOp>(l, condition, ValueRange{j});
    };
    Value count = countWhere(rewriter, loc, limit, pred);
    auto positionsType =
        RankedTensorType::get({ShapedType::kDynamic}, rewriter.getIndexType());
    // The positions are read for every result index along the axis, so
    // they take the result's (possibly static) size there.
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, input);
    sizes[axis] = count;
    Value init = emptyTensor(rewriter, loc, type, sizes);
    Value selected = dimValue(rewriter, loc, init, axis);
    Value positions = fillWhere(
        rewriter, loc, limit,
        rewriter
            .create<linalg::FillOp>(loc, indexConst(rewriter, loc, 0),
                                    emptyTensor(rewriter, loc, positionsType,
                                                {OpFoldResult(selected)}))
            .result(),
        selected, pred,
        [&](OpBuilder &b, Location l, Value t, Value j, Value k) -> Value {
          return b.create<tensor::InsertOp>(l, j, t, ValueRange{k});
        });

    Value result = buildIndexedGeneric(
        rewriter, loc, init, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          SmallVector<Value> indices(ivs);
          indices[axis] =
              b.create<tensor::ExtractOp>(l, positions, ValueRange{ivs[axis]});
          return b.create<tensor::ExtractOp>(l, input, indices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ReverseSequence(input, sequence_lens): along time_axis, the first
/// sequence_lens[b] elements of batch b are reversed, the rest copied.
struct ReverseSequenceLowering : ConversionPattern {
  ReverseSequenceLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ReverseSequence", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value input = operands[0], lengths = operands[1];
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto lengthsType = llvm::dyn_cast<RankedTensorType>(lengths.getType());
    if (!inputType || !lengthsType || lengthsType.getRank() != 1 ||
        inputType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "expected ranked inputs");
    int64_t batchAxis = 1, timeAxis = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("batch_axis"))
      batchAxis = attr.getInt();
    if (auto attr = op->getAttrOfType<IntegerAttr>("time_axis"))
      timeAxis = attr.getInt();
    if (!((batchAxis == 0 && timeAxis == 1) ||
          (batchAxis == 1 && timeAxis == 0)))
      return op->emitError()
             << "batch_axis and time_axis must be 0 and 1 (either way)";
    Location loc = op->getLoc();
    Value timeSize = dimValue(rewriter, loc, input, timeAxis);
    Value lengthsSize = dimValue(rewriter, loc, lengths, 0);
    Value init =
        emptyTensor(rewriter, loc, type, mixedDims(rewriter, loc, input));
    Value result = buildIndexedGeneric(
        rewriter, loc, init, {}, {},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) -> Value {
          Value batch = ivs[batchAxis], time = ivs[timeAxis];
          Value zero = indexConst(b, l, 0);
          // A length read from the data is clamped into [0, time size].
          Value element = b.create<tensor::ExtractOp>(
              l, lengths,
              ValueRange{clampIntoBounds(b, l, batch, lengthsSize)});
          Value length =
              b.create<arith::IndexCastOp>(l, b.getIndexType(), element);
          length = clampIndex(b, l, length, zero, timeSize);
          Value reversed = b.create<arith::SubIOp>(
              l, b.create<arith::SubIOp>(l, length, indexConst(b, l, 1)), time);
          Value inPrefix = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                   time, length);
          SmallVector<Value> indices(ivs);
          indices[timeAxis] =
              b.create<arith::SelectOp>(l, inPrefix, reversed, time);
          return b.create<tensor::ExtractOp>(l, input, indices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MaxUnpool(X, I, output_shape): X[e] goes to flat position I[e] of a zero
/// tensor of the unpooled shape ((in - 1) * stride + kernel - pads per
/// spatial dim), which is placed at the origin of a zero tensor of
/// output_shape when given.
struct MaxUnpoolLowering : ConversionPattern {
  MaxUnpoolLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.MaxUnpool", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = operands[0], indices = operands[1];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    if (!xType || !indicesType || xType.getRank() < 3 ||
        indicesType.getRank() != xType.getRank() ||
        type.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "expected (N, C, D...) inputs");
    int64_t rank = xType.getRank(), spatial = rank - 2;
    auto kernelAttr = op->getAttrOfType<ArrayAttr>("kernel_shape");
    if (!kernelAttr || int64_t(kernelAttr.size()) != spatial)
      return op->emitError()
             << "'kernel_shape' must have " << spatial << " values";
    SmallVector<int64_t> kernel = getI64Array(kernelAttr, spatial, 1);
    auto optional = [&](StringRef name) -> std::optional<ArrayAttr> {
      if (auto attr = op->getAttrOfType<ArrayAttr>(name))
        return attr;
      return std::nullopt;
    };
    SmallVector<int64_t> strides = getI64Array(optional("strides"), spatial, 1);
    SmallVector<int64_t> pads = getI64Array(optional("pads"), 2 * spatial, 0);
    if (int64_t(strides.size()) != spatial ||
        int64_t(pads.size()) != 2 * spatial)
      return op->emitError() << "strides/pads do not match the input rank";

    Location loc = op->getLoc();
    SmallVector<Value> xDims, unpooled;
    Value total = indexConst(rewriter, loc, 1);
    for (int64_t d = 0; d < rank; ++d) {
      xDims.push_back(dimValue(rewriter, loc, x, d));
      total = rewriter.create<arith::MulIOp>(loc, total, xDims.back());
    }
    unpooled = {xDims[0], xDims[1]};
    for (int64_t i = 0; i < spatial; ++i) {
      Value size = rewriter.create<arith::MulIOp>(
          loc,
          rewriter.create<arith::SubIOp>(loc, xDims[i + 2],
                                         indexConst(rewriter, loc, 1)),
          indexConst(rewriter, loc, strides[i]));
      size = rewriter.create<arith::AddIOp>(
          loc, size,
          indexConst(rewriter, loc, kernel[i] - pads[i] - pads[i + spatial]));
      unpooled.push_back(size);
    }
    SmallVector<OpFoldResult> sizes;
    bool hasOutputShape =
        operands.size() > 2 && !isNoneValue(op->getOperand(2));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(hasOutputShape ? OpFoldResult(extractAsIndex(
                                           rewriter, loc, operands[2], d))
                                     : OpFoldResult(unpooled[d]));
    Value init = emptyTensor(rewriter, loc, type, sizes);
    Value zero = zeroScalar(rewriter, loc, type.getElementType());
    Value zeros = rewriter.create<linalg::FillOp>(loc, zero, init).result();
    SmallVector<Value> outDims;
    for (int64_t d = 0; d < rank; ++d)
      outDims.push_back(dimValue(rewriter, loc, zeros, d));

    Value unpooledTotal = indexConst(rewriter, loc, 1);
    for (Value dim : unpooled)
      unpooledTotal = rewriter.create<arith::MulIOp>(loc, unpooledTotal, dim);
    Value lo = indexConst(rewriter, loc, 0),
          step = indexConst(rewriter, loc, 1);
    auto loop = rewriter.create<scf::ForOp>(
        loc, lo, total, step, ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value e, ValueRange iter) {
          SmallVector<Value> source = delinearize(b, l, e, xDims);
          Value value = b.create<tensor::ExtractOp>(l, x, source);
          Value flat = b.create<arith::IndexCastOp>(
              l, b.getIndexType(),
              b.create<tensor::ExtractOp>(l, indices, source));
          // Indices from the data are kept inside the unpooled tensor and
          // the output, so a bad one cannot write out of bounds.
          flat = clampIntoBounds(b, l, flat, unpooledTotal);
          SmallVector<Value> target = delinearize(b, l, flat, unpooled);
          for (int64_t d = 0; d < rank; ++d)
            target[d] = clampIntoBounds(b, l, target[d], outDims[d]);
          Value stored = b.create<tensor::InsertOp>(l, value, iter[0], target);
          b.create<scf::YieldOp>(l, ValueRange{stored});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void populateSelectionPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, CompressLowering, ReverseSequenceLowering,
               MaxUnpoolLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
