//===- ParallelizeLoops.cpp - Outermost parallel loops on the thread pool -===//
//
// After linalg becomes loops (convert-linalg-to-parallel-loops), the parallel
// iterators of every linalg op are the dims of an scf.parallel. This pass
// takes each outermost one that is big enough and safe to split, outlines it
// into a task function with the C signature of `onnxc_parallel_fn`
// (runtime/cpu/ThreadPool.h)
//
//   func.func private @<fn>_task<N>(%context: !llvm.ptr, %task: i64,
//                                   %worker: i32)
//
// and replaces it with a call of `onnxc_parallel_for`. The leading dims of
// the nest (enough of them for 64 iterations, when their sizes are static)
// are linearized; task t runs a contiguous chunk of that range and the
// remaining dims whole, so chunks stay cache-friendly rows.
//
// Why outline on memrefs, before the LLVM dialect: the scf.parallel and its
// captured values still exist as such here, and the body keeps its typed
// memrefs (static strides stay constants, so LLVM vectorizes the task as it
// did the loop). The captured values travel in an LLVM struct on the caller's
// stack: memrefs as their descriptor structs through unrealized casts (they
// meet the casts of the LLVM conversion and fold away in
// reconcile-unrealized-casts), indices as i64, other scalars as they are;
// constants and views are rebuilt in the task from what they derive from.
//
// A nest stays serial when splitting it could be wrong or pointless:
// - it has reductions (scf.reduce operands: shared accumulators);
// - it calls anything (a run-time shape error is recorded in the calling
//   thread's storage, which Run.c reads; runtime helpers may allocate), or
//   allocates, or has an op with unknown or non-read memory effects other
//   than memref.store and vector.store;
// - a memref.store or vector.store does not index with every linearized
//   induction variable (then two tasks could write the same element);
// - a captured value has a type the struct cannot carry;
// - its estimated work (trip counts times body ops, inner static trip counts
//   included) is below `min-work`: at compile time when every size is static,
//   else checked at run time (one task then).
// At one thread the call runs the single task inline on the caller.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_PARALLELIZELOOPS
#define GEN_PASS_DEF_PARALLELIZELOOPS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

constexpr llvm::StringLiteral kParallelFor = "onnxc_parallel_for";
constexpr llvm::StringLiteral kNumThreads = "onnxc_num_threads";
/// Linearize leading dims until they give this many iterations.
constexpr int64_t kMinLinearIterations = 64;

std::optional<int64_t> staticTripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

/// Ops executed by one run of `block`, with static inner trip counts (a
/// dynamic one counts once).
double estimateOps(Block &block) {
  double ops = 0;
  for (Operation &op : block) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      double trips = staticTripCount(loop.getLowerBound(), loop.getUpperBound(),
                                     loop.getStep())
                         .value_or(1);
      ops += 1 + trips * estimateOps(*loop.getBody());
    } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      double trips = 1;
      for (unsigned d = 0; d < loop.getNumLoops(); ++d)
        trips *= staticTripCount(loop.getLowerBound()[d],
                                 loop.getUpperBound()[d], loop.getStep()[d])
                     .value_or(1);
      ops += 1 + trips * estimateOps(*loop.getBody());
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      double other =
          branch.getElseRegion().empty() ? 0 : estimateOps(*branch.elseBlock());
      ops += 1 + std::max(estimateOps(*branch.thenBlock()), other);
    } else {
      // A vector op (transforms/VectorizeElementwise.cpp) counts its lanes.
      double lanes = 1;
      for (Type type : op.getResultTypes())
        if (auto vector = dyn_cast<VectorType>(type))
          lanes = std::max<double>(lanes, vector.getNumElements());
      ops += lanes;
    }
  }
  return ops;
}

/// Whether the task rebuilds `op` instead of capturing its result:
/// constants, and views (pure ops with one memref result). Then every buffer
/// the task sees is its root (the workspace, an argument, a heap buffer) plus
/// constant offsets, as in the caller, so LLVM's alias analysis still tells
/// the workspace's slices apart (captured views were opaque pointers, which
/// cost efficientnet_b0 19% more instructions at one thread).
bool isRebuilt(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  if (matchPattern(op->getResult(0), m_Constant()))
    return true;
  return isa<MemRefType>(op->getResult(0).getType()) && isPure(op);
}

/// Whether `j` is the induction variable of an scf.for from 0 that stays
/// below `step` (a constant bound, or an affine.min with such a result).
bool isBelowStep(Value j, Value step) {
  std::optional<int64_t> limit = getConstantIntValue(step);
  auto loop = scf::getForInductionVarOwner(j);
  if (!limit || !loop || !isConstantIntValue(loop.getLowerBound(), 0))
    return false;
  Value ub = loop.getUpperBound();
  if (std::optional<int64_t> bound = getConstantIntValue(ub))
    return *bound <= *limit;
  auto min = ub.getDefiningOp<affine::AffineMinOp>();
  return min && llvm::any_of(min.getAffineMap().getResults(), [&](auto e) {
           auto c = dyn_cast<AffineConstantExpr>(e);
           return c && c.getValue() <= *limit;
         });
}

/// Whether `index` is `iv + j` of a tile (transforms/TileTransposedLoops.cpp):
/// an affine.apply of d0 + d1 on `iv` and an index below `iv`'s step, so
/// that distinct iterations of `iv` still write distinct elements.
bool isTiledInductionVar(affine::AffineApplyOp apply, Value iv, Value step) {
  AffineMap map = apply.getAffineMap();
  MLIRContext *ctx = apply.getContext();
  if (map.getNumResults() != 1 || map.getNumDims() != 2 ||
      map.getNumSymbols() != 0 ||
      map.getResult(0) != getAffineDimExpr(0, ctx) + getAffineDimExpr(1, ctx))
    return false;
  ValueRange operands = apply.getMapOperands();
  return operands[0] == iv && isBelowStep(operands[1], step);
}

/// Whether `index` is `iv` (of step `step`), directly, through an
/// affine.apply that only forwards it, or as a tile's `iv + j`.
bool isInductionVar(Value index, Value iv, Value step) {
  if (index == iv)
    return true;
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return false;
  if (isTiledInductionVar(apply, iv, step))
    return true;
  AffineExpr result = apply.getAffineMap().getResult(0);
  if (auto dim = dyn_cast<AffineDimExpr>(result))
    return apply.getMapOperands()[dim.getPosition()] == iv;
  if (auto sym = dyn_cast<AffineSymbolExpr>(result))
    return apply.getMapOperands()[apply.getAffineMap().getNumDims() +
                                  sym.getPosition()] == iv;
  return false;
}

/// Whether the iterations of `loop` may run at once when split on
/// `splitIvs`: see the file comment.
bool isSafeToSplit(scf::ParallelOp loop, ArrayRef<Value> splitIvs) {
  if (loop.getNumReductions() != 0)
    return false;
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    std::optional<ValueRange> storeIndices;
    if (auto store = dyn_cast<memref::StoreOp>(op))
      storeIndices = store.getIndices();
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      storeIndices = store.getIndices();
    if (storeIndices) {
      for (Value iv : splitIvs) {
        Value step = loop.getStep()[cast<BlockArgument>(iv).getArgNumber()];
        if (llvm::none_of(*storeIndices,
                          [&](Value i) { return isInductionVar(i, iv, step); }))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    if (isa<CallOpInterface>(op))
      return WalkResult::interrupt();
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (auto &effect : list)
        if (!isa<MemoryEffects::Read>(effect.getEffect()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

struct ParallelizeLoopsPass : impl::ParallelizeLoopsBase<ParallelizeLoopsPass> {
  using ParallelizeLoopsBase::ParallelizeLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> candidates;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      func.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
        candidates.push_back(loop);
        return WalkResult::skip();
      });
    }
    if (candidates.empty())
      return;
    LLVMTypeConverter typeConverter(&getContext());
    SymbolTable symbols(module);
    for (scf::ParallelOp loop : candidates)
      parallelize(loop, typeConverter, symbols);
  }

  /// The context struct's field type for a captured value, or null.
  static Type fieldType(Value value, const LLVMTypeConverter &converter) {
    Type type = value.getType();
    if (type.isIndex())
      return IntegerType::get(type.getContext(), 64);
    if (isa<IntegerType, FloatType>(type))
      return type;
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!isStrided(memref))
        return nullptr;
      Type converted = converter.convertType(memref);
      return converted && isa<LLVM::LLVMStructType>(converted) ? converted
                                                               : nullptr;
    }
    return nullptr;
  }

  void declareRuntime(OpBuilder &builder, ModuleOp module,
                      SymbolTable &symbols) {
    MLIRContext *ctx = module.getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    if (!symbols.lookup(kParallelFor)) {
      auto taskType = builder.getFunctionType({ptr, i64, i32}, {});
      auto decl = builder.create<func::FuncOp>(
          module.getLoc(), kParallelFor,
          builder.getFunctionType({i64, i32, taskType, ptr}, {}));
      decl.setPrivate();
      symbols.insert(decl);
    }
    if (!symbols.lookup(kNumThreads)) {
      auto decl = builder.create<func::FuncOp>(
          module.getLoc(), kNumThreads, builder.getFunctionType({}, {i32}));
      decl.setPrivate();
      symbols.insert(decl);
    }
  }

  void parallelize(scf::ParallelOp loop, const LLVMTypeConverter &converter,
                   SymbolTable &symbols) {
    unsigned numLoops = loop.getNumLoops();
    auto lbs = loop.getLowerBound(), ubs = loop.getUpperBound(),
         steps = loop.getStep();
    SmallVector<std::optional<int64_t>> trips;
    for (unsigned d = 0; d < numLoops; ++d)
      trips.push_back(staticTripCount(lbs[d], ubs[d], steps[d]));

    // Leading dims to linearize: until 64 static iterations (a dynamic dim
    // counts as one, it may be 1 at run time).
    unsigned numSplit = 0;
    int64_t splitStatic = 1;
    while (numSplit < numLoops && splitStatic < kMinLinearIterations) {
      splitStatic *= trips[numSplit].value_or(1);
      ++numSplit;
    }
    bool allStatic = llvm::all_of(trips, [](auto t) { return t.has_value(); });
    bool splitIsStatic = llvm::all_of(ArrayRef(trips).take_front(numSplit),
                                      [](auto t) { return t.has_value(); });
    if (splitIsStatic && splitStatic < 2)
      return;

    double bodyOps = estimateOps(*loop.getBody());
    if (allStatic) {
      double total = bodyOps;
      for (auto t : trips)
        total *= *t;
      if (total < static_cast<double>(minWork))
        return;
    }

    SmallVector<Value> ivs = loop.getInductionVars();
    if (!isSafeToSplit(loop, ArrayRef(ivs).take_front(numSplit)))
      return;

    // Captured values: whatever the body uses from above, and the bounds.
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop->getRegions(), used);
    for (Value v : loop.getOperands())
      used.insert(v);
    // Constants and views are rebuilt in the task from what they derive from,
    // which is captured instead.
    llvm::SetVector<Operation *> rebuilt;
    llvm::SetVector<Value> capturedSet;
    SmallVector<Value> worklist(used.rbegin(), used.rend());
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!isRebuilt(def)) {
        capturedSet.insert(v);
        continue;
      }
      if (rebuilt.insert(def))
        for (Value operand : llvm::reverse(def->getOperands()))
          worklist.push_back(operand);
    }
    SmallVector<Value> captured(capturedSet.begin(), capturedSet.end());
    for (Value v : captured)
      if (!fieldType(v, converter))
        return;

    auto module = loop->getParentOfType<ModuleOp>();
    auto func = loop->getParentOfType<func::FuncOp>();
    MLIRContext *ctx = module.getContext();
    Location loc = loop.getLoc();
    OpBuilder builder(ctx);
    declareRuntime(builder, module, symbols);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = builder.getI64Type(), i32 = builder.getI32Type();
    Type index = builder.getIndexType();

    // In the caller: trip counts, the task count, and the context.
    builder.setInsertionPoint(loop);
    Value zero = builder.create<arith::ConstantIndexOp>(loc, 0);
    Value one = builder.create<arith::ConstantIndexOp>(loc, 1);
    SmallVector<Value> tripValues;
    for (unsigned d = 0; d < numLoops; ++d) {
      // (ub - lb + step - 1) / step: plain ops, nothing for arith-expand.
      Value span = builder.create<arith::SubIOp>(
          loc, builder.create<arith::AddIOp>(loc, ubs[d], steps[d]),
          builder.create<arith::AddIOp>(loc, lbs[d], one));
      Value count = builder.create<arith::DivSIOp>(loc, span, steps[d]);
      tripValues.push_back(builder.create<arith::MaxSIOp>(loc, count, zero));
    }
    Value linear = one;
    for (unsigned d = 0; d < numSplit; ++d)
      linear = builder.create<arith::MulIOp>(loc, linear, tripValues[d]);
    Value iterations = linear;
    for (unsigned d = numSplit; d < numLoops; ++d)
      iterations =
          builder.create<arith::MulIOp>(loc, iterations, tripValues[d]);
    Value threads = builder.create<arith::IndexCastOp>(
        loc, index,
        builder.create<func::CallOp>(loc, kNumThreads, TypeRange{i32})
            .getResult(0));
    Value wanted = builder.create<arith::MinSIOp>(
        loc, linear,
        builder.create<arith::MulIOp>(
            loc, threads,
            builder.create<arith::ConstantIndexOp>(loc, tasksPerThread)));
    Value useThreads = builder.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sgt, threads, one);
    if (!allStatic) {
      int64_t minIterations =
          static_cast<int64_t>(std::ceil(minWork / std::max(bodyOps, 1.0)));
      Value bigEnough = builder.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sge, iterations,
          builder.create<arith::ConstantIndexOp>(loc, minIterations));
      useThreads = builder.create<arith::AndIOp>(loc, useThreads, bigEnough);
    }
    Value numTasks =
        builder.create<arith::SelectOp>(loc, useThreads, wanted, one);

    // Fields: the captured values, then the split dims' trip counts, the
    // linear range and the task count.
    SmallVector<Value> fields(captured);
    for (unsigned d = 0; d < numSplit; ++d)
      fields.push_back(tripValues[d]);
    fields.push_back(linear);
    fields.push_back(numTasks);
    SmallVector<Type> fieldTypes;
    for (Value v : fields)
      fieldTypes.push_back(fieldType(v, converter));
    auto structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);

    Value packed = builder.create<LLVM::UndefOp>(loc, structType);
    for (auto [i, v] : llvm::enumerate(fields)) {
      Value field = v;
      if (v.getType().isIndex())
        field = builder.create<arith::IndexCastOp>(loc, i64, v);
      else if (isa<MemRefType>(v.getType()))
        field =
            builder.create<UnrealizedConversionCastOp>(loc, fieldTypes[i], v)
                .getResult(0);
      packed = builder.create<LLVM::InsertValueOp>(
          loc, packed, field, ArrayRef<int64_t>{static_cast<int64_t>(i)});
    }
    Value context;
    {
      OpBuilder::InsertionGuard guard(builder);
      // One slot per loop in the entry block: a loop inside a Loop/Scan body
      // must not grow the stack every iteration.
      builder.setInsertionPointToStart(&func.getBody().front());
      Value count = builder.create<LLVM::ConstantOp>(
          loc, i64, builder.getI64IntegerAttr(1));
      context = builder.create<LLVM::AllocaOp>(loc, ptr, structType, count,
                                               /*alignment=*/16);
    }
    builder.create<LLVM::StoreOp>(loc, packed, context);

    // The task function.
    auto taskType = builder.getFunctionType({ptr, i64, i32}, {});
    auto task = func::FuncOp::create(loc, (func.getSymName() + "_task").str(),
                                     taskType);
    task.setPrivate();
    // Internal: two artifacts linked into one program must not clash.
    task->setAttr("llvm.linkage",
                  LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    symbols.insert(task, std::next(Block::iterator(func)));
    Value fn =
        builder.create<func::ConstantOp>(loc, taskType, task.getSymName());
    builder.create<func::CallOp>(
        loc, kParallelFor, TypeRange{},
        ValueRange{builder.create<arith::IndexCastOp>(loc, i64, numTasks),
                   builder.create<arith::ConstantIntOp>(loc, 0, 32), fn,
                   context});

    Block *entry = task.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    Value loaded =
        builder.create<LLVM::LoadOp>(loc, structType, entry->getArgument(0));
    SmallVector<Value> unpacked;
    for (auto [i, v] : llvm::enumerate(fields)) {
      Value field = builder.create<LLVM::ExtractValueOp>(
          loc, loaded, ArrayRef<int64_t>{static_cast<int64_t>(i)});
      if (v.getType().isIndex())
        field = builder.create<arith::IndexCastOp>(loc, index, field);
      else if (isa<MemRefType>(v.getType()))
        field =
            builder.create<UnrealizedConversionCastOp>(loc, v.getType(), field)
                .getResult(0);
      unpacked.push_back(field);
    }
    for (auto [v, field] : llvm::zip(captured, unpacked))
      mapping.map(v, field);
    // In program order, so every op's operands are mapped before it.
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (rebuilt.contains(op))
        builder.clone(*op, mapping);
    });
    // Static trip counts as constants: divisions by them stay cheap.
    SmallVector<Value> splitTrips(
        ArrayRef<Value>(unpacked).slice(captured.size(), numSplit));
    for (unsigned d = 0; d < numSplit; ++d)
      if (trips[d])
        splitTrips[d] = builder.create<arith::ConstantIndexOp>(loc, *trips[d]);
    Value taskLinear = unpacked[captured.size() + numSplit];
    if (splitIsStatic)
      taskLinear = builder.create<arith::ConstantIndexOp>(loc, splitStatic);
    Value taskCount = unpacked[captured.size() + numSplit + 1];

    Value taskIndex =
        builder.create<arith::IndexCastOp>(loc, index, entry->getArgument(1));
    Value chunk = builder.create<arith::DivUIOp>(
        loc,
        builder.create<arith::SubIOp>(
            loc, builder.create<arith::AddIOp>(loc, taskLinear, taskCount),
            builder.create<arith::ConstantIndexOp>(loc, 1)),
        taskCount);
    Value begin = builder.create<arith::MulIOp>(loc, taskIndex, chunk);
    Value end = builder.create<arith::MinUIOp>(
        loc, builder.create<arith::AddIOp>(loc, begin, chunk), taskLinear);
    Value unit = builder.create<arith::ConstantIndexOp>(loc, 1);
    Value first = builder.create<arith::MinUIOp>(loc, begin, end);
    // A split dim's induction variable at `position` of its range.
    auto ivAt = [&](OpBuilder &b, unsigned d, Value position) -> Value {
      return b.create<arith::AddIOp>(
          loc, mapping.lookupOrDefault(lbs[d]),
          b.create<arith::MulIOp>(loc, position,
                                  mapping.lookupOrDefault(steps[d])));
    };
    unsigned last = numSplit - 1;
    if (numSplit == 1) {
      auto chunkLoop = builder.create<scf::ForOp>(loc, first, end, unit);
      builder.setInsertionPoint(chunkLoop.getBody()->getTerminator());
      mapping.map(ivs[0], ivAt(builder, 0, chunkLoop.getInductionVar()));
    } else {
      // The chunk by rows of the last split dim: the linear index is taken
      // apart (a division per dim) once a row, not once an iteration; with
      // every dim split (dynamic sizes count as one), an iteration is an
      // element.
      scf::ForOp rowLoop;
      builder.create<scf::WhileOp>(
          loc, TypeRange{index}, ValueRange{first},
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value more = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult,
                                                 args[0], end);
            b.create<scf::ConditionOp>(l, more, args);
          },
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value linear = args[0];
            Value position =
                b.create<arith::RemUIOp>(l, linear, splitTrips[last]);
            Value rest = b.create<arith::DivUIOp>(l, linear, splitTrips[last]);
            for (int d = static_cast<int>(last) - 1; d >= 0; --d) {
              Value at = rest;
              if (d > 0) {
                at = b.create<arith::RemUIOp>(l, rest, splitTrips[d]);
                rest = b.create<arith::DivUIOp>(l, rest, splitTrips[d]);
              }
              mapping.map(ivs[d], ivAt(b, d, at));
            }
            Value count = b.create<arith::MinUIOp>(
                l, b.create<arith::SubIOp>(l, splitTrips[last], position),
                b.create<arith::SubIOp>(l, end, linear));
            rowLoop = b.create<scf::ForOp>(
                l, position, b.create<arith::AddIOp>(l, position, count), unit);
            b.create<scf::YieldOp>(
                l, ValueRange{b.create<arith::AddIOp>(l, linear, count)});
          });
      builder.setInsertionPoint(rowLoop.getBody()->getTerminator());
      mapping.map(ivs[last], ivAt(builder, last, rowLoop.getInductionVar()));
    }

    auto cloneBody = [&](OpBuilder &b) {
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, mapping);
    };
    if (numSplit == numLoops) {
      cloneBody(builder);
    } else {
      auto map = [&](ValueRange values) {
        SmallVector<Value> mapped;
        for (Value v : values.drop_front(numSplit))
          mapped.push_back(mapping.lookupOrDefault(v));
        return mapped;
      };
      builder.create<scf::ParallelOp>(
          loc, map(lbs), map(ubs), map(steps),
          [&](OpBuilder &b, Location, ValueRange inner) {
            for (unsigned d = numSplit; d < numLoops; ++d)
              mapping.map(ivs[d], inner[d - numSplit]);
            cloneBody(b);
          });
    }
    builder.setInsertionPointToEnd(entry);
    builder.create<func::ReturnOp>(loc);
    loop.erase();
  }
};

} // namespace
} // namespace onnxc::cpu
