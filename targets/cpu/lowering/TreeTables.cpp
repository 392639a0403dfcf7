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

#include <cmath>

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

/// A branch's target as the walk carries it: a node id, or -(leaf + 1).
static int64_t childCode(int64_t id, bool isLeaf) {
  return isLeaf ? -(id + 1) : id;
}

/// The walk's per-node integer table: the columns it needs, 32-bit (a
/// forest of 500 trees of depth 8 has 128k nodes; the table's size is what
/// the walk's cache misses cost).
struct WalkTable {
  SmallVector<int32_t> values;
  int64_t width = 0;
  int64_t feature = -1, trueCode = -1, falseCode = -1, mode = -1, missing = -1,
          memberBegin = -1, memberEnd = -1;
};

static WalkTable walkTable(const TreeTables &e, bool sameMode,
                           bool anyMissing) {
  WalkTable w;
  w.feature = w.width++;
  w.trueCode = w.width++;
  w.falseCode = w.width++;
  if (!sameMode)
    w.mode = w.width++;
  if (anyMissing)
    w.missing = w.width++;
  if (!e.members.empty()) {
    w.memberBegin = w.width++;
    w.memberEnd = w.width++;
  }
  int64_t rows = std::max<int64_t>(e.numNodes, 1);
  w.values.assign(rows * w.width, 0);
  for (int64_t i = 0; i < e.numNodes; ++i) {
    const int64_t *row = &e.nodeTable[i * kNumColumns];
    int32_t *out = &w.values[i * w.width];
    out[w.feature] = row[kFeature];
    out[w.trueCode] = childCode(row[kTrueId], row[kTrueIsLeaf]);
    out[w.falseCode] = childCode(row[kFalseId], row[kFalseIsLeaf]);
    if (w.mode >= 0)
      out[w.mode] = row[kMode];
    if (w.missing >= 0)
      out[w.missing] = row[kMissingTrue];
    if (w.memberBegin >= 0) {
      out[w.memberBegin] = row[kMemberBegin];
      out[w.memberEnd] = row[kMemberEnd];
    }
  }
  return w;
}

/// Whether `x` (of the compare type) takes the true branch of a node of
/// `mode` with threshold `split`. NaN compares false but for "not equal".
static Value branchTest(OpBuilder &b, Location loc, int64_t mode, Value x,
                        Value split) {
  arith::CmpFPredicate predicate = arith::CmpFPredicate::UNE;
  switch (mode) {
  case kLeq:
    predicate = arith::CmpFPredicate::OLE;
    break;
  case kLt:
    predicate = arith::CmpFPredicate::OLT;
    break;
  case kGte:
    predicate = arith::CmpFPredicate::OGE;
    break;
  case kGt:
    predicate = arith::CmpFPredicate::OGT;
    break;
  case kEq:
    predicate = arith::CmpFPredicate::OEQ;
    break;
  default:
    break;
  }
  if (mode == kMember)
    return b.create<arith::ConstantIntOp>(loc, 0, 1);
  return b.create<arith::CmpFOp>(loc, predicate, x, split);
}

Value buildLeafWalk(OpBuilder &b, Location loc, Value features,
                    const TreeTables &e) {
  auto featuresType = llvm::cast<RankedTensorType>(features.getType());
  Type element = featuresType.getElementType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  int64_t numTrees = e.numTrees();
  auto modeOf = [&](int64_t i) { return e.nodeTable[i * kNumColumns + kMode]; };
  bool sameMode =
      llvm::all_of(llvm::seq<int64_t>(0, e.numNodes),
                   [&](int64_t i) { return modeOf(i) == modeOf(0); });
  int64_t onlyMode = e.numNodes ? modeOf(0) : kLeq;
  bool anyMissing =
      llvm::any_of(llvm::seq<int64_t>(0, e.numNodes), [&](int64_t i) {
        return e.nodeTable[i * kNumColumns + kMissingTrue] != 0;
      });
  // Compared in f32 where that is exact: f32 (or narrower, or integer)
  // features and thresholds f32 holds exactly; else in f64.
  auto fitsF32 = [](double v) {
    return std::isnan(v) || static_cast<double>(static_cast<float>(v)) == v;
  };
  bool f32Compare = !element.isF64() && llvm::all_of(e.splits, fitsF32) &&
                    llvm::all_of(e.members, fitsF32);
  auto compareType =
      llvm::cast<FloatType>(f32Compare ? Type(b.getF32Type()) : b.getF64Type());

  WalkTable w = walkTable(e, sameMode, anyMissing);
  auto tableType = RankedTensorType::get(
      {static_cast<int64_t>(w.values.size()) / w.width, w.width}, i32);
  Value nodeTable = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(tableType, ArrayRef<int32_t>(w.values)));
  SmallVector<double> splitValues = e.splits;
  if (splitValues.empty())
    splitValues.push_back(0.0);
  Value splits = floatTable(b, loc, splitValues, compareType);
  Value members =
      e.members.empty() ? Value() : floatTable(b, loc, e.members, compareType);
  SmallVector<int32_t> startCodes;
  for (int64_t t = 0; t < numTrees; ++t)
    startCodes.push_back(childCode(e.startIds[t], e.startIsLeaf[t]));
  Value starts = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({numTrees}, i32),
                                  ArrayRef<int32_t>(startCodes)));
  Value numFeatures = dimValue(b, loc, features, 1);
  OpFoldResult batch = tensorSize(b, loc, features, 0);
  auto leafType =
      RankedTensorType::get({featuresType.getDimSize(0), numTrees}, i64);
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, leafType, {batch, b.getIndexAttr(numTrees)}),
      {}, {},
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
        auto asIndex = [](OpBuilder &ob, Location ol, Value v) -> Value {
          return ob.create<arith::IndexCastOp>(ol, ob.getIndexType(), v);
        };
        Value start = nb.create<tensor::ExtractOp>(l, starts, ivs[1]);
        Value zero = nb.create<arith::ConstantIntOp>(l, 0, 32);
        // Until the code is a leaf's: the trees have no cycles
        // (finishTables), so every walk ends.
        auto walk = nb.create<scf::WhileOp>(
            l, TypeRange{i32}, ValueRange{start},
            [&](OpBuilder &cb, Location cl, ValueRange state) {
              Value atNode = cb.create<arith::CmpIOp>(
                  cl, arith::CmpIPredicate::sge, state[0], zero);
              cb.create<scf::ConditionOp>(cl, atNode, state);
            },
            [&](OpBuilder &fb, Location fl, ValueRange state) {
              Value node = asIndex(fb, fl, state[0]);
              auto column = [&](int64_t c) -> Value {
                return fb.create<tensor::ExtractOp>(
                    fl, nodeTable, ValueRange{node, indexConst(fb, fl, c)});
              };
              Value feature = clampIntoBounds(
                  fb, fl, asIndex(fb, fl, column(w.feature)), numFeatures);
              Value x =
                  castScalar(fb, fl,
                             fb.create<tensor::ExtractOp>(
                                 fl, features, ValueRange{ivs[0], feature}),
                             element, compareType);
              Value split = fb.create<tensor::ExtractOp>(fl, splits, node);
              Value taken;
              if (sameMode) {
                taken = branchTest(fb, fl, onlyMode, x, split);
              } else {
                Value mode = column(w.mode);
                taken = fb.create<arith::ConstantIntOp>(fl, 0, 1);
                for (int64_t m : {kLeq, kLt, kGte, kGt, kEq, kNeq}) {
                  Value isMode = fb.create<arith::CmpIOp>(
                      fl, arith::CmpIPredicate::eq, mode,
                      fb.create<arith::ConstantIntOp>(fl, m, 32));
                  taken = fb.create<arith::SelectOp>(
                      fl, isMode, branchTest(fb, fl, m, x, split), taken);
                }
              }
              if (members) {
                // Member nodes own members[begin, end); others none.
                auto scan = fb.create<scf::ForOp>(
                    fl, asIndex(fb, fl, column(w.memberBegin)),
                    asIndex(fb, fl, column(w.memberEnd)), indexConst(fb, fl, 1),
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
                Value tracks = fb.create<arith::CmpIOp>(
                    fl, arith::CmpIPredicate::ne, column(w.missing), zero);
                taken = fb.create<arith::OrIOp>(
                    fl, taken, fb.create<arith::AndIOp>(fl, isNaN, tracks));
              }
              Value next = fb.create<arith::SelectOp>(
                  fl, taken, column(w.trueCode), column(w.falseCode));
              fb.create<scf::YieldOp>(fl, ValueRange{next});
            });
        // code = -(leaf + 1)
        Value code = nb.create<arith::ExtSIOp>(l, i64, walk.getResult(0));
        return nb.create<arith::SubIOp>(
            l, nb.create<arith::ConstantIntOp>(l, -1, 64), code);
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
  // Every leaf votes for every target once, in target order (a forest
  // classifier's class probabilities): target j's entry is begin + j.
  bool denseLeaves =
      e.numTargets > 1 &&
      llvm::all_of(llvm::seq<int64_t>(0, e.numLeaves), [&](int64_t l) {
        if (e.leafBegin[l + 1] - e.leafBegin[l] != e.numTargets)
          return false;
        for (int64_t j = 0; j < e.numTargets; ++j)
          if (e.entryTargets[e.leafBegin[l] + j] != j)
            return false;
        return true;
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
        if (denseLeaves) {
          Value entry = nb.create<arith::AddIOp>(l, begin, target);
          nb.create<linalg::YieldOp>(l, addEntry(nb, l, entry, state));
          return;
        }
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
