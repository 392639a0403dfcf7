//===- LinearAlgebra.cpp - Det --------------------------------------------===//
//
// Det(X): the determinants of the trailing M x M matrices of X, by Gaussian
// elimination with partial pivoting (the method LAPACK's getrf, behind
// numpy's det, uses). Sequential scf.for loops over a copy of each matrix:
// the elimination is inherently ordered. Half floats are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

using BodyFn = llvm::function_ref<Value(OpBuilder &, Location, Value, Value)>;

/// scf.for i in [lo, hi) carrying one tensor: body(i, tensor) -> tensor.
Value loopOver(OpBuilder &b, Location loc, Value lo, Value hi, Value init,
               BodyFn body) {
  auto loop = b.create<scf::ForOp>(
      loc, lo, hi, indexConst(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        nb.create<scf::YieldOp>(l, ValueRange{body(nb, l, i, iter[0])});
      });
  return loop.getResult(0);
}

/// The determinant of square matrix `a` (a tensor<MxM> in compute type).
Value determinant(OpBuilder &b, Location loc, Value a, Value m) {
  Type type = llvm::cast<RankedTensorType>(a.getType()).getElementType();
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  auto get = [](OpBuilder &nb, Location l, Value t, Value i, Value j) {
    return nb.create<tensor::ExtractOp>(l, t, ValueRange{i, j}).getResult();
  };
  auto loop = b.create<scf::ForOp>(
      loc, zero, m, one, ValueRange{a, scalarConst(b, loc, type, 1.0)},
      [&](OpBuilder &nb, Location l, Value k, ValueRange iter) {
        Value work = iter[0], det = iter[1];
        // The row at or below k with the largest |a[i, k]|.
        auto search = nb.create<scf::ForOp>(
            l, k, m, one, ValueRange{scalarConst(nb, l, type, -1.0), k},
            [&](OpBuilder &sb, Location sl, Value i, ValueRange best) {
              Value v = sb.create<math::AbsFOp>(sl, get(sb, sl, work, i, k));
              Value better = sb.create<arith::CmpFOp>(
                  sl, arith::CmpFPredicate::OGT, v, best[0]);
              sb.create<scf::YieldOp>(
                  sl, ValueRange{
                          sb.create<arith::SelectOp>(sl, better, v, best[0]),
                          sb.create<arith::SelectOp>(sl, better, i, best[1])});
            });
        Value pivotRow = search.getResult(1);
        Value swap =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, pivotRow, k);
        auto swapped = nb.create<scf::IfOp>(
            l, swap,
            [&](OpBuilder &tb, Location tl) {
              Value result = loopOver(
                  tb, tl, zero, m, work,
                  [&](OpBuilder &jb, Location jl, Value j, Value t) -> Value {
                    Value x = get(jb, jl, t, k, j);
                    Value y = get(jb, jl, t, pivotRow, j);
                    t = jb.create<tensor::InsertOp>(jl, y, t, ValueRange{k, j});
                    return jb.create<tensor::InsertOp>(jl, x, t,
                                                       ValueRange{pivotRow, j});
                  });
              tb.create<scf::YieldOp>(tl, ValueRange{result});
            },
            [&](OpBuilder &eb, Location el) {
              eb.create<scf::YieldOp>(el, ValueRange{work});
            });
        work = swapped.getResult(0);
        det = nb.create<arith::SelectOp>(l, swap,
                                         nb.create<arith::NegFOp>(l, det), det);
        Value pivot = get(nb, l, work, k, k);
        det = nb.create<arith::MulFOp>(l, det, pivot);
        // A zero pivot makes the determinant 0; skip the division.
        Value usable = nb.create<arith::CmpFOp>(
            l, arith::CmpFPredicate::UNE, pivot, scalarConst(nb, l, type, 0.0));
        Value below = nb.create<arith::AddIOp>(l, k, one);
        auto eliminated = nb.create<scf::IfOp>(
            l, usable,
            [&](OpBuilder &tb, Location tl) {
              Value result = loopOver(
                  tb, tl, below, m, work,
                  [&](OpBuilder &ib, Location il, Value i, Value t) -> Value {
                    Value factor = ib.create<arith::DivFOp>(
                        il, get(ib, il, t, i, k), pivot);
                    return loopOver(
                        ib, il, below, m, t,
                        [&](OpBuilder &jb, Location jl, Value j,
                            Value u) -> Value {
                          Value updated = jb.create<arith::SubFOp>(
                              jl, get(jb, jl, u, i, j),
                              jb.create<arith::MulFOp>(jl, factor,
                                                       get(jb, jl, u, k, j)));
                          return jb.create<tensor::InsertOp>(jl, updated, u,
                                                             ValueRange{i, j});
                        });
                  });
              tb.create<scf::YieldOp>(tl, ValueRange{result});
            },
            [&](OpBuilder &eb, Location el) {
              eb.create<scf::YieldOp>(el, ValueRange{work});
            });
        nb.create<scf::YieldOp>(l, ValueRange{eliminated.getResult(0), det});
      });
  return loop.getResult(1);
}

/// Det(X) for float X of shape [*, M, M]: one determinant per batch element.
struct DetLowering : ConversionPattern {
  DetLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.Det", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = operands[0];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!xType || xType.getRank() < 2 ||
        !llvm::isa<FloatType>(xType.getElementType()) ||
        type.getRank() != xType.getRank() - 2)
      return rewriter.notifyMatchFailure(op, "expected float [*, M, M] input");
    Location loc = op->getLoc();
    int64_t batchRank = type.getRank();
    Type element = xType.getElementType();
    Type compute = computeType(element);
    Value m = dimValue(rewriter, loc, x, batchRank);

    SmallVector<Value> batchDims;
    Value batches = indexConst(rewriter, loc, 1);
    for (int64_t d = 0; d < batchRank; ++d) {
      batchDims.push_back(dimValue(rewriter, loc, x, d));
      batches = rewriter.create<arith::MulIOp>(loc, batches, batchDims.back());
    }
    Value init = emptyTensor(rewriter, loc, type,
                             getAsOpFoldResult(ValueRange(batchDims)));
    Value zero = indexConst(rewriter, loc, 0);
    Value result = loopOver(
        rewriter, loc, zero, batches, init,
        [&](OpBuilder &b, Location l, Value n, Value out) -> Value {
          SmallVector<Value> batch(batchRank);
          for (int64_t d = batchRank - 1; d >= 0; --d) {
            batch[d] = b.create<arith::RemUIOp>(l, n, batchDims[d]);
            n = b.create<arith::DivUIOp>(l, n, batchDims[d]);
          }
          // A copy of this batch element's matrix in the compute type.
          Value matrix = b.create<tensor::EmptyOp>(
              l, ArrayRef<OpFoldResult>{m, m}, compute);
          matrix = loopOver(
              b, l, zero, m, matrix,
              [&](OpBuilder &ib, Location il, Value i, Value t) -> Value {
                return loopOver(
                    ib, il, zero, m, t,
                    [&](OpBuilder &jb, Location jl, Value j, Value u) -> Value {
                      SmallVector<Value> at(batch);
                      at.push_back(i);
                      at.push_back(j);
                      Value v = promoteHalf(
                          jb, jl, jb.create<tensor::ExtractOp>(jl, x, at));
                      return jb.create<tensor::InsertOp>(jl, v, u,
                                                         ValueRange{i, j});
                    });
              });
          Value det = demoteTo(b, l, determinant(b, l, matrix, m), element);
          return b.create<tensor::InsertOp>(l, det, out, batch);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateLinearAlgebraPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<DetLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
