//===- ScalarFloatMath.h - Scalar float math in lowering bodies -*- C++ -*-===//
//
// A small builder of scalar float ops of one type, for the coordinate and
// weight math inside linalg.generic bodies (Resize, GridSample), plus the
// interpolation weights those ops share.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_SCALARFLOATMATH_H
#define ONNXC_TARGETS_CPU_LOWERING_SCALARFLOATMATH_H

#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace onnxc::cpu {

/// Scalar float ops on values of `type`.
struct ScalarFloatMath {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;

  mlir::Value c(double v) { return scalarConst(b, loc, type, v); }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::AddFOp>(loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SubFOp>(loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::MulFOp>(loc, x, y);
  }
  mlir::Value div(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::DivFOp>(loc, x, y);
  }
  mlir::Value cmp(mlir::arith::CmpFPredicate p, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::CmpFOp>(loc, p, x, y);
  }
  mlir::Value lt(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpFPredicate::OLT, x, y);
  }
  mlir::Value gt(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpFPredicate::OGT, x, y);
  }
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SelectOp>(loc, cond, x, y);
  }
  mlir::Value floor(mlir::Value x) { return b.create<mlir::math::FloorOp>(loc, x); }
  /// 1.0 where `cond` holds, else 0.0.
  mlir::Value boolToFloat(mlir::Value cond) { return select(cond, c(1), c(0)); }
  /// An index value as a float.
  mlir::Value fromIndex(mlir::Value index) {
    mlir::Value i =
        b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), index);
    return b.create<mlir::arith::SIToFPOp>(loc, type, i);
  }
  /// A float truncated toward zero, as an index.
  mlir::Value toIndex(mlir::Value x) {
    mlir::Value i = b.create<mlir::arith::FPToSIOp>(loc, b.getI64Type(), x);
    return b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), i);
  }
};

/// Keys' cubic convolution weights (coefficient `a`, -0.75 in GridSample and
/// Resize's default) of the four taps at -1, 0, 1, 2 around a sample at
/// fraction `t` in [0, 1] past tap 0.
inline llvm::SmallVector<mlir::Value>
cubicConvolutionWeights(ScalarFloatMath &m, mlir::Value t, double a) {
  auto far = [&](mlir::Value x) { // |x| in [1, 2]
    return m.sub(
        m.mul(m.add(m.mul(m.sub(m.mul(m.c(a), x), m.c(5 * a)), x), m.c(8 * a)),
              x),
        m.c(4 * a));
  };
  auto near = [&](mlir::Value x) { // |x| in [0, 1]
    return m.add(m.mul(m.mul(m.sub(m.mul(m.c(a + 2), x), m.c(a + 3)), x), x),
                 m.c(1));
  };
  mlir::Value oneMinus = m.sub(m.c(1), t);
  return {far(m.add(t, m.c(1))), near(t), near(oneMinus),
          far(m.add(oneMinus, m.c(1)))};
}

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_SCALARFLOATMATH_H
