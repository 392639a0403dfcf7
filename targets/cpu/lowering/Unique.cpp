//===- Unique.cpp - Unique ------------------------------------------------===//
//
// Unique sorts and deduplicates slices of its input, so its results have a
// data-dependent length: it is a call into the runtime
// (runtime/cpu/Unique.c). The input is passed flattened with its
// [outer, axis, inner] view as sizes; the outputs are allocated for the case
// where every slice is distinct and sliced to the count the call returns.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Unique(X; axis?, sorted) -> (Y, indices, inverse_indices, counts) through
/// the runtime helper onnxc_rt_unique_<type>.
struct UniqueLowering : ConversionPattern {
  UniqueLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.Unique", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType valuesType = convertedResultType(*getTypeConverter(), op);
    if (!valuesType)
      return failure();
    Value input = operands[0];
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!inputType)
      return rewriter.notifyMatchFailure(op, "expected a ranked input");
    std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
    if (!helper)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, StringAttr::get(getContext(), helper->name));
    if (!callee)
      return op->emitError("the runtime helper for this node is not declared "
                           "(run --onnxc-declare-runtime-helpers first)");
    Location loc = op->getLoc();
    int64_t rank = inputType.getRank();
    std::optional<int64_t> axis;
    if (auto attr = op->getAttrOfType<IntegerAttr>("axis")) {
      if (attr.getInt() < -rank || attr.getInt() >= rank)
        return op->emitError()
               << "axis " << attr.getInt() << " is out of range for a rank-"
               << rank << " input";
      axis = normalizeAxis(attr.getInt(), rank);
    }
    bool sorted = true;
    if (auto attr = op->getAttrOfType<IntegerAttr>("sorted"))
      sorted = attr.getInt() != 0;
    if (valuesType.getRank() != (axis ? rank : 1))
      return rewriter.notifyMatchFailure(op, "unexpected result rank");

    // The [outer, len, inner] view: slices along the axis, or elements.
    Value one = indexConst(rewriter, loc, 1);
    Value outer = one, len = one, inner = one;
    for (int64_t d = 0; d < rank; ++d) {
      Value size = dimValue(rewriter, loc, input, d);
      Value &part = !axis || d == *axis ? len : d < *axis ? outer : inner;
      part = rewriter.create<arith::MulIOp>(loc, part, size);
    }
    Value total = rewriter.create<arith::MulIOp>(
        loc, rewriter.create<arith::MulIOp>(loc, outer, len), inner);

    FunctionType signature = callee.getFunctionType();
    auto valuesMemref = llvm::cast<MemRefType>(signature.getInput(0));
    auto indexMemref = llvm::cast<MemRefType>(signature.getInput(6));
    auto flatType = RankedTensorType::get({inputType.hasStaticShape()
                                               ? inputType.getNumElements()
                                               : ShapedType::kDynamic},
                                          valuesMemref.getElementType());
    Value flat = castIfNeeded(
        rewriter, loc,
        reshapeTo(rewriter, loc, input, flatType, {OpFoldResult(total)}),
        RankedTensorType::get({ShapedType::kDynamic},
                              valuesMemref.getElementType()));
    Value x = rewriter.create<bufferization::ToMemrefOp>(
        loc, valuesMemref, flat, rewriter.getUnitAttr());
    Value y =
        rewriter.create<memref::AllocOp>(loc, valuesMemref, ValueRange{total});
    SmallVector<Value, 3> indexBuffers;
    for (int i = 0; i < 3; ++i)
      indexBuffers.push_back(
          rewriter.create<memref::AllocOp>(loc, indexMemref, ValueRange{len}));
    Type i64 = rewriter.getI64Type();
    auto asI64 = [&](Value v) -> Value {
      return rewriter.create<arith::IndexCastOp>(loc, i64, v);
    };
    auto call = rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{
            x, asI64(outer), asI64(len), asI64(inner),
            rewriter.create<arith::ConstantIntOp>(loc, sorted ? 1 : 0, 32), y,
            indexBuffers[0], indexBuffers[1], indexBuffers[2]});
    Value count = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), call.getResult(0));

    // A buffer the call filled, as a tensor of its first `size` elements.
    auto prefix = [&](Value buffer, Value size) -> Value {
      auto memrefType = llvm::cast<MemRefType>(buffer.getType());
      auto tensorType = RankedTensorType::get(memrefType.getShape(),
                                              memrefType.getElementType());
      Value all = rewriter.create<bufferization::ToTensorOp>(
          loc, tensorType, buffer, rewriter.getUnitAttr(),
          rewriter.getUnitAttr());
      return rewriter.create<tensor::ExtractSliceOp>(
          loc, tensorType, all,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{size},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    };

    SmallVector<OpFoldResult> valuesSizes;
    if (axis) {
      valuesSizes = mixedDims(rewriter, loc, input);
      valuesSizes[*axis] = count;
    } else {
      valuesSizes.push_back(count);
    }
    Value valuesSize = rewriter.create<arith::MulIOp>(
        loc, rewriter.create<arith::MulIOp>(loc, outer, count), inner);
    SmallVector<Value, 4> results;
    results.push_back(reshapeTo(rewriter, loc, prefix(y, valuesSize),
                                valuesType, valuesSizes));
    Value sizes[3] = {count, len, count};
    for (int i = 0; i < 3; ++i) {
      if (llvm::isa<NoneType>(op->getResult(i + 1).getType())) {
        results.push_back(
            rewriter.create<onnx::NoValueOp>(loc, rewriter.getNoneType()));
        continue;
      }
      RankedTensorType type =
          convertedResultType(*getTypeConverter(), op, i + 1);
      if (!type)
        return failure();
      results.push_back(
          castIfNeeded(rewriter, loc, prefix(indexBuffers[i], sizes[i]), type));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateUniquePatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<UniqueLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
