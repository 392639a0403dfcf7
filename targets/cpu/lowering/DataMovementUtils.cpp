//===- DataMovementUtils.cpp - Index arithmetic for data movement ---------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onnxc::cpu {

Value runtimeAxis(OpBuilder &b, Location loc, Value axes, int64_t i,
                  int64_t rank) {
  Value rankValue = indexConst(b, loc, rank);
  Value axis =
      wrapNegativeIndex(b, loc, extractAsIndex(b, loc, axes, i), rankValue);
  return clampIntoBounds(b, loc, axis, rankValue);
}

Value wrapNegativeIndex(OpBuilder &b, Location loc, Value index, Value size) {
  Value zero = indexConst(b, loc, 0);
  Value negative = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                                 index, zero);
  Value wrapped = b.createOrFold<arith::AddIOp>(loc, index, size);
  return b.createOrFold<arith::SelectOp>(loc, negative, wrapped, index);
}

Value clampIndex(OpBuilder &b, Location loc, Value value, Value lo, Value hi) {
  Value atLeastLo = b.createOrFold<arith::MaxSIOp>(loc, value, lo);
  return b.createOrFold<arith::MinSIOp>(loc, atLeastLo, hi);
}

Value clampIntoBounds(OpBuilder &b, Location loc, Value index, Value size) {
  Value last = b.createOrFold<arith::SubIOp>(loc, size, indexConst(b, loc, 1));
  Value belowSize = b.createOrFold<arith::MinSIOp>(loc, index, last);
  return b.createOrFold<arith::MaxSIOp>(loc, belowSize, indexConst(b, loc, 0));
}

Value floorModIndex(OpBuilder &b, Location loc, Value value, Value divisor) {
  Value one = indexConst(b, loc, 1);
  Value safeDivisor = b.createOrFold<arith::MaxSIOp>(loc, divisor, one);
  Value rem = b.createOrFold<arith::RemSIOp>(loc, value, safeDivisor);
  Value negative = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                                 rem, indexConst(b, loc, 0));
  Value shifted = b.createOrFold<arith::AddIOp>(loc, rem, safeDivisor);
  return b.createOrFold<arith::SelectOp>(loc, negative, shifted, rem);
}

Value buildIndexedGeneric(OpBuilder &b, Location loc, Value init,
                          ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                          IndexedBodyBuilder body) {
  auto initType = llvm::cast<RankedTensorType>(init.getType());
  int64_t rank = initType.getRank();
  SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, initType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(nested.create<linalg::IndexOp>(nestedLoc, d));
        Value result =
            body(nested, nestedLoc, ivs, args.take_front(inputs.size()));
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> indices(type.getRank(), indexConst(b, loc, 0));
  return b.create<tensor::ExtractOp>(loc, tensor, indices);
}

LogicalResult normalizeAxes(Operation *op, SmallVectorImpl<int64_t> &axes,
                            int64_t rank) {
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t &axis : axes) {
    int64_t original = axis;
    axis = normalizeAxis(axis, rank);
    if (axis < 0 || axis >= rank)
      return op->emitError()
             << "axis " << original << " is out of range for rank " << rank;
    if (!seen.insert(axis).second)
      return op->emitError() << "axis " << original << " is repeated";
  }
  return success();
}

} // namespace onnxc::cpu
