//===- Signal.cpp - DFT and STFT ------------------------------------------===//
//
// Both are direct O(n^2) discrete Fourier sums, one linalg.generic with a
// reduction dim over the signal samples:
//   y[.., f, .., c] = sum_k w[k] * x(.., k, ..) * exp(+-2 pi i f k / n)
// with c = 0 the real and c = 1 the imaginary part. The twiddle angle is
// reduced modulo n in integers before it becomes a float, and the sum is
// accumulated in f64 and rounded to the result type once, so the result is as
// close to an exact transform as f64 allows for every input type. The
// per-sample weights w (window values, the 1/n of the inverse transform, the
// doubled bins of a one-sided inverse) are a small 1-D tensor whose length
// is the sum's extent. Axis, lengths and steps may be run-time values.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
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

/// Where the sum for one output element reads sample k.
struct SampleRef {
  /// The input indices without the trailing complex-component dim.
  SmallVector<Value> indices;
  /// The frequency bin f of the output element.
  Value frequency;
  /// False where the sample lies past the signal (it reads as zero); null
  /// when always in bounds.
  Value inBounds;
};

using SampleLocator = llvm::function_ref<SampleRef(
    OpBuilder &, Location, ValueRange outputIvs, Value k)>;

Value minIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return b.createOrFold<arith::MinSIOp>(loc, lhs, rhs);
}

Value selectIndex(OpBuilder &b, Location loc, Value cond, Value lhs,
                  Value rhs) {
  return b.createOrFold<arith::SelectOp>(loc, cond, lhs, rhs);
}

/// A 1-D f64 tensor of `length` elements computed from their index.
Value buildWeights(OpBuilder &b, Location loc, Value length,
                   llvm::function_ref<Value(OpBuilder &, Location, Value)> at) {
  auto type = RankedTensorType::get({ShapedType::kDynamic}, b.getF64Type());
  Value init = emptyTensor(b, loc, type, {OpFoldResult(length)});
  return buildIndexedGeneric(b, loc, init, {}, {},
                             [&](OpBuilder &nb, Location l, ValueRange ivs,
                                 ValueRange) { return at(nb, l, ivs[0]); });
}

/// The Fourier sum of `input` (ONNX element type `inputElement`, last dim 1
/// for real or 2 for complex samples) into a tensor of `resultType` with
/// `sizes`, whose last dim (1 or 2) picks the real/imaginary part. `weights`
/// is the 1-D f64 tensor of per-sample weights; its length is the number of
/// samples summed. `n` is the transform length; `inverse` flips the sign of
/// the exponent.
Value buildFourierSum(OpBuilder &b, Location loc, Value input,
                      Type inputElement, RankedTensorType resultType,
                      ArrayRef<OpFoldResult> sizes, Value weights, Value n,
                      bool inverse, SampleLocator locate) {
  Type f64 = b.getF64Type();
  int64_t rank = resultType.getRank();
  auto accType = RankedTensorType::get(resultType.getShape(), f64);
  Value acc = b.create<linalg::FillOp>(loc, scalarConst(b, loc, f64, 0.0),
                                       emptyTensor(b, loc, accType, sizes))
                  .getResult(0);
  bool complexInput =
      llvm::cast<RankedTensorType>(input.getType()).getShape().back() == 2;

  // The angle of one step of f * k: -+2 pi / n.
  Value nF64 = b.create<arith::SIToFPOp>(
      loc, f64, b.create<arith::IndexCastOp>(loc, b.getI64Type(), n));
  Value angleStep = b.create<arith::DivFOp>(
      loc, scalarConst(b, loc, f64, (inverse ? 2.0 : -2.0) * M_PI), nF64);

  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{
      AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = b.create<linalg::GenericOp>(
      loc, accType, ValueRange{weights}, ValueRange{acc}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(nb.create<linalg::IndexOp>(l, d));
        Value k = nb.create<linalg::IndexOp>(l, rank);
        SampleRef sample = locate(nb, l, ivs, k);
        Value zero = scalarConst(nb, l, f64, 0.0);
        auto read = [&](int64_t component) -> Value {
          SmallVector<Value> indices = sample.indices;
          indices.push_back(indexConst(nb, l, component));
          Value v = nb.create<tensor::ExtractOp>(l, input, indices);
          v = castScalar(nb, l, v, inputElement, f64);
          if (sample.inBounds)
            v = nb.create<arith::SelectOp>(l, sample.inBounds, v, zero);
          return v;
        };
        Value re = read(0);
        Value im = complexInput ? read(1) : Value();

        // (f * k) mod n keeps the angle in [0, 2 pi) exactly.
        Value turns = nb.create<arith::RemUIOp>(
            l, nb.create<arith::MulIOp>(l, sample.frequency, k), n);
        Value angle = nb.create<arith::MulFOp>(
            l,
            nb.create<arith::SIToFPOp>(
                l, f64,
                nb.create<arith::IndexCastOp>(l, nb.getI64Type(), turns)),
            angleStep);
        Value cos = nb.create<math::CosOp>(l, angle);
        Value sin = nb.create<math::SinOp>(l, angle);
        // (re + i im)(cos + i sin).
        Value real = nb.create<arith::MulFOp>(l, re, cos);
        Value imag = nb.create<arith::MulFOp>(l, re, sin);
        if (im) {
          real = nb.create<arith::SubFOp>(l, real,
                                          nb.create<arith::MulFOp>(l, im, sin));
          imag = nb.create<arith::AddFOp>(l, imag,
                                          nb.create<arith::MulFOp>(l, im, cos));
        }
        Value isReal = nb.create<arith::CmpIOp>(
            l, arith::CmpIPredicate::eq, ivs.back(), indexConst(nb, l, 0));
        Value term = nb.create<arith::SelectOp>(l, isReal, real, imag);
        term = nb.create<arith::MulFOp>(l, term, args[0]);
        nb.create<linalg::YieldOp>(
            l, ValueRange{nb.create<arith::AddFOp>(l, args[1], term)});
      });
  Value sum = generic.getResult(0);
  if (resultType.getElementType() == f64)
    return sum;
  Type resultElement = resultType.getElementType();
  return buildParallelGeneric(
      b, loc, resultType, sizes, sum, {b.getMultiDimIdentityMap(rank)},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        return castScalar(nb, l, args[0], f64, resultElement);
      });
}

/// Checks a signal operand: float, ranked, rank >= `minRank`, last dim a
/// static 1 (real) or 2 (complex).
LogicalResult checkSignal(Operation *op, Value signal, int64_t minRank) {
  auto type = llvm::dyn_cast<RankedTensorType>(signal.getType());
  if (!type || !llvm::isa<FloatType>(type.getElementType()))
    return op->emitError() << "expects a float signal tensor, got "
                           << signal.getType();
  if (type.getRank() < minRank)
    return op->emitError() << "expects a signal of rank >= " << minRank
                           << ", got " << type;
  int64_t last = type.getShape().back();
  if (last != 1 && last != 2)
    return op->emitError() << "needs a static last dim of 1 (real) or 2 "
                              "(complex) samples, got "
                           << type;
  return success();
}

/// Checks that an optional integer scalar input has one element.
LogicalResult checkScalarInput(Operation *op, Value value, StringRef what) {
  if (isNoneValue(value))
    return success();
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !llvm::isa<IntegerType>(type.getElementType()) ||
      type.getRank() > 1 || type.getNumElements() != 1)
    return op->emitError() << what << " must be an integer scalar, got "
                           << value.getType();
  return success();
}

/// DFT(input, dft_length?, axis?): a forward or inverse transform along one
/// axis; one-sided forward keeps bins 0..n/2, one-sided inverse (the inverse
/// of a real signal's spectrum) rebuilds the other half by Hermitian
/// symmetry: bins 0 < k < n/2 count twice and only the real part is kept.
/// Shorter input than n is zero padded, longer is truncated.
struct DFTLowering : OpConversionPattern<onnx::DFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    if (failed(checkSignal(op, input, 2)) ||
        failed(checkScalarInput(op, adaptor.getDftLength(), "dft_length")) ||
        failed(checkScalarInput(op, adaptor.getAxis(), "axis")))
      return failure();
    auto inputType = llvm::cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    bool inverse = op.getInverse() != 0;
    bool onesided = op.getOnesided() != 0;
    bool realOutput = inverse && onesided;
    if (resultType.getRank() != rank ||
        !llvm::isa<FloatType>(resultType.getElementType()) ||
        (!resultType.isDynamicDim(rank - 1) &&
         resultType.getDimSize(rank - 1) != (realOutput ? 1 : 2)))
      return op.emitError() << "result type " << resultType
                            << " does not match the input " << inputType;

    // The axis: a constant (checked here) or a run-time value (clamped into
    // the signal dims; an invalid one must only stay in bounds).
    OpBuilder &b = rewriter;
    Value axis;
    bool runtimeAxisValue = false;
    if (isNoneValue(adaptor.getAxis())) {
      axis = indexConst(b, loc, rank - 2);
    } else if (std::optional<SmallVector<int64_t>> values =
                   getConstantInts(op.getAxis())) {
      int64_t value = (*values)[0];
      if (value < -rank || value > rank - 2)
        return op.emitError() << "axis " << value << " is out of range for a "
                              << rank << "-D signal";
      axis = indexConst(b, loc, value < 0 ? value + rank : value);
    } else {
      axis = minIndex(b, loc, runtimeAxis(b, loc, adaptor.getAxis(), 0, rank),
                      indexConst(b, loc, rank - 2));
      runtimeAxisValue = true;
    }
    SmallVector<Value> isAxis, dims;
    Value length = indexConst(b, loc, 0); // The input length along the axis.
    for (int64_t d = 0; d < rank - 1; ++d) {
      isAxis.push_back(b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, axis, indexConst(b, loc, d)));
      dims.push_back(dimValue(b, loc, input, d));
      length = selectIndex(b, loc, isAxis[d], dims[d], length);
    }

    Value one = indexConst(b, loc, 1), two = indexConst(b, loc, 2);
    Value n;
    if (!isNoneValue(adaptor.getDftLength())) {
      if (std::optional<SmallVector<int64_t>> values =
              getConstantInts(op.getDftLength())) {
        if ((*values)[0] <= 0)
          return op.emitError()
                 << "dft_length must be positive, got " << (*values)[0];
        n = indexConst(b, loc, (*values)[0]);
      } else {
        // A non-positive run-time length makes an empty result.
        n = b.create<arith::MaxSIOp>(
            loc, extractAsIndex(b, loc, adaptor.getDftLength(), 0),
            indexConst(b, loc, 0));
      }
    } else if (realOutput) {
      n = b.createOrFold<arith::MulIOp>(
          loc, b.createOrFold<arith::SubIOp>(loc, length, one), two);
    } else {
      n = length;
    }
    Value halfPlusOne = b.createOrFold<arith::AddIOp>(
        loc, b.createOrFold<arith::DivUIOp>(loc, n, two), one);
    Value bins = onesided && !inverse ? halfPlusOne : n;
    Value samples = minIndex(b, loc, length, realOutput ? halfPlusOne : n);

    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank - 1; ++d)
      sizes.push_back(selectIndex(b, loc, isAxis[d], bins, dims[d]));
    sizes.push_back(b.getIndexAttr(realOutput ? 1 : 2));

    Value weights = buildWeights(
        b, loc, samples, [&](OpBuilder &nb, Location l, Value k) -> Value {
          Type f64 = nb.getF64Type();
          Value w = scalarConst(nb, l, f64, 1.0);
          if (inverse)
            w = nb.create<arith::DivFOp>(
                l, w,
                nb.create<arith::SIToFPOp>(
                    l, f64,
                    nb.create<arith::IndexCastOp>(l, nb.getI64Type(), n)));
          if (!realOutput)
            return w;
          // Bins other than 0 and n/2 stand for their mirror image too.
          Value c0 = indexConst(nb, l, 0);
          Value isDc =
              nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, k, c0);
          Value isNyquist = nb.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::eq,
              nb.create<arith::MulIOp>(l, k, indexConst(nb, l, 2)), n);
          Value single = nb.create<arith::OrIOp>(l, isDc, isNyquist);
          Value doubled = nb.create<arith::AddFOp>(l, w, w);
          return nb.create<arith::SelectOp>(l, single, w, doubled);
        });

    Value result = buildFourierSum(
        b, loc, input, getElementTypeOrSelf(op.getInput().getType()),
        resultType, sizes, weights, n, inverse,
        [&](OpBuilder &nb, Location l, ValueRange ivs, Value k) {
          SampleRef ref;
          ref.frequency = indexConst(nb, l, 0);
          for (int64_t d = 0; d < rank - 1; ++d) {
            // Static result dims may disagree with a run-time axis (a bad
            // model): the other dims then must not read past the input.
            Value iv = ivs[d];
            if (runtimeAxisValue)
              iv = clampIntoBounds(nb, l, iv, dims[d]);
            ref.indices.push_back(selectIndex(nb, l, isAxis[d], k, iv));
            ref.frequency =
                selectIndex(nb, l, isAxis[d], ivs[d], ref.frequency);
          }
          return ref;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// STFT(signal [batch, length, 1|2], frame_step, window?, frame_length?):
/// frame t starts at sample t * frame_step; its window-weighted samples
/// (window length w, ones when absent) are transformed with length
/// frame_length (zero padded or truncated) into [batch, frames, bins, 2].
struct STFTLowering : OpConversionPattern<onnx::STFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::STFTOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value signal = adaptor.getSignal();
    Value window = adaptor.getWindow();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    if (failed(checkSignal(op, signal, 3)) ||
        failed(checkScalarInput(op, adaptor.getFrameStep(), "frame_step")) ||
        failed(checkScalarInput(op, adaptor.getFrameLength(), "frame_length")))
      return failure();
    auto signalType = llvm::cast<RankedTensorType>(signal.getType());
    if (signalType.getRank() != 3 || resultType.getRank() != 4 ||
        !llvm::isa<FloatType>(resultType.getElementType()))
      return op.emitError() << "expects a signal [batch, length, 1|2] and a "
                               "result [batch, frames, bins, 2]";
    bool hasWindow = !isNoneValue(window);
    if (hasWindow) {
      auto windowType = llvm::dyn_cast<RankedTensorType>(window.getType());
      if (!windowType || windowType.getRank() != 1 ||
          !llvm::isa<FloatType>(windowType.getElementType()))
        return op.emitError()
               << "expects a 1-D float window, got " << window.getType();
    }
    bool onesided = op.getOnesided() != 0;

    OpBuilder &b = rewriter;
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1),
          two = indexConst(b, loc, 2);
    Value length = dimValue(b, loc, signal, 1);
    // A non-positive step is invalid; 1 keeps the sizes finite.
    Value step = b.createOrFold<arith::MaxSIOp>(
        loc, extractAsIndex(b, loc, adaptor.getFrameStep(), 0), one);
    Value windowLength;
    if (hasWindow)
      windowLength = dimValue(b, loc, window, 0);
    Value n;
    if (!isNoneValue(adaptor.getFrameLength()))
      n = b.createOrFold<arith::MaxSIOp>(
          loc, extractAsIndex(b, loc, adaptor.getFrameLength(), 0), one);
    else
      n = hasWindow ? windowLength : length;
    if (!hasWindow)
      windowLength = n;

    // frames = 1 + (length - n) / step, none when the signal is too short.
    Value tooShort = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, length, n);
    Value frames = b.createOrFold<arith::AddIOp>(
        loc, one,
        b.createOrFold<arith::DivSIOp>(
            loc, b.createOrFold<arith::SubIOp>(loc, length, n), step));
    frames = selectIndex(b, loc, tooShort, zero, frames);
    Value bins =
        onesided ? b.createOrFold<arith::AddIOp>(
                       loc, b.createOrFold<arith::DivUIOp>(loc, n, two), one)
                 : n;
    Value samples = minIndex(b, loc, windowLength, n);
    SmallVector<OpFoldResult> sizes{dimValue(b, loc, signal, 0), frames, bins,
                                    b.getIndexAttr(2)};

    Value weights = buildWeights(
        b, loc, samples, [&](OpBuilder &nb, Location l, Value k) -> Value {
          if (!hasWindow)
            return scalarConst(nb, l, nb.getF64Type(), 1.0);
          Value w = nb.create<tensor::ExtractOp>(l, window, ValueRange{k});
          return castScalar(nb, l, w,
                            getElementTypeOrSelf(op.getWindow().getType()),
                            nb.getF64Type());
        });

    Value last = b.createOrFold<arith::SubIOp>(loc, length, one);
    Value result = buildFourierSum(
        b, loc, signal, getElementTypeOrSelf(op.getSignal().getType()),
        resultType, sizes, weights, n, /*inverse=*/false,
        [&](OpBuilder &nb, Location l, ValueRange ivs, Value k) {
          SampleRef ref;
          Value time = nb.create<arith::AddIOp>(
              l, nb.create<arith::MulIOp>(l, ivs[1], step), k);
          ref.inBounds = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                  time, length);
          ref.indices = {ivs[0], nb.create<arith::MinSIOp>(l, time, last)};
          ref.frequency = ivs[2];
          return ref;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateSignalPatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<DFTLowering, STFTLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
