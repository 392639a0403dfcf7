//===- ClassicMl.cpp - ai.onnx.ml Binarizer, ArrayFeatureExtractor, trees -===//
//
// Binarizer is elementwise, and Scaler ((x - offset) * scale per feature, in
// f32). LinearRegressor, LinearClassifier and Normalizer become the onnx ops
// they are made of (MatMul + Add, then Softmax/Sigmoid, ArgMax and a Gather of
// the labels; row reductions and a Div), which the conversion lowers next.
// ArrayFeatureExtractor gathers along the last dim.
// TreeEnsemble's trees are attributes, so they become constant tables: one
// linalg.generic walks every (sample, tree) pair from its root to a leaf (a
// bounded loop: the longest root-to-leaf path is known at compile time, which
// also rejects cyclic trees), a second one aggregates the leaves' weights
// into their targets, tree by tree in order, in the features' type, and a
// third one applies post_transform when there is one.
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

enum NodeMode : int64_t {
  kLeq = 0,
  kLt = 1,
  kGte = 2,
  kGt = 3,
  kEq = 4,
  kNeq = 5,
  kMember = 6
};
enum Aggregate : int64_t { kAverage = 0, kSum = 1, kMin = 2, kMax = 3 };
enum PostTransform : int64_t { kNone = 0, kSoftmax = 1, kLogistic = 2 };

/// Columns of the per-node integer table.
enum NodeColumn : int64_t {
  kFeature,
  kMode,
  kTrueId,
  kFalseId,
  kTrueIsLeaf,
  kFalseIsLeaf,
  kMissingTrue,
  kMemberBegin,
  kMemberEnd,
  kNumColumns
};

/// The ensemble's attributes, checked and flattened into tables.
struct Ensemble {
  int64_t numNodes = 0, numLeaves = 0, numTargets = 0;
  SmallVector<int64_t> nodeTable; // numNodes x kNumColumns
  SmallVector<double> splits, members, leafWeights;
  SmallVector<int64_t> leafTargets;
  /// Per tree: where the walk starts and whether that is already a leaf.
  SmallVector<int64_t> startIds, startIsLeaf;
  /// The most comparisons on any root-to-leaf path.
  int64_t maxDepth = 0;
  int64_t aggregate = kSum;
};

std::optional<SmallVector<int64_t>> intsAttr(Operation *op, StringRef name) {
  auto array = op->getAttrOfType<ArrayAttr>(name);
  if (!array)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute a : array) {
    auto i = llvm::dyn_cast<IntegerAttr>(a);
    if (!i)
      return std::nullopt;
    values.push_back(i.getInt());
  }
  return values;
}

std::optional<SmallVector<double>> floatsTensorAttr(Operation *op,
                                                    StringRef name) {
  auto dense = op->getAttrOfType<DenseElementsAttr>(name);
  if (!dense || !llvm::isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  SmallVector<double> values;
  for (APFloat v : dense.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(v.convertToDouble());
  }
  return values;
}

std::optional<SmallVector<int64_t>> intsTensorAttr(Operation *op,
                                                   StringRef name) {
  auto dense = op->getAttrOfType<DenseElementsAttr>(name);
  if (!dense || !llvm::isa<IntegerType>(dense.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(dense.getElementType().isUnsignedInteger()
                         ? static_cast<int64_t>(v.getZExtValue())
                         : v.getSExtValue());
  return values;
}

/// Reads and checks TreeEnsemble's attributes; emits an error naming the
/// node on bad ones. `numFeatures` is the static feature count or dynamic.
FailureOr<Ensemble> readEnsemble(Operation *op, int64_t numFeatures) {
  Ensemble e;
  auto featureIds = intsAttr(op, "nodes_featureids");
  auto trueIds = intsAttr(op, "nodes_truenodeids");
  auto falseIds = intsAttr(op, "nodes_falsenodeids");
  auto trueLeafs = intsAttr(op, "nodes_trueleafs");
  auto falseLeafs = intsAttr(op, "nodes_falseleafs");
  auto modes = intsTensorAttr(op, "nodes_modes");
  auto splits = floatsTensorAttr(op, "nodes_splits");
  auto leafTargets = intsAttr(op, "leaf_targetids");
  auto leafWeights = floatsTensorAttr(op, "leaf_weights");
  auto roots = intsAttr(op, "tree_roots");
  if (!featureIds || !trueIds || !falseIds || !trueLeafs || !falseLeafs ||
      !modes || !splits || !leafTargets || !leafWeights || !roots)
    return op->emitError() << "has a missing or malformed nodes_*, leaf_* or "
                              "tree_roots attribute";
  e.numNodes = featureIds->size();
  SmallVector<int64_t> missing(e.numNodes, 0);
  if (auto tracks = intsAttr(op, "nodes_missing_value_tracks_true"))
    missing = *tracks;
  for (size_t size :
       {trueIds->size(), falseIds->size(), trueLeafs->size(),
        falseLeafs->size(), modes->size(), splits->size(), missing.size()})
    if (static_cast<int64_t>(size) != e.numNodes)
      return op->emitError() << "nodes_* attributes differ in length";
  e.numLeaves = leafTargets->size();
  if (static_cast<int64_t>(leafWeights->size()) != e.numLeaves)
    return op->emitError() << "leaf_targetids and leaf_weights differ in "
                              "length";
  e.leafTargets = *leafTargets;
  e.leafWeights = *leafWeights;
  e.splits = *splits;
  e.numTargets = 0;
  for (int64_t t : e.leafTargets)
    e.numTargets = std::max(e.numTargets, t + 1);
  if (auto n = op->getAttrOfType<IntegerAttr>("n_targets"))
    e.numTargets = n.getInt();
  for (int64_t t : e.leafTargets)
    if (t < 0 || t >= e.numTargets)
      return op->emitError() << "leaf target id " << t << " is out of range";
  if (auto agg = op->getAttrOfType<IntegerAttr>("aggregate_function"))
    e.aggregate = agg.getInt();
  if (e.aggregate < kAverage || e.aggregate > kMax)
    return op->emitError() << "unknown aggregate_function " << e.aggregate;

  // Set members, NaN-delimited, in the order the member nodes appear.
  SmallVector<double> memberValues;
  if (auto values = floatsTensorAttr(op, "membership_values"))
    memberValues = *values;
  size_t cursor = 0;
  e.nodeTable.assign(e.numNodes * kNumColumns, 0);
  for (int64_t i = 0; i < e.numNodes; ++i) {
    int64_t *row = &e.nodeTable[i * kNumColumns];
    int64_t mode = (*modes)[i];
    if (mode < kLeq || mode > kMember)
      return op->emitError() << "node " << i << " has unknown mode " << mode;
    row[kFeature] = (*featureIds)[i];
    row[kMode] = mode;
    row[kTrueId] = (*trueIds)[i];
    row[kFalseId] = (*falseIds)[i];
    row[kTrueIsLeaf] = (*trueLeafs)[i] != 0;
    row[kFalseIsLeaf] = (*falseLeafs)[i] != 0;
    row[kMissingTrue] = missing[i] != 0;
    row[kMemberBegin] = row[kMemberEnd] = e.members.size();
    if (mode != kMember)
      continue;
    for (; cursor < memberValues.size() && !std::isnan(memberValues[cursor]);
         ++cursor)
      e.members.push_back(memberValues[cursor]);
    if (cursor == memberValues.size())
      return op->emitError() << "membership_values has no set for member "
                                "node "
                             << i;
    ++cursor; // The NaN delimiter.
    row[kMemberEnd] = e.members.size();
  }

  // Walk every tree once: ids in range, no cycles, the longest path.
  for (int64_t root : *roots) {
    if (root < 0 || root >= e.numNodes)
      return op->emitError() << "tree root " << root << " is out of range";
    const int64_t *rootRow = &e.nodeTable[root * kNumColumns];
    // A root whose branches are one leaf is that leaf (the root's index).
    if (rootRow[kTrueIsLeaf] && rootRow[kFalseIsLeaf] &&
        rootRow[kTrueId] == rootRow[kFalseId]) {
      if (root >= e.numLeaves)
        return op->emitError() << "leaf " << root << " is out of range";
      e.startIds.push_back(root);
      e.startIsLeaf.push_back(1);
      continue;
    }
    e.startIds.push_back(root);
    e.startIsLeaf.push_back(0);
    // (node, depth) pairs still to visit.
    SmallVector<std::pair<int64_t, int64_t>> stack{{root, 1}};
    while (!stack.empty()) {
      auto [node, depth] = stack.pop_back_val();
      if (depth > e.numNodes)
        return op->emitError() << "the tree at root " << root << " has a cycle";
      e.maxDepth = std::max(e.maxDepth, depth);
      const int64_t *row = &e.nodeTable[node * kNumColumns];
      if (row[kFeature] < 0 ||
          (!ShapedType::isDynamic(numFeatures) && row[kFeature] >= numFeatures))
        return op->emitError() << "node " << node << " reads feature "
                               << row[kFeature] << " which is out of range";
      for (auto [id, isLeaf] : {std::pair(row[kTrueId], row[kTrueIsLeaf]),
                                std::pair(row[kFalseId], row[kFalseIsLeaf])}) {
        if (id < 0 || id >= (isLeaf ? e.numLeaves : e.numNodes))
          return op->emitError() << "node " << node << " branches to "
                                 << (isLeaf ? "leaf " : "node ") << id
                                 << " which is out of range";
        if (!isLeaf)
          stack.push_back({id, depth + 1});
      }
    }
  }
  if (e.startIds.empty())
    return op->emitError() << "has no trees";
  return e;
}

/// A constant 1-D or 2-D tensor of `values`.
Value i64Table(OpBuilder &b, Location loc, ArrayRef<int64_t> values,
               ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, values));
}

Value floatTable(OpBuilder &b, Location loc, ArrayRef<double> values,
                 FloatType element) {
  auto type =
      RankedTensorType::get({static_cast<int64_t>(values.size())}, element);
  SmallVector<APFloat> converted;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    converted.push_back(f);
  }
  return b.create<arith::ConstantOp>(loc,
                                     DenseElementsAttr::get(type, converted));
}

/// The scores `scores` [N, targets] after post_transform: LOGISTIC is
/// 1 / (1 + exp(-s)) per score, SOFTMAX a softmax over each row's targets
/// (few: each element reads its row).
Value buildPostTransform(OpBuilder &b, Location loc, Value scores,
                         ArrayRef<OpFoldResult> sizes, int64_t transform,
                         int64_t numTargets) {
  auto type = llvm::cast<RankedTensorType>(scores.getType());
  Type element = type.getElementType();
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, type, sizes), scores,
      {b.getMultiDimIdentityMap(2)},
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) -> Value {
        Value one = scalarConst(nb, l, element, 1.0);
        if (transform == kLogistic)
          return nb.create<arith::DivFOp>(
              l, one,
              nb.create<arith::AddFOp>(
                  l, one,
                  nb.create<math::ExpOp>(
                      l, nb.create<arith::NegFOp>(l, args[0]))));
        auto overRow =
            [&](Value init,
                llvm::function_ref<Value(OpBuilder &, Location, Value, Value)>
                    step) {
              return nb
                  .create<scf::ForOp>(
                      l, indexConst(nb, l, 0), indexConst(nb, l, numTargets),
                      indexConst(nb, l, 1), ValueRange{init},
                      [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                        Value v = fb.create<tensor::ExtractOp>(
                            fl, scores, ValueRange{ivs[0], j});
                        fb.create<scf::YieldOp>(fl, step(fb, fl, v, acc[0]));
                      })
                  .getResult(0);
            };
        Value rowMax = overRow(
            args[0], [](OpBuilder &fb, Location fl, Value v, Value acc) {
              return fb.create<arith::MaximumFOp>(fl, v, acc).getResult();
            });
        Value sum =
            overRow(scalarConst(nb, l, element, 0.0),
                    [&](OpBuilder &fb, Location fl, Value v, Value acc) {
                      Value e = fb.create<math::ExpOp>(
                          fl, fb.create<arith::SubFOp>(fl, v, rowMax));
                      return fb.create<arith::AddFOp>(fl, acc, e).getResult();
                    });
        Value e = nb.create<math::ExpOp>(
            l, nb.create<arith::SubFOp>(l, args[0], rowMax));
        return nb.create<arith::DivFOp>(l, e, sum);
      });
}

/// TreeEnsemble(X [N, F]) -> [N, n_targets]: every tree routes each sample
/// to one leaf; the leaf adds (sum, average) or compares (min, max) its
/// weight into its target, then post_transform applies (NONE, SOFTMAX,
/// LOGISTIC; not SOFTMAX_ZERO or PROBIT).
struct TreeEnsembleLowering : ConversionPattern {
  TreeEnsembleLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.TreeEnsemble", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value features = operands[0];
    auto featuresType = llvm::dyn_cast<RankedTensorType>(features.getType());
    if (!featuresType || featuresType.getRank() != 2 ||
        !llvm::isa<FloatType>(featuresType.getElementType()) ||
        resultType.getElementType() != featuresType.getElementType())
      return rewriter.notifyMatchFailure(op, "expected float features [N, F]");
    int64_t postTransform = 0;
    if (auto post = op->getAttrOfType<IntegerAttr>("post_transform"))
      postTransform = post.getInt();
    if (postTransform != kNone && postTransform != kSoftmax &&
        postTransform != kLogistic)
      return rewriter.notifyMatchFailure(
          op, "only post_transform NONE, SOFTMAX and LOGISTIC are supported");
    FailureOr<Ensemble> ensemble = readEnsemble(op, featuresType.getDimSize(1));
    if (failed(ensemble))
      return failure();
    const Ensemble &e = *ensemble;
    if (resultType.getRank() != 2 || (!resultType.isDynamicDim(1) &&
                                      resultType.getDimSize(1) != e.numTargets))
      return op->emitError() << "result type " << resultType
                             << " does not have " << e.numTargets << " targets";

    OpBuilder &b = rewriter;
    Type element = featuresType.getElementType();
    auto accElement = llvm::cast<FloatType>(computeType(element));
    Type f64 = b.getF64Type(), i64 = b.getI64Type();
    int64_t numTrees = e.startIds.size();
    Value nodeTable = i64Table(b, loc, e.nodeTable, {e.numNodes, kNumColumns});
    Value splits = floatTable(b, loc, e.splits, b.getF64Type());
    Value members = e.members.empty()
                        ? Value()
                        : floatTable(b, loc, e.members, b.getF64Type());
    Value starts = i64Table(b, loc, e.startIds, {numTrees});
    Value startLeafs = i64Table(b, loc, e.startIsLeaf, {numTrees});
    Value leafTargets = i64Table(b, loc, e.leafTargets, {e.numLeaves});
    Value leafWeights = floatTable(b, loc, e.leafWeights, accElement);
    bool anyMissing =
        llvm::any_of(llvm::seq<int64_t>(0, e.numNodes), [&](int64_t i) {
          return e.nodeTable[i * kNumColumns + kMissingTrue] != 0;
        });
    Value numFeatures = dimValue(b, loc, features, 1);
    OpFoldResult batch = tensorSize(b, loc, features, 0);

    // 1. The leaf each (sample, tree) reaches.
    auto leafType =
        RankedTensorType::get({featuresType.getDimSize(0), numTrees}, i64);
    Value leaves = buildIndexedGeneric(
        b, loc,
        emptyTensor(b, loc, leafType, {batch, b.getIndexAttr(numTrees)}), {},
        {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
          auto column = [&](Value row, int64_t c) -> Value {
            return nb.create<tensor::ExtractOp>(
                l, nodeTable, ValueRange{row, indexConst(nb, l, c)});
          };
          auto asIndex = [&](Value v) -> Value {
            return nb.create<arith::IndexCastOp>(l, nb.getIndexType(), v);
          };
          auto isSet = [&](Value v) -> Value {
            return nb.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::ne, v,
                nb.create<arith::ConstantIntOp>(l, 0, 64));
          };
          Value start = nb.create<tensor::ExtractOp>(l, starts, ivs[1]);
          Value startLeaf =
              isSet(nb.create<tensor::ExtractOp>(l, startLeafs, ivs[1]));
          auto walk = nb.create<scf::ForOp>(
              l, indexConst(nb, l, 0), indexConst(nb, l, e.maxDepth),
              indexConst(nb, l, 1), ValueRange{start, startLeaf},
              [&](OpBuilder &fb, Location fl, Value, ValueRange state) {
                Value id = state[0], atLeaf = state[1];
                // A leaf id is no node id: read node 0 instead (unused).
                Value node = asIndex(fb.create<arith::SelectOp>(
                    fl, atLeaf, fb.create<arith::ConstantIntOp>(fl, 0, 64),
                    id));
                Value feature = clampIntoBounds(
                    fb, fl, asIndex(column(node, kFeature)), numFeatures);
                Value x =
                    castScalar(fb, fl,
                               fb.create<tensor::ExtractOp>(
                                   fl, features, ValueRange{ivs[0], feature}),
                               element, f64);
                Value split = fb.create<tensor::ExtractOp>(fl, splits, node);
                Value mode = column(node, kMode);
                auto cmp = [&](arith::CmpFPredicate p, Value rhs) -> Value {
                  return fb.create<arith::CmpFOp>(fl, p, x, rhs);
                };
                // NaN compares false except for "not equal" (as in C).
                std::pair<int64_t, Value> tests[] = {
                    {kLeq, cmp(arith::CmpFPredicate::OLE, split)},
                    {kLt, cmp(arith::CmpFPredicate::OLT, split)},
                    {kGte, cmp(arith::CmpFPredicate::OGE, split)},
                    {kGt, cmp(arith::CmpFPredicate::OGT, split)},
                    {kEq, cmp(arith::CmpFPredicate::OEQ, split)},
                    {kNeq, cmp(arith::CmpFPredicate::UNE, split)}};
                Value taken = fb.create<arith::ConstantIntOp>(fl, 0, 1);
                for (auto [m, test] : tests) {
                  Value isMode = fb.create<arith::CmpIOp>(
                      fl, arith::CmpIPredicate::eq, mode,
                      fb.create<arith::ConstantIntOp>(fl, m, 64));
                  taken = fb.create<arith::SelectOp>(fl, isMode, test, taken);
                }
                if (members) {
                  // Member nodes own members[begin, end); others none.
                  auto scan = fb.create<scf::ForOp>(
                      fl, asIndex(column(node, kMemberBegin)),
                      asIndex(column(node, kMemberEnd)), indexConst(fb, fl, 1),
                      ValueRange{fb.create<arith::ConstantIntOp>(fl, 0, 1)},
                      [&](OpBuilder &sb, Location sl, Value j,
                          ValueRange found) {
                        Value member =
                            sb.create<tensor::ExtractOp>(sl, members, j);
                        Value equal = sb.create<arith::CmpFOp>(
                            sl, arith::CmpFPredicate::OEQ, x, member);
                        sb.create<scf::YieldOp>(
                            sl, ValueRange{sb.create<arith::OrIOp>(sl, found[0],
                                                                   equal)});
                      });
                  taken = fb.create<arith::OrIOp>(fl, taken, scan.getResult(0));
                }
                if (anyMissing) {
                  Value isNaN = fb.create<arith::CmpFOp>(
                      fl, arith::CmpFPredicate::UNO, x, x);
                  taken = fb.create<arith::OrIOp>(
                      fl, taken,
                      fb.create<arith::AndIOp>(
                          fl, isNaN, isSet(column(node, kMissingTrue))));
                }
                Value next = fb.create<arith::SelectOp>(
                    fl, taken, column(node, kTrueId), column(node, kFalseId));
                Value nextIsLeaf = isSet(fb.create<arith::SelectOp>(
                    fl, taken, column(node, kTrueIsLeaf),
                    column(node, kFalseIsLeaf)));
                fb.create<scf::YieldOp>(
                    fl, ValueRange{
                            fb.create<arith::SelectOp>(fl, atLeaf, id, next),
                            fb.create<arith::OrIOp>(fl, atLeaf, nextIsLeaf)});
              });
          return walk.getResult(0);
        });

    // 2. Each target combines the weights of the leaves that name it.
    auto accType = RankedTensorType::get(resultType.getShape(), accElement);
    SmallVector<OpFoldResult> sizes{batch, b.getIndexAttr(e.numTargets)};
    double initValue = 0.0;
    if (e.aggregate == kMin)
      initValue =
          APFloat::getLargest(accElement.getFloatSemantics()).convertToDouble();
    else if (e.aggregate == kMax)
      initValue = APFloat::getLargest(accElement.getFloatSemantics(), true)
                      .convertToDouble();
    Value init = b.create<linalg::FillOp>(
                      loc, scalarConst(b, loc, accElement, initValue),
                      emptyTensor(b, loc, accType, sizes))
                     .getResult(0);
    MLIRContext *ctx = b.getContext();
    AffineExpr n = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx),
               t = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps{AffineMap::get(3, 0, {n, t}, ctx),
                                AffineMap::get(3, 0, {n, j}, ctx)};
    SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel,
                                               utils::IteratorType::parallel,
                                               utils::IteratorType::reduction};
    int64_t aggregate = e.aggregate;
    auto combine = b.create<linalg::GenericOp>(
        loc, accType, ValueRange{leaves}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value leaf =
              nb.create<arith::IndexCastOp>(l, nb.getIndexType(), args[0]);
          Value target = nb.create<arith::IndexCastOp>(
              l, nb.getIndexType(),
              nb.create<tensor::ExtractOp>(l, leafTargets, leaf));
          Value matches =
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, target,
                                       nb.create<linalg::IndexOp>(l, 1));
          Value weight = nb.create<tensor::ExtractOp>(l, leafWeights, leaf);
          Value acc = args[1];
          Value updated;
          switch (aggregate) {
          case kAverage:
            weight = nb.create<arith::DivFOp>(
                l, weight,
                scalarConst(nb, l, accElement, static_cast<double>(numTrees)));
            [[fallthrough]];
          case kSum:
            updated = nb.create<arith::AddFOp>(l, acc, weight);
            break;
          case kMin:
            updated = nb.create<arith::SelectOp>(
                l,
                nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, weight,
                                         acc),
                weight, acc);
            break;
          default:
            updated = nb.create<arith::SelectOp>(
                l,
                nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, weight,
                                         acc),
                weight, acc);
            break;
          }
          nb.create<linalg::YieldOp>(l, ValueRange{nb.create<arith::SelectOp>(
                                            l, matches, updated, acc)});
        });
    Value result = combine.getResult(0);
    if (postTransform != kNone)
      result = buildPostTransform(b, loc, result, sizes, postTransform,
                                  e.numTargets);
    if (accElement != element)
      result = buildParallelGeneric(
          b, loc, resultType, sizes, result, {b.getMultiDimIdentityMap(2)},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            return demoteTo(nb, l, args[0], element);
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
               LinearRegressorLowering, NormalizerLowering, ScalerLowering,
               TreeEnsembleLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
