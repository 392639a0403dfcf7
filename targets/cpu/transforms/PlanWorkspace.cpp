//===- PlanWorkspace.cpp - Intermediate buffers share one workspace -------===//
//
// After bufferization and deallocation, every intermediate of the graph is a
// `memref.alloc` freed by a `memref.dealloc`. This pass gives each alloc of
// static size in the graph function's entry block an offset in one byte
// buffer, the workspace, which the runtime passes in as an extra last
// argument of the graph function: buffers whose lifetimes do not overlap
// share bytes. The alloc becomes a `memref.view` of the workspace and its
// deallocs go away.
//
// Lifetimes are intervals of op positions in the entry block (straight-line
// code: a use nested in a loop or branch counts at the op that holds it). A
// buffer is live from its alloc to the last use of the alloc or of any view
// of it (subview, cast, reshape, expand/collapse_shape, ...). Buffers the
// graph returns are planned too, live to the end: the runtime copies them
// out, so a run with a caller's workspace and output buffers never
// allocates. A buffer that flows anywhere this pass cannot follow (into a
// loop's iteration arguments, out of a region, through an op that returns a
// memref without being a view) stays on the heap, as do buffers of dynamic
// size. An alloc inside scf loops and branches is planned too when it does
// not leave its iteration: it takes one slot, live over the whole loop (or
// branch) op, that every iteration reuses.
//
// Placement is greedy by size, largest first: each buffer takes the lowest
// 64-byte-aligned offset that does not overlap a placed buffer live at the
// same time. The module gets `onnxc.workspace_size` (the bytes the workspace
// needs) and `onnxc.workspace_planned_bytes` (the sum of the planned
// buffers, i.e. what separate allocations would hold at once at worst).
//
// The buffers left on the heap (dynamic sizes, mostly) are freed where they
// die: the deallocation pipeline frees every buffer at the end of its
// block, which kept all of a dynamic graph's intermediates alive at once
// (BERT-base's ~120 big buffers). An entry-block alloc whose lifetime the
// same tracing bounds, freed by one unconditional dealloc in the entry
// block, gets that dealloc moved to just after its last use.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_PLANWORKSPACE
#define GEN_PASS_DEF_PLANWORKSPACE
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

constexpr int64_t kWorkspaceAlignment = 64;

/// One alloc the plan places.
struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0;
  unsigned start = 0, end = 0; // entry-block positions, inclusive
  int64_t offset = -1;
  SmallVector<memref::DeallocOp> deallocs;
};

/// Bytes per element of `type` as the LLVM lowering lays it out, or 0 when
/// the pass does not plan buffers of that element type.
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  return 0;
}

/// Whether `op` makes a view of its memref operand: its memref results alias
/// the operand and carry no ownership of their own.
bool isView(Operation *op) {
  return isa<ViewLikeOpInterface, memref::TransposeOp>(op);
}

/// Follows `alloc` through its views. Fills `buffer`'s last use and deallocs;
/// false when the buffer escapes where its lifetime cannot be bounded.
bool traceLifetime(Block &entry, const DenseMap<Operation *, unsigned> &pos,
                   Buffer &buffer) {
  SmallVector<Value> worklist = {buffer.alloc.getResult()};
  unsigned last = buffer.start;
  unsigned endOfBlock = pos.size();
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        buffer.deallocs.push_back(dealloc);
        continue;
      }
      Operation *top = entry.findAncestorOpInBlock(*user);
      if (!top)
        return false;
      if (isa<func::ReturnOp>(user) && user->getBlock() == &entry) {
        // A graph output: live until the runtime copies it out.
        last = endOfBlock;
        continue;
      }
      // Into a region's arguments or out of a region: the value may become
      // (or be chosen instead of) another buffer there.
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          isa<RegionBranchOpInterface>(user))
        return false;
      if (isView(user)) {
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
      } else if (llvm::any_of(user->getResultTypes(),
                              [](Type t) { return isa<BaseMemRefType>(t); })) {
        // A memref made from this one by an op that is not a view (a call,
        // a select): it might be this buffer.
        return false;
      }
      last = std::max(last, pos.lookup(top));
    }
  }
  buffer.end = last;
  return true;
}

/// Whether `alloc` may take one workspace slot for all the times it runs:
/// it is in the entry block, or in loops and branches that run their
/// iterations one after another (a loop body's buffer that is not yielded
/// dies within its iteration, so every iteration may reuse the same bytes;
/// traceLifetime refuses yielded ones). Not inside anything else, which
/// might run its regions at the same time.
bool isHoistable(memref::AllocOp alloc, func::FuncOp func) {
  for (Operation *op = alloc->getParentOp(); op != func;
       op = op->getParentOp())
    if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::ExecuteRegionOp>(op))
      return false;
  return true;
}

/// Greedy placement, largest first; returns the workspace size.
int64_t placeBuffers(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &b : buffers)
    order.push_back(&b);
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->start < b->start;
  });
  SmallVector<Buffer *> placed;
  int64_t size = 0;
  for (Buffer *b : order) {
    // Byte ranges of placed buffers live at the same time, by offset.
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Buffer *p : placed)
      if (p->start <= b->end && b->start <= p->end)
        busy.push_back({p->offset, p->offset + p->bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + b->bytes <= lo)
        break;
      offset =
          std::max<int64_t>(offset, llvm::alignTo(hi, kWorkspaceAlignment));
    }
    b->offset = offset;
    size = std::max(size, offset + b->bytes);
    placed.push_back(b);
  }
  return static_cast<int64_t>(llvm::alignTo(size, kWorkspaceAlignment));
}

/// Moves the dealloc of each heap buffer allocated in `func`'s entry block
/// to just after the buffer's last use (of it or a view), when one
/// unconditional dealloc in the entry block frees it and traceLifetime
/// bounds its lifetime: nothing reads it later, so freeing it earlier only
/// lowers the peak.
void freeHeapBuffersAtLastUse(func::FuncOp func) {
  Block &entry = func.getBody().front();
  DenseMap<Operation *, unsigned> pos;
  SmallVector<Operation *> ops;
  for (Operation &op : entry) {
    pos[&op] = ops.size();
    ops.push_back(&op);
  }
  for (memref::AllocOp alloc :
       llvm::to_vector(entry.getOps<memref::AllocOp>())) {
    Buffer buffer;
    buffer.alloc = alloc;
    buffer.start = pos[alloc];
    if (!traceLifetime(entry, pos, buffer) || buffer.end >= ops.size() ||
        buffer.deallocs.size() != 1)
      continue;
    memref::DeallocOp dealloc = buffer.deallocs.front();
    if (dealloc->getBlock() != &entry || pos[dealloc] <= buffer.end)
      continue;
    dealloc->moveAfter(ops[buffer.end]);
  }
}

struct PlanWorkspacePass : public impl::PlanWorkspaceBase<PlanWorkspacePass> {
  using PlanWorkspaceBase::PlanWorkspaceBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    auto func = module.lookupSymbol<func::FuncOp>(functionName);
    if (!func || func.isExternal()) {
      module->setAttr("onnxc.workspace_size", b.getI64IntegerAttr(0));
      module->setAttr("onnxc.workspace_planned_bytes", b.getI64IntegerAttr(0));
      return;
    }
    Block &entry = func.getBody().front();
    DenseMap<Operation *, unsigned> pos;
    unsigned position = 0;
    for (Operation &op : entry)
      pos[&op] = position++;

    SmallVector<Buffer> buffers;
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      int64_t elem = elementBytes(type.getElementType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || elem == 0 ||
          alloc.getAlignment().value_or(0) > kWorkspaceAlignment ||
          !isHoistable(alloc, func))
        continue;
      Buffer buffer;
      buffer.alloc = alloc;
      buffer.bytes = std::max<int64_t>(type.getNumElements() * elem, 1);
      buffer.start = pos[entry.findAncestorOpInBlock(*alloc)];
      if (traceLifetime(entry, pos, buffer))
        buffers.push_back(std::move(buffer));
    }

    int64_t plannedBytes = 0;
    for (const Buffer &buffer : buffers)
      plannedBytes += llvm::alignTo(buffer.bytes, kWorkspaceAlignment);
    int64_t size = placeBuffers(buffers);

    if (size > 0) {
      // The workspace: the graph function's new last argument.
      MLIRContext *ctx = module.getContext();
      auto workspaceType = MemRefType::get({size}, b.getI8Type());
      unsigned index = func.getNumArguments();
      func.insertArgument(index, workspaceType,
                          b.getDictionaryAttr(b.getNamedAttr(
                              "onnxc.workspace", UnitAttr::get(ctx))),
                          func.getLoc());
      Value workspace = func.getArgument(index);
      OpBuilder builder(ctx);
      for (Buffer &buffer : buffers) {
        builder.setInsertionPoint(buffer.alloc);
        Value shift = builder.create<arith::ConstantIndexOp>(
            buffer.alloc.getLoc(), buffer.offset);
        Value view = builder.create<memref::ViewOp>(
            buffer.alloc.getLoc(), buffer.alloc.getType(), workspace, shift,
            ValueRange{});
        buffer.alloc.getResult().replaceAllUsesWith(view);
        for (memref::DeallocOp dealloc : buffer.deallocs)
          dealloc.erase();
        buffer.alloc.erase();
      }
    }
    freeHeapBuffersAtLastUse(func);
    module->setAttr("onnxc.workspace_size", b.getI64IntegerAttr(size));
    module->setAttr("onnxc.workspace_planned_bytes",
                    b.getI64IntegerAttr(plannedBytes));

    if (!requireNoHeap)
      return;
    // --emit static: a run must not allocate. Name each op that still would.
    bool heap = false;
    func.walk([&](Operation *op) {
      if (!isa<memref::AllocOp, memref::ReallocOp>(op))
        return;
      heap = true;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      InFlightDiagnostic diag = op->emitError();
      if (!type.hasStaticShape())
        diag << "a buffer of type " << type
             << " has a size only known at run time";
      else if (auto alloc = dyn_cast<memref::AllocOp>(op);
               alloc && !isHoistable(alloc, func))
        diag << "a buffer of type " << type << " is allocated inside '"
             << entry.findAncestorOpInBlock(*op)->getName()
             << "', which the memory plan does not enter";
      else if (op->getBlock() != &entry)
        diag << "a buffer of type " << type
             << " leaves the loop or branch that allocates it";
      else
        diag << "a buffer of type " << type
             << " flows where the memory plan cannot follow it";
      diag << "; a static artifact must not allocate while it runs";
    });
    func.walk([&](func::CallOp call) {
      // The runtime helpers for run-time-sized results (NonMaxSuppression,
      // Unique) allocate scratch memory.
      heap = true;
      call.emitError() << "calls the runtime helper " << call.getCallee()
                       << ", which allocates; a static artifact must not "
                          "allocate while it runs";
    });
    if (heap)
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createPlanWorkspace(bool requireNoHeap) {
  PlanWorkspaceOptions options;
  options.requireNoHeap = requireNoHeap;
  return createPlanWorkspace(options);
}

} // namespace onnxc::cpu
