//===- Partition.cpp - Split main_graph into one function per partition ---===//
//
// Four steps, each a function below:
//   assign      every node to the first target in the priority order that
//               claims it (for a node with regions, every node inside too);
//   defragment  a connected group of one non-host target's nodes without a
//               compute-heavy node goes to the next target that takes its
//               nodes: a boundary costs a call and, across memory spaces, a
//               copy, which only heavy nodes repay;
//   schedule    a topological order that continues with the current target
//               while it can, so each target's nodes come in long runs; each
//               run becomes a partition;
//   outline     each partition into a private function tagged `onnxc.target`
//               that main_graph calls, constants cloned in, and an
//               onnxc.Transfer where a value changes memory space.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/Passes.h"
#include "passes/partition/PartitionPlan.h"
#include "targets/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <set>

namespace onnxc {
#define GEN_PASS_DECL_PARTITION
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc::partition {
namespace {

/// Ops cloned into every partition that reads them instead of crossing a
/// boundary: they have no operands and cost nothing.
bool isClonedLeaf(Operation *op) {
  return llvm::isa<onnx::ConstantOp, onnx::NoValueOp>(op);
}

/// Nodes that repay a partition boundary (see the file comment).
bool isComputeHeavy(Operation *op) {
  static const std::set<llvm::StringRef> kHeavy = {"Conv",
                                                   "ConvTranspose",
                                                   "ConvInteger",
                                                   "QLinearConv",
                                                   "MatMul",
                                                   "Gemm",
                                                   "MatMulInteger",
                                                   "QLinearMatMul",
                                                   "FusedConv",
                                                   "FusedMatMul",
                                                   "FusedGemm",
                                                   "BlockedConv",
                                                   "BlockedQLinearConv",
                                                   "MaxPool",
                                                   "AveragePool",
                                                   "LpPool",
                                                   "Softmax",
                                                   "LogSoftmax",
                                                   "BiasSoftmax",
                                                   "BatchNormalization",
                                                   "LayerNormalization",
                                                   "InstanceNormalization",
                                                   "GroupNormalization",
                                                   "SkipLayerNorm",
                                                   "Attention",
                                                   "MultiHeadAttention",
                                                   "LSTM",
                                                   "GRU",
                                                   "RNN",
                                                   "Einsum"};
  return kHeavy.count(op->getName().stripDialect()) != 0;
}

/// Whether `target` takes `op` and every op nested in its regions; the
/// reason of the first refusal otherwise.
Claim claimWithRegions(const Target &target, Operation *op) {
  Claim claim = target.claim(op);
  if (!claim.taken)
    return claim;
  Claim nested = Claim::take();
  op->walk([&](Operation *inner) {
    if (inner == op || !nested.taken ||
        !llvm::isa<onnx::ONNXDialect, fused::OnnxcDialect>(inner->getDialect()))
      return;
    Claim c = target.claim(inner);
    if (!c.taken)
      nested = Claim::refuse("inside it: " + c.reason);
  });
  return nested;
}

/// The nodes of `graph` in block order (cloned leaves and the terminator
/// left out), each with the first target that claims it.
LogicalResult assign(func::FuncOp graph, PartitionPlan &plan) {
  for (Operation &op : graph.front().without_terminator()) {
    if (isClonedLeaf(&op))
      continue;
    PlannedNode node{&op};
    bool onnxOp =
        llvm::isa<onnx::ONNXDialect, fused::OnnxcDialect>(op.getDialect());
    for (const Target *target : plan.order) {
      // Other dialects' ops (none after the importer today) stay on the
      // host, which lowers whatever is left.
      Claim claim = onnxOp ? claimWithRegions(*target, &op)
                           : (target == &hostTarget()
                                  ? Claim::take()
                                  : Claim::refuse("not an onnx node"));
      if (claim.taken) {
        node.target = target;
        break;
      }
      node.refusals.push_back({target, claim.reason});
    }
    if (!node.target) {
      InFlightDiagnostic diag = op.emitError()
                                << "no target takes this '"
                                << op.getName().stripDialect() << "' node";
      for (const Refusal &r : node.refusals)
        diag.attachNote(op.getLoc()) << r.target->name() << ": " << r.reason;
      return failure();
    }
    plan.nodeIndex[&op] = plan.nodes.size();
    plan.nodes.push_back(std::move(node));
  }
  return success();
}

/// The nodes that `node` reads from (through its regions too) and that read
/// it.
void forEachNeighbour(PartitionPlan &plan, Operation *node,
                      llvm::function_ref<void(size_t)> visit) {
  node->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = plan.nodeIndex.find(def); it != plan.nodeIndex.end())
          visit(it->second);
  });
  for (Value result : node->getResults())
    for (Operation *user : result.getUsers()) {
      Operation *top = node->getBlock()->findAncestorOpInBlock(*user);
      if (auto it = plan.nodeIndex.find(top); it != plan.nodeIndex.end())
        visit(it->second);
    }
}

/// The next target after `node.target` in the priority order that claims
/// the node, recording why `node.target` gave it up.
void moveToNextTarget(PartitionPlan &plan, PlannedNode &node) {
  auto it = llvm::find(plan.order, node.target);
  node.refusals.push_back(
      {node.target, "claimed, but its group of connected " +
                        node.target->name().str() +
                        " nodes has no compute-heavy node"});
  for (++it; it != plan.order.end(); ++it) {
    Claim claim = claimWithRegions(**it, node.op);
    if (claim.taken) {
      node.target = *it;
      return;
    }
    node.refusals.push_back({*it, claim.reason});
  }
}

/// See the file comment. Repeats until no group moves (a move can leave
/// another target's group without its heavy node's company: never more
/// rounds than targets).
void defragment(PartitionPlan &plan) {
  for (size_t round = 0; round < plan.order.size(); ++round) {
    llvm::EquivalenceClasses<size_t> groups;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      groups.insert(i);
      forEachNeighbour(plan, plan.nodes[i].op, [&](size_t j) {
        if (plan.nodes[j].target == plan.nodes[i].target)
          groups.unionSets(i, j);
      });
    }
    bool moved = false;
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      if (!it->isLeader())
        continue;
      const Target *target = plan.nodes[it->getData()].target;
      if (target == &hostTarget())
        continue;
      bool heavy = llvm::any_of(
          llvm::make_range(groups.member_begin(it), groups.member_end()),
          [&](size_t i) { return isComputeHeavy(plan.nodes[i].op); });
      if (heavy)
        continue;
      for (auto m = groups.member_begin(it); m != groups.member_end(); ++m)
        moveToNextTarget(plan, plan.nodes[*m]);
      moved = true;
    }
    if (!moved)
      return;
  }
}

/// Reorders the nodes (and the block) topologically, preferring at each
/// step a ready node of the target just scheduled, then the earliest ready
/// node; cuts the order into runs of one target.
void schedule(func::FuncOp graph, PartitionPlan &plan) {
  size_t n = plan.nodes.size();
  std::vector<std::vector<size_t>> users(n);
  std::vector<size_t> waiting(n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::set<size_t> inputs;
    plan.nodes[i].op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (auto it = plan.nodeIndex.find(def);
              it != plan.nodeIndex.end() && it->second != i)
            inputs.insert(it->second);
    });
    waiting[i] = inputs.size();
    for (size_t j : inputs)
      users[j].push_back(i);
  }
  std::map<const Target *, std::set<size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0)
      ready[plan.nodes[i].target].insert(i);
  std::vector<size_t> order;
  const Target *current = nullptr;
  while (order.size() < n) {
    auto same = ready.find(current);
    if (same == ready.end() || same->second.empty()) {
      // The earliest ready node of any target.
      size_t best = n;
      for (auto &[target, indices] : ready)
        if (!indices.empty() && *indices.begin() < best)
          best = *indices.begin();
      current = plan.nodes[best].target;
      same = ready.find(current);
    }
    size_t next = *same->second.begin();
    same->second.erase(same->second.begin());
    order.push_back(next);
    for (size_t user : users[next])
      if (--waiting[user] == 0)
        ready[plan.nodes[user].target].insert(user);
  }

  // The block: cloned leaves first (they read nothing), then the nodes.
  Block &body = graph.front();
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> leaves;
  for (Operation &op : body.without_terminator())
    if (isClonedLeaf(&op))
      leaves.push_back(&op);
  for (Operation *leaf : leaves)
    leaf->moveBefore(terminator);
  std::vector<PlannedNode> nodes;
  for (size_t i : order) {
    plan.nodes[i].op->moveBefore(terminator);
    nodes.push_back(std::move(plan.nodes[i]));
  }
  plan.nodes = std::move(nodes);
  plan.nodeIndex.clear();
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    plan.nodeIndex[plan.nodes[i].op] = i;

  for (const PlannedNode &node : plan.nodes) {
    if (plan.partitions.empty() || plan.partitions.back().target != node.target)
      plan.partitions.push_back({node.target, {}, {}, {}});
    plan.partitions.back().ops.push_back(node.op);
  }
}

/// Fills the partition's boundary values (again before it is outlined: the
/// partitions outlined before it replaced some of its inputs).
void findBoundaries(PlannedPartition &partition) {
  {
    llvm::SmallPtrSet<Operation *, 32> inside(partition.ops.begin(),
                                              partition.ops.end());
    llvm::SetVector<Value> inputs, outputs;
    for (Operation *op : partition.ops) {
      op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          Operation *def = operand.getDefiningOp();
          bool outside =
              def ? def->getBlock() == op->getBlock() && !inside.count(def)
                  : llvm::cast<BlockArgument>(operand).getOwner() ==
                        op->getBlock();
          if (outside && !(def && isClonedLeaf(def)))
            inputs.insert(operand);
        }
      });
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (!inside.count(op->getBlock()->findAncestorOpInBlock(*user)))
            outputs.insert(result);
    }
    partition.inputs.assign(inputs.begin(), inputs.end());
    partition.outputs.assign(outputs.begin(), outputs.end());
  }
}

/// The memory space a value of main_graph lives in.
MemorySpace spaceOf(Value value) {
  if (auto call = value.getDefiningOp<func::CallOp>())
    if (auto target = call->getAttrOfType<StringAttr>(kTargetAttr))
      if (const Target *t = lookupTarget(target.getValue()))
        return t->memorySpace();
  return MemorySpace::Host;
}

/// `value` in `space`: itself, or an onnxc.Transfer of it before `before`.
Value inSpace(OpBuilder &b, Value value, MemorySpace space) {
  MemorySpace from = spaceOf(value);
  if (from == space)
    return value;
  return b.create<fused::TransferOp>(value.getLoc(), value.getType(), value,
                                     b.getStringAttr(memorySpaceName(from)),
                                     b.getStringAttr(memorySpaceName(space)));
}

/// Moves `partition` into a new private function `name` and calls it from
/// where its last node was.
void outline(ModuleOp module, func::FuncOp graph,
             const PlannedPartition &partition, llvm::StringRef name) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Type> inputTypes, outputTypes;
  for (Value v : partition.inputs)
    inputTypes.push_back(v.getType());
  for (Value v : partition.outputs)
    outputTypes.push_back(v.getType());
  OpBuilder b(ctx);
  b.setInsertionPoint(graph);
  auto func = b.create<func::FuncOp>(
      graph.getLoc(), name, FunctionType::get(ctx, inputTypes, outputTypes));
  func.setPrivate();
  func->setAttr(kTargetAttr, b.getStringAttr(partition.target->name()));

  Block *body = func.addEntryBlock();
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(partition.inputs, body->getArguments()))
    mapping.map(value, arg);
  b.setInsertionPointToStart(body);
  // Constants and absent inputs the partition reads, cloned in.
  llvm::SmallPtrSet<Operation *, 16> cloned;
  for (Operation *op : partition.ops)
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (isClonedLeaf(def) && def->getBlock() == &graph.front() &&
              cloned.insert(def).second)
            b.clone(*def, mapping);
    });
  for (Operation *op : partition.ops)
    b.clone(*op, mapping);
  SmallVector<Value> results;
  for (Value v : partition.outputs)
    results.push_back(mapping.lookup(v));
  b.create<func::ReturnOp>(graph.getLoc(), results);

  b.setInsertionPointAfter(partition.ops.back());
  SmallVector<Value> args;
  for (Value v : partition.inputs)
    args.push_back(inSpace(b, v, partition.target->memorySpace()));
  auto call =
      b.create<func::CallOp>(partition.ops.back()->getLoc(), func, args);
  call->setAttr(kTargetAttr, b.getStringAttr(partition.target->name()));
  for (auto [value, result] : llvm::zip(partition.outputs, call.getResults()))
    Value(value).replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(partition.ops))
    op->erase();
}

/// Results of device partitions that main_graph returns come back to the
/// host.
void transferResultsToHost(func::FuncOp graph) {
  Operation *terminator = graph.front().getTerminator();
  OpBuilder b(terminator);
  for (OpOperand &operand : terminator->getOpOperands())
    operand.set(inSpace(b, operand.get(), MemorySpace::Host));
}

struct PartitionPass : onnxc::impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!graph || graph.isExternal())
      return;
    llvm::Expected<std::vector<const Target *>> order = resolveTargets(
        std::vector<std::string>(targets.begin(), targets.end()));
    if (!order) {
      module.emitError() << llvm::toString(order.takeError());
      return signalPassFailure();
    }
    PartitionPlan plan;
    plan.order = std::move(*order);
    if (failed(assign(graph, plan)))
      return signalPassFailure();
    defragment(plan);
    schedule(graph, plan);
    for (PlannedPartition &partition : plan.partitions)
      findBoundaries(partition);
    if (failed(report(plan, graph)))
      return signalPassFailure();

    SmallVector<Attribute> summaries;
    for (auto [k, partition] : llvm::enumerate(plan.partitions)) {
      findBoundaries(partition);
      summaries.push_back(
          StringAttr::get(&getContext(), summarizePartition(partition)));
      std::string name = "partition_" + std::to_string(k) + "_";
      for (char c : partition.target->name())
        name += llvm::isAlnum(c) ? c : '_';
      outline(module, graph, partition, name);
    }
    transferResultsToHost(graph);
    // The cloned leaves left in main_graph with no reader.
    for (Operation &op :
         llvm::make_early_inc_range(graph.front().without_terminator()))
      if (isClonedLeaf(&op) && op.use_empty())
        op.erase();
    module->setAttr(kPartitionsAttr, ArrayAttr::get(&getContext(), summaries));
  }

  LogicalResult report(const PartitionPlan &plan, func::FuncOp graph) {
    if (printPartitions)
      printPlan(plan, graph.getName(), llvm::outs());
    if (graphFile.empty())
      return success();
    std::string error;
    auto file = openOutputFile(graphFile, &error);
    if (!file)
      return graph.emitError() << "--partition-graph: " << error;
    writePlanGraph(plan, file->os());
    file->keep();
    return success();
  }
};

} // namespace
} // namespace onnxc::partition

namespace onnxc {

std::unique_ptr<Pass>
createPartitionPass(const std::vector<std::string> &targets,
                    const PartitionReportOptions &report) {
  PartitionOptions options;
  options.targets = targets;
  options.printPartitions = report.print;
  options.graphFile = report.graphFile;
  return std::make_unique<partition::PartitionPass>(options);
}

} // namespace onnxc
