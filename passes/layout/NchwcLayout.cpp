//===- NchwcLayout.cpp - Blocked layout for CPU convolution chains --------===//
//
// A convolution over [N, C, H, W] reads C strided planes for every output
// point; over the blocked layout [N, C/B, H, W, B] (NCHWc) its inner loop is
// B contiguous channels, one SIMD register of f32 with B = 16 on AVX-512.
// Converting the layout costs a pass over the tensor, so the pass rewrites
// whole regions of the graph: reorders appear only where a value enters a
// region (ReorderToBlocked) or is used outside it (ReorderFromBlocked, once
// per value however many outside users it has).
//
// A region is a connected set of ops of one block, linked by the values they
// pass each other, of these kinds:
//   - Conv / onnxc.FusedConv: f32, group 1 or depthwise (group = C = M),
//     constant W (and B), static channel counts, auto_pad NOTSET or VALID,
//     and output channels that fill at least half of their last block (a
//     BlockedConv computes whole output blocks). A group-1 convolution reads
//     only its true input channels, so few of them (a 3-channel image) cost
//     only the reorder of a small tensor: it is blocked whatever their
//     number, and the pooling after a network's stem joins the region. They
//     become BlockedConv with W and B blocked here, once, as constants.
//   - ops that work on blocked tensors as they are: Relu, LeakyRelu,
//     Sigmoid, Tanh, HardSigmoid, HardSwish, Clip, Abs, Neg, Elu (unary, the
//     same op on the blocked tensor), Add/Sub/Mul of two tensors of the
//     same type or of one and a per-channel [N or 1, C, 1...] tensor (a
//     squeeze-and-excitation scale; Sub only with it second), MaxPool (no
//     Indices) and AveragePool (the same pool over one more spatial dim, the
//     block, with window 1), and GlobalAveragePool (ReduceMean over the spatial
//     dims: the region's result is reordered back at [N, C, 1, 1] instead of
//     [N, C, H, W]). These join a region only through an operand produced in
//     it.
// A region with fewer than `min-convs` convolutions (default 2) is left
// alone: a single convolution would pay a reorder on each side for one op.
//
// The padding channels of a blocked tensor (past C in its last block) are
// zero after ReorderToBlocked and unspecified after that: an infinite input
// makes a BlockedConv's padding lane inf * 0 = NaN. They never reach a real
// channel: the ops above work lane by lane, a BlockedConv carries its true
// channel counts (in_channels, out_channels) and its lowering leaves the
// padding input lanes out of the reduction (0 * NaN would be NaN), and
// ReorderFromBlocked drops them.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/BlockedRegions.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DECL_NCHWCLAYOUT
#define GEN_PASS_DEF_NCHWCLAYOUT
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;
using onnxc::fused::getBlockedType;
using onnxc::fused::getIntsOr;

namespace onnxc {
namespace {

enum class OpKind { None, Conv, Unary, Binary, Pool, GlobalAveragePool };

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A ranked f32 tensor of rank >= 3 with a static channel dim (dim 1).
RankedTensorType getBlockableType(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32() || type.getRank() < 3 ||
      type.isDynamicDim(1))
    return {};
  return type;
}

/// What a convolution of a region is made of.
struct ConvInfo {
  Value x, z;
  DenseFPElementsAttr weights, bias; // bias may be null
  int64_t group;
  SmallVector<int64_t> kernel, strides, dilations, pads;
  StringAttr activation;
  ArrayAttr activationParams;
};

class NchwcLayoutPass : public impl::NchwcLayoutBase<NchwcLayoutPass> {
public:
  using NchwcLayoutBase::NchwcLayoutBase;

  void runOnOperation() override;

private:
  OpKind classify(Operation *op);
  std::optional<ConvInfo> getConvInfo(Operation *op);
  /// Whether `channels` fill at least half of their last block.
  bool fillsBlocks(int64_t channels) const {
    return ceilDiv(channels, blockSize) * blockSize <= 2 * channels;
  }
  void rewriteBlock(Block &block);
  Value createBlockedConv(OpBuilder &b, Operation *op, ConvInfo &info, Value x,
                          Value z);
};

std::optional<ConvInfo> NchwcLayoutPass::getConvInfo(Operation *op) {
  bool fused = llvm::isa<fused::FusedConvOp>(op);
  if (!fused && !isOnnxOp(op, "Conv"))
    return std::nullopt;
  ConvInfo info;
  info.x = op->getOperand(0);
  info.z = fused ? op->getOperand(3) : Value();
  RankedTensorType xType = getBlockableType(info.x);
  RankedTensorType yType = getBlockableType(op->getResult(0));
  info.weights = getFloatConstant(op->getOperand(1));
  if (!xType || !yType || xType.getRank() != yType.getRank() || !info.weights)
    return std::nullopt;
  Value bias = op->getOperand(2);
  if (!llvm::isa<NoneType>(bias.getType())) {
    info.bias = getFloatConstant(bias);
    if (!info.bias || info.bias.getType().getRank() != 1)
      return std::nullopt;
  }
  if (info.z && llvm::isa<NoneType>(info.z.getType()))
    info.z = Value();
  if (info.z && info.z.getType() != yType)
    return std::nullopt;
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (autoPad && autoPad.getValue() != "NOTSET" &&
      autoPad.getValue() != "VALID")
    return std::nullopt;

  int64_t spatial = xType.getRank() - 2;
  int64_t channels = xType.getDimSize(1), filters = yType.getDimSize(1);
  ShapedType wType = info.weights.getType();
  auto groupAttr = op->getAttrOfType<IntegerAttr>("group");
  info.group = groupAttr ? groupAttr.getInt() : 1;
  if (wType.getRank() != spatial + 2 || wType.getDimSize(0) != filters ||
      (info.bias && info.bias.getNumElements() != filters))
    return std::nullopt;
  bool depthwise = info.group > 1 && info.group == channels &&
                   filters == channels && wType.getDimSize(1) == 1;
  if ((info.group != 1 || wType.getDimSize(1) != channels) && !depthwise)
    return std::nullopt;
  if ((depthwise && !fillsBlocks(channels)) || !fillsBlocks(filters))
    return std::nullopt;

  info.kernel.assign(wType.getShape().begin() + 2, wType.getShape().end());
  if (op->hasAttr("kernel_shape") &&
      getIntsOr(op, "kernel_shape", spatial, 0) != info.kernel)
    return std::nullopt;
  info.strides = getIntsOr(op, "strides", spatial, 1);
  info.dilations = getIntsOr(op, "dilations", spatial, 1);
  info.pads = getIntsOr(op, "pads", 2 * spatial, 0);
  if (autoPad && autoPad.getValue() == "VALID")
    info.pads.assign(2 * spatial, 0);
  if (int64_t(info.strides.size()) != spatial ||
      int64_t(info.dilations.size()) != spatial ||
      int64_t(info.pads.size()) != 2 * spatial)
    return std::nullopt;
  info.activation = op->getAttrOfType<StringAttr>("activation");
  info.activationParams = op->getAttrOfType<ArrayAttr>("activation_params");
  return info;
}

OpKind NchwcLayoutPass::classify(Operation *op) {
  if (getConvInfo(op))
    return OpKind::Conv;
  if (op->getNumResults() == 0 || op->getNumOperands() == 0)
    return OpKind::None;
  RankedTensorType type = getBlockableType(op->getResult(0));
  RankedTensorType inputType = getBlockableType(op->getOperand(0));
  StringRef name = op->getName().getStringRef();
  if (!type || !inputType || !name.consume_front("onnx."))
    return OpKind::None;
  bool sameType = inputType == type;
  if (llvm::is_contained({"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
                          "HardSwish", "Abs", "Neg", "Elu"},
                         name))
    return op->getNumOperands() == 1 && sameType ? OpKind::Unary : OpKind::None;
  if (name == "Clip" && sameType) {
    // Scalar bounds (or none) apply to each element alike.
    for (Value bound : op->getOperands().drop_front()) {
      auto boundType = llvm::dyn_cast<RankedTensorType>(bound.getType());
      if (!llvm::isa<NoneType>(bound.getType()) &&
          (!boundType || boundType.getNumElements() != 1 ||
           boundType.getRank() > 1))
        return OpKind::None;
    }
    return OpKind::Unary;
  }
  if (name == "Add" || name == "Sub" || name == "Mul") {
    if (op->getNumOperands() != 2)
      return OpKind::None;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (lhs.getType() == type && rhs.getType() == type)
      return OpKind::Binary;
    // A per-channel operand ([N or 1, C, 1...], e.g. the scale of a
    // squeeze-and-excitation block) broadcasts in the blocked layout too:
    // [N, Cb, 1..., B] onto [N, Cb, D..., B].
    auto perChannel = [&](Value v) {
      RankedTensorType t = getBlockableType(v);
      if (!t || t.getRank() != type.getRank() ||
          t.getDimSize(1) != type.getDimSize(1) ||
          (t.getDimSize(0) != 1 && t.getDimSize(0) != type.getDimSize(0)))
        return false;
      return llvm::all_of(t.getShape().drop_front(2),
                          [](int64_t d) { return d == 1; });
    };
    if ((lhs.getType() == type && perChannel(rhs)) ||
        (name != "Sub" && rhs.getType() == type && perChannel(lhs)))
      return OpKind::Binary;
    return OpKind::None;
  }
  if (name == "MaxPool" || name == "AveragePool") {
    if (inputType.getRank() != type.getRank() ||
        inputType.getDimSize(1) != type.getDimSize(1) ||
        (name == "MaxPool" && !llvm::isa<NoneType>(op->getResult(1).getType())))
      return OpKind::None;
    return fused::hasPoolWindow(op, type.getRank() - 2) ? OpKind::Pool
                                                        : OpKind::None;
  }
  return OpKind::None;
}

/// GlobalAveragePool is classified apart: its result type differs from its
/// operand's.
OpKind classifyGlobalPool(Operation *op) {
  if (!isOnnxOp(op, "GlobalAveragePool") ||
      !getBlockableType(op->getOperand(0)))
    return OpKind::None;
  return getBlockableType(op->getResult(0)) ? OpKind::GlobalAveragePool
                                            : OpKind::None;
}

/// W [M, C, K...] (group 1) as [Mb, Cb, K..., B, B], or W [C, 1, K...]
/// (depthwise) as [Cb, K..., B], zero where a channel is padding.
DenseElementsAttr blockWeights(DenseFPElementsAttr weights, bool depthwise,
                               int64_t block) {
  ArrayRef<int64_t> shape = weights.getType().getShape();
  SmallVector<float> src(weights.getValues<float>());
  int64_t filters = shape[0], channels = shape[1];
  int64_t taps = 1;
  for (int64_t k : shape.drop_front(2))
    taps *= k;
  int64_t filterBlocks = ceilDiv(filters, block);
  SmallVector<int64_t> blockedShape{filterBlocks};
  if (depthwise) {
    blockedShape.append(shape.begin() + 2, shape.end());
    blockedShape.push_back(block);
    SmallVector<float> dst(filterBlocks * taps * block, 0.0f);
    for (int64_t m = 0; m < filters; ++m)
      for (int64_t k = 0; k < taps; ++k)
        dst[((m / block) * taps + k) * block + m % block] = src[m * taps + k];
    return DenseElementsAttr::get(
        RankedTensorType::get(blockedShape, weights.getElementType()),
        llvm::ArrayRef(dst));
  }
  int64_t channelBlocks = ceilDiv(channels, block);
  blockedShape.push_back(channelBlocks);
  blockedShape.append(shape.begin() + 2, shape.end());
  blockedShape.append({block, block});
  SmallVector<float> dst(filterBlocks * channelBlocks * taps * block * block,
                         0.0f);
  for (int64_t m = 0; m < filters; ++m)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t k = 0; k < taps; ++k)
        dst[((((m / block) * channelBlocks + c / block) * taps + k) * block +
             c % block) *
                block +
            m % block] = src[(m * channels + c) * taps + k];
  return DenseElementsAttr::get(
      RankedTensorType::get(blockedShape, weights.getElementType()),
      llvm::ArrayRef(dst));
}

/// Bias [M] as [Mb, B], zero-padded.
DenseElementsAttr blockBias(DenseFPElementsAttr bias, int64_t block) {
  int64_t filters = bias.getNumElements();
  SmallVector<float> dst(ceilDiv(filters, block) * block, 0.0f);
  llvm::copy(bias.getValues<float>(), dst.begin());
  return DenseElementsAttr::get(
      RankedTensorType::get({ceilDiv(filters, block), block},
                            bias.getElementType()),
      llvm::ArrayRef(dst));
}

Value NchwcLayoutPass::createBlockedConv(OpBuilder &b, Operation *op,
                                         ConvInfo &info, Value x, Value z) {
  Location loc = op->getLoc();
  bool depthwise = info.group != 1;
  Value weights =
      createConstant(b, loc, blockWeights(info.weights, depthwise, blockSize));
  Value bias = info.bias
                   ? createConstant(b, loc, blockBias(info.bias, blockSize))
                   : createNoValue(b, loc);
  if (!z)
    z = createNoValue(b, loc);
  auto resultType = getBlockedType(
      llvm::cast<RankedTensorType>(op->getResult(0).getType()), blockSize);
  ArrayRef<int64_t> weightShape = info.weights.getType().getShape();
  int64_t inChannels = depthwise ? info.group : weightShape[1];
  auto conv = b.create<fused::BlockedConvOp>(
      loc, resultType, x, weights, bias, z, b.getI64IntegerAttr(inChannels),
      b.getI64IntegerAttr(weightShape[0]), b.getI64ArrayAttr(info.dilations),
      b.getI64IntegerAttr(info.group), b.getI64ArrayAttr(info.kernel),
      b.getI64ArrayAttr(info.pads), b.getI64ArrayAttr(info.strides),
      info.activation ? info.activation : b.getStringAttr(""),
      info.activationParams);
  return conv.getResult();
}

/// The operands of a region op that carry the blocked layout.
SmallVector<Value> dataOperands(Operation *op, OpKind kind,
                                const std::optional<ConvInfo> &conv) {
  if (kind == OpKind::Conv)
    return conv->z ? SmallVector<Value>{conv->x, conv->z}
                   : SmallVector<Value>{conv->x};
  if (kind == OpKind::Binary)
    return {op->getOperand(0), op->getOperand(1)};
  return {op->getOperand(0)};
}

void NchwcLayoutPass::rewriteBlock(Block &block) {
  // 1. Regions of the ops that can be blocked; only a convolution starts
  // one. Keep those with enough convolutions.
  auto kindOf = [&](Operation *op) {
    OpKind kind = classify(op);
    return static_cast<int>(kind == OpKind::None ? classifyGlobalPool(op)
                                                 : kind);
  };
  auto isSeed = [](int kind) { return kind == int(OpKind::Conv); };
  auto layoutOperands = [&](Operation *op, int kind) {
    OpKind k = static_cast<OpKind>(kind);
    return dataOperands(op, k,
                        k == OpKind::Conv ? getConvInfo(op) : std::nullopt);
  };
  fused::BlockedRegions found =
      fused::findBlockedRegions(block, {kindOf, isSeed, layoutOperands});
  llvm::DenseSet<Operation *> members;
  int64_t numRegions = 0, numSkipped = 0;
  for (const SmallVector<Operation *> &region : found.regions) {
    int64_t convs = llvm::count_if(region, [&](Operation *op) {
      return found.kinds[op] == int(OpKind::Conv);
    });
    if (convs < minConvs) {
      ++numSkipped;
      continue;
    }
    ++numRegions;
    members.insert(region.begin(), region.end());
  }
  // Every counter on every run, so that --print-pass-stats lists them in
  // one order.
  int64_t numConvs = 0, numOthers = 0;
  fused::RegionRewriteCounts reorders;
  auto report = [&] {
    int64_t nchwConvs = 0;
    for (Operation &op : block)
      nchwConvs += isOnnxOp(&op, "Conv") || llvm::isa<fused::FusedConvOp>(op);
    StringRef pass = getArgument();
    addRewriteCount(pass, "regions", numRegions);
    addRewriteCount(pass, "skipped-regions", numSkipped);
    addRewriteCount(pass, "blocked-convs", numConvs);
    addRewriteCount(pass, "blocked-other-ops", numOthers);
    addRewriteCount(pass, "reorders-in", reorders.reordersIn);
    addRewriteCount(pass, "reorders-out", reorders.reordersOut);
    addRewriteCount(pass, "nchw-convs", nchwConvs);
  };
  if (members.empty())
    return report();

  // 2. Rewrite the members in order, reordering at the regions' edges.
  auto rewrite = [&](OpBuilder &b, Operation *op,
                     function_ref<Value(Value)> blocked) -> Value {
    OpKind kind = static_cast<OpKind>(found.kinds[op]);
    Location loc = op->getLoc();
    auto resultType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
    if (kind == OpKind::Conv) {
      ConvInfo info = *getConvInfo(op);
      Value x = blocked(info.x);
      Value z = info.z ? blocked(info.z) : Value();
      ++numConvs;
      return createBlockedConv(b, op, info, x, z);
    }
    ++numOthers;
    if (kind == OpKind::GlobalAveragePool) {
      // The mean over the spatial dims of [N, Cb, D..., B].
      Value x = blocked(op->getOperand(0));
      int64_t rank = resultType.getRank();
      SmallVector<int64_t> axes;
      for (int64_t d = 2; d < rank; ++d)
        axes.push_back(d);
      Value axesValue = createConstant(
          b, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({int64_t(axes.size())}, b.getI64Type()),
              llvm::ArrayRef(axes)));
      OperationState state(loc, "onnx.ReduceMean");
      state.addOperands({x, axesValue});
      state.addAttribute("keepdims", b.getI64IntegerAttr(1));
      state.addTypes(getBlockedType(resultType, blockSize));
      return b.create(state)->getResult(0);
    }
    OperationState state(loc, op->getName());
    SmallVector<Value> operands(op->getOperands());
    operands[0] = blocked(operands[0]);
    if (kind == OpKind::Binary)
      operands[1] = blocked(operands[1]);
    state.addOperands(operands);
    if (kind == OpKind::Pool)
      fused::addBlockedPoolAttributes(state, op, resultType.getRank() - 2);
    else
      state.addAttributes(op->getAttrs());
    state.addTypes(getBlockedType(resultType, blockSize));
    for (unsigned i = 1; i < op->getNumResults(); ++i)
      state.addTypes(op->getResult(i).getType()); // MaxPool's none Indices
    return b.create(state)->getResult(0);
  };
  reorders = fused::rewriteBlockedRegions(
      block, members, [&](RankedTensorType) -> int64_t { return blockSize; },
      rewrite);
  report();
}

void NchwcLayoutPass::runOnOperation() {
  if (blockSize < 1) {
    getOperation().emitError() << "onnxc-nchwc-layout: block-size must be "
                                  "positive";
    return signalPassFailure();
  }
  for (Block &block : getOperation().getBody())
    rewriteBlock(block);
}

} // namespace

std::unique_ptr<Pass> createNchwcLayoutPass() {
  return std::make_unique<NchwcLayoutPass>();
}

} // namespace onnxc
