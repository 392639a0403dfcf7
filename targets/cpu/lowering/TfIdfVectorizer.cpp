//===- TfIdfVectorizer.cpp - TfIdfVectorizer ------------------------------===//
//
// TfIdfVectorizer over integer tokens (pool_int64s). The pool's n-grams are
// known at compile time: they become a constant table of (tokens, output
// column) entries. A first linalg.generic counts, for each row and entry, the
// matches of the entry's n-gram at every start position and skip distance; a
// second sums the counts into their output columns; a third applies the
// mode's weighting. ONNX counts unigrams once (not once per skip distance),
// and an n-gram listed twice in the pool keeps its last id.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <vector>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// TfIdfVectorizer(X [C] or [B, C] of i32/i64) -> f32 [O] or [B, O].
struct TfIdfVectorizerLowering : ConversionPattern {
  TfIdfVectorizerLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.TfIdfVectorizer", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value x = operands[0];
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!xType || (xType.getRank() != 1 && xType.getRank() != 2) ||
        !(xType.getElementType().isInteger(32) ||
          xType.getElementType().isInteger(64)) ||
        !type.getElementType().isF32() || type.getRank() != xType.getRank())
      return rewriter.notifyMatchFailure(op, "expected 1-D/2-D int tokens");
    if (!op->getAttrOfType<ArrayAttr>("pool_int64s"))
      return rewriter.notifyMatchFailure(op, "only pool_int64s is supported");

    auto intAttr = [&](StringRef name, int64_t defaultValue) {
      auto attr = op->getAttrOfType<IntegerAttr>(name);
      return attr ? attr.getInt() : defaultValue;
    };
    auto intsAttr = [&](StringRef name) {
      return getI64Array(op->getAttrOfType<ArrayAttr>(name), 0, 0);
    };
    int64_t minGram = intAttr("min_gram_length", 0);
    int64_t maxGram = intAttr("max_gram_length", 0);
    int64_t maxSkip = intAttr("max_skip_count", 0);
    SmallVector<int64_t> groupStarts = intsAttr("ngram_counts");
    SmallVector<int64_t> columns = intsAttr("ngram_indexes");
    SmallVector<int64_t> pool = intsAttr("pool_int64s");
    StringRef mode;
    if (auto attr = op->getAttrOfType<StringAttr>("mode"))
      mode = attr.getValue();
    SmallVector<double> weights;
    if (auto attr = op->getAttrOfType<ArrayAttr>("weights"))
      for (Attribute w : attr)
        if (auto f = llvm::dyn_cast<FloatAttr>(w))
          weights.push_back(f.getValueAsDouble());
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
      return op->emitError()
             << "mode must be TF, IDF or TFIDF, got '" << mode << "'";
    if (minGram < 1 || maxGram < minGram || maxSkip < 0)
      return op->emitError() << "invalid gram lengths [" << minGram << ", "
                             << maxGram << "] or max_skip_count " << maxSkip;
    if (columns.empty())
      return op->emitError("ngram_indexes must not be empty");
    int64_t width = *llvm::max_element(columns) + 1;
    if (*llvm::min_element(columns) < 0)
      return op->emitError("ngram_indexes must be non-negative");
    if (type.getDimSize(type.getRank() - 1) != width)
      return rewriter.notifyMatchFailure(op, "unexpected result width");
    if (!weights.empty() && (int64_t)weights.size() < width)
      return op->emitError() << "weights has " << weights.size()
                             << " values for " << width << " columns";

    // The pool's n-grams whose length is in [minGram, maxGram], by id (ids
    // count every n-gram of the pool from 1, in order).
    std::map<std::vector<int64_t>, int64_t> idOf;
    int64_t nextId = 1;
    for (size_t group = 0; group < groupStarts.size(); ++group) {
      int64_t begin = groupStarts[group];
      int64_t end = group + 1 < groupStarts.size() ? groupStarts[group + 1]
                                                   : (int64_t)pool.size();
      int64_t n = group + 1;
      if (begin < 0 || end < begin || end > (int64_t)pool.size())
        return op->emitError("ngram_counts does not partition the pool");
      for (int64_t at = begin; at + n <= end; at += n, ++nextId)
        if (n >= minGram && n <= maxGram)
          idOf[std::vector<int64_t>(pool.begin() + at, pool.begin() + at + n)] =
              nextId;
    }
    int64_t longest = 1;
    SmallVector<int64_t> tokens, lengths, entryColumns;
    for (const auto &[gram, id] : idOf)
      longest = std::max<int64_t>(longest, gram.size());
    for (const auto &[gram, id] : idOf) {
      if (id - 1 >= (int64_t)columns.size())
        return op->emitError()
               << "ngram_indexes has no column for n-gram " << id;
      for (int64_t k = 0; k < longest; ++k)
        tokens.push_back(k < (int64_t)gram.size() ? gram[k] : 0);
      lengths.push_back(gram.size());
      entryColumns.push_back(columns[id - 1]);
    }

    Location loc = op->getLoc();
    MLIRContext *ctx = getContext();
    Type f32 = rewriter.getF32Type(), i64 = rewriter.getI64Type();
    Type indexType = rewriter.getIndexType();
    // Work on [rows, C].
    Value rows2d = x;
    if (xType.getRank() == 1) {
      auto rowType = RankedTensorType::get({1, xType.getDimSize(0)},
                                           xType.getElementType());
      rows2d = reshapeTo(rewriter, loc, x, rowType,
                         {rewriter.getIndexAttr(1),
                          OpFoldResult(dimValue(rewriter, loc, x, 0))});
    }
    Value numRows = dimValue(rewriter, loc, rows2d, 0);
    Value length = dimValue(rewriter, loc, rows2d, 1);
    auto resultType2d = RankedTensorType::get(
        {llvm::cast<RankedTensorType>(rows2d.getType()).getDimSize(0), width},
        f32);
    Value zero = scalarConst(rewriter, loc, f32, 0.0);

    Value frequencies =
        rewriter
            .create<linalg::FillOp>(loc, zero,
                                    emptyTensor(rewriter, loc, resultType2d,
                                                {OpFoldResult(numRows),
                                                 rewriter.getIndexAttr(width)}))
            .result();
    int64_t numEntries = lengths.size();
    if (numEntries > 0) {
      auto tableType = RankedTensorType::get({numEntries, longest}, i64);
      Value table = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(tableType, ArrayRef<int64_t>(tokens)));
      auto lengthsType = RankedTensorType::get({numEntries}, indexType);
      Value lengthTable = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(lengthsType,
                                      llvm::to_vector(llvm::map_range(
                                          lengths, [&](int64_t v) -> Attribute {
                                            return rewriter.getIndexAttr(v);
                                          }))));
      auto columnsType = RankedTensorType::get({numEntries}, indexType);
      Value columnTable = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(
                   columnsType, llvm::to_vector(llvm::map_range(
                                    entryColumns, [&](int64_t v) -> Attribute {
                                      return rewriter.getIndexAttr(v);
                                    }))));

      // counts[r, e] = matches of entry e in row r over skips d and starts s.
      auto countsType =
          RankedTensorType::get({resultType2d.getDimSize(0), numEntries}, f32);
      Value counts = rewriter
                         .create<linalg::FillOp>(
                             loc, zero,
                             emptyTensor(rewriter, loc, countsType,
                                         {OpFoldResult(numRows),
                                          rewriter.getIndexAttr(numEntries)}))
                         .result();
      Value skips = rewriter.create<tensor::EmptyOp>(
          loc, ArrayRef<int64_t>{maxSkip + 1}, f32);
      auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineMap> maps = {
          AffineMap::get(4, 0, {d(0), d(3)}, ctx),  // rows2d[r, s]
          AffineMap::get(4, 0, {d(2)}, ctx),        // skips[d]
          AffineMap::get(4, 0, {d(0), d(1)}, ctx)}; // counts[r, e]
      using utils::IteratorType;
      SmallVector<IteratorType> iterators = {
          IteratorType::parallel, IteratorType::parallel,
          IteratorType::reduction, IteratorType::reduction};
      counts =
          rewriter
              .create<linalg::GenericOp>(
                  loc, TypeRange{countsType}, ValueRange{rows2d, skips},
                  ValueRange{counts}, maps, iterators,
                  [&](OpBuilder &b, Location nloc, ValueRange args) {
                    Value r = b.create<linalg::IndexOp>(nloc, 0);
                    Value e = b.create<linalg::IndexOp>(nloc, 1);
                    Value skipIndex = b.create<linalg::IndexOp>(nloc, 2);
                    Value s = b.create<linalg::IndexOp>(nloc, 3);
                    Value n = b.create<tensor::ExtractOp>(nloc, lengthTable, e);
                    Value skip = b.create<arith::AddIOp>(
                        nloc, skipIndex, indexConst(b, nloc, 1));
                    // Unigrams count at skip 1 only.
                    Value isUnigram =
                        b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq,
                                                n, indexConst(b, nloc, 1));
                    Value firstSkip = b.create<arith::CmpIOp>(
                        nloc, arith::CmpIPredicate::eq, skipIndex,
                        indexConst(b, nloc, 0));
                    Value match = b.create<arith::OrIOp>(
                        nloc, firstSkip,
                        b.create<arith::XOrIOp>(
                            nloc, isUnigram,
                            b.create<arith::ConstantIntOp>(nloc, 1, 1)));
                    for (int64_t k = 0; k < longest; ++k) {
                      Value pos = b.create<arith::AddIOp>(
                          nloc, s,
                          b.create<arith::MulIOp>(nloc, skip,
                                                  indexConst(b, nloc, k)));
                      Value inRow = b.create<arith::CmpIOp>(
                          nloc, arith::CmpIPredicate::ult, pos, length);
                      Value token =
                          k == 0 ? args[0]
                                 : b.create<tensor::ExtractOp>(
                                       nloc, rows2d,
                                       ValueRange{r, b.create<arith::SelectOp>(
                                                         nloc, inRow, pos, s)});
                      if (token.getType() != i64)
                        token = b.create<arith::ExtSIOp>(nloc, i64, token);
                      Value expected = b.create<tensor::ExtractOp>(
                          nloc, table, ValueRange{e, indexConst(b, nloc, k)});
                      Value same = b.create<arith::AndIOp>(
                          nloc, inRow,
                          b.create<arith::CmpIOp>(
                              nloc, arith::CmpIPredicate::eq, token, expected));
                      Value beyond = b.create<arith::CmpIOp>(
                          nloc, arith::CmpIPredicate::sge,
                          indexConst(b, nloc, k), n);
                      match = b.create<arith::AndIOp>(
                          nloc, match,
                          b.create<arith::OrIOp>(nloc, beyond, same));
                    }
                    Value add = b.create<arith::SelectOp>(
                        nloc, match, scalarConst(b, nloc, f32, 1.0),
                        scalarConst(b, nloc, f32, 0.0));
                    b.create<linalg::YieldOp>(
                        nloc, ValueRange{
                                  b.create<arith::AddFOp>(nloc, args[2], add)});
                  })
              .getResult(0);

      // frequencies[r, o] = sum of counts[r, e] over entries in column o.
      SmallVector<AffineMap> sumMaps = {
          AffineMap::get(3, 0, {d(0), d(2)}, ctx),  // counts[r, e]
          AffineMap::get(3, 0, {d(2)}, ctx),        // columnTable[e]
          AffineMap::get(3, 0, {d(0), d(1)}, ctx)}; // frequencies[r, o]
      frequencies =
          rewriter
              .create<linalg::GenericOp>(
                  loc, TypeRange{resultType2d}, ValueRange{counts, columnTable},
                  ValueRange{frequencies}, sumMaps,
                  SmallVector<IteratorType>{IteratorType::parallel,
                                            IteratorType::parallel,
                                            IteratorType::reduction},
                  [&](OpBuilder &b, Location nloc, ValueRange args) {
                    Value o = b.create<linalg::IndexOp>(nloc, 1);
                    Value here = b.create<arith::CmpIOp>(
                        nloc, arith::CmpIPredicate::eq, args[1], o);
                    Value add = b.create<arith::SelectOp>(
                        nloc, here, args[0], scalarConst(b, nloc, f32, 0.0));
                    b.create<linalg::YieldOp>(
                        nloc, ValueRange{
                                  b.create<arith::AddFOp>(nloc, args[2], add)});
                  })
              .getResult(0);
    }

    // The mode's weighting: TF the count, IDF the weight (1 without weights)
    // where the count is non-zero, TFIDF the count times the weight.
    Value result = frequencies;
    if (mode != "TF" && !(mode == "TFIDF" && weights.empty())) {
      SmallVector<float> columnWeights(width, 1.0f);
      for (int64_t o = 0; o < width && !weights.empty(); ++o)
        columnWeights[o] = weights[o];
      Value weightTable = rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(RankedTensorType::get({width}, f32),
                                      ArrayRef<float>(columnWeights)));
      auto identity = rewriter.getMultiDimIdentityMap(2);
      auto column = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
      bool idf = mode == "IDF";
      result =
          rewriter
              .create<linalg::GenericOp>(
                  loc, TypeRange{resultType2d},
                  ValueRange{frequencies, weightTable}, ValueRange{frequencies},
                  SmallVector<AffineMap>{identity, column, identity},
                  SmallVector<utils::IteratorType>(
                      2, utils::IteratorType::parallel),
                  [&](OpBuilder &b, Location nloc, ValueRange args) {
                    Value weighted;
                    if (idf) {
                      Value seen = b.create<arith::CmpFOp>(
                          nloc, arith::CmpFPredicate::OGT, args[0],
                          scalarConst(b, nloc, f32, 0.0));
                      weighted = b.create<arith::SelectOp>(
                          nloc, seen, args[1], scalarConst(b, nloc, f32, 0.0));
                    } else {
                      weighted =
                          b.create<arith::MulFOp>(nloc, args[0], args[1]);
                    }
                    b.create<linalg::YieldOp>(nloc, weighted);
                  })
              .getResult(0);
    }
    if (type.getRank() == 1)
      result = reshapeTo(rewriter, loc, result, type,
                         {rewriter.getIndexAttr(width)});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateTfIdfVectorizerPatterns(const TypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<TfIdfVectorizerLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
