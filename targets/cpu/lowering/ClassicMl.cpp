//===- ClassicMl.cpp - ai.onnx.ml linear models, Scaler, Binarizer... ----===//
//
// Binarizer is elementwise, and Scaler ((x - offset) * scale per feature, in
// f32). LinearRegressor, LinearClassifier and Normalizer become the onnx ops
// they are made of (MatMul + Add, then Softmax/Sigmoid, ArgMax and a Gather of
// the labels; row reductions and a Div), which the conversion lowers next.
// ArrayFeatureExtractor gathers along the last dim. The tree ensembles have
// their own files (TreeEnsemble.cpp, TreeEnsembleLegacy.cpp).
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Binarizer: 1 where x > threshold, else 0, in x's type. The comparison is
/// exact: the f32 threshold and x are both compared as f64.
ElementwiseSpec binarizerSpec() {
  ElementwiseSpec spec;
  spec.opName = "onnx.ml.Binarizer";
  spec.kinds = kFloat | kSignedInt;
  spec.body = [](Operation *op, OpBuilder &b, Location loc,
                 ValueRange args) -> Value {
    double threshold = 0.0;
    if (auto attr = op->getAttrOfType<FloatAttr>("threshold"))
      threshold = attr.getValueAsDouble();
    Value x = args[0];
    Type type = x.getType();
    Value wide = castScalar(b, loc, x, type, b.getF64Type());
    Value above =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, wide,
                                scalarConst(b, loc, b.getF64Type(), threshold));
    return b.create<arith::SelectOp>(loc, above, scalarConst(b, loc, type, 1.0),
                                     scalarConst(b, loc, type, 0.0));
  };
  return spec;
}

/// The values of a float-array attribute (none when absent).
std::optional<SmallVector<float>> floatsAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return std::nullopt;
  SmallVector<float> values;
  for (Attribute a : attr)
    values.push_back(float(llvm::cast<FloatAttr>(a).getValueAsDouble()));
  return values;
}

/// `values` as an f32 constant tensor of `shape`.
Value f32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<float> values) {
  return b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get(shape, b.getF32Type()),
                                  values));
}

/// A float-array attribute as a 1-D f32 constant tensor (null when absent).
Value floatsConstant(OpBuilder &b, Location loc, Operation *op,
                     StringRef name) {
  std::optional<SmallVector<float>> values = floatsAttr(op, name);
  if (!values)
    return nullptr;
  return f32Constant(b, loc, {int64_t(values->size())}, *values);
}

/// Scaler(X): (f32(x) - offset[c]) * scale[c], c the last-dim index; a
/// one-value offset or scale applies to every feature (as ONNX Runtime).
struct ScalerLowering : ConversionPattern {
  ScalerLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.Scaler", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    auto xType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!resultType || !xType || xType.getRank() < 1 ||
        !xType.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected numeric features");
    int64_t features = xType.getShape().back();
    Value offset = floatsConstant(rewriter, loc, op, "offset");
    Value scale = floatsConstant(rewriter, loc, op, "scale");
    for (Value v : {offset, scale}) {
      int64_t n =
          v ? llvm::cast<RankedTensorType>(v.getType()).getDimSize(0) : 1;
      if (n != 1 && (ShapedType::isDynamic(features) || n != features))
        return op->emitError() << "offset and scale must have one value or "
                                  "one per feature ("
                               << features << ")";
    }
    Type from = xType.getElementType();
    int64_t last = xType.getRank() - 1;
    Value init = emptyTensor(rewriter, loc, resultType,
                             tensorSizes(rewriter, loc, operands[0]));
    Value result = buildIndexedGeneric(
        rewriter, loc, init, {operands[0]},
        {rewriter.getMultiDimIdentityMap(xType.getRank())},
        [&](OpBuilder &b, Location nloc, ValueRange ivs,
            ValueRange args) -> Value {
          Value x = castScalar(b, nloc, args[0], from, b.getF32Type());
          auto at = [&](Value table, float absent) -> Value {
            if (!table)
              return scalarConst(b, nloc, b.getF32Type(), absent);
            int64_t n =
                llvm::cast<RankedTensorType>(table.getType()).getDimSize(0);
            Value i = n == 1 ? indexConst(b, nloc, 0) : ivs[last];
            return b.create<tensor::ExtractOp>(nloc, table, i);
          };
          Value shifted = b.create<arith::SubFOp>(nloc, x, at(offset, 0.0f));
          return b.create<arith::MulFOp>(nloc, shifted, at(scale, 1.0f));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `x` [N, F] as f32.
Value toF32(ConversionPatternRewriter &rewriter, Location loc, Value x) {
  auto type = llvm::cast<RankedTensorType>(x.getType());
  if (type.getElementType().isF32())
    return x;
  return createOnnxOp(
      rewriter, loc, "onnx.Cast", x,
      RankedTensorType::get(type.getShape(), rewriter.getF32Type()),
      {rewriter.getNamedAttr("to", rewriter.getI64IntegerAttr(1))});
}

/// X [N, F] times the transposed row-major [rows, F] coefficients plus the
/// intercepts (one per row, or none), in f32, as onnx ops: the scores of
/// LinearRegressor and LinearClassifier. Fails, saying what it needs, when
/// the attributes do not hold rows x F and rows values.
FailureOr<Value> linearScores(ConversionPatternRewriter &rewriter, Location loc,
                              Operation *op, Value x,
                              RankedTensorType scoresType) {
  int64_t features = llvm::cast<RankedTensorType>(x.getType()).getDimSize(1);
  int64_t rows = scoresType.getDimSize(1);
  std::optional<SmallVector<float>> coefficients =
      floatsAttr(op, "coefficients");
  std::optional<SmallVector<float>> intercepts = floatsAttr(op, "intercepts");
  if (!coefficients || ShapedType::isDynamic(features) ||
      ShapedType::isDynamic(rows) ||
      int64_t(coefficients->size()) != rows * features ||
      (intercepts && int64_t(intercepts->size()) != rows))
    return op->emitError() << "needs " << rows << " x " << features
                           << " coefficients and " << rows << " intercepts";
  SmallVector<float> transposed(features * rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t f = 0; f < features; ++f)
      transposed[f * rows + r] = (*coefficients)[r * features + f];
  Value weights = f32Constant(rewriter, loc, {features, rows}, transposed);
  Value scores = createOnnxOp(rewriter, loc, "onnx.MatMul",
                              {toF32(rewriter, loc, x), weights}, scoresType);
  if (!intercepts)
    return scores;
  return createOnnxOp(rewriter, loc, "onnx.Add",
                      {scores, f32Constant(rewriter, loc, {rows}, *intercepts)},
                      scoresType);
}

/// LinearRegressor(X [N, C] or [C], one row): the linear scores
/// (post_transform NONE).
struct LinearRegressorLowering : ConversionPattern {
  LinearRegressorLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.LinearRegressor", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value x = operands[0];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!resultType || !xType || xType.getRank() < 1 || xType.getRank() > 2 ||
        !xType.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected features [N, C]");
    auto transform = op->getAttrOfType<StringAttr>("post_transform");
    if (transform && transform.getValue() != "NONE")
      return op->emitError() << "post_transform '" << transform.getValue()
                             << "' is not supported (only NONE)";
    if (xType.getRank() == 1)
      x = rewriter.create<tensor::ExpandShapeOp>(
          loc,
          RankedTensorType::get({1, xType.getDimSize(0)},
                                xType.getElementType()),
          x, SmallVector<ReassociationIndices>{{0, 1}});
    FailureOr<Value> scores = linearScores(rewriter, loc, op, x, resultType);
    if (failed(scores))
      return failure();
    rewriter.replaceOp(op, *scores);
    return success();
  }
};

/// LinearClassifier(X [N, F]) with one coefficient row per class label
/// (int labels): scores = X W^T + intercepts, then post_transform (NONE,
/// SOFTMAX or LOGISTIC), label = classlabels[argmax(scores)] (the first of
/// equal scores, as ONNX Runtime). Built from onnx ops the conversion
/// lowers next.
struct LinearClassifierLowering : ConversionPattern {
  LinearClassifierLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.LinearClassifier", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType labelType =
        convertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType scoreType =
        convertedResultType(*getTypeConverter(), op, 1);
    auto xType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!labelType || !scoreType || !xType || xType.getRank() != 2 ||
        !xType.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected features [N, F]");
    auto labels = op->getAttrOfType<ArrayAttr>("classlabels_ints");
    auto transform = op->getAttrOfType<StringAttr>("post_transform");
    StringRef post = transform ? transform.getValue() : "NONE";
    if (post != "NONE" && post != "SOFTMAX" && post != "LOGISTIC")
      return op->emitError() << "post_transform '" << post
                             << "' is not supported (NONE, SOFTMAX, LOGISTIC)";
    // One score row per label; a binary model's single row (scores -s, s)
    // is another layout.
    auto coefficients = op->getAttrOfType<ArrayAttr>("coefficients");
    if (!labels || !coefficients ||
        int64_t(coefficients.size()) !=
            int64_t(labels.size()) * xType.getDimSize(1))
      return op->emitError()
             << "supports one row of coefficients per int class label; a "
                "binary model with one row is not supported yet";
    int64_t classes = labels.size();
    FailureOr<Value> linear =
        linearScores(rewriter, loc, op, operands[0], scoreType);
    if (failed(linear))
      return failure();
    Value scores = *linear;
    if (post == "SOFTMAX")
      scores = createOnnxOp(
          rewriter, loc, "onnx.Softmax", scores, scoreType,
          {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(1))});
    else if (post == "LOGISTIC")
      scores = createOnnxOp(rewriter, loc, "onnx.Sigmoid", scores, scoreType);
    Value best = createOnnxOp(
        rewriter, loc, "onnx.ArgMax", scores, labelType,
        {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(1)),
         rewriter.getNamedAttr("keepdims", rewriter.getI64IntegerAttr(0))});
    SmallVector<int64_t> values;
    for (Attribute a : labels)
      values.push_back(llvm::cast<IntegerAttr>(a).getInt());
    Value table = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(
                 RankedTensorType::get({classes}, rewriter.getI64Type()),
                 ArrayRef<int64_t>(values)));
    Value label = createOnnxOp(
        rewriter, loc, "onnx.Gather", {table, best}, labelType,
        {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(0))});
    rewriter.replaceOp(op, {label, scores});
    return success();
  }
};

/// Normalizer(X [N, C]): each row divided by its max (MAX), the sum of its
/// absolute values (L1) or its Euclidean norm (L2), in f32. Built from onnx
/// ops the conversion lowers next.
struct NormalizerLowering : ConversionPattern {
  NormalizerLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.Normalizer", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    auto xType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!resultType || !xType || xType.getRank() != 2 ||
        !xType.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected [N, C] values");
    auto normAttr = op->getAttrOfType<StringAttr>("norm");
    StringRef norm = normAttr ? normAttr.getValue() : "MAX";
    if (norm != "MAX" && norm != "L1" && norm != "L2")
      return op->emitError() << "unknown norm '" << norm << "'";
    Value x = toF32(rewriter, loc, operands[0]);
    auto rowType =
        RankedTensorType::get({xType.getDimSize(0), 1}, rewriter.getF32Type());
    Value axes = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(
                 RankedTensorType::get({1}, rewriter.getI64Type()),
                 ArrayRef<int64_t>{1}));
    NamedAttribute keep =
        rewriter.getNamedAttr("keepdims", rewriter.getI64IntegerAttr(1));
    Value denominator;
    if (norm == "MAX") {
      denominator = createOnnxOp(rewriter, loc, "onnx.ReduceMax", {x, axes},
                                 rowType, {keep});
    } else if (norm == "L1") {
      Value magnitude = createOnnxOp(rewriter, loc, "onnx.Abs", x, resultType);
      denominator = createOnnxOp(rewriter, loc, "onnx.ReduceSum",
                                 {magnitude, axes}, rowType, {keep});
    } else {
      Value squares = createOnnxOp(rewriter, loc, "onnx.ReduceSumSquare",
                                   {x, axes}, rowType, {keep});
      denominator = createOnnxOp(rewriter, loc, "onnx.Sqrt", squares, rowType);
    }
    rewriter.replaceOp(op, createOnnxOp(rewriter, loc, "onnx.Div",
                                        {x, denominator}, resultType));
    return success();
  }
};

/// ArrayFeatureExtractor(data [..., F], indices): out[..., j] = data[...,
/// indices.flat[j]]; 1-D data is read as one row [1, F]. Negative indices
/// count from the end (as numpy indexing does); out-of-range ones are
/// clamped so that a bad index never reads outside the data.
struct ArrayFeatureExtractorLowering : ConversionPattern {
  ArrayFeatureExtractorLowering(const TypeConverter &converter,
                                MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.ArrayFeatureExtractor", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value data = operands[0], indices = operands[1];
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    if (!dataType || !indicesType ||
        !dataType.getElementType().isIntOrFloat() ||
        !llvm::isa<IntegerType>(indicesType.getElementType()))
      return rewriter.notifyMatchFailure(op, "expected numeric data and "
                                             "integer indices");
    int64_t dataRank = dataType.getRank();
    if (dataRank == 0 || resultType.getRank() != std::max<int64_t>(dataRank, 2))
      return op->emitError() << "expects data of rank >= 1 and a result of "
                                "its rank (2 for 1-D data), got "
                             << dataType << " -> " << resultType;

    // The indices as one flat list.
    OpBuilder &b = rewriter;
    auto flatType = RankedTensorType::get({indicesType.hasStaticShape()
                                               ? indicesType.getNumElements()
                                               : ShapedType::kDynamic},
                                          indicesType.getElementType());
    Value flat = indices;
    if (indicesType.getRank() == 0)
      flat = b.create<tensor::ExpandShapeOp>(loc, flatType, indices,
                                             ArrayRef<ReassociationIndices>{});
    else if (indicesType.getRank() > 1)
      flat = b.create<tensor::CollapseShapeOp>(
          loc, flatType, indices,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, indicesType.getRank()))});

    SmallVector<OpFoldResult> sizes;
    if (dataRank == 1)
      sizes.push_back(b.getIndexAttr(1));
    for (int64_t d = 0; d + 1 < dataRank; ++d)
      sizes.push_back(tensorSize(b, loc, data, d));
    sizes.push_back(tensorSize(b, loc, flat, 0));
    Value features = dimValue(b, loc, data, dataRank - 1);
    int64_t rank = resultType.getRank();
    Value result = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, resultType, sizes), flat,
        {AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1))},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
          Value index =
              nb.create<arith::IndexCastOp>(l, nb.getIndexType(), args[0]);
          index = clampIntoBounds(
              nb, l, wrapNegativeIndex(nb, l, index, features), features);
          SmallVector<Value> at;
          if (dataRank > 1)
            at.append(ivs.begin(), std::prev(ivs.end()));
          at.push_back(index);
          return nb.create<tensor::ExtractOp>(l, data, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateClassicMlPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  addElementwisePattern(typeConverter, patterns, binarizerSpec());
  patterns.add<ArrayFeatureExtractorLowering, LinearClassifierLowering,
               LinearRegressorLowering, NormalizerLowering, ScalerLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
