//===- Generators.cpp - Ops whose elements are a function of the index ----===//
//
// EyeLike, MelWeightMatrix and the window functions (HannWindow,
// HammingWindow, BlackmanWindow): each result element depends only on its
// position, so each op becomes one linalg.generic over an empty tensor that
// reads linalg.index.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// A linalg.generic producing `type` of `sizes` from its indices alone.
Value buildIndexGeneric(
    OpBuilder &b, Location loc, RankedTensorType type,
    ArrayRef<OpFoldResult> sizes,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return buildIndexedGeneric(b, loc, emptyTensor(b, loc, type, sizes), {}, {},
                             [&](OpBuilder &nb, Location nloc, ValueRange ivs,
                                 ValueRange) { return body(nb, nloc, ivs); });
}

/// EyeLike(x): ones on diagonal k of a matrix shaped like the 2-D input x.
/// Legal for any numeric or bool result type.
struct EyeLikeLowering : ConversionPattern {
  EyeLikeLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.EyeLike", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    auto inputType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!inputType || inputType.getRank() != 2 || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "expected a 2-D input");
    Type element = type.getElementType();
    if (!element.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    int64_t k = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("k"))
      k = attr.getInt();
    Location loc = op->getLoc();
    Value result = buildIndexGeneric(
        rewriter, loc, type, mixedDims(rewriter, loc, operands[0]),
        [&](OpBuilder &b, Location l, ValueRange idx) -> Value {
          // On the diagonal when j - i == k.
          Value diff = b.create<arith::SubIOp>(l, idx[1], idx[0]);
          Value onDiagonal = b.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::eq, diff, indexConst(b, l, k));
          return b.create<arith::SelectOp>(l, onDiagonal,
                                           scalarConst(b, l, element, 1.0),
                                           scalarConst(b, l, element, 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

enum class WindowKind { Hann, Hamming, Blackman };

/// HannWindow/HammingWindow/BlackmanWindow(size): a generalized cosine window
/// a0 - a1 cos(2 pi n / M) + a2 cos(4 pi n / M), M = size (periodic) or
/// size - 1 (symmetric). Computed in f64 and cast to the output type.
struct WindowLowering : ConversionPattern {
  WindowLowering(const TypeConverter &converter, MLIRContext *ctx,
                 StringRef name, WindowKind kind)
      : ConversionPattern(converter, name, 1, ctx), kind(kind) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Type onnxElement = getElementTypeOrSelf(op->getResult(0).getType());
    if (type.getRank() != 1 || !onnxElement.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected a 1-D numeric result");
    auto sizeType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!sizeType || sizeType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "size must be a scalar");
    bool periodic = true;
    if (auto attr = op->getAttrOfType<IntegerAttr>("periodic"))
      periodic = attr.getInt() != 0;
    double a0 = 0.5, a1 = 0.5, a2 = 0.0;
    if (kind == WindowKind::Hamming) {
      a0 = 25.0 / 46.0;
      a1 = 1.0 - a0;
    } else if (kind == WindowKind::Blackman) {
      a0 = 0.42;
      a1 = 0.5;
      a2 = 0.08;
    }

    Location loc = op->getLoc();
    Value size = extractAsIndex(rewriter, loc, operands[0], 0);
    Type f64 = rewriter.getF64Type();
    Value sizeInt =
        rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(), size);
    Value denom = rewriter.create<arith::SIToFPOp>(loc, f64, sizeInt);
    if (!periodic)
      denom = rewriter.create<arith::SubFOp>(
          loc, denom, scalarConst(rewriter, loc, f64, 1));
    Value result = buildIndexGeneric(
        rewriter, loc, type, {OpFoldResult(size)},
        [&](OpBuilder &b, Location l, ValueRange idx) -> Value {
          Value n = b.create<arith::SIToFPOp>(
              l, f64, b.create<arith::IndexCastOp>(l, b.getI64Type(), idx[0]));
          Value angle = b.create<arith::DivFOp>(
              l,
              b.create<arith::MulFOp>(l, n, scalarConst(b, l, f64, 2 * M_PI)),
              denom);
          Value w = b.create<arith::SubFOp>(
              l, scalarConst(b, l, f64, a0),
              b.create<arith::MulFOp>(l, scalarConst(b, l, f64, a1),
                                      b.create<math::CosOp>(l, angle)));
          if (a2 != 0.0) {
            Value twice =
                b.create<arith::MulFOp>(l, angle, scalarConst(b, l, f64, 2.0));
            w = b.create<arith::AddFOp>(
                l, w,
                b.create<arith::MulFOp>(l, scalarConst(b, l, f64, a2),
                                        b.create<math::CosOp>(l, twice)));
          }
          return castScalar(b, l, w, f64, onnxElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  WindowKind kind;
};

/// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
/// upper_edge_hertz): [dft_length / 2 + 1, num_mel_bins] triangular filters.
/// Mel bin i spans the spectrogram bins fb[i]..fb[i + 2] with its peak at
/// fb[i + 1], where fb[k] = floor((dft_length + 1) * hz(k) / sample_rate)
/// for k + 2 points evenly spaced in mel. The mel edges are computed in the
/// edges' float type and the bins in f64, as the ONNX reference does.
struct MelWeightMatrixLowering : ConversionPattern {
  MelWeightMatrixLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.MelWeightMatrix", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Type onnxElement = getElementTypeOrSelf(op->getResult(0).getType());
    if (type.getRank() != 2 || !onnxElement.isIntOrFloat() ||
        operands.size() != 5)
      return rewriter.notifyMatchFailure(op, "expected a 2-D numeric result");
    Type edgeType = getElementTypeOrSelf(operands[3].getType());
    for (int i = 0; i < 5; ++i) {
      auto operandType =
          llvm::dyn_cast<RankedTensorType>(operands[i].getType());
      Type element = getElementTypeOrSelf(operands[i].getType());
      bool wantFloat = i >= 3;
      if (!operandType || operandType.getNumElements() != 1 ||
          (wantFloat ? !llvm::isa<FloatType>(element)
                     : !llvm::isa<IntegerType>(element)))
        return rewriter.notifyMatchFailure(op, "expected scalar inputs");
    }
    if (getElementTypeOrSelf(operands[4].getType()) != edgeType)
      return rewriter.notifyMatchFailure(op, "edge types differ");

    Location loc = op->getLoc();
    OpBuilder &b = rewriter;
    Type f64 = b.getF64Type(), i64 = b.getI64Type();
    auto scalar = [&](int i) {
      return b
          .create<tensor::ExtractOp>(
              loc, operands[i],
              SmallVector<Value>(
                  llvm::cast<RankedTensorType>(operands[i].getType()).getRank(),
                  indexConst(b, loc, 0)))
          .getResult();
    };
    auto toI64 = [&](Value v) -> Value {
      return v.getType() == i64 ? v : b.create<arith::ExtSIOp>(loc, i64, v);
    };
    Value melBins = toI64(scalar(0)), dftLength = toI64(scalar(1)),
          sampleRate = toI64(scalar(2));
    Type computeEdge = computeType(edgeType);
    auto toMel = [&](Value hz) -> Value {
      hz = promoteHalf(b, loc, hz);
      Value ratio = b.create<arith::DivFOp>(
          loc, hz, scalarConst(b, loc, computeEdge, 700.0));
      Value scaled =
          b.create<arith::MulFOp>(loc, scalarConst(b, loc, computeEdge, 2595.0),
                                  b.create<math::Log1pOp>(loc, ratio));
      return b.create<arith::DivFOp>(
          loc, scaled, scalarConst(b, loc, computeEdge, std::log(10.0)));
    };
    Value lowMel = toMel(scalar(3)), highMel = toMel(scalar(4));
    Value points = b.create<arith::AddIOp>(
        loc, melBins, b.create<arith::ConstantIntOp>(loc, 2, 64));
    Value melStep = b.create<arith::DivFOp>(
        loc, b.create<arith::SubFOp>(loc, highMel, lowMel),
        b.create<arith::SIToFPOp>(loc, computeEdge, points));
    auto toF64 = [&](Value v) -> Value {
      return v.getType() == f64 ? v : b.create<arith::ExtFOp>(loc, f64, v);
    };
    Value melStep64 = toF64(melStep), lowMel64 = toF64(lowMel);
    Value dftPlusOne = b.create<arith::SIToFPOp>(
        loc, f64,
        b.create<arith::AddIOp>(loc, dftLength,
                                b.create<arith::ConstantIntOp>(loc, 1, 64)));
    Value rate = b.create<arith::SIToFPOp>(loc, f64, sampleRate);

    Value rows = b.create<arith::IndexCastOp>(
        loc, b.getIndexType(),
        b.create<arith::AddIOp>(
            loc,
            b.create<arith::DivSIOp>(
                loc, dftLength, b.create<arith::ConstantIntOp>(loc, 2, 64)),
            b.create<arith::ConstantIntOp>(loc, 1, 64)));
    Value cols = b.create<arith::IndexCastOp>(loc, b.getIndexType(), melBins);
    Value result = buildIndexGeneric(
        b, loc, type, {OpFoldResult(rows), OpFoldResult(cols)},
        [&](OpBuilder &nb, Location l, ValueRange idx) -> Value {
          auto asF64 = [&](Value index) -> Value {
            return nb.create<arith::SIToFPOp>(
                l, f64, nb.create<arith::IndexCastOp>(l, i64, index));
          };
          // The spectrogram bin of mel point i + offset.
          auto bin = [&](int64_t offset) -> Value {
            Value k = nb.create<arith::AddFOp>(
                l, asF64(idx[1]), scalarConst(nb, l, f64, double(offset)));
            Value mel = nb.create<arith::AddFOp>(
                l, nb.create<arith::MulFOp>(l, k, melStep64), lowMel64);
            Value hz = nb.create<arith::MulFOp>(
                l, scalarConst(nb, l, f64, 700.0),
                nb.create<math::ExpM1Op>(
                    l, nb.create<arith::MulFOp>(
                           l,
                           nb.create<arith::DivFOp>(
                               l, mel, scalarConst(nb, l, f64, 2595.0)),
                           scalarConst(nb, l, f64, std::log(10.0)))));
            Value q = nb.create<arith::DivFOp>(
                l, nb.create<arith::MulFOp>(l, dftPlusOne, hz), rate);
            return nb.create<math::FloorOp>(l, q);
          };
          Value lo = bin(0), center = bin(1), hi = bin(2);
          Value j = asF64(idx[0]);
          Value zero = scalarConst(nb, l, f64, 0.0);
          auto cmp = [&](arith::CmpFPredicate p, Value a, Value c) -> Value {
            return nb.create<arith::CmpFOp>(l, p, a, c);
          };
          using P = arith::CmpFPredicate;
          // Rising edge lo..center (a single 1 at center when they meet).
          Value rising =
              nb.create<arith::DivFOp>(l, nb.create<arith::SubFOp>(l, j, lo),
                                       nb.create<arith::SubFOp>(l, center, lo));
          Value flat = cmp(P::OEQ, center, lo);
          Value risingValue = nb.create<arith::SelectOp>(
              l, flat, scalarConst(nb, l, f64, 1.0), rising);
          Value inRising = nb.create<arith::AndIOp>(l, cmp(P::OGE, j, lo),
                                                    cmp(P::OLE, j, center));
          Value value =
              nb.create<arith::SelectOp>(l, inRising, risingValue, zero);
          // Falling edge center..hi (exclusive), when hi > center.
          Value falling =
              nb.create<arith::DivFOp>(l, nb.create<arith::SubFOp>(l, hi, j),
                                       nb.create<arith::SubFOp>(l, hi, center));
          Value inFalling = nb.create<arith::AndIOp>(l, cmp(P::OGE, j, center),
                                                     cmp(P::OLT, j, hi));
          value = nb.create<arith::SelectOp>(l, inFalling, falling, value);
          return castScalar(nb, l, value, f64, onnxElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateGeneratorPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<EyeLikeLowering, MelWeightMatrixLowering>(typeConverter, ctx);
  patterns.add<WindowLowering>(typeConverter, ctx, "onnx.HannWindow",
                               WindowKind::Hann);
  patterns.add<WindowLowering>(typeConverter, ctx, "onnx.HammingWindow",
                               WindowKind::Hamming);
  patterns.add<WindowLowering>(typeConverter, ctx, "onnx.BlackmanWindow",
                               WindowKind::Blackman);
}

} // namespace onnxc::cpu
