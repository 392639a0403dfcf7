//===- ClassicMl.cpp - Shape rules of ai.onnx.ml ops ----------------------===//
//
// Binarizer keeps its input's shape; Scaler too, in f32; ArrayFeatureExtractor
// replaces the last dim of its data by the number of indices; TreeEnsemble
// maps [N, F] features to [N, n_targets] of the features' type,
// TreeEnsembleRegressor and LinearRegressor to [N, targets] of f32, and the
// classifiers to int64 labels [N] and f32 scores [N, classes].
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

LogicalResult inferBinarizer(RuleContext &ctx) {
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  return success();
}

/// ArrayFeatureExtractor(data [..., F], indices): [..., numel(indices)]; 1-D
/// data gives [1, numel(indices)] (as ONNX Runtime does).
LogicalResult inferArrayFeatureExtractor(RuleContext &ctx) {
  ArrayRef<int64_t> data = ctx.getInputShape(0);
  if (data.empty())
    return ctx.emitError() << "expects data of rank >= 1, got "
                           << ctx.getInputType(0);
  RankedTensorType indices = ctx.getInputType(1);
  if (!llvm::isa<IntegerType>(indices.getElementType()))
    return ctx.emitError() << "expects integer indices, got " << indices;
  int64_t count = indices.hasStaticShape() ? indices.getNumElements()
                                           : ShapedType::kDynamic;
  SmallVector<int64_t> shape;
  if (data.size() == 1)
    shape.push_back(1);
  else
    shape.append(data.begin(), data.end() - 1);
  shape.push_back(count);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// TreeEnsemble(X [N, F]): [N, n_targets] (n_targets defaults to one more
/// than the largest leaf target id).
LogicalResult inferTreeEnsemble(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects 2-D features [N, F], got "
                           << ctx.getInputType(0);
  int64_t targets = ctx.getIntAttr("n_targets", -1);
  if (targets < 0) {
    std::optional<SmallVector<int64_t>> ids = ctx.getIntsAttr("leaf_targetids");
    if (!ids)
      return ctx.emitError() << "needs a 'leaf_targetids' attribute";
    targets = 0;
    for (int64_t id : *ids)
      targets = std::max(targets, id + 1);
  }
  ctx.setResult(0, ctx.getInputElementType(0),
                {ctx.getInputShape(0)[0], targets});
  return success();
}

/// TreeEnsembleRegressor(X [N, F]): [N, n_targets] f32.
LogicalResult inferTreeEnsembleRegressor(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects 2-D features [N, F], got "
                           << ctx.getInputType(0);
  int64_t targets = ctx.getIntAttr("n_targets", 1);
  if (targets < 1)
    return ctx.emitError() << "needs n_targets >= 1, got " << targets;
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()),
                {ctx.getInputShape(0)[0], targets});
  return success();
}

/// TreeEnsembleClassifier(X [N, F]): labels [N] int64, scores [N, classes]
/// f32. (String labels need string tensors, which onnxc does not have yet.)
LogicalResult inferTreeEnsembleClassifier(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects 2-D features [N, F], got "
                           << ctx.getInputType(0);
  std::optional<SmallVector<int64_t>> labels =
      ctx.getIntsAttr("classlabels_int64s");
  if (!labels)
    return ctx.emitError() << "needs classlabels_int64s (string labels are "
                              "not supported yet)";
  MLIRContext *mctx = ctx.getOp()->getContext();
  int64_t n = ctx.getInputShape(0)[0];
  ctx.setResult(0, IntegerType::get(mctx, 64), {n});
  ctx.setResult(1, Float32Type::get(mctx),
                {n, static_cast<int64_t>(labels->size())});
  return success();
}

/// SVMRegressor(X [N, F]): [N, 1] f32.
LogicalResult inferSvmRegressor(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects 2-D features [N, F], got "
                           << ctx.getInputType(0);
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()),
                {ctx.getInputShape(0)[0], 1});
  return success();
}

/// SVMClassifier(X [N, F]): labels [N] int64, scores [N, S] f32: S is the
/// number of classes, except for a libsvm model without probabilities,
/// whose scores are its one-vs-one decisions (C (C - 1) / 2 of them; 2 for
/// two classes), as in ONNX Runtime.
LogicalResult inferSvmClassifier(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects 2-D features [N, F], got "
                           << ctx.getInputType(0);
  std::optional<SmallVector<int64_t>> labels =
      ctx.getIntsAttr("classlabels_ints");
  if (!labels)
    return ctx.emitError() << "needs classlabels_ints (string labels are "
                              "not supported yet)";
  int64_t classes = labels->size(), columns = classes;
  std::optional<SmallVector<int64_t>> perClass =
      ctx.getIntsAttr("vectors_per_class");
  bool libsvm =
      perClass && llvm::any_of(*perClass, [](int64_t n) { return n > 0; });
  auto probabilities = ctx.getOp()->getAttrOfType<ArrayAttr>("prob_a");
  if (libsvm && (!probabilities || probabilities.empty()))
    columns = classes > 2 ? classes * (classes - 1) / 2 : 2;
  MLIRContext *mctx = ctx.getOp()->getContext();
  int64_t n = ctx.getInputShape(0)[0];
  ctx.setResult(0, IntegerType::get(mctx, 64), {n});
  ctx.setResult(1, Float32Type::get(mctx), {n, columns});
  return success();
}

/// OneHotEncoder(X [...]): [..., categories] f32.
LogicalResult inferOneHotEncoder(RuleContext &ctx) {
  std::optional<SmallVector<int64_t>> cats = ctx.getIntsAttr("cats_int64s");
  if (!cats)
    return ctx.emitError() << "needs cats_int64s (string categories are not "
                              "supported yet)";
  SmallVector<int64_t> shape(ctx.getInputShape(0));
  shape.push_back(static_cast<int64_t>(cats->size()));
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()), shape);
  return success();
}

LogicalResult inferScaler(RuleContext &ctx) {
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()),
                ctx.getInputShape(0));
  return success();
}

/// LinearRegressor(X [N, C] or [C]): [N, targets] ([1, targets]), f32.
LogicalResult inferLinearRegressor(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.empty() || x.size() > 2)
    return ctx.emitError() << "expects features [N, C] or [C], got "
                           << ctx.getInputType(0);
  int64_t targets = ctx.getIntAttr("targets", 1);
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()),
                {x.size() == 2 ? x[0] : 1, targets});
  return success();
}

/// LinearClassifier(X [N, C]): labels [N] int64, scores [N, classes] f32.
/// (String labels need string tensors, which onnxc does not have yet.)
LogicalResult inferLinearClassifier(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() != 2)
    return ctx.emitError() << "expects features [N, C], got "
                           << ctx.getInputType(0);
  MLIRContext *mctx = ctx.getOp()->getContext();
  auto ints = ctx.getOp()->getAttrOfType<ArrayAttr>("classlabels_ints");
  if (!ints)
    return ctx.emitError() << "needs classlabels_ints (string labels are "
                              "not supported yet)";
  ctx.setResult(0, IntegerType::get(mctx, 64), {x[0]});
  ctx.setResult(1, Float32Type::get(mctx),
                {x[0], static_cast<int64_t>(ints.size())});
  return success();
}

LogicalResult inferNormalizer(RuleContext &ctx) {
  ctx.setResult(0, Float32Type::get(ctx.getOp()->getContext()),
                ctx.getInputShape(0));
  return success();
}

} // namespace

void addClassicMlRules(RuleTable &rules) {
  rules.add("ml.LinearClassifier", inferLinearClassifier);
  rules.add("ml.Normalizer", inferNormalizer);
  rules.add("ml.Scaler", inferScaler);
  rules.add("ml.LinearRegressor", inferLinearRegressor);
  rules.add("ml.Binarizer", inferBinarizer);
  rules.add("ml.Imputer", inferBinarizer); // the input's type and shape
  rules.add("ml.OneHotEncoder", inferOneHotEncoder);
  rules.add("ml.ArrayFeatureExtractor", inferArrayFeatureExtractor);
  rules.add("ml.TreeEnsemble", inferTreeEnsemble);
  rules.add("ml.TreeEnsembleClassifier", inferTreeEnsembleClassifier);
  rules.add("ml.TreeEnsembleRegressor", inferTreeEnsembleRegressor);
  rules.add("ml.SVMClassifier", inferSvmClassifier);
  rules.add("ml.SVMRegressor", inferSvmRegressor);
}

} // namespace onnxc::shape
