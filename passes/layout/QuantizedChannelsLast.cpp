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
//   - 2-D QLinearConv with a constant W, static channels, 8-bit X, W and Y
//     (spatial dims may be dynamic, except under auto_pad SAME_*, whose
//     pads would depend on them): it becomes onnxc.BlockedQLinearConv with
//     explicit pads (auto_pad resolved here), and starts a region;
//   - ops on which the layout makes no difference: QuantizeLinear and
//     DequantizeLinear with one scale and zero point, unary activations,
//     Clip with scalar bounds, Add/Sub/Mul of two tensors of the result's
//     shape; MaxPool (no Indices) and AveragePool (the same pool over the
//     channel dim too, with a window of 1), and GlobalAveragePool (a
//     ReduceMean over H and W). These join a region only through an operand
//     produced in it.
// Values crossing the region's edge get one reorder each way; a region is
// kept only when that moves fewer bytes than the kernel's own transposes
// it saves (regionPays). The int8 convolutions of both the cpu target
// (runtime/cpu/QLinearConv.c) and the dnnl target (oneDNN) want NHWC, so
// the driver runs it before partitioning, where a region can span both
// targets' convolutions; it is not part of the graph optimizer (`onnxc
// optimize` writes standard QLinearConv nodes), and not run for `--emit
// static` (the blocked convolution is a kernel call, which allocates).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/BlockedRegions.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_QUANTIZEDCHANNELSLAST
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using onnxc::fused::getIntsOr;

namespace onnxc {
namespace {

enum class OpKind { None, Conv, SameShape, Binary, Pool, GlobalAveragePool };

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
  return fused::getBlockedType(type, type.getDimSize(1));
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
  if (y.isDynamicDim(1))
    return std::nullopt;
  ConvWindow window;
  auto group = op->getAttrOfType<IntegerAttr>("group");
  window.group = group ? group.getInt() : 1;
  if (window.group < 1 || x.getDimSize(1) != w.getDimSize(1) * window.group ||
      y.getDimSize(1) != w.getDimSize(0) || w.getDimSize(0) % window.group)
    return std::nullopt;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (op->hasAttr("kernel_shape") &&
      getIntsOr(op, "kernel_shape", 2, 0) != kernel)
    return std::nullopt;
  window.strides = getIntsOr(op, "strides", 2, 1);
  window.dilations = getIntsOr(op, "dilations", 2, 1);
  window.pads = getIntsOr(op, "pads", 4, 0);
  if (window.strides.size() != 2 || window.dilations.size() != 2 ||
      window.pads.size() != 4)
    return std::nullopt;
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  StringRef mode = autoPad ? autoPad.getValue() : "NOTSET";
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), out = y.getDimSize(2 + i);
    int64_t extent = window.dilations[i] * (kernel[i] - 1) + 1;
    bool known = !ShapedType::isDynamic(in) && !ShapedType::isDynamic(out);
    if (window.strides[i] < 1)
      return std::nullopt;
    if (mode == "VALID") {
      window.pads[i] = window.pads[2 + i] = 0;
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      if (!known) // the pads would depend on the run-time size
        return std::nullopt;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * window.strides[i] + extent - in);
      int64_t small = total / 2;
      window.pads[i] = mode == "SAME_UPPER" ? small : total - small;
      window.pads[2 + i] = total - window.pads[i];
    } else if (mode != "NOTSET") {
      return std::nullopt;
    }
    // A static result size must be the one the lowering computes; a
    // dynamic one is computed at run time by the same formula.
    int64_t padded = in + window.pads[i] + window.pads[2 + i];
    if (known &&
        (padded < extent || (padded - extent) / window.strides[i] + 1 != out))
      return std::nullopt;
  }
  return window;
}

bool isBinary(Operation *op) {
  return op->getNumOperands() == 2 && (isOnnx(op, "Add") || isOnnx(op, "Sub") ||
                                       isOnnx(op, "Mul") || isOnnx(op, "Div"));
}

/// How an operand of an elementwise binary op with result `type` broadcasts.
enum class Operand { Unfit, Image, PerChannel, Scalar };
Operand classifyOperand(Value v, RankedTensorType type) {
  if (hasOneElement(v))
    return Operand::Scalar; // the same in any layout
  RankedTensorType t = imageType(v);
  if (!t || t.getDimSize(1) != type.getDimSize(1))
    return Operand::Unfit;
  if (t.getShape() == type.getShape())
    return Operand::Image;
  // [N or 1, C, 1, 1] (a squeeze-and-excitation scale, a folded affine):
  // [N or 1, 1, 1, 1, C] broadcasts onto [N, 1, H, W, C] alike.
  bool perChannel =
      t.getDimSize(2) == 1 && t.getDimSize(3) == 1 &&
      (t.getDimSize(0) == 1 || t.getDimSize(0) == type.getDimSize(0));
  return perChannel ? Operand::PerChannel : Operand::Unfit;
}

/// Whether a binary op's operands broadcast the same way in both layouts,
/// one of them being the result's shape.
bool binaryOperandsFit(Operation *op, RankedTensorType type) {
  Operand lhs = classifyOperand(op->getOperand(0), type);
  Operand rhs = classifyOperand(op->getOperand(1), type);
  return lhs != Operand::Unfit && rhs != Operand::Unfit &&
         (lhs == Operand::Image || rhs == Operand::Image);
}

OpKind classify(Operation *op) {
  if (getConvWindow(op))
    return OpKind::Conv;
  if (op->getNumResults() == 0 || op->getNumOperands() == 0)
    return OpKind::None;
  RankedTensorType type = imageType(op->getResult(0));
  if (isBinary(op))
    return type && binaryOperandsFit(op, type) ? OpKind::Binary : OpKind::None;
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
  if (name == "MaxPool" || name == "AveragePool") {
    if (input.getDimSize(1) != type.getDimSize(1) ||
        (name == "MaxPool" &&
         (op->getNumResults() != 2 ||
          !llvm::isa<NoneType>(op->getResult(1).getType()))))
      return OpKind::None;
    return fused::hasPoolWindow(op, 2) ? OpKind::Pool : OpKind::None;
  }
  return OpKind::None;
}

/// The operands that carry the layout: X, or a binary op's operands that
/// are not scalars.
SmallVector<unsigned> layoutOperandIndices(Operation *op, OpKind kind) {
  if (kind != OpKind::Binary)
    return {0};
  auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<unsigned> indices;
  for (unsigned i = 0; i < 2; ++i)
    if (classifyOperand(op->getOperand(i), type) != Operand::Scalar)
      indices.push_back(i);
  return indices;
}

/// Whether a value is an image of one pixel ([N, C, 1, 1]): transposing it
/// costs next to nothing, and so does a convolution making it.
bool isOnePixel(Value v) {
  auto t = llvm::cast<RankedTensorType>(v.getType());
  return t.getDimSize(2) == 1 && t.getDimSize(3) == 1;
}

/// Whether rewriting `region` moves fewer bytes than it saves: each of its
/// convolutions saves the kernel's two transposes of 8-bit images; each
/// value crossing the region's edge costs a reorder of its elements (four
/// times the bytes for an f32 one). A lone convolution between float ops
/// would only trade its transposes for dearer ones.
bool regionPays(ArrayRef<Operation *> region,
                const llvm::DenseMap<Operation *, int> &kinds) {
  llvm::DenseSet<Operation *> inRegion(region.begin(), region.end());
  llvm::DenseSet<Value> crossing;
  int64_t saved = 0;
  for (Operation *op : region) {
    OpKind kind = static_cast<OpKind>(kinds.lookup(op));
    if (kind == OpKind::Conv && !isOnePixel(op->getResult(0)))
      saved += 2;
    for (unsigned i : layoutOperandIndices(op, kind))
      if (!inRegion.contains(op->getOperand(i).getDefiningOp()))
        crossing.insert(op->getOperand(i));
    if (llvm::any_of(op->getResult(0).getUsers(),
                     [&](Operation *u) { return !inRegion.contains(u); }))
      crossing.insert(op->getResult(0));
  }
  int64_t cost = 0;
  for (Value v : crossing)
    if (!isOnePixel(v))
      cost +=
          llvm::cast<RankedTensorType>(v.getType()).getElementTypeBitWidth() /
          8;
  return saved > cost;
}

struct QuantizedChannelsLastPass
    : impl::QuantizedChannelsLastBase<QuantizedChannelsLastPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
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
  if (kind == OpKind::Pool) // the same pool over the channel dim too
    fused::addBlockedPoolAttributes(state, op, 2);
  else
    state.addAttributes(op->getAttrs());
  state.addTypes(channelsLastType(resultType));
  for (unsigned i = 1; i < op->getNumResults(); ++i)
    state.addTypes(op->getResult(i).getType()); // MaxPool's none Indices
  return b.create(state);
}

void QuantizedChannelsLastPass::rewriteBlock(Block &block) {
  // 1. Regions: a convolution starts one, the other ops extend one.
  auto kindOf = [](Operation *op) { return static_cast<int>(classify(op)); };
  auto isSeed = [](int kind) { return kind == int(OpKind::Conv); };
  auto layoutOperands = [](Operation *op, int kind) {
    SmallVector<Value> values;
    for (unsigned i : layoutOperandIndices(op, static_cast<OpKind>(kind)))
      values.push_back(op->getOperand(i));
    return values;
  };
  fused::BlockedRegions found =
      fused::findBlockedRegions(block, {kindOf, isSeed, layoutOperands});
  llvm::DenseSet<Operation *> members;
  int64_t numSkipped = 0;
  for (const SmallVector<Operation *> &region : found.regions) {
    if (!regionPays(region, found.kinds)) {
      ++numSkipped;
      continue;
    }
    members.insert(region.begin(), region.end());
  }

  // 2. Rewrite them onto [N, 1, H, W, C], reordering at the edges.
  int64_t numConvs = 0, numOthers = 0;
  auto rewrite = [&](OpBuilder &b, Operation *op,
                     function_ref<Value(Value)> blocked) -> Value {
    OpKind kind = static_cast<OpKind>(found.kinds[op]);
    SmallVector<Value> operands(op->getOperands());
    for (unsigned i : layoutOperandIndices(op, kind))
      operands[i] = blocked(operands[i]);
    ++(kind == OpKind::Conv ? numConvs : numOthers);
    return createChannelsLastOp(b, op, kind, operands)->getResult(0);
  };
  // One block of all C channels.
  auto allChannels = [](RankedTensorType type) { return type.getDimSize(1); };
  fused::RegionRewriteCounts reorders =
      fused::rewriteBlockedRegions(block, members, allChannels, rewrite);
  // Every counter on every run, so that --print-pass-stats lists them in
  // one order.
  StringRef pass = getArgument();
  addRewriteCount(pass, "skipped-regions", numSkipped);
  addRewriteCount(pass, "channels-last-convs", numConvs);
  addRewriteCount(pass, "channels-last-other-ops", numOthers);
  addRewriteCount(pass, "reorders-in", reorders.reordersIn);
  addRewriteCount(pass, "reorders-out", reorders.reordersOut);
}

} // namespace
} // namespace onnxc
