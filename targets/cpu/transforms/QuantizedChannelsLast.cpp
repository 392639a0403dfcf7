//===- QuantizedChannelsLast.cpp - NHWC chains of 8-bit convolutions ------===//
//
// The int8 convolution kernel (runtime/cpu/QLinearConv.c) multiplies rows of
// pixels, each a run of channels: on NCHW operands it transposes X to NHWC
// and its result back, once per convolution. This pass keeps whole regions
// of a cpu partition in that layout instead, so the transposes happen only
// where a value enters or leaves a region.
//
// The layout is the blocked one of onnxc.ReorderToBlocked with a single
// block of all C channels: [N, 1, H, W, C], NHWC with a unit dim. Every op
// that works on blocked tensors as it is (NchwcLayout's list) works on it
// too, so a region is, as there, a connected set of
//   - 2-D QLinearConv with a constant W, static channels and spatial dims,
//     8-bit X, W and Y: it becomes onnxc.BlockedQLinearConv with explicit
//     pads (auto_pad resolved here), and starts a region;
//   - ops on which the layout makes no difference: QuantizeLinear and
//     DequantizeLinear with one scale and zero point, unary activations,
//     Clip with scalar bounds, Add/Sub/Mul of two tensors of the result's
//     shape; MaxPool (no Indices) and AveragePool (the same pool over the
//     channel dim too, with a window of 1), and GlobalAveragePool (a
//     ReduceMean over H and W). These join a region only through an operand
//     produced in it.
// Values crossing the region's edge get one reorder each way. It runs in
// the cpu target's prepare phase, after partitioning (other targets keep
// ONNX's layout, and `onnxc optimize` writes standard QLinearConv nodes),
// and not for `--emit static` (the kernel call allocates).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/RewriteCounts.h"
#include "targets/Target.h"
#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_QUANTIZEDCHANNELSLAST
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

enum class OpKind { None, Conv, SameShape, Pool, GlobalAveragePool };

bool isOnnx(Operation *op, StringRef name) {
  return op->getName().getStringRef() == ("onnx." + name).str();
}

/// A ranked 4-D tensor with static channels (dim 1), or null.
RankedTensorType imageType(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 4 && !type.isDynamicDim(1) ? type : nullptr;
}

/// [N, C, H, W] as [N, 1, H, W, C].
RankedTensorType channelsLastType(RankedTensorType type) {
  ArrayRef<int64_t> s = type.getShape();
  return RankedTensorType::get({s[0], 1, s[2], s[3], s[1]},
                               type.getElementType());
}

SmallVector<int64_t> getInts(Operation *op, StringRef name, size_t size,
                             int64_t defaultValue) {
  SmallVector<int64_t> values;
  if (auto attr = op->getAttrOfType<ArrayAttr>(name))
    for (Attribute a : attr)
      values.push_back(llvm::cast<IntegerAttr>(a).getInt());
  else
    values.assign(size, defaultValue);
  return values;
}

bool isInt8(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.getElementType().isInteger(8);
}

bool hasOneElement(Value v) {
  if (llvm::isa<NoneType>(v.getType()))
    return true;
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getRank() <= 1;
}

/// The window of a QLinearConv the kernel can take: explicit pads (top,
/// left, bottom, right), strides, dilations and the group.
struct ConvWindow {
  SmallVector<int64_t> pads, strides, dilations;
  int64_t group;
};

std::optional<ConvWindow> getConvWindow(Operation *op) {
  if (!isOnnx(op, "QLinearConv") || op->getNumOperands() < 8)
    return std::nullopt;
  RankedTensorType x = imageType(op->getOperand(0));
  RankedTensorType y = imageType(op->getResult(0));
  auto w = llvm::dyn_cast<RankedTensorType>(op->getOperand(3).getType());
  Operation *wDef = op->getOperand(3).getDefiningOp();
  if (!x || !y || !w || w.getRank() != 4 || !w.hasStaticShape() || !wDef ||
      !isOnnx(wDef, "Constant") || !isInt8(op->getOperand(0)) ||
      !isInt8(op->getOperand(3)) || !isInt8(op->getResult(0)))
    return std::nullopt;
  for (int64_t d = 1; d < 4; ++d)
    if (x.isDynamicDim(d) || y.isDynamicDim(d))
      return std::nullopt;
  ConvWindow window;
  auto group = op->getAttrOfType<IntegerAttr>("group");
  window.group = group ? group.getInt() : 1;
  if (window.group < 1 || x.getDimSize(1) != w.getDimSize(1) * window.group ||
      y.getDimSize(1) != w.getDimSize(0) || w.getDimSize(0) % window.group)
    return std::nullopt;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (op->hasAttr("kernel_shape") &&
      getInts(op, "kernel_shape", 2, 0) != kernel)
    return std::nullopt;
  window.strides = getInts(op, "strides", 2, 1);
  window.dilations = getInts(op, "dilations", 2, 1);
  window.pads = getInts(op, "pads", 4, 0);
  if (window.strides.size() != 2 || window.dilations.size() != 2 ||
      window.pads.size() != 4)
    return std::nullopt;
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  StringRef mode = autoPad ? autoPad.getValue() : "NOTSET";
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), out = y.getDimSize(2 + i);
    int64_t extent = window.dilations[i] * (kernel[i] - 1) + 1;
    if (mode == "VALID") {
      window.pads[i] = window.pads[2 + i] = 0;
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      int64_t total =
          std::max<int64_t>(0, (out - 1) * window.strides[i] + extent - in);
      int64_t small = total / 2;
      window.pads[i] = mode == "SAME_UPPER" ? small : total - small;
      window.pads[2 + i] = total - window.pads[i];
    } else if (mode != "NOTSET") {
      return std::nullopt;
    }
    // The kernel derives nothing: the result size must be what it computes.
    int64_t padded = in + window.pads[i] + window.pads[2 + i];
    if (window.strides[i] < 1 || padded < extent ||
        (padded - extent) / window.strides[i] + 1 != out)
      return std::nullopt;
  }
  return window;
}

OpKind classify(Operation *op) {
  if (getConvWindow(op))
    return OpKind::Conv;
  if (op->getNumResults() == 0 || op->getNumOperands() == 0)
    return OpKind::None;
  RankedTensorType type = imageType(op->getResult(0));
  RankedTensorType input = imageType(op->getOperand(0));
  StringRef name = op->getName().getStringRef();
  if (!type || !input || !name.consume_front("onnx."))
    return OpKind::None;
  if (name == "GlobalAveragePool")
    return OpKind::GlobalAveragePool;
  bool sameShape = input.getShape() == type.getShape();
  if (llvm::is_contained({"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
                          "HardSwish", "Abs", "Neg"},
                         name))
    return op->getNumOperands() == 1 && sameShape ? OpKind::SameShape
                                                  : OpKind::None;
  if (name == "Clip" || name == "QuantizeLinear" ||
      name == "DequantizeLinear") {
    // Scalar bounds, scales and zero points apply to each element alike.
    if (!sameShape ||
        !llvm::all_of(op->getOperands().drop_front(), hasOneElement))
      return OpKind::None;
    auto blockSize = op->getAttrOfType<IntegerAttr>("block_size");
    return blockSize && blockSize.getInt() != 0 ? OpKind::None
                                                : OpKind::SameShape;
  }
  if (name == "Add" || name == "Sub" || name == "Mul")
    return op->getNumOperands() == 2 && sameShape &&
                   imageType(op->getOperand(1)) &&
                   imageType(op->getOperand(1)).getShape() == type.getShape()
               ? OpKind::SameShape
               : OpKind::None;
  if (name == "MaxPool" || name == "AveragePool") {
    if (input.getDimSize(1) != type.getDimSize(1) ||
        (name == "MaxPool" &&
         (op->getNumResults() != 2 ||
          !llvm::isa<NoneType>(op->getResult(1).getType()))))
      return OpKind::None;
    auto kernel = op->getAttrOfType<ArrayAttr>("kernel_shape");
    if (!kernel || kernel.size() != 2)
      return OpKind::None;
    for (auto [attr, size] : {std::pair<StringRef, size_t>{"strides", 2},
                              {"dilations", 2},
                              {"pads", 4}})
      if (auto values = op->getAttrOfType<ArrayAttr>(attr);
          values && values.size() != size)
        return OpKind::None;
    return OpKind::Pool;
  }
  return OpKind::None;
}

/// The operands that carry the layout (the others are scalars or weights).
unsigned numLayoutOperands(Operation *op, OpKind kind) {
  if (kind == OpKind::SameShape &&
      (isOnnx(op, "Add") || isOnnx(op, "Sub") || isOnnx(op, "Mul")))
    return 2;
  return 1;
}

struct QuantizedChannelsLastPass
    : impl::QuantizedChannelsLastBase<QuantizedChannelsLastPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto target = func->getAttrOfType<StringAttr>(kTargetAttr);
    if (target && target.getValue() != "cpu")
      return;
    for (Block &block : func.getBody())
      rewriteBlock(block);
  }

  void rewriteBlock(Block &block);
  Operation *createChannelsLastOp(OpBuilder &b, Operation *op, OpKind kind,
                                  ArrayRef<Value> operands);
};

/// `op` on [N, 1, H, W, C] operands (`operands`: op's, the layout ones
/// replaced).
Operation *QuantizedChannelsLastPass::createChannelsLastOp(
    OpBuilder &b, Operation *op, OpKind kind, ArrayRef<Value> operands) {
  Location loc = op->getLoc();
  auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  if (kind == OpKind::Conv) {
    ConvWindow w = *getConvWindow(op);
    SmallVector<Value> all(operands);
    while (all.size() < 9) { // no bias
      OperationState none(loc, "onnx.NoValue");
      none.addTypes(b.getNoneType());
      all.push_back(b.create(none)->getResult(0));
    }
    return b.create<fused::BlockedQLinearConvOp>(
        loc, channelsLastType(resultType), all[0], all[1], all[2], all[3],
        all[4], all[5], all[6], all[7], all[8], b.getI64ArrayAttr(w.dilations),
        b.getI64IntegerAttr(w.group), b.getI64ArrayAttr(w.pads),
        b.getI64ArrayAttr(w.strides));
  }
  if (kind == OpKind::GlobalAveragePool) {
    // The mean over H and W of [N, 1, H, W, C].
    auto axesType = RankedTensorType::get({2}, b.getI64Type());
    OperationState constant(loc, "onnx.Constant");
    constant.addAttribute(
        "value", DenseElementsAttr::get(axesType, ArrayRef<int64_t>{2, 3}));
    constant.addTypes(axesType);
    Value axes = b.create(constant)->getResult(0);
    OperationState state(loc, "onnx.ReduceMean");
    state.addOperands({operands[0], axes});
    state.addAttribute("keepdims", b.getI64IntegerAttr(1));
    state.addTypes(channelsLastType(resultType));
    return b.create(state);
  }
  OperationState state(loc, op->getName());
  state.addOperands(operands);
  state.addAttributes(op->getAttrs());
  if (kind == OpKind::Pool) {
    // The same pool over the channel dim too, with a window of 1.
    auto extend = [&](StringRef name, int64_t defaultValue) {
      SmallVector<int64_t> values = getInts(op, name, 2, defaultValue);
      values.push_back(defaultValue);
      state.attributes.set(name, b.getI64ArrayAttr(values));
    };
    extend("kernel_shape", 1);
    extend("strides", 1);
    extend("dilations", 1);
    SmallVector<int64_t> pads = getInts(op, "pads", 4, 0);
    pads.insert(pads.begin() + 2, 0);
    pads.push_back(0);
    state.attributes.set("pads", b.getI64ArrayAttr(pads));
  }
  state.addTypes(channelsLastType(resultType));
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    state.addTypes(op->getResult(i).getType()); // MaxPool's none Indices
  return b.create(state);
}

void QuantizedChannelsLastPass::rewriteBlock(Block &block) {
  // 1. Regions: union-find over the ops that can run channels-last; a
  // convolution starts one, the others extend one.
  llvm::EquivalenceClasses<Operation *> regions;
  llvm::DenseMap<Operation *, OpKind> kinds;
  for (Operation &op : block) {
    OpKind kind = classify(&op);
    if (kind == OpKind::None)
      continue;
    SmallVector<Operation *> linked;
    for (unsigned i = 0; i < numLayoutOperands(&op, kind); ++i)
      if (Operation *def = op.getOperand(i).getDefiningOp();
          def && kinds.count(def))
        linked.push_back(def);
    if (kind != OpKind::Conv && linked.empty())
      continue;
    kinds[&op] = kind;
    regions.insert(&op);
    for (Operation *def : linked)
      regions.unionSets(&op, def);
  }
  llvm::DenseSet<Operation *> members;
  for (auto &entry : kinds)
    members.insert(entry.first);
  // Every counter on every run, so that --print-pass-stats lists them in
  // one order.
  int64_t numConvs = 0, numOthers = 0, numIn = 0, numOut = 0;
  auto report = [&] {
    StringRef pass = getArgument();
    addRewriteCount(pass, "channels-last-convs", numConvs);
    addRewriteCount(pass, "channels-last-other-ops", numOthers);
    addRewriteCount(pass, "reorders-in", numIn);
    addRewriteCount(pass, "reorders-out", numOut);
  };
  if (members.empty())
    return report();

  // 2. Rewrite the members in order; `converted` maps a value of the
  // original graph to its channels-last form.
  llvm::DenseMap<Value, Value> converted;
  OpBuilder b(&getContext());
  Location consumerLoc = b.getUnknownLoc();
  auto channelsLast = [&](Value value) {
    Value &entry = converted[value];
    if (!entry) {
      // From outside the region: one reorder, at the first member that
      // reads it (which dominates the later ones).
      auto type = llvm::cast<RankedTensorType>(value.getType());
      entry = b.create<fused::ReorderToBlockedOp>(
          consumerLoc, channelsLastType(type), value,
          b.getI64IntegerAttr(type.getDimSize(1)));
      ++numIn;
    }
    return entry;
  };
  SmallVector<Operation *> rewritten;
  for (Operation &op : block) {
    if (!members.contains(&op))
      continue;
    b.setInsertionPoint(&op);
    consumerLoc = op.getLoc();
    OpKind kind = kinds[&op];
    SmallVector<Value> operands(op.getOperands());
    for (unsigned i = 0; i < numLayoutOperands(&op, kind); ++i)
      operands[i] = channelsLast(operands[i]);
    Value result = createChannelsLastOp(b, &op, kind, operands)->getResult(0);
    ++(kind == OpKind::Conv ? numConvs : numOthers);
    converted[op.getResult(0)] = result;
    rewritten.push_back(&op);
    // Users outside the region read the value through one reorder back.
    auto outside = [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    };
    if (llvm::any_of(op.getResult(0).getUses(), outside)) {
      b.setInsertionPointAfter(result.getDefiningOp());
      auto type = llvm::cast<RankedTensorType>(op.getResult(0).getType());
      Value back = b.create<fused::ReorderFromBlockedOp>(
          op.getLoc(), type, result, b.getI64IntegerAttr(type.getDimSize(1)));
      op.getResult(0).replaceUsesWithIf(back, outside);
      ++numOut;
    }
  }
  for (Operation *op : llvm::reverse(rewritten))
    op->erase();
  report();
}

} // namespace
} // namespace onnxc::cpu
