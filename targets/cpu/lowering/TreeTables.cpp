//===- TreeTables.cpp - The shared walk and aggregation of tree ensembles -===//
//
// The trees are constant tables: one linalg.generic walks every (sample,
// tree) pair from its root to a leaf (a bounded loop: the longest
// root-to-leaf path is known at compile time, which also rejects cyclic
// trees), a second one combines the entries of the reached leaves into
// their targets, tree by tree in order.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/TreeTables.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onnxc::cpu::trees {

LogicalResult finishTables(Operation *op, TreeTables &t, int64_t numFeatures) {
  if (t.startIds.empty())
    return op->emitError() << "has no trees";
  if (static_cast<int64_t>(t.leafBegin.size()) != t.numLeaves + 1)
    return op->emitError() << "internal: leaf table of the wrong size";
  for (int64_t target : t.entryTargets)
    if (target < 0 || target >= t.numTargets)
      return op->emitError()
             << "leaf target id " << target << " is out of range";
  t.maxDepth = 0;
  for (int64_t tree = 0; tree < t.numTrees(); ++tree) {
    int64_t root = t.startIds[tree];
    if (t.startIsLeaf[tree]) {
      if (root < 0 || root >= t.numLeaves)
        return op->emitError() << "leaf " << root << " is out of range";
      continue;
    }
    if (root < 0 || root >= t.numNodes)
      return op->emitError() << "tree root " << root << " is out of range";
    // (node, depth) pairs still to visit.
    SmallVector<std::pair<int64_t, int64_t>> stack{{root, 1}};
    while (!stack.empty()) {
      auto [node, depth] = stack.pop_back_val();
      if (depth > t.numNodes)
        return op->emitError() << "the tree at root " << root << " has a cycle";
      t.maxDepth = std::max(t.maxDepth, depth);
      const int64_t *row = &t.nodeTable[node * kNumColumns];
      if (row[kFeature] < 0 ||
          (!ShapedType::isDynamic(numFeatures) && row[kFeature] >= numFeatures))
        return op->emitError() << "node " << node << " reads feature "
                               << row[kFeature] << " which is out of range";
      for (auto [id, isLeaf] : {std::pair(row[kTrueId], row[kTrueIsLeaf]),
                                std::pair(row[kFalseId], row[kFalseIsLeaf])}) {
        if (id < 0 || id >= (isLeaf ? t.numLeaves : t.numNodes))
          return op->emitError() << "node " << node << " branches to "
                                 << (isLeaf ? "leaf " : "node ") << id
                                 << " which is out of range";
        if (!isLeaf)
          stack.push_back({id, depth + 1});
      }
    }
  }
  return success();
}

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

std::optional<SmallVector<double>> doublesAttr(Operation *op, StringRef name) {
  Attribute attr = op->getAttr(name);
  SmallVector<double> values;
  if (auto array = llvm::dyn_cast_or_null<ArrayAttr>(attr)) {
    for (Attribute a : array) {
      auto f = llvm::dyn_cast<FloatAttr>(a);
      if (!f)
        return std::nullopt;
      values.push_back(f.getValueAsDouble());
    }
    return values;
  }
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !llvm::isa<FloatType>(dense.getElementType()))
    return std::nullopt;
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

Value buildLeafWalk(OpBuilder &b, Location loc, Value features,
                    const TreeTables &e) {
  auto featuresType = llvm::cast<RankedTensorType>(features.getType());
  Type element = featuresType.getElementType();
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  int64_t numTrees = e.numTrees();
  // A table needs one row; an ensemble of leaves only never reads it.
  SmallVector<int64_t> nodeRows = e.nodeTable;
  SmallVector<double> splitValues = e.splits;
  if (e.numNodes == 0) {
    nodeRows.assign(kNumColumns, 0);
    splitValues.assign(1, 0.0);
  }
  Value nodeTable = i64Table(b, loc, nodeRows,
                             {std::max<int64_t>(e.numNodes, 1), kNumColumns});
  Value splits = floatTable(b, loc, splitValues, b.getF64Type());
  Value members = e.members.empty()
                      ? Value()
                      : floatTable(b, loc, e.members, b.getF64Type());
  Value starts = i64Table(b, loc, e.startIds, {numTrees});
  Value startLeafs = i64Table(b, loc, e.startIsLeaf, {numTrees});
  bool anyMissing =
      llvm::any_of(llvm::seq<int64_t>(0, e.numNodes), [&](int64_t i) {
        return e.nodeTable[i * kNumColumns + kMissingTrue] != 0;
      });
  Value numFeatures = dimValue(b, loc, features, 1);
  OpFoldResult batch = tensorSize(b, loc, features, 0);
  auto leafType =
      RankedTensorType::get({featuresType.getDimSize(0), numTrees}, i64);
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, leafType, {batch, b.getIndexAttr(numTrees)}),
      {}, {},
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
                  fl, atLeaf, fb.create<arith::ConstantIntOp>(fl, 0, 64), id));
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
                    [&](OpBuilder &sb, Location sl, Value j, ValueRange found) {
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
                  fl,
                  ValueRange{fb.create<arith::SelectOp>(fl, atLeaf, id, next),
                             fb.create<arith::OrIOp>(fl, atLeaf, nextIsLeaf)});
            });
        return walk.getResult(0);
      });
}

/// The weight one entry adds into `acc`.
static Value combineWeight(OpBuilder &b, Location loc, Aggregate aggregate,
                           Value acc, Value weight) {
  switch (aggregate) {
  case Aggregate::kSum:
    return b.create<arith::AddFOp>(loc, acc, weight);
  case Aggregate::kMin:
    return b.create<arith::SelectOp>(
        loc,
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, weight, acc),
        weight, acc);
  case Aggregate::kMax:
    return b.create<arith::SelectOp>(
        loc,
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, weight, acc),
        weight, acc);
  }
  llvm_unreachable("unknown aggregate");
}

LeafScores buildLeafAggregate(OpBuilder &b, Location loc, Value leaves,
                              const TreeTables &e, FloatType accElement,
                              Aggregate aggregate, double weightDivisor,
                              bool trackReached) {
  bool oneEntryPerLeaf =
      llvm::all_of(llvm::seq<int64_t>(0, e.numLeaves), [&](int64_t l) {
        return e.leafBegin[l + 1] - e.leafBegin[l] == 1;
      });
  // Tables need one value; a leaf without entries never reads it.
  SmallVector<int64_t> targets = e.entryTargets;
  SmallVector<double> weights = e.entryWeights;
  if (targets.empty()) {
    targets.push_back(0);
    weights.push_back(0.0);
  }
  Value leafBegin = i64Table(b, loc, e.leafBegin, {e.numLeaves + 1});
  Value entryTargets =
      i64Table(b, loc, targets, {static_cast<int64_t>(targets.size())});
  Value entryWeights = floatTable(b, loc, weights, accElement);

  auto leavesType = llvm::cast<RankedTensorType>(leaves.getType());
  auto accType = RankedTensorType::get({leavesType.getDimSize(0), e.numTargets},
                                       accElement);
  SmallVector<OpFoldResult> sizes{tensorSize(b, loc, leaves, 0),
                                  b.getIndexAttr(e.numTargets)};
  double initValue = 0.0;
  const llvm::fltSemantics &semantics = accElement.getFloatSemantics();
  if (aggregate == Aggregate::kMin)
    initValue = APFloat::getLargest(semantics).convertToDouble();
  else if (aggregate == Aggregate::kMax)
    initValue = APFloat::getLargest(semantics, true).convertToDouble();
  Value init =
      b.create<linalg::FillOp>(loc, scalarConst(b, loc, accElement, initValue),
                               emptyTensor(b, loc, accType, sizes))
          .getResult(0);
  SmallVector<Value> inits{init};
  SmallVector<Type> resultTypes{accType};
  Type i8 = b.getI8Type();
  if (trackReached) {
    auto reachedType = RankedTensorType::get(accType.getShape(), i8);
    Value zero = b.create<arith::ConstantIntOp>(loc, 0, 8);
    inits.push_back(b.create<linalg::FillOp>(
                         loc, zero, emptyTensor(b, loc, reachedType, sizes))
                        .getResult(0));
    resultTypes.push_back(reachedType);
  }

  MLIRContext *ctx = b.getContext();
  AffineExpr n = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx),
             t = getAffineDimExpr(2, ctx);
  AffineMap out = AffineMap::get(3, 0, {n, j}, ctx);
  SmallVector<AffineMap> maps{AffineMap::get(3, 0, {n, t}, ctx), out};
  if (trackReached)
    maps.push_back(out);
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel,
                                             utils::IteratorType::parallel,
                                             utils::IteratorType::reduction};
  auto combine = b.create<linalg::GenericOp>(
      loc, resultTypes, ValueRange{leaves}, inits, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto asIndex = [&](Value v) -> Value {
          return nb.create<arith::IndexCastOp>(l, nb.getIndexType(), v);
        };
        Value target = nb.create<linalg::IndexOp>(l, 1);
        // One entry: adds its weight into `state` where it names `target`.
        auto addEntry = [&](OpBuilder &eb, Location el, Value entry,
                            ValueRange state) -> SmallVector<Value> {
          Value named = eb.create<arith::CmpIOp>(
              el, arith::CmpIPredicate::eq,
              asIndex(eb.create<tensor::ExtractOp>(el, entryTargets, entry)),
              target);
          Value weight = eb.create<tensor::ExtractOp>(el, entryWeights, entry);
          if (weightDivisor != 1.0)
            weight = eb.create<arith::DivFOp>(
                el, weight, scalarConst(eb, el, accElement, weightDivisor));
          Value updated = combineWeight(eb, el, aggregate, state[0], weight);
          SmallVector<Value> next{
              eb.create<arith::SelectOp>(el, named, updated, state[0])};
          if (trackReached)
            next.push_back(eb.create<arith::SelectOp>(
                el, named, eb.create<arith::ConstantIntOp>(el, 1, 8),
                state[1]));
          return next;
        };
        Value leaf = asIndex(args[0]);
        SmallVector<Value> state(args.begin() + 1, args.end());
        if (oneEntryPerLeaf) {
          nb.create<linalg::YieldOp>(l, addEntry(nb, l, leaf, state));
          return;
        }
        Value begin = asIndex(nb.create<tensor::ExtractOp>(l, leafBegin, leaf));
        Value next = nb.create<arith::AddIOp>(l, leaf, indexConst(nb, l, 1));
        Value end = asIndex(nb.create<tensor::ExtractOp>(l, leafBegin, next));
        auto loop = nb.create<scf::ForOp>(
            l, begin, end, indexConst(nb, l, 1), state,
            [&](OpBuilder &fb, Location fl, Value entry, ValueRange acc) {
              fb.create<scf::YieldOp>(fl, addEntry(fb, fl, entry, acc));
            });
        nb.create<linalg::YieldOp>(l, loop.getResults());
      });
  LeafScores result;
  result.scores = combine.getResult(0);
  if (trackReached)
    result.reached = combine.getResult(1);
  return result;
}

} // namespace onnxc::cpu::trees
