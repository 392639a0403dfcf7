//===- BlockedRegions.cpp - Regions of a graph in a blocked layout --------===//
//
// See BlockedRegions.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/BlockedRegions.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace onnxc::fused {

SmallVector<int64_t> getIntsOr(Operation *op, StringRef name, size_t size,
                               int64_t defaultValue) {
  SmallVector<int64_t> values;
  if (auto attr = op->getAttrOfType<ArrayAttr>(name))
    for (Attribute a : attr)
      values.push_back(llvm::cast<IntegerAttr>(a).getInt());
  else
    values.assign(size, defaultValue);
  return values;
}

BlockedRegions findBlockedRegions(Block &block, const RegionKinds &kinds) {
  BlockedRegions result;
  llvm::EquivalenceClasses<Operation *> classes;
  for (Operation &op : block) {
    int kind = kinds.kindOf(&op);
    if (kind == 0)
      continue;
    SmallVector<Operation *> linked;
    for (Value operand : kinds.layoutOperands(&op, kind))
      if (Operation *def = operand.getDefiningOp();
          def && result.kinds.count(def))
        linked.push_back(def);
    if (!kinds.isSeed(kind) && linked.empty())
      continue;
    result.kinds[&op] = kind;
    classes.insert(&op);
    for (Operation *def : linked)
      classes.unionSets(&op, def);
  }
  for (auto it = classes.begin(); it != classes.end(); ++it) {
    if (!it->isLeader())
      continue;
    result.regions.emplace_back(classes.member_begin(it), classes.member_end());
  }
  return result;
}

RankedTensorType getBlockedType(RankedTensorType type, int64_t block) {
  SmallVector<int64_t> shape(type.getShape());
  shape[1] = ShapedType::isDynamic(shape[1]) ? ShapedType::kDynamic
                                             : (shape[1] + block - 1) / block;
  shape.push_back(block);
  return RankedTensorType::get(shape, type.getElementType());
}

RegionRewriteCounts rewriteBlockedRegions(
    Block &block, const llvm::DenseSet<Operation *> &members,
    function_ref<int64_t(RankedTensorType)> blockSize,
    function_ref<Value(OpBuilder &, Operation *, function_ref<Value(Value)>)>
        rewrite) {
  RegionRewriteCounts counts;
  llvm::DenseMap<Value, Value> blockedForm;
  OpBuilder b(block.getParentOp()->getContext());
  Location consumerLoc = b.getUnknownLoc();
  auto blocked = [&](Value value) {
    Value &entry = blockedForm[value];
    if (!entry) {
      // From outside the region: reorder it once, where the first member
      // that reads it is (which dominates the later ones).
      auto type = llvm::cast<RankedTensorType>(value.getType());
      int64_t size = blockSize(type);
      entry =
          b.create<ReorderToBlockedOp>(consumerLoc, getBlockedType(type, size),
                                       value, b.getI64IntegerAttr(size));
      ++counts.reordersIn;
    }
    return entry;
  };
  SmallVector<Operation *> rewritten;
  for (Operation &op : block) {
    if (!members.contains(&op))
      continue;
    b.setInsertionPoint(&op);
    consumerLoc = op.getLoc();
    Value result = rewrite(b, &op, blocked);
    blockedForm[op.getResult(0)] = result;
    rewritten.push_back(&op);
    auto outside = [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    };
    if (llvm::any_of(op.getResult(0).getUses(), outside)) {
      b.setInsertionPointAfter(result.getDefiningOp());
      auto type = llvm::cast<RankedTensorType>(op.getResult(0).getType());
      Value back = b.create<ReorderFromBlockedOp>(
          op.getLoc(), type, result, b.getI64IntegerAttr(type.getDimSize(1)));
      op.getResult(0).replaceUsesWithIf(back, outside);
      ++counts.reordersOut;
    }
  }
  // The rewritten ops, then the constants and NoValues only they read.
  llvm::SetVector<Operation *> inputs;
  for (Operation *op : rewritten)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && !members.contains(def) &&
          (def->getName().getStringRef() == "onnx.Constant" ||
           def->getName().getStringRef() == "onnx.NoValue"))
        inputs.insert(def);
  for (Operation *op : llvm::reverse(rewritten))
    op->erase();
  for (Operation *def : inputs)
    if (def->use_empty())
      def->erase();
  return counts;
}

bool hasPoolWindow(Operation *pool, int64_t spatial) {
  auto kernel = pool->getAttrOfType<ArrayAttr>("kernel_shape");
  if (!kernel || int64_t(kernel.size()) != spatial)
    return false;
  for (auto [attr, size] : {std::pair<StringRef, int64_t>{"strides", spatial},
                            {"dilations", spatial},
                            {"pads", 2 * spatial}})
    if (auto values = pool->getAttrOfType<ArrayAttr>(attr);
        values && int64_t(values.size()) != size)
      return false;
  return true;
}

void addBlockedPoolAttributes(OperationState &state, Operation *pool,
                              int64_t spatial) {
  Builder b(pool->getContext());
  state.addAttributes(pool->getAttrs());
  auto extend = [&](StringRef name, int64_t defaultValue) {
    SmallVector<int64_t> values = getIntsOr(pool, name, spatial, defaultValue);
    values.push_back(defaultValue);
    state.attributes.set(name, b.getI64ArrayAttr(values));
  };
  extend("kernel_shape", 1);
  extend("strides", 1);
  extend("dilations", 1);
  SmallVector<int64_t> pads = getIntsOr(pool, "pads", 2 * spatial, 0);
  pads.insert(pads.begin() + spatial, 0);
  pads.push_back(0);
  state.attributes.set("pads", b.getI64ArrayAttr(pads));
}

} // namespace onnxc::fused
