//===- DataMovement.cpp - Constants, shapes and pass-through ops ----------===//
//
// populateDataMovementPatterns: the ops that create values (Constant,
// ConstantOfShape, Range), read shapes (Shape, Size) or pass their input
// through (Identity, Dropout at inference). The other data-movement ops are
// in DataMovementReshape.cpp (whole-tensor rearrangements),
// DataMovementSlice.cpp (slices, gathers, concatenation, padding),
// DataMovementMask.cpp (Trilu, OneHot) and DataMovementScatter.cpp.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The scalar attribute `value` re-typed to the signless `type` the
/// converter gives its (possibly unsigned) element type.
static TypedAttr toSignlessScalar(Attribute value, Type type) {
  if (auto intAttr = llvm::dyn_cast<IntegerAttr>(value)) {
    if (!llvm::isa<IntegerType>(type) ||
        type.getIntOrFloatBitWidth() != intAttr.getValue().getBitWidth())
      return {};
    return IntegerAttr::get(type, intAttr.getValue());
  }
  if (auto floatAttr = llvm::dyn_cast<FloatAttr>(value))
    return floatAttr.getType() == type ? floatAttr : TypedAttr();
  return {};
}

/// onnx.Constant -> arith.constant of its dense `value`. Unsigned data is
/// reinterpreted as signless of the same width (a bitcast of the raw
/// buffer, so large initializers cost no per-element work).
struct ConstantLowering : OpConversionPattern<onnx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(op.getValueAttr());
    if (!dense || llvm::isa<DenseStringElementsAttr>(dense))
      return rewriter.notifyMatchFailure(
          op, "only a numeric dense `value` attribute is supported");
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    if (dense.getElementType() != type.getElementType()) {
      if (!dense.getElementType().isIntOrFloat() ||
          !type.getElementType().isIntOrFloat() ||
          dense.getElementType().getIntOrFloatBitWidth() !=
              type.getElementType().getIntOrFloatBitWidth())
        return rewriter.notifyMatchFailure(op, "element type mismatch");
      dense = dense.bitcast(type.getElementType());
    }
    if (dense.getType() != type) {
      if (!type.hasStaticShape() ||
          type.getNumElements() != dense.getNumElements())
        return rewriter.notifyMatchFailure(op, "value does not fit the type");
      dense = dense.reshape(type);
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, dense);
    return success();
  }
};

/// onnx.Identity forwards its input.
struct IdentityLowering : OpConversionPattern<onnx::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::IdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!llvm::isa<RankedTensorType>(adaptor.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "only tensors are supported");
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    rewriter.replaceOp(
        op, castIfNeeded(rewriter, op.getLoc(), adaptor.getInput(), type));
    return success();
  }
};

/// onnx.Dropout. At inference (training mode known off, or a constant zero
/// ratio) the output is the input and the mask is all true; otherwise see
/// lowerTraining.
struct DropoutLowering : OpConversionPattern<onnx::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool inference = isNoneValue(op.getTrainingMode());
    if (!inference)
      if (std::optional<SmallVector<int64_t>> mode =
              getConstantInts(adaptor.getTrainingMode()))
        inference = mode->size() == 1 && (*mode)[0] == 0;
    if (!inference && !isNoneValue(op.getRatio())) {
      auto ratio = matchConstantFloat(adaptor.getRatio());
      inference = ratio && *ratio == 0.0;
    }
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type || !llvm::isa<RankedTensorType>(adaptor.getData().getType()))
      return failure();
    if (!inference)
      return lowerTraining(op, adaptor, type, rewriter);
    Value output = castIfNeeded(rewriter, loc, adaptor.getData(), type);
    Value mask;
    if (!llvm::isa<NoneType>(op.getMask().getType())) {
      RankedTensorType maskType =
          convertedResultType(*getTypeConverter(), op.getOperation(), 1);
      if (!maskType)
        return failure();
      Value empty = emptyTensor(rewriter, loc, maskType,
                                mixedDims(rewriter, loc, output));
      Value trueValue = rewriter.create<arith::ConstantOp>(
          loc, rewriter.getIntegerAttr(maskType.getElementType(), 1));
      mask = rewriter.create<linalg::FillOp>(loc, trueValue, empty).result();
    } else {
      mask = rewriter.create<onnx::NoValueOp>(loc, rewriter.getNoneType());
    }
    rewriter.replaceOp(op, {output, mask});
    return success();
  }

  /// Training mode known only at run time (or with a run-time or non-zero
  /// ratio): element e is kept when training is off or u(e) >= ratio, where
  /// u(e) in [0, 1) is a hash of e's row-major position and the `seed`
  /// attribute; kept elements are scaled by 1 / (1 - ratio). The random
  /// stream is onnxc's own (ONNX leaves it to the runtime); a ratio of 0
  /// keeps every element.
  LogicalResult lowerTraining(onnx::DropoutOp op, OpAdaptor adaptor,
                              RankedTensorType type,
                              ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    Type element = type.getElementType();
    if (!llvm::isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "expected float data");
    Type f32 = rewriter.getF32Type();
    Value ratio = scalarConst(rewriter, loc, f32, 0.5);
    if (!isNoneValue(op.getRatio())) {
      ratio = extractScalar(rewriter, loc, adaptor.getRatio());
      if (!llvm::isa<FloatType>(ratio.getType()))
        return rewriter.notifyMatchFailure(op, "expected a float ratio");
      if (ratio.getType() != f32)
        ratio =
            ratio.getType().getIntOrFloatBitWidth() > 32
                ? rewriter.create<arith::TruncFOp>(loc, f32, ratio).getResult()
                : rewriter.create<arith::ExtFOp>(loc, f32, ratio).getResult();
    }
    Value training =
        isNoneValue(op.getTrainingMode())
            ? rewriter
                  .create<arith::ConstantOp>(loc, rewriter.getBoolAttr(false))
                  .getResult()
            : extractScalar(rewriter, loc, adaptor.getTrainingMode());
    if (!training.getType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "expected a bool training_mode");
    uint32_t seed = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("seed"))
      seed = static_cast<uint32_t>(attr.getInt());
    Value scale = rewriter.create<arith::DivFOp>(
        loc, scalarConst(rewriter, loc, f32, 1.0),
        rewriter.create<arith::SubFOp>(
            loc, scalarConst(rewriter, loc, f32, 1.0), ratio));
    int64_t rank = type.getRank();
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(dimValue(rewriter, loc, data, d));

    // Whether the element at `ivs` is kept.
    auto kept = [&](OpBuilder &b, Location l, ValueRange ivs) -> Value {
      Value linear = indexConst(b, l, 0);
      for (int64_t d = 0; d < rank; ++d)
        linear = b.create<arith::AddIOp>(
            l, b.create<arith::MulIOp>(l, linear, dims[d]), ivs[d]);
      Type i32 = b.getI32Type();
      auto c = [&](uint32_t v) -> Value {
        return b.create<arith::ConstantOp>(
            l, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
      };
      // A 32-bit integer mix (xorshift-multiply rounds) of position ^ seed.
      Value h = b.create<arith::IndexCastUIOp>(l, i32, linear);
      h = b.create<arith::XOrIOp>(l, h, c(seed * 0x9E3779B9u));
      for (uint32_t mul : {0x7FEB352Du, 0x846CA68Bu}) {
        h = b.create<arith::XOrIOp>(l, h,
                                    b.create<arith::ShRUIOp>(l, h, c(16)));
        h = b.create<arith::MulIOp>(l, h, c(mul));
      }
      h = b.create<arith::XOrIOp>(l, h, b.create<arith::ShRUIOp>(l, h, c(16)));
      Value u = b.create<arith::MulFOp>(
          l,
          b.create<arith::UIToFPOp>(l, f32,
                                    b.create<arith::ShRUIOp>(l, h, c(8))),
          scalarConst(b, l, f32, 1.0 / 16777216.0));
      Value survives =
          b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGE, u, ratio);
      Value notTraining = b.create<arith::XOrIOp>(
          l, training, b.create<arith::ConstantOp>(l, b.getBoolAttr(true)));
      return b.create<arith::OrIOp>(l, notTraining, survives);
    };

    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, data);
    Value output = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, type, sizes), {data},
        {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value x = args[0];
          Value wide = x.getType() == f32 || x.getType().isF64()
                           ? x
                           : b.create<arith::ExtFOp>(l, f32, x).getResult();
          Value factor = scale;
          if (wide.getType() != f32)
            factor = b.create<arith::ExtFOp>(l, wide.getType(), scale);
          Value scaled = b.create<arith::MulFOp>(l, wide, factor);
          Value y = b.create<arith::SelectOp>(l, training, scaled, wide);
          if (y.getType() != x.getType())
            y = b.create<arith::TruncFOp>(l, x.getType(), y);
          return b
              .create<arith::SelectOp>(l, kept(b, l, ivs), y,
                                       zeroScalar(b, l, x.getType()))
              .getResult();
        });
    Value mask;
    if (!llvm::isa<NoneType>(op.getMask().getType())) {
      RankedTensorType maskType =
          convertedResultType(*getTypeConverter(), op.getOperation(), 1);
      if (!maskType)
        return failure();
      mask = buildIndexedGeneric(
          rewriter, loc, emptyTensor(rewriter, loc, maskType, sizes), {}, {},
          [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
            return kept(b, l, ivs);
          });
    } else {
      mask = rewriter.create<onnx::NoValueOp>(loc, rewriter.getNoneType());
    }
    rewriter.replaceOp(op, {output, mask});
    return success();
  }

  /// A float constant scalar, or nothing.
  static std::optional<double> matchConstantFloat(Value value) {
    while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>())
      value = cast.getInputs()[0];
    Attribute attr;
    if (auto constant = value.getDefiningOp<onnx::ConstantOp>())
      attr = constant.getValueAttr();
    else if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      attr = constant.getValue();
    auto dense = llvm::dyn_cast_or_null<DenseFPElementsAttr>(attr);
    if (!dense || dense.getNumElements() != 1)
      return std::nullopt;
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  }
};

/// onnx.Shape -> a constant when the selected dims are static, otherwise
/// tensor.from_elements of tensor.dim values.
struct ShapeLowering : OpConversionPattern<onnx::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    // start/end count from the back when negative and are clamped to
    // [0, rank].
    auto normalize = [&](int64_t v) {
      if (v < 0)
        v += rank;
      return std::clamp<int64_t>(v, 0, rank);
    };
    int64_t start = normalize(op.getStart());
    int64_t end = normalize(op.getEnd().value_or(rank));
    end = std::max(start, end);
    if (type.getRank() != 1 || !type.getElementType().isInteger(64) ||
        (!type.isDynamicDim(0) && type.getDimSize(0) != end - start))
      return rewriter.notifyMatchFailure(op, "unexpected result type");

    ArrayRef<int64_t> dims = dataType.getShape().slice(start, end - start);
    auto shapeType =
        RankedTensorType::get({end - start}, type.getElementType());
    Value shape;
    if (!ShapedType::isDynamicShape(dims)) {
      shape = rewriter.create<arith::ConstantOp>(
          loc, DenseIntElementsAttr::get(shapeType, dims));
    } else {
      SmallVector<Value> sizes;
      for (int64_t d = start; d < end; ++d)
        sizes.push_back(rewriter.create<arith::IndexCastOp>(
            loc, rewriter.getI64Type(), dimValue(rewriter, loc, data, d)));
      shape = rewriter.create<tensor::FromElementsOp>(loc, shapeType, sizes);
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, shape, type));
    return success();
  }
};

/// onnx.Size -> the product of the dims as a 0-D i64 tensor.
struct SizeLowering : OpConversionPattern<onnx::SizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::SizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    if (type.getRank() != 0 || !type.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "unexpected result type");
    Value size;
    if (dataType.hasStaticShape()) {
      size = rewriter.create<arith::ConstantOp>(
          loc, DenseIntElementsAttr::get(type, {dataType.getNumElements()}));
    } else {
      Value count = indexConst(rewriter, loc, 1);
      for (int64_t d = 0; d < dataType.getRank(); ++d)
        count = rewriter.createOrFold<arith::MulIOp>(
            loc, dimValue(rewriter, loc, data, d), count);
      Value count64 = rewriter.create<arith::IndexCastOp>(
          loc, rewriter.getI64Type(), count);
      size = rewriter.create<tensor::FromElementsOp>(loc, type, count64);
    }
    rewriter.replaceOp(op, size);
    return success();
  }
};

/// onnx.ConstantOfShape -> linalg.fill of tensor.empty, the sizes read from
/// the shape input (a constant or a run-time tensor).
struct ConstantOfShapeLowering : OpConversionPattern<onnx::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    Type elementType = type.getElementType();
    TypedAttr scalar;
    if (ElementsAttr value = op.getValueAttr()) {
      if (value.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "`value` must hold one element");
      scalar = toSignlessScalar(*value.value_begin<Attribute>(), elementType);
    } else if (elementType.isF32()) {
      scalar = rewriter.getF32FloatAttr(0.0f);
    }
    if (!scalar)
      return rewriter.notifyMatchFailure(op, "`value` does not match the type");

    auto inputType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!inputType || inputType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "shape must be a 1-D tensor");
    SmallVector<OpFoldResult> sizes;
    if (type.hasStaticShape()) {
      for (int64_t size : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
    } else {
      sizes =
          readIntsAsIndex(rewriter, loc, adaptor.getInput(), type.getRank());
      if (static_cast<int64_t>(sizes.size()) != type.getRank())
        return rewriter.notifyMatchFailure(op, "shape length mismatch");
    }
    Value empty = emptyTensor(rewriter, loc, type, sizes);
    Value fillValue = rewriter.create<arith::ConstantOp>(loc, scalar);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, fillValue, empty);
    return success();
  }
};

/// onnx.Range -> a linalg.generic writing start + i * delta; the length
/// max(ceil((limit - start) / delta), 0) is computed at run time unless
/// shape inference made it static. float16/bfloat16 compute in f32
/// (stash_type 1, the default).
struct RangeLowering : OpConversionPattern<onnx::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    if (type.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "result must be 1-D");
    for (Value operand : adaptor.getOperands()) {
      auto operandType = llvm::dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || operandType.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "inputs must be scalars");
    }
    Type elementType = type.getElementType();
    auto floatType = llvm::dyn_cast<FloatType>(elementType);
    if (!floatType && !elementType.isSignlessInteger())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    Type computeType = elementType;
    if (floatType && floatType.getWidth() < 32 && op.getStashType() == 1)
      computeType = rewriter.getF32Type();

    auto read = [&](Value tensor) -> Value {
      Value v = extractScalar(rewriter, loc, tensor);
      if (v.getType() != computeType)
        v = rewriter.create<arith::ExtFOp>(loc, computeType, v);
      return v;
    };
    Value start = read(adaptor.getStart());
    Value limit = read(adaptor.getLimit());
    Value delta = read(adaptor.getDelta());

    SmallVector<OpFoldResult> sizes;
    if (!type.isDynamicDim(0))
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(0)));
    else
      sizes.push_back(elementCount(rewriter, loc, start, limit, delta));
    Value empty = emptyTensor(rewriter, loc, type, sizes);
    Value range = buildIndexedGeneric(
        rewriter, loc, empty, {}, {},
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange) {
          Value value;
          if (llvm::isa<FloatType>(computeType)) {
            Value i64 =
                b.create<arith::IndexCastOp>(nestedLoc, b.getI64Type(), ivs[0]);
            Value i = b.create<arith::SIToFPOp>(nestedLoc, computeType, i64);
            Value step = b.create<arith::MulFOp>(nestedLoc, i, delta);
            value = b.create<arith::AddFOp>(nestedLoc, start, step);
            if (computeType != elementType)
              value = b.create<arith::TruncFOp>(nestedLoc, elementType, value);
          } else {
            Value i =
                b.create<arith::IndexCastOp>(nestedLoc, computeType, ivs[0]);
            Value step = b.create<arith::MulIOp>(nestedLoc, i, delta);
            value = b.create<arith::AddIOp>(nestedLoc, start, step);
          }
          return value;
        });
    rewriter.replaceOp(op, range);
    return success();
  }

  /// max(ceil((limit - start) / delta), 0) as an index; 0 when delta is 0
  /// (instead of a division trap or a huge allocation).
  static Value elementCount(OpBuilder &b, Location loc, Value start,
                            Value limit, Value delta) {
    Type i64 = b.getI64Type();
    Value zero64 = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(0));
    Value count;
    if (llvm::isa<FloatType>(start.getType())) {
      Type f64 = b.getF64Type();
      auto toF64 = [&](Value v) -> Value {
        return v.getType() == f64 ? v : b.create<arith::ExtFOp>(loc, f64, v);
      };
      Value diff = toF64(b.create<arith::SubFOp>(loc, limit, start));
      Value quotient = b.create<arith::DivFOp>(loc, diff, toF64(delta));
      Value ceil = b.create<math::CeilOp>(loc, quotient);
      // Compare before converting: fptosi of NaN/inf is undefined. A zero
      // delta gives no elements.
      Value zeroF = b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(0.0));
      Value positive = b.create<arith::AndIOp>(
          loc,
          b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, ceil, zeroF),
          b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE, toF64(delta),
                                  zeroF));
      Value maxF = b.create<arith::ConstantOp>(
          loc, b.getF64FloatAttr(static_cast<double>(1LL << 53)));
      Value bounded = b.create<arith::MinimumFOp>(loc, ceil, maxF);
      Value safe = b.create<arith::SelectOp>(loc, positive, bounded, zeroF);
      count = b.create<arith::FPToSIOp>(loc, i64, safe);
    } else {
      auto toI64 = [&](Value v) -> Value {
        return v.getType() == i64 ? v : b.create<arith::ExtSIOp>(loc, i64, v);
      };
      Value diff = b.create<arith::SubIOp>(loc, toI64(limit), toI64(start));
      Value delta64 = toI64(delta);
      Value isZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                             delta64, zero64);
      Value one64 = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(1));
      Value divisor = b.create<arith::SelectOp>(loc, isZero, one64, delta64);
      Value quotient = b.create<arith::CeilDivSIOp>(loc, diff, divisor);
      Value nonNegative = b.create<arith::MaxSIOp>(loc, quotient, zero64);
      count = b.create<arith::SelectOp>(loc, isZero, zero64, nonNegative);
    }
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), count);
  }
};

} // namespace

void populateDataMovementPatterns(const TypeConverter &typeConverter,
                                  RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, IdentityLowering, DropoutLowering, ShapeLowering,
           SizeLowering, ConstantOfShapeLowering, RangeLowering>(
          typeConverter, patterns.getContext());
  populateDataMovementReshapePatterns(typeConverter, patterns);
  populateDataMovementSlicePatterns(typeConverter, patterns);
  populateDataMovementMaskPatterns(typeConverter, patterns);
  populateDataMovementScatterPatterns(typeConverter, patterns);
}

} // namespace onnxc::cpu
