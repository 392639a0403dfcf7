//===- ControlFlow.cpp - If, Loop and Scan --------------------------------===//
//
// The ops with subgraph bodies become scf ops on tensors. Their bodies keep
// their onnx ops, which the same conversion lowers afterwards (the driver
// visits nested ops after their parent, wherever the parent moved them):
//   - If -> scf.if; the two branch regions move into it.
//   - Loop -> scf.while carrying the iteration number, the condition, the
//     loop-carried values and one buffer per scan output that doubles when
//     full (how many iterations run is only known at run time).
//   - Scan -> scf.for over the scan axis, slicing the scan inputs and
//     inserting each iteration's scan outputs into full-size tensors. When
//     those rows have run-time shapes, the first iteration runs before the
//     loop to give the buffers their dims.
// A Loop or Scan body becomes an scf.execute_region whose block is the ONNX
// body with its arguments replaced by the iteration's values (the
// canonicalizer inlines it). onnx.Yield becomes the scf.yield of its new
// parent, cast to the parent's result types: a branch or an iteration may
// yield a more static type than the op's result.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The element of a one-element tensor of any rank.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(), indexConst(b, loc, 0));
  return b.create<tensor::ExtractOp>(loc, tensor, zeros);
}

/// Whether `value` is a one-element tensor of `bits`-wide integers.
bool isOneElementInteger(Value value, unsigned bits) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getElementType().isInteger(bits);
}

/// A tensor of the one-element `type` ([], [1], [1, 1]...) holding
/// `scalar`.
Value oneElementTensor(OpBuilder &b, Location loc, Value scalar,
                       RankedTensorType type) {
  return b.create<tensor::FromElementsOp>(loc, type, scalar);
}

/// Whether `type` holds one integer of `bits` bits, whatever its rank.
bool isOneElementIntegerType(RankedTensorType type, unsigned bits) {
  return type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getElementType().isInteger(bits);
}

/// The most general of `types`, all ranked tensors of one element type and
/// rank: dims that differ become dynamic. Null otherwise.
RankedTensorType generalizeTypes(ArrayRef<Type> types) {
  RankedTensorType joined;
  for (Type type : types) {
    auto ranked = llvm::dyn_cast_or_null<RankedTensorType>(type);
    if (!ranked)
      return {};
    if (!joined) {
      joined = ranked;
      continue;
    }
    if (ranked.getElementType() != joined.getElementType() ||
        ranked.getRank() != joined.getRank())
      return {};
    SmallVector<int64_t> dims;
    for (auto [p, q] : llvm::zip_equal(joined.getShape(), ranked.getShape()))
      dims.push_back(p == q ? p : ShapedType::kDynamic);
    joined = RankedTensorType::get(dims, joined.getElementType());
  }
  return joined;
}

/// `type` with a dim of size `size` inserted at `axis`.
RankedTensorType insertDim(RankedTensorType type, int64_t axis, int64_t size) {
  SmallVector<int64_t> dims(type.getShape());
  dims.insert(dims.begin() + axis, size);
  return RankedTensorType::get(dims, type.getElementType());
}

/// The onnx.Yield ending the single block of `region`, or null.
onnx::YieldOp getYield(Region &region) {
  if (!llvm::hasSingleElement(region) || region.front().empty())
    return {};
  return llvm::dyn_cast<onnx::YieldOp>(region.front().back());
}

/// The converted types of what a subgraph body yields, or failure when one
/// is not a ranked tensor.
FailureOr<SmallVector<RankedTensorType>>
yieldedTypes(const TypeConverter &converter, onnx::YieldOp yield) {
  SmallVector<RankedTensorType> types;
  for (Value value : yield.getValues()) {
    auto type = llvm::dyn_cast_or_null<RankedTensorType>(
        converter.convertType(value.getType()));
    if (!type)
      return failure();
    types.push_back(type);
  }
  return types;
}

/// The converted types of the arguments of a subgraph body, or failure.
FailureOr<SmallVector<RankedTensorType>>
argumentTypes(const TypeConverter &converter, Block &body) {
  SmallVector<RankedTensorType> types;
  for (BlockArgument arg : body.getArguments()) {
    auto type = llvm::dyn_cast_or_null<RankedTensorType>(
        converter.convertType(arg.getType()));
    if (!type)
      return failure();
    types.push_back(type);
  }
  return types;
}

/// Moves `body` (a Loop or Scan subgraph) into an scf.execute_region at the
/// insertion point, its arguments bound to `args` (cast to the argument
/// types), and returns the region's results: the values the body yields.
/// Leaves the insertion point after the region.
ValueRange inlineBody(ConversionPatternRewriter &rewriter, Location loc,
                      Block &body, ArrayRef<RankedTensorType> argTypes,
                      ArrayRef<RankedTensorType> resultTypes, ValueRange args) {
  SmallVector<Value> bound;
  for (auto [value, type] : llvm::zip_equal(args, argTypes))
    bound.push_back(castIfNeeded(rewriter, loc, value, type));
  SmallVector<Type> types(resultTypes.begin(), resultTypes.end());
  auto region = rewriter.create<scf::ExecuteRegionOp>(loc, types);
  Block *block = rewriter.createBlock(&region.getRegion());
  rewriter.mergeBlocks(&body, block, bound);
  rewriter.setInsertionPointAfter(region);
  return region.getResults();
}

/// As inlineBody, on a copy of `body` (which stays where it is).
ValueRange inlineBodyCopy(ConversionPatternRewriter &rewriter, Location loc,
                          Region &body, ArrayRef<RankedTensorType> argTypes,
                          ArrayRef<RankedTensorType> resultTypes,
                          ValueRange args) {
  SmallVector<Value> bound;
  for (auto [value, type] : llvm::zip_equal(args, argTypes))
    bound.push_back(castIfNeeded(rewriter, loc, value, type));
  SmallVector<Type> types(resultTypes.begin(), resultTypes.end());
  auto region = rewriter.create<scf::ExecuteRegionOp>(loc, types);
  rewriter.cloneRegionBefore(body, region.getRegion(),
                             region.getRegion().end());
  Block *copy = &region.getRegion().front();
  Block *block =
      rewriter.createBlock(&region.getRegion(), region.getRegion().begin());
  rewriter.mergeBlocks(copy, block, bound);
  rewriter.setInsertionPointAfter(region);
  return region.getResults();
}

/// onnx.Yield -> scf.yield, once its parent op has become an scf op.
struct YieldLowering : OpConversionPattern<onnx::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (!llvm::isa<scf::IfOp, scf::ExecuteRegionOp>(parent) ||
        parent->getNumResults() != adaptor.getValues().size())
      return rewriter.notifyMatchFailure(op, "not in a lowered subgraph");
    SmallVector<Value> values;
    for (auto [value, type] :
         llvm::zip_equal(adaptor.getValues(), parent->getResultTypes()))
      values.push_back(castIfNeeded(rewriter, op.getLoc(), value, type));
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }
};

/// If(cond) -> scf.if on the condition's single element.
struct IfLowering : OpConversionPattern<onnx::IfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isOneElementInteger(adaptor.getCond(), 1))
      return op.emitError() << "the condition must be a one-element bool "
                               "tensor";
    SmallVector<Type> resultTypes;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      RankedTensorType type = convertedResultType(*getTypeConverter(), op, i);
      if (!type)
        return failure();
      resultTypes.push_back(type);
    }
    for (Region *branch : {&op.getThenBranch(), &op.getElseBranch()}) {
      onnx::YieldOp yield = getYield(*branch);
      if (!yield || branch->front().getNumArguments() != 0 ||
          yield.getValues().size() != resultTypes.size())
        return op.emitError() << "each branch must take no inputs and yield "
                              << resultTypes.size() << " values";
    }
    Location loc = op.getLoc();
    Value cond = extractScalar(rewriter, loc, adaptor.getCond());
    auto ifOp = rewriter.create<scf::IfOp>(loc, resultTypes, cond,
                                           /*addThenBlock=*/false,
                                           /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenBranch(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseBranch(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// Appends `row` as row `count` of `buffer` ([capacity, row dims...]),
/// first doubling the buffer (at least to one row) when it is full.
Value appendRow(OpBuilder &b, Location loc, Value buffer, Value row,
                Value count) {
  auto bufferType = llvm::cast<RankedTensorType>(buffer.getType());
  Value capacity = b.create<tensor::DimOp>(loc, buffer, 0);
  Value full =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, count, capacity);
  SmallVector<OpFoldResult> rowSizes = tensor::getMixedSizes(b, loc, row);
  auto grow = b.create<scf::IfOp>(
      loc, full,
      [&](OpBuilder &b, Location loc) {
        Value doubled = b.create<arith::MaxSIOp>(
            loc, b.create<arith::MulIOp>(loc, capacity, indexConst(b, loc, 2)),
            indexConst(b, loc, 1));
        SmallVector<OpFoldResult> sizes = {doubled};
        sizes.append(rowSizes);
        Value grown = emptyTensor(b, loc, bufferType, sizes);
        // The old rows keep their places; before the first row, the old
        // buffer is empty (its dynamic row dims are placeholders).
        SmallVector<OpFoldResult> zeros(bufferType.getRank(),
                                        b.getIndexAttr(0));
        SmallVector<OpFoldResult> ones(bufferType.getRank(), b.getIndexAttr(1));
        Value copied = b.create<tensor::InsertSliceOp>(
            loc, buffer, grown, zeros, tensor::getMixedSizes(b, loc, buffer),
            ones);
        b.create<scf::YieldOp>(loc, copied);
      },
      [&](OpBuilder &b, Location loc) { b.create<scf::YieldOp>(loc, buffer); });
  SmallVector<OpFoldResult> offsets(bufferType.getRank(), b.getIndexAttr(0));
  offsets[0] = count;
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  sizes.append(rowSizes);
  SmallVector<OpFoldResult> strides(bufferType.getRank(), b.getIndexAttr(1));
  return b.create<tensor::InsertSliceOp>(loc, row, grow.getResult(0), offsets,
                                         sizes, strides);
}

/// An empty buffer of `type` whose dynamic dims are 0 except `size` at
/// `axis` (null: 0 there too): Loop's first appendRow replaces the
/// placeholder dims, and a Scan of no iterations returns it as it is.
Value emptyBuffer(OpBuilder &b, Location loc, RankedTensorType type,
                  int64_t axis, Value size) {
  SmallVector<OpFoldResult> sizes(type.getRank(), b.getIndexAttr(0));
  if (size)
    sizes[axis] = size;
  return emptyTensor(b, loc, type, sizes);
}

/// Loop(M, cond, v_initial...) -> scf.while. The body takes (iteration
/// number, condition, v...) and yields (condition, v..., scan outputs...).
/// A missing M means no trip limit; a missing cond starts the loop as true.
/// The body's condition always applies afterwards: ONNX's pseudo-code says a
/// for loop (no cond) ignores it, but ONNX Runtime and the reference
/// implementation stop when it is false.
struct LoopLowering : OpConversionPattern<onnx::LoopOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LoopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    onnx::YieldOp yield = getYield(op.getBody());
    unsigned numStates = op.getVInitial().size();
    if (!yield || op->getNumResults() < numStates ||
        op.getBody().front().getNumArguments() != numStates + 2 ||
        yield.getValues().size() != 1 + op->getNumResults())
      return op.emitError() << "the body must take the iteration number, the "
                               "condition and "
                            << numStates << " loop-carried values and yield "
                            << 1 + op->getNumResults() << " values";
    unsigned numScans = op->getNumResults() - numStates;
    bool hasTripCount = !isNoneValue(op.getM());
    bool hasCond = !isNoneValue(op.getCond());
    if ((hasTripCount && !isOneElementInteger(adaptor.getM(), 64)) ||
        (hasCond && !isOneElementInteger(adaptor.getCond(), 1)))
      return op.emitError() << "M must be a one-element int64 tensor and "
                               "cond a one-element bool tensor";
    Block &body = op.getBody().front();
    FailureOr<SmallVector<RankedTensorType>> argTypes =
        argumentTypes(converter, body);
    FailureOr<SmallVector<RankedTensorType>> bodyTypes =
        yieldedTypes(converter, yield);
    if (failed(argTypes) || failed(bodyTypes))
      return rewriter.notifyMatchFailure(op, "a body value is not a tensor");
    // paddle2onnx declares them [1] where ONNX says scalars; ONNX Runtime
    // takes any one-element tensor, and so do we.
    if (!isOneElementIntegerType((*argTypes)[0], 64) ||
        !isOneElementIntegerType((*argTypes)[1], 1) ||
        !isOneElementInteger(yield.getValues()[0], 1))
      return op.emitError() << "the iteration number and the conditions "
                               "must be one-element tensors (int64, bool)";

    // Loop-carried values take the most general of the types they pass
    // through; scan outputs are buffers of rows.
    SmallVector<RankedTensorType> resultTypes, stateTypes, bufferTypes;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      RankedTensorType type = convertedResultType(converter, op, i);
      if (!type)
        return failure();
      resultTypes.push_back(type);
    }
    for (unsigned j = 0; j < numStates; ++j) {
      RankedTensorType type = generalizeTypes(
          {adaptor.getVInitial()[j].getType(), (*argTypes)[2 + j],
           (*bodyTypes)[1 + j], resultTypes[j]});
      if (!type)
        return op.emitError() << "loop-carried value #" << j
                              << " changes its rank or element type";
      stateTypes.push_back(type);
    }
    for (unsigned k = 0; k < numScans; ++k) {
      RankedTensorType row = (*bodyTypes)[1 + numStates + k];
      if (row.getRank() + 1 != resultTypes[numStates + k].getRank())
        return op.emitError()
               << "scan output #" << k << " does not stack its rows";
      bufferTypes.push_back(insertDim(row, 0, ShapedType::kDynamic));
    }

    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), i1 = rewriter.getI1Type();
    Value tripCount =
        hasTripCount ? extractScalar(rewriter, loc, adaptor.getM()) : Value();
    SmallVector<Value> inits = {
        rewriter.create<arith::ConstantIntOp>(loc, 0, 64),
        hasCond ? extractScalar(rewriter, loc, adaptor.getCond())
                : rewriter.create<arith::ConstantIntOp>(loc, 1, 1)};
    for (auto [value, type] :
         llvm::zip_equal(adaptor.getVInitial(), stateTypes))
      inits.push_back(castIfNeeded(rewriter, loc, value, type));
    for (RankedTensorType type : bufferTypes)
      inits.push_back(emptyBuffer(rewriter, loc, type, 0, Value()));
    SmallVector<Type> carried = {i64, i1};
    carried.append(stateTypes.begin(), stateTypes.end());
    carried.append(bufferTypes.begin(), bufferTypes.end());
    SmallVector<Location> locs(carried.size(), loc);

    auto whileOp = rewriter.create<scf::WhileOp>(loc, carried, inits);
    Block *before =
        rewriter.createBlock(&whileOp.getBefore(), {}, carried, locs);
    Value proceed = before->getArgument(1);
    if (tripCount)
      proceed = rewriter.create<arith::AndIOp>(
          loc, proceed,
          rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                         before->getArgument(0), tripCount));
    rewriter.create<scf::ConditionOp>(loc, proceed, before->getArguments());

    Block *after = rewriter.createBlock(&whileOp.getAfter(), {}, carried, locs);
    Value iteration = after->getArgument(0);
    SmallVector<Value> bodyArgs = {
        oneElementTensor(rewriter, loc, iteration, (*argTypes)[0]),
        oneElementTensor(rewriter, loc, after->getArgument(1),
                         (*argTypes)[1])};
    for (unsigned j = 0; j < numStates; ++j)
      bodyArgs.push_back(after->getArgument(2 + j));
    ValueRange results =
        inlineBody(rewriter, loc, body, *argTypes, *bodyTypes, bodyArgs);
    SmallVector<Value> next = {
        rewriter.create<arith::AddIOp>(
            loc, iteration, rewriter.create<arith::ConstantIntOp>(loc, 1, 64)),
        extractScalar(rewriter, loc, results[0])};
    for (unsigned j = 0; j < numStates; ++j)
      next.push_back(
          castIfNeeded(rewriter, loc, results[1 + j], stateTypes[j]));
    Value row = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), iteration);
    for (unsigned k = 0; k < numScans; ++k)
      next.push_back(appendRow(rewriter, loc,
                               after->getArgument(2 + numStates + k),
                               results[1 + numStates + k], row));
    rewriter.create<scf::YieldOp>(loc, next);

    rewriter.setInsertionPointAfter(whileOp);
    SmallVector<Value> replacements;
    for (unsigned j = 0; j < numStates; ++j)
      replacements.push_back(castIfNeeded(
          rewriter, loc, whileOp.getResult(2 + j), resultTypes[j]));
    Value count = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), whileOp.getResult(0));
    for (unsigned k = 0; k < numScans; ++k) {
      Value buffer = whileOp.getResult(2 + numStates + k);
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, buffer);
      sizes[0] = count;
      SmallVector<OpFoldResult> zeros(sizes.size(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> ones(sizes.size(), rewriter.getIndexAttr(1));
      Value rows = rewriter.create<tensor::ExtractSliceOp>(loc, buffer, zeros,
                                                           sizes, ones);
      replacements.push_back(
          castIfNeeded(rewriter, loc, rows, resultTypes[numStates + k]));
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// Scan(initial states..., scan inputs...) -> scf.for over the scan axis.
/// The body takes (states..., one slice of each scan input) and yields
/// (states..., one slice of each scan output).
struct ScanLowering : OpConversionPattern<onnx::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    ValueRange inputs = adaptor.getInitialStateAndScanInputs();
    int64_t numInputs = inputs.size();
    int64_t numScanInputs = op.getNumScanInputs();
    int64_t numStates = numInputs - numScanInputs;
    int64_t numScanOutputs = int64_t(op->getNumResults()) - numStates;
    onnx::YieldOp yield = getYield(op.getBody());
    if (numScanInputs < 1 || numStates < 0 || numScanOutputs < 0 || !yield ||
        int64_t(op.getBody().front().getNumArguments()) != numInputs ||
        yield.getValues().size() != op->getNumResults())
      return op.emitError() << "expects at least one scan input and a body "
                               "taking one value per input and yielding one "
                               "per output";
    SmallVector<int64_t> inputAxes =
        getI64Array(op.getScanInputAxes(), numScanInputs, 0);
    SmallVector<int64_t> inputReversed =
        getI64Array(op.getScanInputDirections(), numScanInputs, 0);
    SmallVector<int64_t> outputAxes =
        getI64Array(op.getScanOutputAxes(), numScanOutputs, 0);
    SmallVector<int64_t> outputReversed =
        getI64Array(op.getScanOutputDirections(), numScanOutputs, 0);
    if (int64_t(inputAxes.size()) != numScanInputs ||
        int64_t(inputReversed.size()) != numScanInputs ||
        int64_t(outputAxes.size()) != numScanOutputs ||
        int64_t(outputReversed.size()) != numScanOutputs)
      return op.emitError() << "scan axes and directions must have one entry "
                               "per scan input or output";

    Block &body = op.getBody().front();
    FailureOr<SmallVector<RankedTensorType>> argTypes =
        argumentTypes(converter, body);
    FailureOr<SmallVector<RankedTensorType>> bodyTypes =
        yieldedTypes(converter, yield);
    if (failed(argTypes) || failed(bodyTypes))
      return rewriter.notifyMatchFailure(op, "a body value is not a tensor");
    SmallVector<RankedTensorType> resultTypes, stateTypes, bufferTypes;
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      RankedTensorType type = convertedResultType(converter, op, i);
      if (!type)
        return failure();
      resultTypes.push_back(type);
    }
    for (int64_t j = 0; j < numStates; ++j) {
      RankedTensorType type =
          generalizeTypes({inputs[j].getType(), (*argTypes)[j], (*bodyTypes)[j],
                           resultTypes[j]});
      if (!type)
        return op.emitError()
               << "state #" << j << " changes its rank or element type";
      stateTypes.push_back(type);
    }
    SmallVector<RankedTensorType> sliceTypes;
    for (int64_t i = 0; i < numScanInputs; ++i) {
      auto type =
          llvm::dyn_cast<RankedTensorType>(inputs[numStates + i].getType());
      if (!type)
        return rewriter.notifyMatchFailure(op, "a scan input is not a tensor");
      int64_t rank = type.getRank();
      if (inputAxes[i] < -rank || inputAxes[i] >= rank)
        return op.emitError() << "scan input axis " << inputAxes[i]
                              << " is out of range for rank " << rank;
      inputAxes[i] = normalizeAxis(inputAxes[i], rank);
      SmallVector<int64_t> dims(type.getShape());
      dims.erase(dims.begin() + inputAxes[i]);
      sliceTypes.push_back(RankedTensorType::get(dims, type.getElementType()));
    }
    for (int64_t k = 0; k < numScanOutputs; ++k) {
      RankedTensorType row = (*bodyTypes)[numStates + k];
      int64_t rank = row.getRank() + 1;
      if (outputAxes[k] < -rank || outputAxes[k] >= rank)
        return op.emitError() << "scan output axis " << outputAxes[k]
                              << " is out of range for rank " << rank;
      outputAxes[k] = normalizeAxis(outputAxes[k], rank);
      bufferTypes.push_back(
          insertDim(row, outputAxes[k], ShapedType::kDynamic));
    }

    Location loc = op.getLoc();
    Value tripCount = dimValue(rewriter, loc, inputs[numStates], inputAxes[0]);
    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    Value last = rewriter.create<arith::SubIOp>(loc, tripCount, one);
    SmallVector<Value> stateInits;
    for (int64_t j = 0; j < numStates; ++j)
      stateInits.push_back(
          castIfNeeded(rewriter, loc, inputs[j], stateTypes[j]));

    // One iteration's body at `step`: the slices of the scan inputs, the
    // inlined body (`copy`: a clone, for the peeled first iteration), the
    // next states and the scan output rows.
    auto iterate =
        [&](Value step, ValueRange states,
            bool copy) -> std::pair<SmallVector<Value>, SmallVector<Value>> {
      Value backward;
      SmallVector<Value> bodyArgs(states.begin(), states.end());
      for (int64_t i = 0; i < numScanInputs; ++i) {
        Value input = inputs[numStates + i];
        int64_t rank = sliceTypes[i].getRank() + 1;
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
        if (inputReversed[i] && !backward)
          backward = rewriter.create<arith::SubIOp>(loc, last, step);
        offsets[inputAxes[i]] = inputReversed[i] ? backward : step;
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, input);
        sizes[inputAxes[i]] = rewriter.getIndexAttr(1);
        SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
        bodyArgs.push_back(rewriter.create<tensor::ExtractSliceOp>(
            loc, sliceTypes[i], input, offsets, sizes, strides));
      }
      ValueRange results = copy
                               ? inlineBodyCopy(rewriter, loc, op.getBody(),
                                                *argTypes, *bodyTypes, bodyArgs)
                               : inlineBody(rewriter, loc, body, *argTypes,
                                            *bodyTypes, bodyArgs);
      SmallVector<Value> next, rows;
      for (int64_t j = 0; j < numStates; ++j)
        next.push_back(castIfNeeded(rewriter, loc, results[j], stateTypes[j]));
      for (int64_t k = 0; k < numScanOutputs; ++k)
        rows.push_back(results[numStates + k]);
      return {next, rows};
    };
    // Row `row` of scan output k inserted into `buffer` at `step`.
    auto insertRow = [&](int64_t k, Value row, Value buffer, Value step) {
      int64_t axis = outputAxes[k];
      Value backward = outputReversed[k]
                           ? rewriter.create<arith::SubIOp>(loc, last, step)
                           : Value();
      int64_t rank = bufferTypes[k].getRank();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = outputReversed[k] ? backward : step;
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, row);
      sizes.insert(sizes.begin() + axis, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      return rewriter
          .create<tensor::InsertSliceOp>(loc, row, buffer, offsets, sizes,
                                         strides)
          .getResult();
    };

    // The loop over [first, tripCount) carrying the states and the scan
    // output buffers, each of one shape throughout (the canonicalizer's
    // folds of loop-carried tensors assume it).
    auto loop = [&](Value first, ValueRange inits) {
      auto forOp =
          rewriter.create<scf::ForOp>(loc, first, tripCount, one, inits);
      rewriter.setInsertionPointToStart(forOp.getBody());
      Value step = forOp.getInductionVar();
      auto [nextStates, rows] =
          iterate(step, forOp.getRegionIterArgs().take_front(numStates),
                  /*copy=*/false);
      SmallVector<Value> next(nextStates);
      for (int64_t k = 0; k < numScanOutputs; ++k)
        next.push_back(insertRow(
            k, rows[k], forOp.getRegionIterArgs()[numStates + k], step));
      rewriter.create<scf::YieldOp>(loc, next);
      rewriter.setInsertionPointAfter(forOp);
      return forOp;
    };

    bool staticRows =
        llvm::all_of(ArrayRef(*bodyTypes).drop_front(numStates),
                     [](RankedTensorType row) { return row.hasStaticShape(); });
    ValueRange finals;
    if (staticRows) {
      // The buffers' dims are known before the loop.
      SmallVector<Value> inits(stateInits);
      for (int64_t k = 0; k < numScanOutputs; ++k)
        inits.push_back(emptyBuffer(rewriter, loc, bufferTypes[k],
                                    outputAxes[k], tripCount));
      finals = loop(zero, inits).getResults();
    } else {
      // Rows of run-time shape: the first iteration runs before the loop,
      // and its rows give the buffers their dims. Without iterations the
      // outputs are empty.
      SmallVector<Type> carriedTypes(stateTypes.begin(), stateTypes.end());
      carriedTypes.append(bufferTypes.begin(), bufferTypes.end());
      Value hasIterations = rewriter.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sgt, tripCount, zero);
      auto ifOp = rewriter.create<scf::IfOp>(loc, carriedTypes, hasIterations,
                                             /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      auto [states0, rows0] = iterate(zero, stateInits, /*copy=*/true);
      SmallVector<Value> inits(states0);
      for (int64_t k = 0; k < numScanOutputs; ++k) {
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, rows0[k]);
        sizes.insert(sizes.begin() + outputAxes[k], tripCount);
        Value buffer = emptyTensor(rewriter, loc, bufferTypes[k], sizes);
        inits.push_back(insertRow(k, rows0[k], buffer, zero));
      }
      scf::ForOp forOp = loop(one, inits);
      rewriter.create<scf::YieldOp>(loc, forOp.getResults());
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      SmallVector<Value> empty(stateInits);
      for (int64_t k = 0; k < numScanOutputs; ++k)
        empty.push_back(
            emptyBuffer(rewriter, loc, bufferTypes[k], outputAxes[k], zero));
      rewriter.create<scf::YieldOp>(loc, empty);
      rewriter.setInsertionPointAfter(ifOp);
      finals = ifOp.getResults();
    }

    SmallVector<Value> replacements;
    for (auto [value, type] : llvm::zip_equal(finals, resultTypes))
      replacements.push_back(castIfNeeded(rewriter, loc, value, type));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void populateControlFlowPatterns(const TypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<IfLowering, LoopLowering, ScanLowering, YieldLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
