//===- PartitionReport.cpp - --print-partitions and --partition-graph -----===//

#include "passes/partition/PartitionPlan.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <tuple>

using namespace mlir;

namespace onnxc::partition {

static std::optional<std::string> firstNodeName(Location loc) {
  if (auto name = llvm::dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::optional<std::string> name = firstNodeName(part))
        return name;
  if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc))
    return firstNodeName(callSite.getCallee());
  return std::nullopt;
}

std::string nodeName(Operation *op) {
  if (std::optional<std::string> name = firstNodeName(op->getLoc()))
    return *name;
  return op->getName().stripDialect().str();
}

std::string valueName(Value value) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = llvm::dyn_cast_or_null<func::FuncOp>(parent))
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "onnxc.name"))
        return name.str();
    return "arg" + std::to_string(arg.getArgNumber());
  }
  Operation *def = value.getDefiningOp();
  std::string name = nodeName(def);
  if (def->getNumResults() > 1)
    name += ":" + std::to_string(llvm::cast<OpResult>(value).getResultNumber());
  return name;
}

std::string summarizePartition(const PlannedPartition &partition) {
  std::map<std::string, int> counts;
  for (Operation *op : partition.ops)
    ++counts[op->getName().stripDialect().str()];
  std::vector<std::pair<std::string, int>> byCount(counts.begin(),
                                                   counts.end());
  std::stable_sort(byCount.begin(), byCount.end(),
                   [](auto &a, auto &b) { return a.second > b.second; });
  std::string text = partition.target->name().str() + ": " +
                     std::to_string(partition.ops.size()) +
                     (partition.ops.size() == 1 ? " node (" : " nodes (");
  for (auto [i, entry] : llvm::enumerate(byCount))
    text += (i ? ", " : "") + entry.first + " " + std::to_string(entry.second);
  return text + ")";
}

/// At most `limit` names, then "... (N more)".
static std::string listNames(const std::vector<std::string> &names,
                             size_t limit) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < limit; ++i)
    text += (i ? ", " : "") + names[i];
  if (names.size() > limit)
    text += ", ... (" + std::to_string(names.size() - limit) + " more)";
  return text;
}

static std::vector<std::string> valueNames(llvm::ArrayRef<Value> values) {
  std::vector<std::string> names;
  for (Value v : values)
    names.push_back(valueName(v));
  return names;
}

void printPlan(const PartitionPlan &plan, llvm::StringRef graphName,
               llvm::raw_ostream &os) {
  std::vector<std::string> order;
  for (const Target *t : plan.order)
    order.push_back(t->name().str());
  os << "partitions of " << graphName << ": " << plan.partitions.size()
     << " (targets in priority order: " << llvm::join(order, ", ") << ")\n";
  for (auto [k, partition] : llvm::enumerate(plan.partitions)) {
    os << "  #" << k << " " << summarizePartition(partition) << "\n";
    os << "     in:  " << listNames(valueNames(partition.inputs), 8) << "\n";
    os << "     out: " << listNames(valueNames(partition.outputs), 8) << "\n";
  }
  // Refusals by (target, op, reason), with the nodes' names.
  std::map<std::tuple<std::string, std::string, std::string>,
           std::vector<std::string>>
      refusals;
  for (const PlannedNode &node : plan.nodes)
    for (const Refusal &r : node.refusals)
      refusals[{r.target->name().str(), node.op->getName().stripDialect().str(),
                r.reason}]
          .push_back(nodeName(node.op));
  if (refusals.empty())
    return;
  os << "refused:\n";
  for (const auto &[key, nodes] : refusals) {
    const auto &[target, op, reason] = key;
    os << "  " << target << " refused " << nodes.size() << " " << op
       << (nodes.size() == 1 ? " node" : " nodes") << ": " << reason << "\n";
    os << "     " << listNames(nodes, 4) << "\n";
  }
}

/// A Graphviz string literal; a newline becomes a line break of the label.
static std::string quoted(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

void writePlanGraph(const PartitionPlan &plan, llvm::raw_ostream &os) {
  static const char *kColours[] = {"#a6cee3", "#b2df8a", "#fb9a99",
                                   "#fdbf6f", "#cab2d6", "#ffff99"};
  std::map<const Target *, const char *> colour;
  for (auto [i, target] : llvm::enumerate(plan.order))
    colour[target] = kColours[i % std::size(kColours)];
  os << "digraph partitions {\n  node [shape=box, style=filled];\n";
  for (auto [k, partition] : llvm::enumerate(plan.partitions)) {
    os << "  subgraph cluster_" << k << " {\n    label="
       << quoted("#" + std::to_string(k) + " " + partition.target->name().str())
       << ";\n";
    for (Operation *op : partition.ops)
      os << "    n" << plan.nodeIndex.lookup(op) << " [label="
         << quoted(nodeName(op) + "\n" + op->getName().stripDialect().str())
         << ", fillcolor=" << quoted(colour[partition.target]) << "];\n";
    os << "  }\n";
  }
  for (const PlannedNode &node : plan.nodes)
    for (Value operand : node.op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = plan.nodeIndex.find(def); it != plan.nodeIndex.end())
          os << "  n" << it->second << " -> n" << plan.nodeIndex.lookup(node.op)
             << ";\n";
  os << "  legend [shape=plaintext, style=\"\", label="
     << quoted("targets: " +
               [&] {
                 std::vector<std::string> names;
                 for (const Target *t : plan.order)
                   names.push_back(t->name().str() + " (" + colour[t] + ")");
                 return llvm::join(names, ", ");
               }())
     << "];\n}\n";
}

} // namespace onnxc::partition
