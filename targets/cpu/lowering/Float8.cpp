//===- Float8.cpp - float8 <-> f32 conversions on the bits ----------------===//
//
// The cpu target keeps float8 values as their i8 encodings (the type
// converter maps f8 element types to i8): LLVM has no float8 types, and
// MLIR 19's arith has no expansion for their extf/truncf. These helpers
// decode and encode the four ONNX float8 formats with integer arithmetic.
//
// Encoding rounds to nearest, ties to even, as ONNX (and ml_dtypes) do. With
// `saturate`, out-of-range values and infinities become the largest finite
// value of their sign; without it they become infinity (E5M2) or NaN (the
// formats without infinity).
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The parameters of one float8 format.
struct Float8Format {
  unsigned mantissaBits;
  int bias;
  /// IEEE-like specials: the all-ones exponent is infinity (mantissa 0) or
  /// NaN (E5M2). Otherwise only NaN exists.
  bool hasInfinity;
  /// "FNUZ": no negative zero; the only NaN is 0x80.
  bool unsignedZero;
  /// The encoding of the largest finite magnitude.
  uint32_t maxEncoding;
};

std::optional<Float8Format> float8Format(Type type) {
  if (llvm::isa<Float8E4M3FNType>(type))
    return Float8Format{3, 7, false, false, 0x7E};
  if (llvm::isa<Float8E4M3FNUZType>(type))
    return Float8Format{3, 8, false, true, 0x7F};
  if (llvm::isa<Float8E5M2Type>(type))
    return Float8Format{2, 15, true, false, 0x7B};
  if (llvm::isa<Float8E5M2FNUZType>(type))
    return Float8Format{2, 16, false, true, 0x7F};
  return std::nullopt;
}

struct IntBuilder {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) const {
    return b.create<arith::ConstantIntOp>(loc, v, b.getI32Type());
  }
  Value andI(Value x, int64_t m) const {
    return b.create<arith::AndIOp>(loc, x, c(m));
  }
  Value orI(Value x, Value y) const {
    return b.create<arith::OrIOp>(loc, x, y);
  }
  Value shl(Value x, int64_t s) const {
    return b.create<arith::ShLIOp>(loc, x, c(s));
  }
  Value shr(Value x, int64_t s) const {
    return b.create<arith::ShRUIOp>(loc, x, c(s));
  }
  Value add(Value x, Value y) const {
    return b.create<arith::AddIOp>(loc, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t v) const {
    return b.create<arith::CmpIOp>(loc, p, x, c(v));
  }
  Value sel(Value cond, Value t, Value f) const {
    return b.create<arith::SelectOp>(loc, cond, t, f);
  }
};

} // namespace

bool isFloat8(Type type) { return float8Format(type).has_value(); }

Value float8ToF32(OpBuilder &b, Location loc, Value bits, Type float8) {
  Float8Format f = *float8Format(float8);
  IntBuilder ib{b, loc};
  unsigned m = f.mantissaBits;
  Value word = b.create<arith::ExtUIOp>(loc, b.getI32Type(), bits);
  Value sign = ib.shl(ib.andI(word, 0x80), 24);
  Value exponent = ib.shr(ib.andI(word, 0x7F), m);
  Value mantissa = ib.andI(word, (1 << m) - 1);
  // A normal number: re-bias the exponent, left-align the mantissa.
  Value normal = ib.orI(ib.shl(ib.add(exponent, ib.c(127 - f.bias)), 23),
                        ib.shl(mantissa, 23 - m));
  // A subnormal one (exponent 0): mantissa * 2^(1 - bias - m), exact in f32.
  Value scaled = b.create<arith::MulFOp>(
      loc, b.create<arith::UIToFPOp>(loc, b.getF32Type(), mantissa),
      b.create<arith::ConstantOp>(
          loc, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias - (int)m))));
  Value subnormal = b.create<arith::BitcastOp>(loc, b.getI32Type(), scaled);
  Value magnitude =
      ib.sel(ib.cmp(arith::CmpIPredicate::eq, exponent, 0), subnormal, normal);
  Value result = ib.orI(sign, magnitude);
  Value nanBits = ib.c(0x7FC00000);
  if (f.hasInfinity) {
    Value special =
        ib.cmp(arith::CmpIPredicate::eq, exponent, (1 << (7 - m)) - 1);
    Value inf = ib.orI(sign, ib.c(0x7F800000));
    Value value =
        ib.sel(ib.cmp(arith::CmpIPredicate::eq, mantissa, 0), inf, nanBits);
    result = ib.sel(special, value, result);
  } else if (f.unsignedZero) {
    result =
        ib.sel(ib.cmp(arith::CmpIPredicate::eq, word, 0x80), nanBits, result);
  } else {
    result = ib.sel(ib.cmp(arith::CmpIPredicate::eq, ib.andI(word, 0x7F), 0x7F),
                    nanBits, result);
  }
  return b.create<arith::BitcastOp>(loc, b.getF32Type(), result);
}

Value f32ToFloat8(OpBuilder &b, Location loc, Value value, Type float8,
                  bool saturate) {
  Float8Format f = *float8Format(float8);
  IntBuilder ib{b, loc};
  unsigned m = f.mantissaBits;
  unsigned shift = 23 - m;
  Value word = b.create<arith::BitcastOp>(loc, b.getI32Type(), value);
  Value sign = ib.shr(word, 31);
  Value magnitude = ib.andI(word, 0x7FFFFFFF);
  Value isNaN = ib.cmp(arith::CmpIPredicate::ugt, magnitude, 0x7F800000);

  // Normal range: round the f32 bits to m mantissa bits (ties to even; a
  // carry moves into the exponent), then re-bias the exponent.
  Value lsb = ib.andI(ib.shr(magnitude, shift), 1);
  Value rounded = ib.add(magnitude, ib.add(ib.c((1 << (shift - 1)) - 1), lsb));
  Value normal = b.create<arith::SubIOp>(loc, ib.shr(rounded, shift),
                                         ib.c((127 - f.bias) << m));
  // Below the smallest normal: the encoding is the magnitude in units of the
  // smallest subnormal, rounded to nearest even (2^m is the smallest normal).
  Value absValue = b.create<arith::BitcastOp>(loc, b.getF32Type(), magnitude);
  Value units = b.create<arith::MulFOp>(
      loc, absValue,
      b.create<arith::ConstantOp>(
          loc, b.getF32FloatAttr(std::ldexp(1.0f, f.bias + (int)m - 1))));
  Value subnormal = b.create<arith::FPToSIOp>(
      loc, b.getI32Type(), b.create<math::RoundEvenOp>(loc, units));
  Value isSubnormal =
      ib.cmp(arith::CmpIPredicate::ult, magnitude, (128 - f.bias) << 23);
  Value encoding = ib.sel(isSubnormal, subnormal, normal);

  // Too large (or infinite).
  Value overflow =
      ib.cmp(arith::CmpIPredicate::sgt, encoding, (int64_t)f.maxEncoding);
  Value nanOut = isNaN;
  if (saturate) {
    encoding = ib.sel(overflow, ib.c(f.maxEncoding), encoding);
  } else if (f.hasInfinity) {
    encoding = ib.sel(overflow, ib.c(0x7C), encoding);
  } else {
    nanOut = b.create<arith::OrIOp>(loc, isNaN, overflow);
  }
  Value result = ib.orI(ib.shl(sign, 7), encoding);
  if (f.unsignedZero)
    result =
        ib.sel(ib.cmp(arith::CmpIPredicate::eq, encoding, 0), ib.c(0), result);
  result = ib.sel(nanOut, ib.c(f.unsignedZero ? 0x80 : 0x7F), result);
  return b.create<arith::TruncIOp>(loc, b.getI8Type(), result);
}

} // namespace onnxc::cpu
