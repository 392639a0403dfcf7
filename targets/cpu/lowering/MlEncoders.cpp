//===- MlEncoders.cpp - ai.onnx.ml Imputer and OneHotEncoder --------------===//
//
// The preprocessing ops scikit-learn pipelines convert to (SimpleImputer,
// OneHotEncoder in a ColumnTransformer). Imputer replaces a value (or NaN)
// by a constant per column; OneHotEncoder compares each value with the
// categories (numbers only: onnxc has no string tensors yet). With zeros = 0
// a value outside the categories fails the run, as in ONNX Runtime: a
// reduction counts them, and the run reports the count.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/MlScores.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/lowering/TreeTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Imputer(X [..., C]): x where it is not the replaced value (NaN: where x
/// is NaN), else imputed[c] (one value: for every column), in X's type.
struct ImputerLowering : ConversionPattern {
  ImputerLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.Imputer", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    auto xType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!resultType || !xType || xType.getRank() < 1 ||
        resultType.getElementType() != xType.getElementType())
      return rewriter.notifyMatchFailure(op, "expected ranked features");
    Type element = xType.getElementType();
    bool isFloat = llvm::isa<FloatType>(element);
    if (!isFloat && !element.isInteger(64))
      return op->emitError()
             << "expects float or int64 features, got " << xType;
    SmallVector<double> imputed;
    double replaced = 0.0;
    if (isFloat) {
      imputed = ml::firstDoubles(op, {"imputed_value_floats"});
      if (auto r = op->getAttrOfType<FloatAttr>("replaced_value_float"))
        replaced = r.getValueAsDouble();
    } else {
      for (int64_t v : trees::intsAttr(op, "imputed_value_int64s")
                           .value_or(SmallVector<int64_t>()))
        imputed.push_back(static_cast<double>(v));
      if (auto r = op->getAttrOfType<IntegerAttr>("replaced_value_int64"))
        replaced = static_cast<double>(r.getInt());
    }
    int64_t columns = xType.getShape().back();
    int64_t count = imputed.size();
    if (count == 0 ||
        (count != 1 && (ShapedType::isDynamic(columns) || count != columns)))
      return op->emitError() << "needs one imputed value or one per column ("
                             << columns << "), got " << count;
    SmallVector<Attribute> values;
    for (double v : imputed)
      values.push_back(isFloat ? Attribute(FloatAttr::get(element, v))
                               : Attribute(IntegerAttr::get(
                                     element, static_cast<int64_t>(v))));
    Value table = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({count}, element),
                                    values));
    bool nanReplaced = isFloat && std::isnan(replaced);
    int64_t last = xType.getRank() - 1;
    Value result = buildIndexedGeneric(
        rewriter, loc,
        emptyTensor(rewriter, loc, resultType,
                    tensorSizes(rewriter, loc, operands[0])),
        {operands[0]}, {rewriter.getMultiDimIdentityMap(xType.getRank())},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value x = args[0];
          Value match;
          if (nanReplaced)
            match = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, x, x);
          else if (isFloat)
            match =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, x,
                                        scalarConst(b, l, element, replaced));
          else
            match = b.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::eq, x,
                b.create<arith::ConstantIntOp>(
                    l, static_cast<int64_t>(replaced), 64));
          Value column = count == 1 ? indexConst(b, l, 0) : ivs[last];
          Value value = b.create<tensor::ExtractOp>(l, table, column);
          return b.create<arith::SelectOp>(l, match, value, x).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// x as the int64 a category is compared with (floats truncate, as in ONNX
/// Runtime).
Value asCategory(OpBuilder &b, Location loc, Value x, Type element) {
  Type i64 = b.getI64Type();
  if (llvm::isa<FloatType>(element))
    return b.create<arith::FPToSIOp>(loc, i64, x);
  if (element.getIntOrFloatBitWidth() < 64)
    return b.create<arith::ExtSIOp>(loc, i64, x);
  return x;
}

/// OneHotEncoder(X [...]) -> [..., K] f32: 1 where x is category k.
struct OneHotEncoderLowering : ConversionPattern {
  OneHotEncoderLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.ml.OneHotEncoder", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    auto xType = llvm::dyn_cast<RankedTensorType>(operands[0].getType());
    if (!resultType || !xType || !xType.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "expected numeric values");
    auto cats = trees::intsAttr(op, "cats_int64s");
    if (!cats)
      return op->emitError() << "needs cats_int64s (string categories need "
                                "string tensors, not supported yet)";
    int64_t k = cats->size();
    Type element = xType.getElementType();
    int64_t rank = xType.getRank();
    Value table = trees::i64Table(rewriter, loc, *cats, {k});
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, operands[0]);
    sizes.push_back(rewriter.getIndexAttr(k));
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(getAffineDimExpr(d, ctx));
    AffineMap xMap = AffineMap::get(rank + 1, 0, dims, ctx);
    Value result = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, resultType, sizes),
        {operands[0]}, {xMap},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange args) {
          Value category = b.create<tensor::ExtractOp>(l, table, ivs[rank]);
          Value hit = b.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::eq, asCategory(b, l, args[0], element),
              category);
          Type f32 = b.getF32Type();
          return b
              .create<arith::SelectOp>(l, hit, scalarConst(b, l, f32, 1.0),
                                       scalarConst(b, l, f32, 0.0))
              .getResult();
        });
    int64_t zeros = 1;
    if (auto attr = op->getAttrOfType<IntegerAttr>("zeros"))
      zeros = attr.getInt();
    if (zeros == 0)
      reportUnknownCategories(rewriter, loc, operands[0], *cats);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// zeros = 0: the run fails when some value is no category (ONNX
  /// Runtime's "Unknown Category"), reporting how many are not.
  static void reportUnknownCategories(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> cats) {
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    Type element = xType.getElementType(), i64 = b.getI64Type();
    int64_t rank = xType.getRank();
    Value table =
        trees::i64Table(b, loc, cats, {static_cast<int64_t>(cats.size())});
    auto countType = RankedTensorType::get({}, i64);
    Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
    Value empty = b.create<tensor::EmptyOp>(loc, ArrayRef<int64_t>{}, i64);
    Value init = b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
    MLIRContext *ctx = b.getContext();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    Value count =
        b.create<linalg::GenericOp>(
             loc, countType, ValueRange{x}, ValueRange{init},
             SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank),
                                    AffineMap::get(rank, 0, {}, ctx)},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value value = asCategory(nb, l, args[0], element);
               auto scan = nb.create<scf::ForOp>(
                   l, indexConst(nb, l, 0),
                   indexConst(nb, l, static_cast<int64_t>(cats.size())),
                   indexConst(nb, l, 1),
                   ValueRange{nb.create<arith::ConstantIntOp>(l, 0, 1)},
                   [&](OpBuilder &fb, Location fl, Value j, ValueRange found) {
                     Value hit = fb.create<arith::CmpIOp>(
                         fl, arith::CmpIPredicate::eq, value,
                         fb.create<tensor::ExtractOp>(fl, table, j));
                     fb.create<scf::YieldOp>(
                         fl, ValueRange{
                                 fb.create<arith::OrIOp>(fl, found[0], hit)});
                   });
               Value unknown = nb.create<arith::ExtUIOp>(
                   l, i64,
                   nb.create<arith::XOrIOp>(
                       l, scan.getResult(0),
                       nb.create<arith::ConstantIntOp>(l, 1, 1)));
               nb.create<linalg::YieldOp>(
                   l,
                   ValueRange{nb.create<arith::AddIOp>(l, args[1], unknown)});
             })
            .getResult(0);
    Value total = b.create<tensor::ExtractOp>(loc, count, ValueRange{});
    Value failed =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, total, zero);
    Value asIndex = b.create<arith::IndexCastOp>(loc, b.getIndexType(), total);
    emitShapeErrorIf(b, loc, failed, ShapeErrorKind::UnknownCategory, asIndex,
                     indexConst(b, loc, 0));
  }
};

} // namespace

void populateMlEncoderPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<ImputerLowering, OneHotEncoderLowering>(typeConverter,
                                                       patterns.getContext());
}

} // namespace onnxc::cpu
