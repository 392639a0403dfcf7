//===- Einsum.cpp - Einsum ------------------------------------------------===//
//
// Einsum becomes one linalg.generic: every label (and every ellipsis dim) is
// a loop, each input reads the loops of its term (a label repeated in one
// term reads a diagonal), the output writes the loops of the output term and
// the other loops are reductions of the product of the inputs. Ellipsis dims
// are right-aligned across inputs; a static size-1 dim facing a larger loop
// broadcasts (reads index 0). Without "->" the output is the ellipsis dims
// and then the labels used once, in ASCII order. Half floats are computed
// in f32.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct EinsumLowering : OpConversionPattern<onnx::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    if (inputs.empty())
      return op.emitError() << "needs at least one input";
    SmallVector<RankedTensorType> types;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto type = llvm::dyn_cast<RankedTensorType>(input.getType());
      Type onnxType = onnxElementType(op.getInputs()[i]);
      if (!type || !isElementKind(onnxType, kNumeric) ||
          type.getElementType() !=
              llvm::cast<RankedTensorType>(inputs[0].getType())
                  .getElementType())
        return rewriter.notifyMatchFailure(op, "expected numeric tensors");
      types.push_back(type);
    }
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    // Half floats accumulate in f32 and are rounded once at the end.
    Type element = computeType(resultType.getElementType());
    auto accType = RankedTensorType::get(resultType.getShape(), element);

    std::string equation;
    for (char c : op.getEquation())
      if (c != ' ')
        equation += c;
    StringRef eq(equation);
    auto [lhs, rhs] = eq.split("->");
    bool explicitOutput = eq.contains("->");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    if (terms.size() != inputs.size())
      return op.emitError() << "equation '" << eq << "' has " << terms.size()
                            << " inputs, the node " << inputs.size();

    // Loops: the ellipsis dims first, then the labels in order of appearance.
    int64_t ellipsisRank = 0;
    for (auto [i, term] : llvm::enumerate(terms)) {
      size_t dots = term.find("...");
      int64_t labels = term.size() - (dots == StringRef::npos ? 0 : 3);
      int64_t rank = types[i].getRank();
      if (dots == StringRef::npos ? rank != labels : rank < labels)
        return op.emitError() << "term '" << term << "' does not fit input #"
                              << i << " " << types[i];
      if (dots != StringRef::npos)
        ellipsisRank = std::max(ellipsisRank, rank - labels);
    }
    std::map<char, int64_t> loopOf;
    std::map<char, int> uses;
    int64_t numLoops = ellipsisRank;
    // Per input, the loop of each dim.
    SmallVector<SmallVector<int64_t>> dimLoops;
    for (auto [i, term] : llvm::enumerate(terms)) {
      size_t dots = term.find("...");
      int64_t rank = types[i].getRank();
      SmallVector<int64_t> loops;
      for (size_t j = 0; j < term.size(); ++j) {
        if (j == dots) {
          int64_t count = rank - (int64_t(term.size()) - 3);
          for (int64_t e = ellipsisRank - count; e < ellipsisRank; ++e)
            loops.push_back(e);
          j += 2;
          continue;
        }
        char label = term[j];
        if (!llvm::isAlpha(label))
          return op.emitError()
                 << "bad label '" << label << "' in '" << eq << "'";
        ++uses[label];
        auto [it, inserted] = loopOf.try_emplace(label, numLoops);
        if (inserted)
          ++numLoops;
        loops.push_back(it->second);
      }
      dimLoops.push_back(loops);
    }
    SmallVector<int64_t> outLoops;
    if (!explicitOutput) {
      for (int64_t e = 0; e < ellipsisRank; ++e)
        outLoops.push_back(e);
      for (auto [label, count] : uses)
        if (count == 1)
          outLoops.push_back(loopOf[label]);
    } else {
      size_t dots = rhs.find("...");
      for (size_t j = 0; j < rhs.size(); ++j) {
        if (j == dots) {
          for (int64_t e = 0; e < ellipsisRank; ++e)
            outLoops.push_back(e);
          j += 2;
          continue;
        }
        auto it = loopOf.find(rhs[j]);
        if (it == loopOf.end())
          return op.emitError()
                 << "output label '" << rhs[j] << "' is not an input label";
        outLoops.push_back(it->second);
      }
    }
    if (int64_t(outLoops.size()) != resultType.getRank())
      return op.emitError() << "the output term does not fit " << resultType;

    // Loop sizes: the first dim on the loop that is not a static 1.
    SmallVector<OpFoldResult> loopSizes(numLoops, rewriter.getIndexAttr(1));
    SmallVector<bool> sized(numLoops, false);
    for (auto [i, loops] : llvm::enumerate(dimLoops))
      for (auto [d, loop] : llvm::enumerate(loops)) {
        if (sized[loop] || types[i].getDimSize(d) == 1)
          continue;
        loopSizes[loop] = tensorSize(rewriter, loc, inputs[i], d);
        sized[loop] = true;
      }
    SmallVector<AffineMap> maps;
    MLIRContext *ctx = rewriter.getContext();
    for (auto [i, loops] : llvm::enumerate(dimLoops)) {
      SmallVector<AffineExpr> exprs;
      for (auto [d, loop] : llvm::enumerate(loops))
        exprs.push_back(types[i].getDimSize(d) == 1 && sized[loop]
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(loop, ctx));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    SmallVector<OpFoldResult> outSizes;
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::reduction);
    for (int64_t loop : outLoops) {
      outExprs.push_back(getAffineDimExpr(loop, ctx));
      outSizes.push_back(loopSizes[loop]);
      iterators[loop] = utils::IteratorType::parallel;
    }
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));

    Value init = rewriter
                     .create<linalg::FillOp>(
                         loc, zeroScalar(rewriter, loc, element),
                         emptyTensor(rewriter, loc, accType, outSizes))
                     .getResult(0);
    bool isFloat = llvm::isa<FloatType>(element);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{accType}, inputs, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value product = promoteHalf(b, nloc, args[0]);
          for (Value arg : args.drop_front().drop_back()) {
            arg = promoteHalf(b, nloc, arg);
            product =
                isFloat
                    ? b.create<arith::MulFOp>(nloc, product, arg).getResult()
                    : b.create<arith::MulIOp>(nloc, product, arg).getResult();
          }
          Value sum = isFloat
                          ? b.create<arith::AddFOp>(nloc, args.back(), product)
                                .getResult()
                          : b.create<arith::AddIOp>(nloc, args.back(), product)
                                .getResult();
          b.create<linalg::YieldOp>(nloc, sum);
        });
    Value result = generic.getResult(0);
    if (accType != resultType)
      result = buildParallelGeneric(
          rewriter, loc, resultType, outSizes, result,
          rewriter.getMultiDimIdentityMap(resultType.getRank()),
          [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
            return demoteTo(b, nloc, args[0], resultType.getElementType());
          });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateEinsumPatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
