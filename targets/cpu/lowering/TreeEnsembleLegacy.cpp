//===- TreeEnsembleLegacy.cpp - ai.onnx.ml TreeEnsembleRegressor/Classifier
//===//
//
// The tree ops every converter writes (skl2onnx for scikit-learn's trees,
// forests and boosting; onnxmltools for LightGBM and XGBoost). Their nodes
// are (tree id, node id) pairs with string modes, LEAF nodes among them, and
// a leaf may vote for several targets (the target_* / class_* tuples). They
// are read into TreeTables, walked and aggregated as TreeEnsemble-5 is, and
// finished as ONNX Runtime's kernels finish them where the spec is silent:
// base values, a one-target regressor (only PROBIT would apply), and the
// two-class classifier's label and probability columns.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/MlScores.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/TreeTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;

namespace onnxc::cpu {
namespace {

using namespace trees;
using namespace ml;

enum class LegacyAggregate { kSum, kAverage, kMin, kMax };

/// Reads the nodes_* tuples and the `votes` (`target` or `class`) tuples
/// into tables; emits an error naming the node on bad ones.
FailureOr<TreeTables> readLegacyTrees(Operation *op, StringRef votes,
                                      int64_t numTargets, int64_t numFeatures) {
  auto treeIds = intsAttr(op, "nodes_treeids");
  auto nodeIds = intsAttr(op, "nodes_nodeids");
  auto featureIds = intsAttr(op, "nodes_featureids");
  auto trueIds = intsAttr(op, "nodes_truenodeids");
  auto falseIds = intsAttr(op, "nodes_falsenodeids");
  auto modes = op->getAttrOfType<ArrayAttr>("nodes_modes");
  SmallVector<double> splits =
      firstDoubles(op, {"nodes_values_as_tensor", "nodes_values"});
  std::string prefix = votes.str() + "_";
  auto voteTrees = intsAttr(op, prefix + "treeids");
  auto voteNodes = intsAttr(op, prefix + "nodeids");
  auto voteIds = intsAttr(op, prefix + "ids");
  SmallVector<double> voteWeights =
      firstDoubles(op, {prefix + "weights_as_tensor", prefix + "weights"});
  if (!treeIds || !nodeIds || !featureIds || !trueIds || !falseIds || !modes ||
      !voteTrees || !voteNodes || !voteIds)
    return op->emitError() << "has a missing or malformed nodes_* or " << prefix
                           << "* attribute";
  size_t n = treeIds->size();
  SmallVector<int64_t> missing(n, 0);
  if (auto tracks = intsAttr(op, "nodes_missing_value_tracks_true"))
    missing = *tracks;
  for (size_t size :
       {nodeIds->size(), featureIds->size(), trueIds->size(), falseIds->size(),
        size_t(modes.size()), splits.size(), missing.size()})
    if (size != n)
      return op->emitError() << "nodes_* attributes differ in length";
  size_t numVotes = voteTrees->size();
  if (voteNodes->size() != numVotes || voteIds->size() != numVotes ||
      voteWeights.size() != numVotes)
    return op->emitError() << prefix << "* attributes differ in length";

  TreeTables t;
  t.numTargets = numTargets;
  // Each node's position in the attributes, and its row among the branch
  // nodes or the leaves.
  llvm::DenseMap<std::pair<int64_t, int64_t>, size_t> position;
  SmallVector<int64_t> row(n), mode(n);
  SmallVector<bool> isLeaf(n);
  for (size_t i = 0; i < n; ++i) {
    auto name = llvm::dyn_cast<StringAttr>(modes[i]);
    std::optional<int64_t> m =
        llvm::StringSwitch<std::optional<int64_t>>(name ? name.getValue() : "")
            .Case("BRANCH_LEQ", kLeq)
            .Case("BRANCH_LT", kLt)
            .Case("BRANCH_GTE", kGte)
            .Case("BRANCH_GT", kGt)
            .Case("BRANCH_EQ", kEq)
            .Case("BRANCH_NEQ", kNeq)
            .Case("LEAF", -1)
            .Default(std::nullopt);
    if (!m)
      return op->emitError() << "node " << (*nodeIds)[i] << " of tree "
                             << (*treeIds)[i] << " has an unknown mode";
    if (!position.try_emplace({(*treeIds)[i], (*nodeIds)[i]}, i).second)
      return op->emitError() << "node " << (*nodeIds)[i] << " of tree "
                             << (*treeIds)[i] << " appears twice";
    mode[i] = *m;
    isLeaf[i] = *m < 0;
    row[i] = isLeaf[i] ? t.numLeaves++ : t.numNodes++;
  }

  t.nodeTable.assign(t.numNodes * kNumColumns, 0);
  t.splits.assign(t.numNodes, 0.0);
  llvm::DenseSet<size_t> children;
  for (size_t i = 0; i < n; ++i) {
    if (isLeaf[i])
      continue;
    int64_t *r = &t.nodeTable[row[i] * kNumColumns];
    r[kFeature] = (*featureIds)[i];
    r[kMode] = mode[i];
    r[kMissingTrue] = missing[i] != 0;
    t.splits[row[i]] = splits[i];
    for (auto [child, idColumn, leafColumn] :
         {std::tuple((*trueIds)[i], kTrueId, kTrueIsLeaf),
          std::tuple((*falseIds)[i], kFalseId, kFalseIsLeaf)}) {
      auto it = position.find({(*treeIds)[i], child});
      if (it == position.end())
        return op->emitError()
               << "node " << (*nodeIds)[i] << " of tree " << (*treeIds)[i]
               << " branches to node " << child << ", which the tree lacks";
      r[idColumn] = row[it->second];
      r[leafColumn] = isLeaf[it->second];
      children.insert(it->second);
    }
  }

  // Trees in the order their ids first appear; a root is the one node of a
  // tree no node branches to.
  SmallVector<int64_t> treeOrder;
  llvm::DenseMap<int64_t, int64_t> rootOf;
  for (size_t i = 0; i < n; ++i) {
    int64_t tree = (*treeIds)[i];
    if (rootOf.try_emplace(tree, -1).second)
      treeOrder.push_back(tree);
    if (children.contains(i))
      continue;
    if (rootOf[tree] >= 0)
      return op->emitError()
             << "tree " << tree << " has two roots (nodes "
             << (*nodeIds)[rootOf[tree]] << " and " << (*nodeIds)[i] << ")";
    rootOf[tree] = i;
  }
  for (int64_t tree : treeOrder) {
    if (rootOf[tree] < 0)
      return op->emitError() << "tree " << tree << " has no root (a cycle)";
    t.startIds.push_back(row[rootOf[tree]]);
    t.startIsLeaf.push_back(isLeaf[rootOf[tree]]);
  }

  // The votes of each leaf, in the attributes' order.
  SmallVector<SmallVector<size_t>> leafVotes(t.numLeaves);
  for (size_t k = 0; k < numVotes; ++k) {
    auto it = position.find({(*voteTrees)[k], (*voteNodes)[k]});
    if (it == position.end() || !isLeaf[it->second])
      return op->emitError()
             << prefix << "weights[" << k << "] is for node " << (*voteNodes)[k]
             << " of tree " << (*voteTrees)[k] << ", which is not a leaf";
    leafVotes[row[it->second]].push_back(k);
  }
  for (const SmallVector<size_t> &leaf : leafVotes) {
    t.leafBegin.push_back(t.entryTargets.size());
    for (size_t k : leaf) {
      t.entryTargets.push_back((*voteIds)[k]);
      t.entryWeights.push_back(voteWeights[k]);
    }
  }
  t.leafBegin.push_back(t.entryTargets.size());
  if (failed(finishTables(op, t, numFeatures)))
    return failure();
  return t;
}

/// The features as the walk takes them: [N, F] numbers; the type the trees'
/// values are summed in (f64 for f64 features, as ONNX Runtime; else f32).
FailureOr<FloatType> accumulationType(Operation *op, Value features) {
  auto type = llvm::dyn_cast<RankedTensorType>(features.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isIntOrFloat())
    return op->emitError() << "expects numeric features [N, F], got "
                           << features.getType();
  Builder b(op->getContext());
  return type.getElementType().isF64() ? b.getF64Type() : b.getF32Type();
}

/// Element [n, j] of a 2-D tensor.
Value at2(OpBuilder &b, Location loc, Value tensor, Value n, int64_t j) {
  return b.create<tensor::ExtractOp>(loc, tensor,
                                     ValueRange{n, indexConst(b, loc, j)});
}

Value isSet(OpBuilder &b, Location loc, Value i8) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, i8,
                                 b.create<arith::ConstantIntOp>(loc, 0, 8));
}

/// TreeEnsembleRegressor(X [N, F]) -> [N, n_targets] f32: the targets'
/// votes summed (SUM, AVERAGE) or compared (MIN, MAX) over the trees, plus
/// base_values, then post_transform. As in ONNX Runtime: one target adds a
/// single base value and takes no transform, and MIN/MAX of it with no vote
/// is the base value; with more targets, one no leaf voted for is 0.
struct TreeEnsembleRegressorLowering : ConversionPattern {
  TreeEnsembleRegressorLowering(const TypeConverter &converter,
                                MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.TreeEnsembleRegressor", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType || resultType.getRank() != 2 ||
        !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "expected an f32 [N, T] result");
    Value features = operands[0];
    FailureOr<FloatType> acc = accumulationType(op, features);
    FailureOr<Transform> transform = readTransform(op);
    if (failed(acc) || failed(transform))
      return failure();
    std::optional<LegacyAggregate> aggregate =
        llvm::StringSwitch<std::optional<LegacyAggregate>>(
            stringAttr(op, "aggregate_function", "SUM"))
            .Case("SUM", LegacyAggregate::kSum)
            .Case("AVERAGE", LegacyAggregate::kAverage)
            .Case("MIN", LegacyAggregate::kMin)
            .Case("MAX", LegacyAggregate::kMax)
            .Default(std::nullopt);
    if (!aggregate)
      return op->emitError() << "unknown aggregate_function";
    int64_t targets = 1;
    if (auto attr = op->getAttrOfType<IntegerAttr>("n_targets"))
      targets = attr.getInt();
    if (targets < 1 ||
        (!resultType.isDynamicDim(1) && resultType.getDimSize(1) != targets))
      return op->emitError() << "n_targets " << targets
                             << " does not match the result " << resultType;
    FailureOr<TreeTables> tables = readLegacyTrees(
        op, "target", targets,
        llvm::cast<RankedTensorType>(features.getType()).getDimSize(1));
    if (failed(tables))
      return failure();
    SmallVector<double> base =
        firstDoubles(op, {"base_values_as_tensor", "base_values"});
    // One target adds base_values[0] when there is exactly one; more
    // targets add theirs only when there is one per target.
    if (targets == 1 && base.size() != 1)
      base.assign(1, 0.0);
    else if (static_cast<int64_t>(base.size()) != targets)
      base.assign(targets, 0.0);

    OpBuilder &b = rewriter;
    bool compares = *aggregate == LegacyAggregate::kMin ||
                    *aggregate == LegacyAggregate::kMax;
    Aggregate combine = *aggregate == LegacyAggregate::kMin   ? Aggregate::kMin
                        : *aggregate == LegacyAggregate::kMax ? Aggregate::kMax
                                                              : Aggregate::kSum;
    Value leaves = buildLeafWalk(b, loc, features, *tables);
    bool zeroUnvoted = targets > 1;
    LeafScores scores = buildLeafAggregate(
        b, loc, leaves, *tables, *acc, combine, 1.0, compares || zeroUnvoted);
    SmallVector<OpFoldResult> sizes{tensorSize(b, loc, features, 0),
                                    b.getIndexAttr(targets)};
    Value baseTable = floatTable(b, loc, base, *acc);
    double trees = static_cast<double>(tables->numTrees());
    SmallVector<Value> inputs{scores.scores};
    if (scores.reached)
      inputs.push_back(scores.reached);
    auto accType = RankedTensorType::get(resultType.getShape(), *acc);
    Value finished = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, accType, sizes), inputs,
        SmallVector<AffineMap>(inputs.size(), b.getMultiDimIdentityMap(2)),
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
          Value v = args[0];
          if (*aggregate == LegacyAggregate::kAverage)
            v = nb.create<arith::DivFOp>(l, v, scalarConst(nb, l, *acc, trees));
          Value offset = nb.create<tensor::ExtractOp>(
              l, baseTable, targets == 1 ? indexConst(nb, l, 0) : ivs[1]);
          Value zero = scalarConst(nb, l, *acc, 0.0);
          if (compares)
            v = nb.create<arith::SelectOp>(l, isSet(nb, l, args[1]), v, zero);
          v = nb.create<arith::AddFOp>(l, v, offset);
          if (zeroUnvoted)
            v = nb.create<arith::SelectOp>(l, isSet(nb, l, args[1]), v, zero);
          return v;
        });
    Transform applied = targets == 1 ? Transform::kNone : *transform;
    rewriter.replaceOp(
        op, transformRows(b, loc, finished, resultType, sizes, applied));
    return success();
  }
};

/// What decides the two-class classifier's outputs (ONNX Runtime's rules).
struct TwoClassRules {
  int64_t numBase = 0;
  double base0 = 0, base1 = 0;
  /// Only one class id has votes: the score is the positive class's.
  bool binary = false;
  bool allPositive = true;
  int64_t label0 = 0, label1 = 1;
  Transform transform = Transform::kNone;
};

/// One row of a two-class classifier: the two scores, as written (a score
/// no leaf voted for reads 0 there), whether both are written (else the one
/// score z0 is expanded to two columns), and the positive class's weight
/// that picks the label.
struct TwoClassRow {
  Value z0, z1, both, positive;
};

TwoClassRow twoClassRow(OpBuilder &b, Location loc, const TwoClassRules &rule,
                        Value scores, Value reached, Value n) {
  Value s0 = at2(b, loc, scores, n, 0), s1 = at2(b, loc, scores, n, 1);
  Value r0 = isSet(b, loc, at2(b, loc, reached, n, 0));
  Value r1 = isSet(b, loc, at2(b, loc, reached, n, 1));
  Type acc = s0.getType();
  auto c = [&](double v) { return scalarConst(b, loc, acc, v); };
  Value p0 = s0, p1 = s1;
  TwoClassRow row;
  row.both = r1;
  if (rule.numBase == 2) {
    // With votes for class 1, ONNX Runtime puts base1 + s0 in column 1 and
    // its negation in column 0 (it assumes both base values are equal).
    Value shifted = b.create<arith::AddFOp>(loc, c(rule.base1), s0);
    p1 = b.create<arith::SelectOp>(
        loc, r1, shifted, b.create<arith::AddFOp>(loc, s1, c(rule.base1)));
    p0 = b.create<arith::SelectOp>(
        loc, r1, b.create<arith::NegFOp>(loc, shifted),
        b.create<arith::AddFOp>(loc, s0, c(rule.base0)));
    row.both = b.create<arith::ConstantIntOp>(loc, 1, 1);
  } else if (rule.numBase == 1) {
    p0 = b.create<arith::AddFOp>(loc, s0, c(rule.base0));
  }
  row.positive = b.create<arith::SelectOp>(
      loc, r1, p1, b.create<arith::SelectOp>(loc, r0, p0, c(0.0)));
  row.z0 = b.create<arith::SelectOp>(loc, r0, p0, c(0.0));
  row.z1 = b.create<arith::SelectOp>(loc, r1, p1, c(0.0));
  return row;
}

/// Whether the positive class wins (binary rules; else any positive score).
Value positiveWins(OpBuilder &b, Location loc, const TwoClassRules &rule,
                   Value positive) {
  double threshold = rule.binary && rule.allPositive ? 0.5 : 0.0;
  return b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::OGT, positive,
      scalarConst(b, loc, positive.getType(), threshold));
}

/// Column `j` of the two-class probabilities of `row`.
Value twoClassColumn(OpBuilder &b, Location loc, const TwoClassRules &rule,
                     const TwoClassRow &row, Value j) {
  Type f32 = b.getF32Type();
  Type acc = row.z0.getType();
  Value p0 = castScalar(b, loc, row.z0, acc, f32);
  Value p1 = castScalar(b, loc, row.z1, acc, f32);
  Value second = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, j,
                                         indexConst(b, loc, 1));
  auto pick = [&](Value first, Value other) -> Value {
    return b.create<arith::SelectOp>(loc, second, other, first);
  };
  Value both = transformElement(
      b, loc, rule.transform, pick(p0, p1), 2,
      [&](OpBuilder &fb, Location fl, Value k) -> Value {
        Value isOne = fb.create<arith::CmpIOp>(fl, arith::CmpIPredicate::eq, k,
                                               indexConst(fb, fl, 1));
        return fb.create<arith::SelectOp>(fl, isOne, p1, p0);
      });
  // One score: [1 - p, p] for the binary case with positive votes; [-p, p]
  // for mixed signs and for no base values; with LOGISTIC, p's logistic
  // and its complement. Else the score and a 0.
  Value one;
  Value zero = scalarConst(b, loc, f32, 0.0);
  if (rule.binary && rule.allPositive) {
    Value p =
        rule.transform == Transform::kLogistic ? logistic(b, loc, p0) : p0;
    one =
        pick(b.create<arith::SubFOp>(loc, scalarConst(b, loc, f32, 1.0), p), p);
  } else if (rule.binary || rule.numBase == 0)
    one = rule.transform == Transform::kLogistic
              ? pick(logistic(b, loc, b.create<arith::NegFOp>(loc, p0)),
                     logistic(b, loc, p0))
              : pick(b.create<arith::NegFOp>(loc, p0), p0);
  else
    one = pick(p0, zero);
  return b.create<arith::SelectOp>(loc, row.both, both, one);
}

/// TreeEnsembleClassifier(X [N, F]) -> labels [N] (int64), scores [N, C]
/// f32: the classes' votes summed over the trees, plus base_values, then
/// post_transform; the label of the best class. Two classes follow ONNX
/// Runtime's rules (TwoClassRules). String labels need string tensors,
/// which onnxc does not have yet.
struct TreeEnsembleClassifierLowering : ConversionPattern {
  TreeEnsembleClassifierLowering(const TypeConverter &converter,
                                 MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.TreeEnsembleClassifier", 1, ctx) {
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    auto labelType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(0).getType()));
    auto scoreType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(1).getType()));
    if (!labelType || !scoreType || !labelType.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "expected int64 labels");
    Value features = operands[0];
    FailureOr<FloatType> acc = accumulationType(op, features);
    FailureOr<Transform> transform = readTransform(op);
    if (failed(acc) || failed(transform))
      return failure();
    auto labels = intsAttr(op, "classlabels_int64s");
    if (!labels)
      return op->emitError() << "needs classlabels_int64s (string labels "
                                "need string tensors, not supported yet)";
    int64_t classes = labels->size();
    if (classes < 2)
      return op->emitError() << "needs at least two class labels";
    FailureOr<TreeTables> tables = readLegacyTrees(
        op, "class", classes,
        llvm::cast<RankedTensorType>(features.getType()).getDimSize(1));
    if (failed(tables))
      return failure();
    SmallVector<double> base =
        firstDoubles(op, {"base_values_as_tensor", "base_values"});
    if (static_cast<int64_t>(base.size()) > classes)
      return op->emitError() << "has " << base.size() << " base values for "
                             << classes << " classes";

    OpBuilder &b = rewriter;
    Value leaves = buildLeafWalk(b, loc, features, *tables);
    LeafScores scores = buildLeafAggregate(b, loc, leaves, *tables, *acc,
                                           Aggregate::kSum, 1.0, true);
    OpFoldResult batch = tensorSize(b, loc, features, 0);
    SmallVector<OpFoldResult> sizes{batch, b.getIndexAttr(classes)};
    Value labelTable = i64Table(b, loc, *labels, {classes});
    auto [label, probabilities] =
        classes == 2 ? finishTwoClasses(b, loc, *tables, scores, base, *labels,
                                        *transform, labelType, scoreType, sizes)
                     : finishClasses(b, loc, scores, base, labelTable,
                                     *transform, labelType, scoreType, sizes);
    rewriter.replaceOp(op, {label, probabilities});
    return success();
  }

  /// Three or more classes: base values add (and make a class count as
  /// voted for); the label is the first voted-for class of highest score.
  static std::pair<Value, Value>
  finishClasses(OpBuilder &b, Location loc, const LeafScores &scores,
                ArrayRef<double> base, Value labelTable, Transform transform,
                RankedTensorType labelType, RankedTensorType scoreType,
                ArrayRef<OpFoldResult> sizes) {
    auto accType = llvm::cast<RankedTensorType>(scores.scores.getType());
    Type acc = accType.getElementType();
    int64_t classes = accType.getDimSize(1), numBase = base.size();
    SmallVector<double> padded(base);
    padded.resize(classes, 0.0);
    Value baseTable = floatTable(b, loc, padded, llvm::cast<FloatType>(acc));
    Value shifted = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, accType, sizes), scores.scores,
        {b.getMultiDimIdentityMap(2)},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
          return nb
              .create<arith::AddFOp>(
                  l, args[0],
                  nb.create<tensor::ExtractOp>(l, baseTable, ivs[1]))
              .getResult();
        });
    Value probabilities =
        transformRows(b, loc, shifted, scoreType, sizes, transform);
    Value label = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, labelType, {sizes[0]}), {}, {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
          Value none = nb.create<arith::ConstantIndexOp>(l, -1);
          auto loop = nb.create<scf::ForOp>(
              l, indexConst(nb, l, 0), indexConst(nb, l, classes),
              indexConst(nb, l, 1),
              ValueRange{none, scalarConst(nb, l, acc, 0.0)},
              [&](OpBuilder &fb, Location fl, Value j, ValueRange best) {
                Value score = fb.create<tensor::ExtractOp>(
                    fl, shifted, ValueRange{ivs[0], j});
                Value voted = fb.create<arith::OrIOp>(
                    fl,
                    isSet(fb, fl,
                          fb.create<tensor::ExtractOp>(fl, scores.reached,
                                                       ValueRange{ivs[0], j})),
                    fb.create<arith::CmpIOp>(fl, arith::CmpIPredicate::slt, j,
                                             indexConst(fb, fl, numBase)));
                Value first = fb.create<arith::CmpIOp>(
                    fl, arith::CmpIPredicate::eq, best[0], none);
                Value better = fb.create<arith::CmpFOp>(
                    fl, arith::CmpFPredicate::OGT, score, best[1]);
                Value take = fb.create<arith::AndIOp>(
                    fl, voted, fb.create<arith::OrIOp>(fl, first, better));
                fb.create<scf::YieldOp>(
                    fl,
                    ValueRange{
                        fb.create<arith::SelectOp>(fl, take, j, best[0]),
                        fb.create<arith::SelectOp>(fl, take, score, best[1])});
              });
          // No class voted for: the first label (ONNX Runtime reads out of
          // bounds there).
          Value index = nb.create<arith::MaxSIOp>(l, loop.getResult(0),
                                                  indexConst(nb, l, 0));
          return nb.create<tensor::ExtractOp>(l, labelTable, index);
        });
    return {label, probabilities};
  }

  static std::pair<Value, Value>
  finishTwoClasses(OpBuilder &b, Location loc, const TreeTables &tables,
                   const LeafScores &scores, ArrayRef<double> base,
                   ArrayRef<int64_t> labels, Transform transform,
                   RankedTensorType labelType, RankedTensorType scoreType,
                   ArrayRef<OpFoldResult> sizes) {
    TwoClassRules rule;
    rule.numBase = base.size();
    rule.base0 = base.empty() ? 0.0 : base[0];
    rule.base1 = base.size() < 2 ? 0.0 : base[1];
    llvm::SmallDenseSet<int64_t> voted(tables.entryTargets.begin(),
                                       tables.entryTargets.end());
    rule.binary = voted.size() == 1;
    rule.allPositive =
        llvm::all_of(tables.entryWeights, [](double w) { return w >= 0; });
    // Outside the binary case ONNX Runtime labels with 1 and 0, not with
    // the class labels.
    rule.label0 = rule.binary ? labels[0] : 0;
    rule.label1 = rule.binary ? labels[1] : 1;
    rule.transform = transform;
    Value label = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, labelType, {sizes[0]}), {}, {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
          TwoClassRow row =
              twoClassRow(nb, l, rule, scores.scores, scores.reached, ivs[0]);
          return nb.create<arith::SelectOp>(
              l, positiveWins(nb, l, rule, row.positive),
              nb.create<arith::ConstantIntOp>(l, rule.label1, 64),
              nb.create<arith::ConstantIntOp>(l, rule.label0, 64));
        });
    Value probabilities = buildIndexedGeneric(
        b, loc, emptyTensor(b, loc, scoreType, sizes), {}, {},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
          TwoClassRow row =
              twoClassRow(nb, l, rule, scores.scores, scores.reached, ivs[0]);
          return twoClassColumn(nb, l, rule, row, ivs[1]);
        });
    return {label, probabilities};
  }
};

} // namespace

void populateLegacyTreeEnsemblePatterns(const TypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<TreeEnsembleClassifierLowering, TreeEnsembleRegressorLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
