//===- Detection.cpp - NonMaxSuppression, RoiAlign -----------------------===//
//
// The object-detection ops. NonMaxSuppression keeps a data-dependent number
// of boxes after a sort and a greedy scan, which is a runtime call
// (runtime/cpu/NonMaxSuppression.c): its result buffer is allocated for the
// most boxes that can be kept and sliced to the count the call returns.
// RoiAlign is one linalg.generic over the output whose body averages (or
// takes the max of) bilinear samples in nested scf.for loops, since the
// sampling grid of each region is only known at run time.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>
#include <tuple>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The first element of optional scalar input `value` (0-D or 1-D), or null
/// when the input is omitted or statically empty (ONNX: use the default).
Value optionalScalar(OpBuilder &b, Location loc, Value value) {
  if (isNoneValue(value))
    return {};
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 ||
      (type.hasStaticShape() && type.getNumElements() == 0))
    return {};
  SmallVector<Value> index;
  if (type.getRank() == 1)
    index.push_back(indexConst(b, loc, 0));
  return b.create<tensor::ExtractOp>(loc, value, index);
}

/// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per
/// _class?, iou_threshold?, score_threshold?) -> [selected, 3] i64, through
/// the runtime helper onnxc_rt_nms.
struct NonMaxSuppressionLowering : ConversionPattern {
  NonMaxSuppressionLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.NonMaxSuppression", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value boxes = operands[0], scores = operands[1];
    auto boxesType = llvm::dyn_cast<RankedTensorType>(boxes.getType());
    auto scoresType = llvm::dyn_cast<RankedTensorType>(scores.getType());
    if (!boxesType || !scoresType || boxesType.getRank() != 3 ||
        scoresType.getRank() != 3 || !boxesType.getElementType().isF32() ||
        !scoresType.getElementType().isF32() || type.getRank() != 2 ||
        !type.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "expected f32 [B,N,4] boxes and "
                                             "[B,C,N] scores");
    // The optional scalars: an i64 count and f32 thresholds.
    auto scalarOf = [&](unsigned i, Type element) {
      auto t = llvm::dyn_cast<RankedTensorType>(operands[i].getType());
      return isNoneValue(operands[i]) ||
             (t && t.getRank() <= 1 && t.getElementType() == element);
    };
    if (!scalarOf(2, rewriter.getI64Type()) ||
        !scalarOf(3, rewriter.getF32Type()) ||
        !scalarOf(4, rewriter.getF32Type()))
      return rewriter.notifyMatchFailure(op, "expected an i64 count and f32 "
                                             "thresholds of one element");
    auto mismatch = [](int64_t a, int64_t b) {
      return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
    };
    if (mismatch(boxesType.getDimSize(2), 4) ||
        mismatch(boxesType.getDimSize(0), scoresType.getDimSize(0)) ||
        mismatch(boxesType.getDimSize(1), scoresType.getDimSize(2)))
      return op->emitError()
             << "boxes " << boxesType << " and scores " << scoresType
             << " must be [B, N, 4] and [B, C, N]";
    std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
    auto callee = helper ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                               op, StringAttr::get(getContext(), helper->name))
                         : func::FuncOp();
    if (!callee)
      return op->emitError("the runtime helper for this node is not declared "
                           "(run --onnxc-declare-runtime-helpers first)");
    int64_t centerPointBox = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("center_point_box"))
      centerPointBox = attr.getInt();
    if (centerPointBox != 0 && centerPointBox != 1)
      return op->emitError()
             << "center_point_box must be 0 or 1, got " << centerPointBox;

    Location loc = op->getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value maxPerClass = optionalScalar(rewriter, loc, operands[2]);
    if (!maxPerClass)
      maxPerClass = rewriter.create<arith::ConstantIntOp>(loc, 0, i64);
    Value iou = optionalScalar(rewriter, loc, operands[3]);
    Value scoreThreshold = optionalScalar(rewriter, loc, operands[4]);
    Value zero = scalarConst(rewriter, loc, rewriter.getF32Type(), 0.0);
    Value hasScoreThreshold =
        rewriter.create<arith::ConstantIntOp>(loc, scoreThreshold ? 1 : 0, i32);
    if (!iou)
      iou = zero;
    if (!scoreThreshold)
      scoreThreshold = zero;

    // The most rows that can be kept: B * C * min(N, max(max_per_class, 0)).
    Value batches = dimValue(rewriter, loc, scores, 0);
    Value classes = dimValue(rewriter, loc, scores, 1);
    Value perClass = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(),
        rewriter.create<arith::MaxSIOp>(
            loc, maxPerClass,
            rewriter.create<arith::ConstantIntOp>(loc, 0, i64)));
    perClass = rewriter.create<arith::MinSIOp>(
        loc, perClass, dimValue(rewriter, loc, scores, 2));
    Value capacity = rewriter.create<arith::MulIOp>(
        loc, rewriter.create<arith::MulIOp>(loc, batches, classes), perClass);

    auto dense3 = RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic, ShapedType::kDynamic},
        rewriter.getF32Type());
    auto asMemref = [&](Value tensor) -> Value {
      tensor = castIfNeeded(rewriter, loc, tensor, dense3);
      return rewriter.create<bufferization::ToMemrefOp>(
          loc, callee.getFunctionType().getInput(0), tensor,
          rewriter.getUnitAttr());
    };
    auto rowsType =
        llvm::cast<MemRefType>(callee.getFunctionType().getInput(7));
    Value rows =
        rewriter.create<memref::AllocOp>(loc, rowsType, ValueRange{capacity});
    auto call = rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{
            asMemref(boxes), asMemref(scores), maxPerClass, iou, scoreThreshold,
            hasScoreThreshold,
            rewriter.create<arith::ConstantIntOp>(loc, centerPointBox, i64),
            rows});
    Value count = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), call.getResult(0));

    auto rowsTensorType =
        RankedTensorType::get(rowsType.getShape(), rowsType.getElementType());
    Value all = rewriter.create<bufferization::ToTensorOp>(
        loc, rowsTensorType, rows, rewriter.getUnitAttr(),
        rewriter.getUnitAttr());
    Value selected = rewriter.create<tensor::ExtractSliceOp>(
        loc, rowsTensorType, all,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{count, rewriter.getIndexAttr(3)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, selected, type));
    return success();
  }
};

/// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) -> [R, C,
/// output_height, output_width]: each output element pools a bin of its
/// region, sampled on a grid (sampling_ratio per side, or the bin size
/// rounded up) by bilinear interpolation. Samples more than one pixel outside
/// the image count as 0, as in the ONNX reference; "max" takes the largest
/// weighted corner of any sample. f16/bf16 compute in f32.
struct RoiAlignLowering : ConversionPattern {
  RoiAlignLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.RoiAlign", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = operands[0], rois = operands[1], batchIndices = operands[2];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto roisType = llvm::dyn_cast<RankedTensorType>(rois.getType());
    auto batchType = llvm::dyn_cast<RankedTensorType>(batchIndices.getType());
    if (!xType || !roisType || !batchType || xType.getRank() != 4 ||
        roisType.getRank() != 2 || batchType.getRank() != 1 ||
        type.getRank() != 4 || !llvm::isa<FloatType>(xType.getElementType()) ||
        roisType.getElementType() != xType.getElementType() ||
        !llvm::isa<IntegerType>(batchType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported RoiAlign types");
    StringRef mode = "avg", transform = "half_pixel";
    if (auto attr = op->getAttrOfType<StringAttr>("mode"))
      mode = attr.getValue();
    if (auto attr =
            op->getAttrOfType<StringAttr>("coordinate_transformation_mode"))
      transform = attr.getValue();
    if (mode != "avg" && mode != "max")
      return op->emitError() << "mode must be avg or max, got '" << mode << "'";
    if (transform != "half_pixel" && transform != "output_half_pixel")
      return op->emitError() << "coordinate_transformation_mode must be "
                                "half_pixel or output_half_pixel, got '"
                             << transform << "'";
    auto intAttr = [&](StringRef name, int64_t defaultValue) {
      auto attr = op->getAttrOfType<IntegerAttr>(name);
      return attr ? attr.getInt() : defaultValue;
    };
    int64_t pooledHeight = intAttr("output_height", 1);
    int64_t pooledWidth = intAttr("output_width", 1);
    int64_t samplingRatio = intAttr("sampling_ratio", 0);
    double spatialScale = 1.0;
    if (auto attr = op->getAttrOfType<FloatAttr>("spatial_scale"))
      spatialScale = attr.getValueAsDouble();
    if (pooledHeight < 1 || pooledWidth < 1 || samplingRatio < 0)
      return op->emitError() << "output sizes must be positive and "
                                "sampling_ratio non-negative";
    bool halfPixel = transform == "half_pixel";
    bool isMax = mode == "max";

    Location loc = op->getLoc();
    Type element = type.getElementType();
    Type compute = element.isF64() ? element : rewriter.getF32Type();
    Value height = dimValue(rewriter, loc, x, 2);
    Value width = dimValue(rewriter, loc, x, 3);
    Value lastBatch = rewriter.create<arith::SubIOp>(
        loc, dimValue(rewriter, loc, x, 0), indexConst(rewriter, loc, 1));
    Value init = emptyTensor(rewriter, loc, type,
                             {OpFoldResult(dimValue(rewriter, loc, rois, 0)),
                              OpFoldResult(dimValue(rewriter, loc, x, 1)),
                              rewriter.getIndexAttr(pooledHeight),
                              rewriter.getIndexAttr(pooledWidth)});
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(4)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location nloc, ValueRange) {
          auto cst = [&](double v) { return scalarConst(b, nloc, compute, v); };
          auto toCompute = [&](Value v) -> Value {
            if (v.getType() == compute)
              return v;
            return b.create<arith::ExtFOp>(nloc, compute, v);
          };
          auto toFloat = [&](Value index) -> Value {
            return b.create<arith::SIToFPOp>(
                nloc, compute,
                b.create<arith::IndexCastOp>(nloc, b.getI64Type(), index));
          };
          auto toIndex = [&](Value v) -> Value {
            return b.create<arith::IndexCastOp>(
                nloc, b.getIndexType(),
                b.create<arith::FPToSIOp>(nloc, b.getI64Type(), v));
          };
          Value r = b.create<linalg::IndexOp>(nloc, 0);
          Value c = b.create<linalg::IndexOp>(nloc, 1);
          Value ph = b.create<linalg::IndexOp>(nloc, 2);
          Value pw = b.create<linalg::IndexOp>(nloc, 3);
          // The image this region reads, clamped so that a bad index cannot
          // read outside X.
          Value batch = b.create<arith::IndexCastOp>(
              nloc, b.getIndexType(),
              b.create<tensor::ExtractOp>(nloc, batchIndices, r));
          batch = b.create<arith::MaxSIOp>(
              nloc, indexConst(b, nloc, 0),
              b.create<arith::MinSIOp>(nloc, batch, lastBatch));
          Value corner[4];
          for (int64_t k = 0; k < 4; ++k) {
            Value v = toCompute(b.create<tensor::ExtractOp>(
                nloc, rois, ValueRange{r, indexConst(b, nloc, k)}));
            v = b.create<arith::MulFOp>(nloc, v, cst(spatialScale));
            corner[k] =
                b.create<arith::SubFOp>(nloc, v, cst(halfPixel ? 0.5 : 0.0));
          }
          Value roiWidth = b.create<arith::SubFOp>(nloc, corner[2], corner[0]);
          Value roiHeight = b.create<arith::SubFOp>(nloc, corner[3], corner[1]);
          if (!halfPixel) {
            roiWidth = b.create<arith::MaximumFOp>(nloc, roiWidth, cst(1.0));
            roiHeight = b.create<arith::MaximumFOp>(nloc, roiHeight, cst(1.0));
          }
          Value binHeight =
              b.create<arith::DivFOp>(nloc, roiHeight, cst(pooledHeight));
          Value binWidth =
              b.create<arith::DivFOp>(nloc, roiWidth, cst(pooledWidth));
          Value gridHeight, gridWidth;
          if (samplingRatio > 0) {
            gridHeight = gridWidth = indexConst(b, nloc, samplingRatio);
          } else {
            gridHeight = toIndex(b.create<math::CeilOp>(nloc, binHeight));
            gridWidth = toIndex(b.create<math::CeilOp>(nloc, binWidth));
          }
          Value count = toFloat(b.create<arith::MaxSIOp>(
              nloc, b.create<arith::MulIOp>(nloc, gridHeight, gridWidth),
              indexConst(b, nloc, 1)));
          Value startY = b.create<arith::AddFOp>(
              nloc, corner[1],
              b.create<arith::MulFOp>(nloc, toFloat(ph), binHeight));
          Value startX = b.create<arith::AddFOp>(
              nloc, corner[0],
              b.create<arith::MulFOp>(nloc, toFloat(pw), binWidth));
          Value stepY =
              b.create<arith::DivFOp>(nloc, binHeight, toFloat(gridHeight));
          Value stepX =
              b.create<arith::DivFOp>(nloc, binWidth, toFloat(gridWidth));
          Value heightF = toFloat(height), widthF = toFloat(width);

          // Clamps a sample coordinate into the image and returns its low
          // and high pixel and the weight of the high one.
          auto axis = [&](OpBuilder &lb, Location l, Value pos, Value size,
                          Value sizeF) {
            Value last =
                lb.create<arith::SubIOp>(l, size, indexConst(lb, l, 1));
            // maxnumf/minnumf also turn NaN into a coordinate in range.
            pos = lb.create<arith::MaxNumFOp>(l, pos, cst(0.0));
            pos = lb.create<arith::MinNumFOp>(l, pos, sizeF);
            Value low = toIndex(pos);
            Value atEnd = lb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                   low, last);
            low = lb.create<arith::SelectOp>(l, atEnd, last, low);
            Value high = lb.create<arith::SelectOp>(
                l, atEnd, last,
                lb.create<arith::AddIOp>(l, low, indexConst(lb, l, 1)));
            Value frac = lb.create<arith::SelectOp>(
                l, atEnd, cst(0.0),
                lb.create<arith::SubFOp>(l, pos, toFloat(low)));
            return std::make_tuple(low, high, frac);
          };

          Value initial =
              isMax ? cst(-std::numeric_limits<double>::infinity()) : cst(0.0);
          Value zero = indexConst(b, nloc, 0), one = indexConst(b, nloc, 1);
          auto rowsLoop = b.create<scf::ForOp>(
              nloc, zero, gridHeight, one, ValueRange{initial},
              [&](OpBuilder &yb, Location yl, Value iy, ValueRange yAcc) {
                Value y = yb.create<arith::AddFOp>(
                    yl, startY,
                    yb.create<arith::MulFOp>(
                        yl, yb.create<arith::AddFOp>(yl, toFloat(iy), cst(0.5)),
                        stepY));
                auto colsLoop = yb.create<scf::ForOp>(
                    yl, zero, gridWidth, one, yAcc,
                    [&](OpBuilder &xb, Location xl, Value ix, ValueRange xAcc) {
                      Value xPos = xb.create<arith::AddFOp>(
                          xl, startX,
                          xb.create<arith::MulFOp>(
                              xl,
                              xb.create<arith::AddFOp>(xl, toFloat(ix),
                                                       cst(0.5)),
                              stepX));
                      using P = arith::CmpFPredicate;
                      Value outside = xb.create<arith::OrIOp>(
                          xl,
                          xb.create<arith::OrIOp>(
                              xl,
                              xb.create<arith::CmpFOp>(xl, P::OLT, y,
                                                       cst(-1.0)),
                              xb.create<arith::CmpFOp>(xl, P::OGT, y, heightF)),
                          xb.create<arith::OrIOp>(
                              xl,
                              xb.create<arith::CmpFOp>(xl, P::OLT, xPos,
                                                       cst(-1.0)),
                              xb.create<arith::CmpFOp>(xl, P::OGT, xPos,
                                                       widthF)));
                      auto [yLow, yHigh, ly] = axis(xb, xl, y, height, heightF);
                      auto [xLow, xHigh, lx] =
                          axis(xb, xl, xPos, width, widthF);
                      Value hy = xb.create<arith::SubFOp>(xl, cst(1.0), ly);
                      Value hx = xb.create<arith::SubFOp>(xl, cst(1.0), lx);
                      std::pair<Value, Value> taps[4] = {
                          {xb.create<arith::MulFOp>(xl, hy, hx),
                           xb.create<tensor::ExtractOp>(
                               xl, x, ValueRange{batch, c, yLow, xLow})},
                          {xb.create<arith::MulFOp>(xl, hy, lx),
                           xb.create<tensor::ExtractOp>(
                               xl, x, ValueRange{batch, c, yLow, xHigh})},
                          {xb.create<arith::MulFOp>(xl, ly, hx),
                           xb.create<tensor::ExtractOp>(
                               xl, x, ValueRange{batch, c, yHigh, xLow})},
                          {xb.create<arith::MulFOp>(xl, ly, lx),
                           xb.create<tensor::ExtractOp>(
                               xl, x, ValueRange{batch, c, yHigh, xHigh})}};
                      auto combine = [&](Value lhs, Value rhs) -> Value {
                        if (isMax)
                          return xb.create<arith::MaximumFOp>(xl, lhs, rhs);
                        return xb.create<arith::AddFOp>(xl, lhs, rhs);
                      };
                      Value sample;
                      for (auto &[weight, value] : taps) {
                        weight = xb.create<arith::SelectOp>(xl, outside,
                                                            cst(0.0), weight);
                        Value term = xb.create<arith::MulFOp>(xl, weight,
                                                              toCompute(value));
                        sample = sample ? combine(sample, term) : term;
                      }
                      Value next = combine(xAcc[0], sample);
                      xb.create<scf::YieldOp>(xl, next);
                    });
                yb.create<scf::YieldOp>(yl, colsLoop.getResults());
              });
          Value pooled = rowsLoop.getResult(0);
          if (isMax) {
            // No samples: 0, as the reference.
            Value none = b.create<arith::CmpFOp>(
                nloc, arith::CmpFPredicate::OEQ, pooled, initial);
            pooled = b.create<arith::SelectOp>(nloc, none, cst(0.0), pooled);
          } else {
            pooled = b.create<arith::DivFOp>(nloc, pooled, count);
          }
          if (element != compute)
            pooled = b.create<arith::TruncFOp>(nloc, element, pooled);
          b.create<linalg::YieldOp>(nloc, pooled);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateDetectionPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionLowering, RoiAlignLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
