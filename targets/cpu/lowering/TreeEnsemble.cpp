//===- TreeEnsemble.cpp - ai.onnx.ml TreeEnsemble (opset 5) ---------------===//
//
// TreeEnsemble's trees are attributes, read into constant tables
// (TreeTables.h): the walk finds each (sample, tree)'s leaf, the aggregation
// combines the leaves' weights into their targets in the features' type, and
// a last generic applies post_transform when there is one.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/TreeTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

using namespace trees;

enum AggregateFunction : int64_t {
  kAverage = 0,
  kSum = 1,
  kMinimum = 2,
  kMaximum = 3
};
enum PostTransform : int64_t { kNone = 0, kSoftmax = 1, kLogistic = 2 };

/// Reads and checks TreeEnsemble's attributes; emits an error naming the
/// node on bad ones. `numFeatures` is the static feature count or dynamic.
FailureOr<TreeTables> readEnsemble(Operation *op, int64_t numFeatures,
                                   int64_t &aggregate) {
  TreeTables e;
  auto featureIds = intsAttr(op, "nodes_featureids");
  auto trueIds = intsAttr(op, "nodes_truenodeids");
  auto falseIds = intsAttr(op, "nodes_falsenodeids");
  auto trueLeafs = intsAttr(op, "nodes_trueleafs");
  auto falseLeafs = intsAttr(op, "nodes_falseleafs");
  auto modes = intsTensorAttr(op, "nodes_modes");
  auto splits = doublesAttr(op, "nodes_splits");
  auto leafTargets = intsAttr(op, "leaf_targetids");
  auto leafWeights = doublesAttr(op, "leaf_weights");
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
  // One entry per leaf: leaf l is entry l.
  e.entryTargets = *leafTargets;
  e.entryWeights = *leafWeights;
  for (int64_t l = 0; l <= e.numLeaves; ++l)
    e.leafBegin.push_back(l);
  e.splits = *splits;
  e.numTargets = 0;
  for (int64_t t : e.entryTargets)
    e.numTargets = std::max(e.numTargets, t + 1);
  if (auto n = op->getAttrOfType<IntegerAttr>("n_targets"))
    e.numTargets = n.getInt();
  aggregate = kSum;
  if (auto agg = op->getAttrOfType<IntegerAttr>("aggregate_function"))
    aggregate = agg.getInt();
  if (aggregate < kAverage || aggregate > kMaximum)
    return op->emitError() << "unknown aggregate_function " << aggregate;

  // Set members, NaN-delimited, in the order the member nodes appear.
  SmallVector<double> memberValues;
  if (auto values = doublesAttr(op, "membership_values"))
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

  for (int64_t root : *roots) {
    if (root < 0 || root >= e.numNodes)
      return op->emitError() << "tree root " << root << " is out of range";
    const int64_t *rootRow = &e.nodeTable[root * kNumColumns];
    // A root whose branches are one leaf is that leaf (the root's index).
    bool isLeaf = rootRow[kTrueIsLeaf] && rootRow[kFalseIsLeaf] &&
                  rootRow[kTrueId] == rootRow[kFalseId];
    e.startIds.push_back(root);
    e.startIsLeaf.push_back(isLeaf);
  }
  if (failed(finishTables(op, e, numFeatures)))
    return failure();
  return e;
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

Aggregate tableAggregate(int64_t aggregate) {
  if (aggregate == kMinimum)
    return Aggregate::kMin;
  if (aggregate == kMaximum)
    return Aggregate::kMax;
  return Aggregate::kSum;
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
    int64_t aggregate = kSum;
    FailureOr<TreeTables> ensemble =
        readEnsemble(op, featuresType.getDimSize(1), aggregate);
    if (failed(ensemble))
      return failure();
    const TreeTables &e = *ensemble;
    if (resultType.getRank() != 2 || (!resultType.isDynamicDim(1) &&
                                      resultType.getDimSize(1) != e.numTargets))
      return op->emitError() << "result type " << resultType
                             << " does not have " << e.numTargets << " targets";

    OpBuilder &b = rewriter;
    Type element = featuresType.getElementType();
    auto accElement = llvm::cast<FloatType>(computeType(element));
    Value leaves = buildLeafWalk(b, loc, features, e);
    double divisor =
        aggregate == kAverage ? static_cast<double>(e.numTrees()) : 1.0;
    Value result = buildLeafAggregate(b, loc, leaves, e, accElement,
                                      tableAggregate(aggregate), divisor,
                                      /*trackReached=*/false)
                       .scores;
    SmallVector<OpFoldResult> sizes{tensorSize(b, loc, features, 0),
                                    b.getIndexAttr(e.numTargets)};
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

void populateTreeEnsemblePatterns(const TypeConverter &typeConverter,
                                  RewritePatternSet &patterns) {
  patterns.add<TreeEnsembleLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
