//===- Svm.cpp - ai.onnx.ml SVMRegressor and SVMClassifier ----------------===//
//
// The kernel values K[n, v] = k(x_n, sv_v) are one linalg reduction over the
// features (RBF sums squared differences, as ONNX Runtime does, rather than
// expanding |x|^2 - 2 x.sv + |sv|^2, which cancels), then the kernel's
// function of that sum. A regressor's score is K times its coefficients plus
// rho. A classifier's one-vs-one decisions are K times a [vectors, pairs]
// matrix holding each pair's coefficients for its two classes' vectors (and
// zeros, which add nothing, elsewhere), summed in f64 as ONNX Runtime does;
// the label is the class with the most votes. Probability outputs (prob_a,
// prob_b: libsvm's pairwise coupling) are not supported yet. Models with no
// support vectors are linear (liblinear): x times the coefficients plus rho.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/MlScores.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/TreeTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

using namespace ml;
using trees::floatTable;
using trees::i64Table;

enum class KernelKind { kLinear, kPoly, kRbf, kSigmoid };

struct SvmKernel {
  KernelKind kind = KernelKind::kLinear;
  float gamma = 0, coef0 = 0, degree = 0;
};

FailureOr<SvmKernel> readKernel(Operation *op) {
  SvmKernel k;
  StringRef name = stringAttr(op, "kernel_type", "LINEAR");
  std::optional<KernelKind> kind =
      llvm::StringSwitch<std::optional<KernelKind>>(name)
          .Case("LINEAR", KernelKind::kLinear)
          .Case("POLY", KernelKind::kPoly)
          .Case("RBF", KernelKind::kRbf)
          .Case("SIGMOID", KernelKind::kSigmoid)
          .Default(std::nullopt);
  if (!kind)
    return op->emitError() << "unknown kernel_type '" << name << "'";
  k.kind = *kind;
  SmallVector<double> params = firstDoubles(op, {"kernel_params"});
  if (!params.empty() && params.size() != 3)
    return op->emitError() << "kernel_params must hold gamma, coef0 and "
                              "degree";
  if (!params.empty()) {
    k.gamma = params[0];
    k.coef0 = params[1];
    k.degree = params[2];
  }
  return k;
}

/// `x` [N, F] as f32 (the SVMs compute in f32, as ONNX Runtime), and F,
/// which must be static.
FailureOr<std::pair<Value, int64_t>> f32Features(OpBuilder &b, Location loc,
                                                 Operation *op, Value x) {
  auto type = llvm::dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isIntOrFloat() ||
      type.isDynamicDim(1))
    return op->emitError() << "expects numeric features [N, F] with a "
                              "static F, got "
                           << x.getType();
  Type f32 = b.getF32Type();
  if (type.getElementType() == f32)
    return std::pair(x, type.getDimSize(1));
  Type from = type.getElementType();
  auto f32Type = RankedTensorType::get(type.getShape(), f32);
  Value cast = buildParallelGeneric(
      b, loc, f32Type, tensorSizes(b, loc, x), x, {b.getMultiDimIdentityMap(2)},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return castScalar(nb, l, args[0], from, nb.getF32Type());
      });
  return std::pair(cast, type.getDimSize(1));
}

/// K [N, V] f32: the kernel of each sample of `x` [N, F] and each of the V
/// row-major `vectors`; a LINEAR kernel adds `offset`.
Value buildKernelValues(OpBuilder &b, Location loc, Value x,
                        ArrayRef<double> vectors, int64_t numVectors,
                        int64_t numFeatures, const SvmKernel &kernel,
                        double offset) {
  Type f32 = b.getF32Type();
  auto f32Element = llvm::cast<FloatType>(f32);
  Value table = floatTable(b, loc, vectors, f32Element);
  table = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({numVectors, numFeatures}, f32), table,
      SmallVector<ReassociationIndices>{{0, 1}});
  OpFoldResult batch = tensorSize(b, loc, x, 0);
  SmallVector<OpFoldResult> sizes{batch, b.getIndexAttr(numVectors)};
  auto resultType = RankedTensorType::get(
      {llvm::cast<RankedTensorType>(x.getType()).getDimSize(0), numVectors},
      f32);
  Value zero = scalarConst(b, loc, f32, 0.0);
  Value init = b.create<linalg::FillOp>(loc, zero,
                                        emptyTensor(b, loc, resultType, sizes))
                   .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineExpr n = getAffineDimExpr(0, ctx), v = getAffineDimExpr(1, ctx),
             f = getAffineDimExpr(2, ctx);
  bool rbf = kernel.kind == KernelKind::kRbf;
  Value sums =
      b.create<linalg::GenericOp>(
           loc, resultType, ValueRange{x, table}, ValueRange{init},
           SmallVector<AffineMap>{AffineMap::get(3, 0, {n, f}, ctx),
                                  AffineMap::get(3, 0, {v, f}, ctx),
                                  AffineMap::get(3, 0, {n, v}, ctx)},
           SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction},
           [&](OpBuilder &nb, Location l, ValueRange args) {
             Value term =
                 rbf ? nb.create<arith::SubFOp>(l, args[0], args[1]).getResult()
                     : args[0];
             Value product =
                 nb.create<arith::MulFOp>(l, term, rbf ? term : args[1]);
             nb.create<linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddFOp>(l, args[2], product)});
           })
          .getResult(0);
  return buildParallelGeneric(
      b, loc, resultType, sizes, sums, {b.getMultiDimIdentityMap(2)},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        auto c = [&](double value) { return scalarConst(nb, l, f32, value); };
        Value s = args[0];
        if (kernel.kind == KernelKind::kLinear)
          return nb.create<arith::AddFOp>(l, s, c(offset));
        if (rbf)
          return nb.create<math::ExpOp>(
              l, nb.create<arith::MulFOp>(l, c(-kernel.gamma), s));
        Value affine = nb.create<arith::AddFOp>(
            l, nb.create<arith::MulFOp>(l, c(kernel.gamma), s),
            c(kernel.coef0));
        if (kernel.kind == KernelKind::kSigmoid)
          return nb.create<math::TanhOp>(l, affine);
        if (kernel.degree == 2)
          return nb.create<arith::MulFOp>(l, affine, affine);
        if (kernel.degree == 3)
          return nb.create<arith::MulFOp>(
              l, nb.create<arith::MulFOp>(l, affine, affine), affine);
        return nb.create<math::PowFOp>(l, affine, c(kernel.degree));
      });
}

/// [N, outputs] = `values` [N, V] times the [V, outputs] `weights` (f32
/// products summed in `sumType`, then `bias[j]` added) as `sumType`.
Value weightedSums(OpBuilder &b, Location loc, Value values,
                   ArrayRef<double> weights, ArrayRef<double> bias,
                   FloatType sumType) {
  auto valuesType = llvm::cast<RankedTensorType>(values.getType());
  int64_t numValues = valuesType.getDimSize(1);
  int64_t outputs = bias.size();
  Type f32 = b.getF32Type();
  Value table = floatTable(b, loc, weights, llvm::cast<FloatType>(f32));
  table = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({numValues, outputs}, f32), table,
      SmallVector<ReassociationIndices>{{0, 1}});
  auto resultType =
      RankedTensorType::get({valuesType.getDimSize(0), outputs}, sumType);
  SmallVector<OpFoldResult> sizes{tensorSize(b, loc, values, 0),
                                  b.getIndexAttr(outputs)};
  Value init = b.create<linalg::FillOp>(loc, scalarConst(b, loc, sumType, 0.0),
                                        emptyTensor(b, loc, resultType, sizes))
                   .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineExpr n = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx),
             v = getAffineDimExpr(2, ctx);
  Value sums =
      b.create<linalg::GenericOp>(
           loc, resultType, ValueRange{values, table}, ValueRange{init},
           SmallVector<AffineMap>{AffineMap::get(3, 0, {n, v}, ctx),
                                  AffineMap::get(3, 0, {v, j}, ctx),
                                  AffineMap::get(3, 0, {n, j}, ctx)},
           SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction},
           [&](OpBuilder &nb, Location l, ValueRange args) {
             Value product = castScalar(
                 nb, l, nb.create<arith::MulFOp>(l, args[0], args[1]), f32,
                 sumType);
             nb.create<linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddFOp>(l, args[2], product)});
           })
          .getResult(0);
  Value biasTable = floatTable(b, loc, bias, sumType);
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, resultType, sizes), sums,
      {b.getMultiDimIdentityMap(2)},
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
        return nb
            .create<arith::AddFOp>(
                l, args[0], nb.create<tensor::ExtractOp>(l, biasTable, ivs[1]))
            .getResult();
      });
}

/// SVMRegressor(X [N, F]) -> [N, 1] f32: sum_v coefficients[v] K(x, sv_v)
/// + rho (or, with no support vectors, x . coefficients + rho); with
/// one_class, the sign as 1 or -1. ONNX Runtime applies no post_transform
/// here, and neither does onnxc.
struct SvmRegressorLowering : ConversionPattern {
  SvmRegressorLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.SVMRegressor", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType || !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "expected an f32 result");
    FailureOr<SvmKernel> kernel = readKernel(op);
    auto features = f32Features(rewriter, loc, op, operands[0]);
    if (failed(kernel) || failed(features))
      return failure();
    auto [x, numFeatures] = *features;
    SmallVector<double> coefficients = firstDoubles(op, {"coefficients"});
    SmallVector<double> vectors = firstDoubles(op, {"support_vectors"});
    SmallVector<double> rho = firstDoubles(op, {"rho"});
    int64_t supports = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("n_supports"))
      supports = attr.getInt();
    if (rho.empty())
      return op->emitError() << "needs rho";
    OpBuilder &b = rewriter;
    Value scores;
    if (supports > 0) {
      if (static_cast<int64_t>(vectors.size()) != supports * numFeatures ||
          static_cast<int64_t>(coefficients.size()) != supports)
        return op->emitError()
               << "needs " << supports << " x " << numFeatures
               << " support_vectors and " << supports << " coefficients";
      Value k = buildKernelValues(b, loc, x, vectors, supports, numFeatures,
                                  *kernel, 0.0);
      scores = weightedSums(b, loc, k, coefficients, {rho[0]}, b.getF32Type());
    } else {
      if (static_cast<int64_t>(coefficients.size()) != numFeatures)
        return op->emitError()
               << "needs " << numFeatures << " coefficients (a linear model)";
      scores = buildKernelValues(b, loc, x, coefficients, 1, numFeatures,
                                 SvmKernel(), rho[0]);
    }
    if (auto oneClass = op->getAttrOfType<IntegerAttr>("one_class");
        oneClass && oneClass.getInt())
      scores = buildParallelGeneric(
          b, loc, llvm::cast<RankedTensorType>(scores.getType()),
          tensorSizes(b, loc, scores), scores, {b.getMultiDimIdentityMap(2)},
          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
            Type f32 = nb.getF32Type();
            Value positive =
                nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, args[0],
                                         scalarConst(nb, l, f32, 0.0));
            return nb.create<arith::SelectOp>(l, positive,
                                              scalarConst(nb, l, f32, 1.0),
                                              scalarConst(nb, l, f32, -1.0));
          });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, scores, resultType));
    return success();
  }
};

/// The label of each row: the class with the most votes (the first of
/// equal counts), a pair's vote going to its first class where its decision
/// is positive.
Value votedLabels(OpBuilder &b, Location loc, Value decisions,
                  ArrayRef<int64_t> labels, RankedTensorType labelType) {
  int64_t classes = labels.size();
  SmallVector<int64_t> first, second;
  for (int64_t i = 0; i < classes; ++i)
    for (int64_t j = i + 1; j < classes; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  int64_t pairs = first.size();
  Value firstTable = i64Table(b, loc, first, {pairs});
  Value secondTable = i64Table(b, loc, second, {pairs});
  Value labelTable = i64Table(b, loc, labels, {classes});
  Type i64 = b.getI64Type();
  Type sumType =
      llvm::cast<RankedTensorType>(decisions.getType()).getElementType();
  return buildIndexedGeneric(
      b, loc,
      emptyTensor(b, loc, labelType, {tensorSize(b, loc, decisions, 0)}), {},
      {}, [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) -> Value {
        auto votesFor = [&](OpBuilder &cb, Location cl, Value c) -> Value {
          Value cls = cb.create<arith::IndexCastOp>(cl, i64, c);
          return cb
              .create<scf::ForOp>(
                  cl, indexConst(cb, cl, 0), indexConst(cb, cl, pairs),
                  indexConst(cb, cl, 1),
                  ValueRange{cb.create<arith::ConstantIntOp>(cl, 0, 64)},
                  [&](OpBuilder &fb, Location fl, Value p, ValueRange count) {
                    Value d = fb.create<tensor::ExtractOp>(
                        fl, decisions, ValueRange{ivs[0], p});
                    Value positive = fb.create<arith::CmpFOp>(
                        fl, arith::CmpFPredicate::OGT, d,
                        scalarConst(fb, fl, sumType, 0.0));
                    Value winner = fb.create<arith::SelectOp>(
                        fl, positive,
                        fb.create<tensor::ExtractOp>(fl, firstTable, p),
                        fb.create<tensor::ExtractOp>(fl, secondTable, p));
                    Value won = fb.create<arith::ExtUIOp>(
                        fl, i64,
                        fb.create<arith::CmpIOp>(fl, arith::CmpIPredicate::eq,
                                                 winner, cls));
                    fb.create<scf::YieldOp>(
                        fl, ValueRange{
                                fb.create<arith::AddIOp>(fl, count[0], won)});
                  })
              .getResult(0);
        };
        auto best = nb.create<scf::ForOp>(
            l, indexConst(nb, l, 1), indexConst(nb, l, classes),
            indexConst(nb, l, 1),
            ValueRange{indexConst(nb, l, 0),
                       votesFor(nb, l, indexConst(nb, l, 0))},
            [&](OpBuilder &fb, Location fl, Value c, ValueRange state) {
              Value votes = votesFor(fb, fl, c);
              Value more = fb.create<arith::CmpIOp>(
                  fl, arith::CmpIPredicate::sgt, votes, state[1]);
              fb.create<scf::YieldOp>(
                  fl,
                  ValueRange{
                      fb.create<arith::SelectOp>(fl, more, c, state[0]),
                      fb.create<arith::SelectOp>(fl, more, votes, state[1])});
            });
        return nb.create<tensor::ExtractOp>(l, labelTable, best.getResult(0));
      });
}

/// Two classes, one decision d: [-d, d] without a transform, else
/// [1 - d, d] (ONNX Runtime's columns; no transform is applied).
Value twoClassDecisionColumns(OpBuilder &b, Location loc, Value decisions,
                              Transform transform, RankedTensorType type) {
  Type f32 = b.getF32Type();
  Type sumType =
      llvm::cast<RankedTensorType>(decisions.getType()).getElementType();
  return buildIndexedGeneric(
      b, loc,
      emptyTensor(b, loc, type,
                  {tensorSize(b, loc, decisions, 0), b.getIndexAttr(2)}),
      {}, {}, [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
        Value d = castScalar(
            nb, l,
            nb.create<tensor::ExtractOp>(
                l, decisions, ValueRange{ivs[0], indexConst(nb, l, 0)}),
            sumType, f32);
        Value other =
            transform == Transform::kNone
                ? nb.create<arith::NegFOp>(l, d).getResult()
                : nb.create<arith::SubFOp>(l, scalarConst(nb, l, f32, 1.0), d)
                      .getResult();
        Value second = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                                ivs[1], indexConst(nb, l, 1));
        return nb.create<arith::SelectOp>(l, second, d, other).getResult();
      });
}

/// The label of a linear (liblinear) model: the class of the highest score
/// (the first of equal ones); with two classes, ONNX Runtime picks the
/// second class when that score is >= 0.5 (all coefficients >= 0) or > 0
/// (some negative).
Value linearLabels(OpBuilder &b, Location loc, Value scores,
                   ArrayRef<int64_t> labels, bool allPositive,
                   RankedTensorType labelType) {
  int64_t classes = labels.size();
  Value labelTable = i64Table(b, loc, labels, {classes});
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, labelType, {tensorSize(b, loc, scores, 0)}),
      {}, {}, [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange) {
        auto at = [&](OpBuilder &fb, Location fl, Value j) -> Value {
          return fb.create<tensor::ExtractOp>(fl, scores,
                                              ValueRange{ivs[0], j});
        };
        Value zero = indexConst(nb, l, 0);
        auto best = nb.create<scf::ForOp>(
            l, indexConst(nb, l, 1), indexConst(nb, l, classes),
            indexConst(nb, l, 1), ValueRange{zero, at(nb, l, zero)},
            [&](OpBuilder &fb, Location fl, Value j, ValueRange state) {
              Value s = at(fb, fl, j);
              Value more = fb.create<arith::CmpFOp>(
                  fl, arith::CmpFPredicate::OGT, s, state[1]);
              fb.create<scf::YieldOp>(
                  fl, ValueRange{
                          fb.create<arith::SelectOp>(fl, more, j, state[0]),
                          fb.create<arith::SelectOp>(fl, more, s, state[1])});
            });
        Value label =
            nb.create<tensor::ExtractOp>(l, labelTable, best.getResult(0));
        if (classes != 2)
          return label;
        Value second = nb.create<arith::CmpFOp>(
            l,
            allPositive ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT,
            best.getResult(1),
            scalarConst(nb, l, nb.getF32Type(), allPositive ? 0.5 : 0.0));
        return nb
            .create<arith::SelectOp>(
                l, second, nb.create<arith::ConstantIntOp>(l, labels[1], 64),
                label)
            .getResult();
      });
}

/// The [vectors, pairs] weights of the one-vs-one decisions: pair (i, j)
/// takes coefficient row j - 1 on class i's vectors and row i on class j's.
SmallVector<double> pairWeights(ArrayRef<double> coefficients,
                                ArrayRef<int64_t> perClass) {
  int64_t classes = perClass.size(), vectors = 0;
  SmallVector<int64_t> start;
  for (int64_t n : perClass) {
    start.push_back(vectors);
    vectors += n;
  }
  int64_t pairs = classes * (classes - 1) / 2, p = 0;
  SmallVector<double> weights(vectors * pairs, 0.0);
  for (int64_t i = 0; i < classes; ++i)
    for (int64_t j = i + 1; j < classes; ++j, ++p) {
      for (int64_t v = start[i]; v < start[i] + perClass[i]; ++v)
        weights[v * pairs + p] = coefficients[(j - 1) * vectors + v];
      for (int64_t v = start[j]; v < start[j] + perClass[j]; ++v)
        weights[v * pairs + p] = coefficients[i * vectors + v];
    }
  return weights;
}

/// SVMClassifier(X [N, F]) -> labels [N] int64, scores. With support
/// vectors (libsvm), the scores are the one-vs-one decisions after
/// post_transform ([N, pairs]; two classes give [N, 2]); without (liblinear)
/// they are x . coefficients_c + rho[0] per class after post_transform.
struct SvmClassifierLowering : ConversionPattern {
  SvmClassifierLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.SVMClassifier", 1, ctx) {}

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
    auto labels = trees::intsAttr(op, "classlabels_ints");
    if (!labels)
      return op->emitError() << "needs classlabels_ints (string labels "
                                "need string tensors, not supported yet)";
    if (!firstDoubles(op, {"prob_a"}).empty())
      return op->emitError() << "probability outputs (prob_a, prob_b) are "
                                "not supported yet";
    FailureOr<SvmKernel> kernel = readKernel(op);
    FailureOr<Transform> transform = readTransform(op);
    auto features = f32Features(rewriter, loc, op, operands[0]);
    if (failed(kernel) || failed(transform) || failed(features))
      return failure();
    auto [x, numFeatures] = *features;
    int64_t classes = labels->size();
    SmallVector<double> coefficients = firstDoubles(op, {"coefficients"});
    SmallVector<double> vectors = firstDoubles(op, {"support_vectors"});
    SmallVector<double> rho = firstDoubles(op, {"rho"});
    SmallVector<int64_t> perClass;
    if (auto counts = trees::intsAttr(op, "vectors_per_class"))
      perClass = *counts;
    int64_t numVectors = 0;
    for (int64_t n : perClass)
      numVectors += n;
    int64_t pairs = classes * (classes - 1) / 2;
    if (classes < 2 || rho.empty())
      return op->emitError() << "needs two or more classes and rho";
    OpBuilder &b = rewriter;
    SmallVector<OpFoldResult> sizes{tensorSize(b, loc, x, 0),
                                    b.getIndexAttr(scoreType.getDimSize(1))};

    if (numVectors == 0) {
      if (static_cast<int64_t>(coefficients.size()) != classes * numFeatures)
        return op->emitError() << "needs " << classes << " x " << numFeatures
                               << " coefficients (a linear model)";
      Value scores = buildKernelValues(b, loc, x, coefficients, classes,
                                       numFeatures, SvmKernel(), rho[0]);
      bool allPositive =
          llvm::all_of(coefficients, [](double c) { return c >= 0; });
      Value label =
          linearLabels(b, loc, scores, *labels, allPositive, labelType);
      rewriter.replaceOp(op, {label, transformRows(b, loc, scores, scoreType,
                                                   sizes, *transform)});
      return success();
    }
    if (static_cast<int64_t>(perClass.size()) != classes ||
        static_cast<int64_t>(vectors.size()) != numVectors * numFeatures ||
        static_cast<int64_t>(coefficients.size()) !=
            (classes - 1) * numVectors ||
        static_cast<int64_t>(rho.size()) < pairs)
      return op->emitError()
             << "needs vectors_per_class for " << classes << " classes, "
             << numVectors << " x " << numFeatures << " support_vectors, "
             << classes - 1 << " x " << numVectors << " coefficients and "
             << pairs << " rho";
    Value k = buildKernelValues(b, loc, x, vectors, numVectors, numFeatures,
                                *kernel, 0.0);
    rho.resize(pairs);
    Value decisions = weightedSums(
        b, loc, k, pairWeights(coefficients, perClass), rho, b.getF64Type());
    Value label = votedLabels(b, loc, decisions, *labels, labelType);
    Value scores =
        classes == 2
            ? twoClassDecisionColumns(b, loc, decisions, *transform, scoreType)
            : transformRows(b, loc, decisions, scoreType, sizes, *transform);
    rewriter.replaceOp(op, {label, scores});
    return success();
  }
};

} // namespace

void populateSvmPatterns(const TypeConverter &typeConverter,
                         RewritePatternSet &patterns) {
  patterns.add<SvmClassifierLowering, SvmRegressorLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
