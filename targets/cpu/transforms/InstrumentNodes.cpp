//===- InstrumentNodes.cpp - Per-node timers for onnxc compile --profile --===//
//
// After bufferization and the workspace plan, the graph function is one
// straight-line block: kernel calls, linalg ops, copies and the loops of
// control-flow nodes, each carrying the location of the ONNX node it came
// from (with its op type, see TagOpTypes.cpp), separated by cheap glue
// (views, casts, constants, allocs). This pass cuts that block into
// segments, maximal runs of work ops that name the same nodes, and times
// each one:
//
//   %t0 = call @onnxc_rt_profile_clock()
//   ... segment of entry 0 ...
//   %t1 = call @onnxc_rt_profile_lap(%counters, 0, %t0)   // entry 0 ends
//   ... segment of entry 1 ...
//   %t2 = call @onnxc_rt_profile_lap(%counters, 1, %t1)
//   return
//
// Glue counts with the segment it sits in. A node whose code is split in
// several segments keeps one entry; ops that linalg fusion merged count for
// every node their location names, as one entry. Timing at this level,
// before loops exist, is what keeps the boundaries exact: later the block
// becomes a control-flow graph. The timestamps are SSA values, so
// concurrent runs share nothing but the counters (runtime/cpu/Profile.c).
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"
#include "targets/cpu/transforms/NodeLocations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace onnxc::cpu {
#define GEN_PASS_DEF_INSTRUMENTNODES
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

constexpr StringLiteral kCounters = "onnxc_profile_ns";
constexpr StringLiteral kClock = "onnxc_rt_profile_clock";
constexpr StringLiteral kLap = "onnxc_rt_profile_lap";

/// Whether `op` computes (and so belongs to the segment of its own node),
/// rather than being glue that only names or reserves memory.
bool doesWork(Operation *op) {
  return op->getNumRegions() > 0 ||
         isa<func::CallOp, memref::CopyOp, linalg::LinalgOp>(op);
}

struct InstrumentNodesPass : impl::InstrumentNodesBase<InstrumentNodesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!graph || graph.isExternal())
      return;
    if (!graph.getBody().hasOneBlock()) {
      graph.emitWarning("--profile: the graph function has several blocks; "
                        "it is not timed");
      return;
    }
    Block &body = graph.getBody().front();

    // Entries by label text, and where each segment starts.
    using Label = std::pair<std::string, std::string>; // names, op types
    llvm::MapVector<Label, int32_t, std::map<Label, unsigned>> entries;
    SmallVector<std::pair<Operation *, int32_t>> segmentStarts;
    for (Operation &op : body.without_terminator()) {
      if (!doesWork(&op))
        continue;
      // What the entry reports: the nodes and their op types.
      llvm::SetVector<StringRef> nodeNames, nodeTypes;
      forEachNodeName(op.getLoc(), [&](StringRef name, StringRef type) {
        nodeNames.insert(name);
        if (!type.empty())
          nodeTypes.insert(type);
      });
      std::string names = nodeNames.empty() ? std::string("(no node)")
                                            : llvm::join(nodeNames, ", ");
      std::string opTypes = llvm::join(nodeTypes, "+");
      auto [it, inserted] = entries.insert(
          {{names, opTypes}, static_cast<int32_t>(entries.size())});
      if (segmentStarts.empty() || segmentStarts.back().second != it->second)
        segmentStarts.push_back({&op, it->second});
    }
    if (entries.empty())
      return;

    OpBuilder builder(ctx);
    Location loc = UnknownLoc::get(ctx);
    auto i32 = builder.getI32Type();
    auto i64 = builder.getI64Type();
    auto countersType =
        MemRefType::get({static_cast<int64_t>(entries.size())}, i64);

    // The counters, and the runtime's two functions (C interface, so the
    // counters arrive as one descriptor pointer).
    builder.setInsertionPointToStart(module.getBody());
    builder.create<memref::GlobalOp>(
        loc, kCounters, builder.getStringAttr("private"), countersType,
        DenseElementsAttr::get(
            RankedTensorType::get(countersType.getShape(), i64),
            builder.getI64IntegerAttr(0)),
        /*constant=*/false, builder.getI64IntegerAttr(64));
    auto clock = builder.create<func::FuncOp>(
        loc, kClock, builder.getFunctionType({}, {i64}));
    auto lap = builder.create<func::FuncOp>(
        loc, kLap, builder.getFunctionType({countersType, i32, i64}, {i64}));
    for (func::FuncOp decl : {clock, lap})
      decl.setPrivate();
    lap->setAttr("llvm.emit_c_interface", builder.getUnitAttr());

    builder.setInsertionPointToStart(&body);
    Value counters =
        builder.create<memref::GetGlobalOp>(loc, countersType, kCounters);
    Value since =
        builder.create<func::CallOp>(loc, clock, ValueRange{}).getResult(0);
    auto lapBefore = [&](Operation *op, int32_t entry) {
      builder.setInsertionPoint(op);
      Value id = builder.create<arith::ConstantIntOp>(loc, entry, 32);
      since =
          builder
              .create<func::CallOp>(loc, lap, ValueRange{counters, id, since})
              .getResult(0);
    };
    for (size_t s = 1; s < segmentStarts.size(); ++s)
      lapBefore(segmentStarts[s].first, segmentStarts[s - 1].second);
    lapBefore(body.getTerminator(), segmentStarts.back().second);

    SmallVector<Attribute> table;
    for (const auto &[label, entry] : entries)
      table.push_back(
          builder.getArrayAttr({builder.getStringAttr(label.first),
                                builder.getStringAttr(label.second)}));
    module->setAttr("onnxc.profile_nodes", builder.getArrayAttr(table));
  }
};

} // namespace
} // namespace onnxc::cpu
