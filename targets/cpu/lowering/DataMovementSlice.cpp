//===- DataMovementSlice.cpp - Slice, Gather*, Concat, Split, Pad ---------===//
//
// populateDataMovementSlicePatterns: the ops that select parts of tensors or
// assemble tensors from parts. Regular selections are tensor.extract_slice /
// insert_slice (views and copies after bufferization); data-dependent ones
// (Gather*, negative-step Slice, Pad's edge/reflect/wrap) are linalg.generic
// ops whose body computes the source index and reads it with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The number of values of a 1-D integer input: its constant's length, or
/// its static size.
static std::optional<int64_t> valueCount(Value tensor) {
  if (std::optional<SmallVector<int64_t>> values = getConstantInts(tensor))
    return values->size();
  auto type = llvm::dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return std::nullopt;
  return type.getDimSize(0);
}

/// Element `i` of a 1-D integer input as an index value (a constant when the
/// input is one).
static Value readIndex(OpBuilder &b, Location loc, Value tensor,
                       const std::optional<SmallVector<int64_t>> &constant,
                       int64_t i) {
  if (constant)
    return indexConst(b, loc, (*constant)[i]);
  return extractAsIndex(b, loc, tensor, i);
}

/// A static shape from sizes (dynamic where a size is not a constant).
static SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// onnx.Slice. Per sliced axis: negative starts/ends count from the end,
/// then are clamped to [0, dim] ([0, dim-1] and [-1, dim-1] for a negative
/// step); the length is max(ceil((end - start) / step), 0). Constant
/// positive steps give a tensor.extract_slice; otherwise (negative or
/// run-time steps) a linalg.generic reads data[start + i * step].
struct SliceLowering : OpConversionPattern<onnx::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    if (type.getRank() != rank)
      return op.emitError() << "Slice changes the rank";

    std::optional<int64_t> count = valueCount(adaptor.getStarts());
    if (!count || valueCount(adaptor.getEnds()) != count)
      return rewriter.notifyMatchFailure(
          op, "starts and ends must have the same static length");
    // Run-time axes (a dynamic value per slice) are matched against every
    // dim below (an out-of-range one, invalid ONNX, is clamped into range).
    SmallVector<int64_t> axes;
    bool runtimeAxes = false;
    if (isNoneValue(op.getAxes())) {
      axes = llvm::to_vector(llvm::seq<int64_t>(0, *count));
    } else if (std::optional<SmallVector<int64_t>> constAxes =
                   getConstantInts(adaptor.getAxes())) {
      axes = *constAxes;
    } else {
      if (valueCount(adaptor.getAxes()) != count)
        return op.emitError() << "axes must have " << *count << " values";
      runtimeAxes = true;
      axes.assign(*count, 0);
    }
    if (static_cast<int64_t>(axes.size()) != *count)
      return op.emitError() << "axes has " << axes.size()
                            << " values but starts has " << *count;
    if (!runtimeAxes && failed(normalizeAxes(op, axes, rank)))
      return failure();

    std::optional<SmallVector<int64_t>> starts =
        getConstantInts(adaptor.getStarts());
    std::optional<SmallVector<int64_t>> ends =
        getConstantInts(adaptor.getEnds());
    std::optional<SmallVector<int64_t>> steps;
    bool hasSteps = !isNoneValue(op.getSteps());
    if (hasSteps) {
      if (valueCount(adaptor.getSteps()) != count)
        return op.emitError() << "steps must have " << *count << " values";
      steps = getConstantInts(adaptor.getSteps());
      if (steps && llvm::is_contained(*steps, 0))
        return op.emitError() << "steps must not be 0";
    } else {
      steps = SmallVector<int64_t>(*count, 1);
    }

    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    Value minusOne = indexConst(rewriter, loc, -1);
    SmallVector<Value> offsets(rank, zero), strides(rank, one);
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(dimValue(rewriter, loc, data, d));
    bool positiveConstantSteps = !runtimeAxes;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      Value dim = sizes[axis];
      Value axisValue;
      if (runtimeAxes) {
        axisValue = runtimeAxis(rewriter, loc, adaptor.getAxes(), i, rank);
        dim = rewriter.create<tensor::DimOp>(loc, data, axisValue);
      }
      Value start = readIndex(rewriter, loc, adaptor.getStarts(), starts, i);
      Value end = readIndex(rewriter, loc, adaptor.getEnds(), ends, i);
      Value step = readIndex(rewriter, loc, adaptor.getSteps(), steps, i);
      if (!steps) {
        // A zero run-time step would trap in the division below.
        Value isZero = rewriter.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, step, zero);
        step = rewriter.create<arith::SelectOp>(loc, isZero, one, step);
      }
      positiveConstantSteps &= steps && (*steps)[i] > 0;

      Value negative = rewriter.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::slt, step, zero);
      Value last = rewriter.createOrFold<arith::SubIOp>(loc, dim, one);
      start = wrapNegativeIndex(rewriter, loc, start, dim);
      end = wrapNegativeIndex(rewriter, loc, end, dim);
      start = rewriter.createOrFold<arith::SelectOp>(
          loc, negative, clampIndex(rewriter, loc, start, zero, last),
          clampIndex(rewriter, loc, start, zero, dim));
      end = rewriter.createOrFold<arith::SelectOp>(
          loc, negative, clampIndex(rewriter, loc, end, minusOne, last),
          clampIndex(rewriter, loc, end, zero, dim));
      Value distance = rewriter.createOrFold<arith::SubIOp>(loc, end, start);
      Value length =
          rewriter.createOrFold<arith::CeilDivSIOp>(loc, distance, step);
      Value size = rewriter.createOrFold<arith::MaxSIOp>(loc, length, zero);
      if (!runtimeAxes) {
        offsets[axis] = start;
        strides[axis] = step;
        sizes[axis] = size;
        continue;
      }
      for (int64_t d = 0; d < rank; ++d) {
        Value isAxis = rewriter.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, axisValue,
            indexConst(rewriter, loc, d));
        offsets[d] =
            rewriter.create<arith::SelectOp>(loc, isAxis, start, offsets[d]);
        strides[d] =
            rewriter.create<arith::SelectOp>(loc, isAxis, step, strides[d]);
        sizes[d] =
            rewriter.create<arith::SelectOp>(loc, isAxis, size, sizes[d]);
      }
    }

    SmallVector<OpFoldResult> mixedSizes = getAsOpFoldResult(sizes);
    Value result;
    if (positiveConstantSteps) {
      result = rewriter.create<tensor::ExtractSliceOp>(
          loc, data, getAsOpFoldResult(offsets), mixedSizes,
          getAsOpFoldResult(strides));
    } else {
      Value init = emptyTensor(
          rewriter, loc, dataType.clone(staticShape(mixedSizes)), mixedSizes);
      result = buildIndexedGeneric(
          rewriter, loc, init, {}, {},
          [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange) {
            SmallVector<Value> indices;
            for (int64_t d = 0; d < rank; ++d) {
              Value scaled =
                  b.createOrFold<arith::MulIOp>(nestedLoc, ivs[d], strides[d]);
              indices.push_back(
                  b.createOrFold<arith::AddIOp>(nestedLoc, offsets[d], scaled));
            }
            return b.create<tensor::ExtractOp>(nestedLoc, data, indices)
                .getResult();
          });
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, type));
    return success();
  }
};

/// A gathered index from the data: negative counts from the end of a dim
/// of `size`; clamped into bounds so a bad index cannot read outside the
/// buffer.
static Value gatheredIndex(OpBuilder &b, Location loc, Value element,
                           Value size) {
  Value index = b.create<arith::IndexCastOp>(loc, b.getIndexType(), element);
  index = wrapNegativeIndex(b, loc, index, size);
  return clampIntoBounds(b, loc, index, size);
}

/// onnx.Gather: out[i.., j.., k..] = data[i.., indices[j..], k..]. A single
/// constant index becomes an extract_slice; otherwise a linalg.generic over
/// the output reads the index and extracts the element.
struct GatherLowering : OpConversionPattern<onnx::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !indicesType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    int64_t indicesRank = indicesType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;
    if (type.getRank() != rank + indicesRank - 1)
      return op.emitError() << "the result rank is not data rank + indices "
                               "rank - 1";
    Value axisSize = dimValue(rewriter, loc, data, axis);

    // One constant index: a slice of the data (plus dropping the dim for a
    // scalar index).
    std::optional<SmallVector<int64_t>> constIndices = getConstantInts(indices);
    if (constIndices && constIndices->size() == 1 && indicesRank <= 1) {
      int64_t index = (*constIndices)[0];
      if (!dataType.isDynamicDim(axis) && (index < -dataType.getDimSize(axis) ||
                                           index >= dataType.getDimSize(axis)))
        return op.emitError() << "index " << index << " is out of range";
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, data);
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = getAsOpFoldResult(wrapNegativeIndex(
          rewriter, loc, indexConst(rewriter, loc, index), axisSize));
      sizes[axis] = rewriter.getIndexAttr(1);
      Value slice = rewriter.create<tensor::ExtractSliceOp>(loc, data, offsets,
                                                            sizes, strides);
      if (indicesRank == 0) {
        auto sliceType = llvm::cast<RankedTensorType>(slice.getType());
        SmallVector<int64_t> shape(sliceType.getShape());
        shape.erase(shape.begin() + axis);
        SmallVector<bool> unitDims(rank, false);
        unitDims[axis] = true;
        slice = reshapeByUnitDims(rewriter, loc, slice, sliceType.clone(shape),
                                  unitDims, {});
      }
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, slice, type));
      return success();
    }

    SmallVector<OpFoldResult> dataSizes = mixedDims(rewriter, loc, data);
    SmallVector<OpFoldResult> indicesSizes = mixedDims(rewriter, loc, indices);
    SmallVector<OpFoldResult> sizes(dataSizes.begin(),
                                    dataSizes.begin() + axis);
    sizes.append(indicesSizes);
    sizes.append(dataSizes.begin() + axis + 1, dataSizes.end());
    Value init = emptyTensor(rewriter, loc, type, sizes);
    int64_t outRank = type.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t j = 0; j < indicesRank; ++j)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + j));
    AffineMap indicesMap =
        AffineMap::get(outRank, 0, indexExprs, rewriter.getContext());
    Value result = buildIndexedGeneric(
        rewriter, loc, init, indices, indicesMap,
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange args) {
          SmallVector<Value> coords(ivs.begin(), ivs.begin() + axis);
          coords.push_back(gatheredIndex(b, nestedLoc, args[0], axisSize));
          coords.append(ivs.begin() + axis + indicesRank, ivs.end());
          return b.create<tensor::ExtractOp>(nestedLoc, data, coords)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.GatherElements: out[i] = data[i with i[axis] = indices[i]], a
/// linalg.generic over the indices' shape.
struct GatherElementsLowering : OpConversionPattern<onnx::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !indicesType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;
    if (indicesType.getRank() != rank || type.getRank() != rank)
      return op.emitError() << "data and indices must have the same rank";
    Value axisSize = dimValue(rewriter, loc, data, axis);
    Value init =
        emptyTensor(rewriter, loc, type, mixedDims(rewriter, loc, indices));
    Value result = buildIndexedGeneric(
        rewriter, loc, init, indices, rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange args) {
          SmallVector<Value> coords(ivs);
          coords[axis] = gatheredIndex(b, nestedLoc, args[0], axisSize);
          return b.create<tensor::ExtractOp>(nestedLoc, data, coords)
              .getResult();
        });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, type));
    return success();
  }
};

/// onnx.GatherND with batch_dims b and index tuples of length k (the last
/// indices dim, static): out[batch.., i.., rest..] =
/// data[batch.., indices[batch.., i.., :], rest..].
struct GatherNDLowering : OpConversionPattern<onnx::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::GatherNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Value indices = adaptor.getIndices();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !indicesType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    int64_t indicesRank = indicesType.getRank();
    int64_t batchDims = op.getBatchDims();
    // The index tuple length (the last indices dim) fixes the result rank,
    // so the result type gives it when the indices' type does not.
    int64_t outRank = type.getRank();
    int64_t tupleLength = indicesRank - 1 + rank - batchDims - outRank;
    if (indicesRank < 1 || batchDims < 0 ||
        batchDims >= std::min(rank, indicesRank) || tupleLength < 1 ||
        tupleLength > rank - batchDims ||
        (!indicesType.isDynamicDim(indicesRank - 1) &&
         indicesType.getDimSize(indicesRank - 1) != tupleLength))
      return op.emitError() << "invalid batch_dims, indices shape or result "
                               "rank";
    SmallVector<int64_t> indicesShape(indicesType.getShape());
    indicesShape.back() = tupleLength;
    indices =
        castIfNeeded(rewriter, loc, indices, indicesType.clone(indicesShape));

    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, indices);
    sizes.pop_back();
    SmallVector<OpFoldResult> dataSizes = mixedDims(rewriter, loc, data);
    sizes.append(dataSizes.begin() + batchDims + tupleLength, dataSizes.end());
    SmallVector<Value> tupleDimSizes;
    for (int64_t t = 0; t < tupleLength; ++t)
      tupleDimSizes.push_back(dimValue(rewriter, loc, data, batchDims + t));
    Value init = emptyTensor(rewriter, loc, type, sizes);
    Value result = buildIndexedGeneric(
        rewriter, loc, init, {}, {},
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange) {
          SmallVector<Value> coords(ivs.begin(), ivs.begin() + batchDims);
          SmallVector<Value> indexCoords(ivs.begin(),
                                         ivs.begin() + (indicesRank - 1));
          indexCoords.push_back(Value());
          for (int64_t t = 0; t < tupleLength; ++t) {
            indexCoords.back() = indexConst(b, nestedLoc, t);
            Value element =
                b.create<tensor::ExtractOp>(nestedLoc, indices, indexCoords);
            coords.push_back(
                gatheredIndex(b, nestedLoc, element, tupleDimSizes[t]));
          }
          coords.append(ivs.begin() + (indicesRank - 1), ivs.end());
          return b.create<tensor::ExtractOp>(nestedLoc, data, coords)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.Concat -> a tensor.insert_slice of each input into a tensor.empty
/// (tensor.concat does not bufferize in MLIR 19). Inputs statically empty
/// along the axis are skipped.
struct ConcatLowering : OpConversionPattern<onnx::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;
    SmallVector<Value> inputs;
    for (Value input : adaptor.getInputs()) {
      auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
      if (!inputType || inputType.getRank() != rank)
        return op.emitError() << "every input must have rank " << rank;
      // The other dims must agree: take the result's static sizes.
      SmallVector<int64_t> shape(inputType.getShape());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && !type.isDynamicDim(d))
          shape[d] = type.getDimSize(d);
      if (inputType.getDimSize(axis) == 0)
        continue;
      inputs.push_back(
          castIfNeeded(rewriter, loc, input, inputType.clone(shape)));
    }
    if (inputs.empty() && adaptor.getInputs().empty())
      return op.emitError() << "Concat needs at least one input";
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, inputs[0], type));
      return success();
    }

    // The result's sizes: the sum along the axis, the first input's others.
    Value reference = inputs.empty() ? adaptor.getInputs()[0] : inputs[0];
    Value total = indexConst(rewriter, loc, 0);
    for (Value input : inputs)
      total = rewriter.createOrFold<arith::AddIOp>(
          loc, dimValue(rewriter, loc, input, axis), total);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        sizes.push_back(getAsOpFoldResult(total));
      else if (!type.isDynamicDim(d))
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      else
        sizes.push_back(dimValue(rewriter, loc, reference, d));
    }
    Value result = emptyTensor(rewriter, loc, type, sizes);
    Value offset = indexConst(rewriter, loc, 0);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (Value input : inputs) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = getAsOpFoldResult(offset);
      result = rewriter.create<tensor::InsertSliceOp>(
          loc, input, result, offsets, mixedDims(rewriter, loc, input),
          strides);
      offset = rewriter.createOrFold<arith::AddIOp>(
          loc, dimValue(rewriter, loc, input, axis), offset);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.Split -> one tensor.extract_slice per output. Sizes come from the
/// `split` input (constant or run-time); without it the dim is split into
/// ceil(dim / n) chunks, the last one smaller.
struct SplitLowering : OpConversionPattern<onnx::SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!inputType)
      return failure();
    int64_t rank = inputType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;
    int64_t numOutputs = op.getNumResults();
    if (std::optional<int64_t> attr = op.getNumOutputs())
      if (*attr != numOutputs)
        return op.emitError()
               << "num_outputs is " << *attr << " but the node has "
               << numOutputs << " outputs";
    SmallVector<RankedTensorType> types;
    for (int64_t i = 0; i < numOutputs; ++i) {
      types.push_back(
          convertedResultType(*getTypeConverter(), op.getOperation(), i));
      if (!types.back())
        return failure();
    }

    Value zero = indexConst(rewriter, loc, 0);
    Value dim = dimValue(rewriter, loc, input, axis);
    SmallVector<Value> splitSizes;
    if (!isNoneValue(op.getSplit())) {
      if (valueCount(adaptor.getSplit()) != numOutputs)
        return op.emitError() << "split must have " << numOutputs << " values";
      std::optional<SmallVector<int64_t>> constSplit =
          getConstantInts(adaptor.getSplit());
      if (constSplit &&
          llvm::any_of(*constSplit, [](int64_t s) { return s < 0; }))
        return op.emitError() << "split sizes must not be negative";
      for (int64_t i = 0; i < numOutputs; ++i)
        splitSizes.push_back(rewriter.createOrFold<arith::MaxSIOp>(
            loc, readIndex(rewriter, loc, adaptor.getSplit(), constSplit, i),
            zero));
    } else {
      Value chunk = rewriter.createOrFold<arith::CeilDivSIOp>(
          loc, dim, indexConst(rewriter, loc, numOutputs));
      Value offset = zero;
      for (int64_t i = 0; i < numOutputs; ++i) {
        Value left = rewriter.createOrFold<arith::MaxSIOp>(
            loc, rewriter.createOrFold<arith::SubIOp>(loc, dim, offset), zero);
        splitSizes.push_back(
            rewriter.createOrFold<arith::MinSIOp>(loc, chunk, left));
        offset = rewriter.createOrFold<arith::AddIOp>(loc, chunk, offset);
      }
    }

    SmallVector<Value> results;
    Value offset = zero;
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (int64_t i = 0; i < numOutputs; ++i) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, input);
      offsets[axis] = getAsOpFoldResult(offset);
      sizes[axis] = getAsOpFoldResult(splitSizes[i]);
      Value slice = rewriter.create<tensor::ExtractSliceOp>(loc, input, offsets,
                                                            sizes, strides);
      results.push_back(castIfNeeded(rewriter, loc, slice, types[i]));
      offset = rewriter.createOrFold<arith::AddIOp>(loc, splitSizes[i], offset);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// onnx.Pad. Negative pads first crop the data (extract_slice). Then
/// `constant`: a fill of the padded shape with the value and an insert_slice
/// of the data; `edge`, `reflect`, `wrap`: a linalg.generic mapping each
/// output index back into the data.
struct PadLowering : OpConversionPattern<onnx::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" &&
        mode != "wrap")
      return op.emitError() << "unknown pad mode '" << mode << "'";
    int64_t rank = dataType.getRank();
    if (type.getRank() != rank)
      return op.emitError() << "Pad changes the rank";

    // Run-time axes are matched against every dim (later axes win).
    SmallVector<int64_t> axes;
    bool runtimeAxes = false;
    if (isNoneValue(op.getAxes())) {
      axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    } else if (std::optional<SmallVector<int64_t>> constAxes =
                   getConstantInts(adaptor.getAxes())) {
      axes = *constAxes;
      if (failed(normalizeAxes(op, axes, rank)))
        return failure();
    } else {
      std::optional<int64_t> count = valueCount(adaptor.getAxes());
      if (!count)
        return rewriter.notifyMatchFailure(op, "axes must have a static size");
      runtimeAxes = true;
      axes.assign(*count, 0);
    }
    int64_t numAxes = axes.size();
    if (valueCount(adaptor.getPads()) != 2 * numAxes)
      return op.emitError() << "pads must have " << 2 * numAxes << " values";
    std::optional<SmallVector<int64_t>> constPads =
        getConstantInts(adaptor.getPads());

    Value zero = indexConst(rewriter, loc, 0);
    SmallVector<Value> low(rank, zero), high(rank, zero);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      Value lowPad = readIndex(rewriter, loc, adaptor.getPads(), constPads, i);
      Value highPad =
          readIndex(rewriter, loc, adaptor.getPads(), constPads, numAxes + i);
      if (!runtimeAxes) {
        low[axis] = lowPad;
        high[axis] = highPad;
        continue;
      }
      Value axisValue = runtimeAxis(rewriter, loc, adaptor.getAxes(), i, rank);
      for (int64_t d = 0; d < rank; ++d) {
        Value isAxis = rewriter.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, axisValue,
            indexConst(rewriter, loc, d));
        low[d] = rewriter.create<arith::SelectOp>(loc, isAxis, lowPad, low[d]);
        high[d] =
            rewriter.create<arith::SelectOp>(loc, isAxis, highPad, high[d]);
      }
    }
    auto isZero = [](Value v) { return isConstantIntValue(v, 0); };
    if (llvm::all_of(low, isZero) && llvm::all_of(high, isZero)) {
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, data, type));
      return success();
    }
    // Negative pads remove elements: crop first, then pad by the positive
    // amounts (so wrap/reflect see the cropped data, like ONNX Runtime).
    Value source = crop(rewriter, loc, data, low, high);
    for (int64_t d = 0; d < rank; ++d) {
      low[d] = rewriter.createOrFold<arith::MaxSIOp>(loc, low[d], zero);
      high[d] = rewriter.createOrFold<arith::MaxSIOp>(loc, high[d], zero);
    }
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(getAsOpFoldResult(rewriter.createOrFold<arith::AddIOp>(
          loc, dimValue(rewriter, loc, source, d),
          rewriter.createOrFold<arith::AddIOp>(loc, low[d], high[d]))));
    Value init = emptyTensor(rewriter, loc, type, sizes);

    Value result;
    if (mode == "constant") {
      Value padValue =
          isNoneValue(op.getConstantValue())
              ? zeroScalar(rewriter, loc, type.getElementType())
              : extractScalar(rewriter, loc, adaptor.getConstantValue());
      Value filled =
          rewriter.create<linalg::FillOp>(loc, padValue, init).result();
      result = rewriter.create<tensor::InsertSliceOp>(
          loc, source, filled, getAsOpFoldResult(low),
          mixedDims(rewriter, loc, source),
          SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));
    } else {
      result = padIndexed(rewriter, loc, mode, source, init, low, high);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  /// `data` without the elements that negative pads remove.
  static Value crop(OpBuilder &b, Location loc, Value data, ArrayRef<Value> low,
                    ArrayRef<Value> high) {
    int64_t rank = llvm::cast<RankedTensorType>(data.getType()).getRank();
    Value zero = indexConst(b, loc, 0);
    SmallVector<Value> offsets, sizes;
    bool crops = false;
    for (int64_t d = 0; d < rank; ++d) {
      Value lowCrop = b.createOrFold<arith::MaxSIOp>(
          loc, b.createOrFold<arith::SubIOp>(loc, zero, low[d]), zero);
      Value highCrop = b.createOrFold<arith::MaxSIOp>(
          loc, b.createOrFold<arith::SubIOp>(loc, zero, high[d]), zero);
      crops |=
          !isConstantIntValue(lowCrop, 0) || !isConstantIntValue(highCrop, 0);
      Value kept = b.createOrFold<arith::SubIOp>(
          loc, dimValue(b, loc, data, d),
          b.createOrFold<arith::AddIOp>(loc, lowCrop, highCrop));
      offsets.push_back(lowCrop);
      sizes.push_back(b.createOrFold<arith::MaxSIOp>(loc, kept, zero));
    }
    if (!crops)
      return data;
    return b.create<tensor::ExtractSliceOp>(
        loc, data, getAsOpFoldResult(offsets), getAsOpFoldResult(sizes),
        SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
  }

  /// edge/reflect/wrap: each output index minus the low pad, mapped back
  /// into [0, dim).
  static Value padIndexed(OpBuilder &b, Location loc, StringRef mode,
                          Value data, Value init, ArrayRef<Value> low,
                          ArrayRef<Value> high) {
    int64_t rank = llvm::cast<RankedTensorType>(data.getType()).getRank();
    Value one = indexConst(b, loc, 1);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(dimValue(b, loc, data, d));
    return buildIndexedGeneric(
        b, loc, init, {}, {},
        [&](OpBuilder &nb, Location nestedLoc, ValueRange ivs, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            if (isConstantIntValue(low[d], 0) &&
                isConstantIntValue(high[d], 0)) {
              coords.push_back(ivs[d]);
              continue;
            }
            Value i = nb.createOrFold<arith::SubIOp>(nestedLoc, ivs[d], low[d]);
            Value coord;
            if (mode == "edge") {
              coord = clampIntoBounds(nb, nestedLoc, i, dims[d]);
            } else if (mode == "wrap") {
              coord = floorModIndex(nb, nestedLoc, i, dims[d]);
            } else {
              // reflect: period 2 * (dim - 1), mirrored in its second half.
              Value last =
                  nb.createOrFold<arith::SubIOp>(nestedLoc, dims[d], one);
              Value period =
                  nb.createOrFold<arith::AddIOp>(nestedLoc, last, last);
              Value m = floorModIndex(nb, nestedLoc, i, period);
              Value inFirstHalf = nb.create<arith::CmpIOp>(
                  nestedLoc, arith::CmpIPredicate::sle, m, last);
              Value mirrored = nb.create<arith::SubIOp>(nestedLoc, period, m);
              coord = nb.create<arith::SelectOp>(nestedLoc, inFirstHalf, m,
                                                 mirrored);
              // A dim of size 1 reflects onto itself (period 0).
              coord = clampIntoBounds(nb, nestedLoc, coord, dims[d]);
            }
            coords.push_back(coord);
          }
          return nb.create<tensor::ExtractOp>(nestedLoc, data, coords)
              .getResult();
        });
  }
};

} // namespace

void populateDataMovementSlicePatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<SliceLowering, GatherLowering, GatherElementsLowering,
               GatherNDLowering, ConcatLowering, SplitLowering, PadLowering>(
      converter, patterns.getContext());
}

} // namespace onnxc::cpu
