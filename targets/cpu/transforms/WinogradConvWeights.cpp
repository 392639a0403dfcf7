//===- WinogradConvWeights.cpp - Winograd weights for 3x3 convs -----------===//
//
// The runtime computes a 3x3 convolution with unit strides and dilations
// by Winograd F(2x2, 3x3) or F(4x4, 3x3) (runtime/cpu/kernels/ConvNchwc.h):
// 16 multiplies per 2x2 output tile and channel pair instead of 36, or 36
// per 4x4 tile instead of 144. It multiplies transformed weights
// U = G g G^T (kernels/ConvWinogradWeights.h), which this pass computes for
// each constant weight, once, at compile time.
//
// It matches an f32 onnxc.BlockedConv of group 1 and block 16 over 2
// spatial dims with a 3x3 kernel, unit strides and dilations, a constant W
// used by nothing else, at least kMinChannels input and output channels,
// and at least kMinTiles tiles of 2x2 outputs per image (a dynamic size
// counts as too small). It emits U as a constant global and marks the op
// (kWinogradWeightsAttr, and kWinogradTileAttr: 2 or 4); the lowering
// (lowering/BlockedConvCall.cpp) then passes U in place of W, with the
// Winograd flags, and W is not emitted.
//
// 4x4 tiles where the output is at least kMinSideF4 a side: there the
// products dominate, and F(4x4) does 2.25 multiplies per output against
// F(2x2)'s 4. ResNet-50's 3x3s on AVX2 (bench/conv, 1 and 2 threads) ran
// 30-43% faster on the 56x56 and 28x28 maps and 6-18% on the 14x14 ones,
// weights from DRAM included (16x16 computed for 14x14, U 2.25x the size).
// The 7x7 maps keep 2x2 tiles: 8x8 computed for 7x7, and U read per few
// tiles, ran 1.2-1.7x slower in 4x4.
//
// Legal: U holds the same convolution (Y differs from the direct one by
// rounding only: the transforms add and subtract inputs and partial sums
// first; the unit tests hold it to the direct kernel's tolerance). Left
// alone: maps under 7x7, whose few tiles (some half empty) each read U,
// 16/9 the size of W (on ResNet-50's 7x7 maps Winograd is still 1.05-1.17x
// faster, bench/conv, weights from L3 or DRAM, 1 and 2 threads); and fewer
// than 32 channels, whose short reductions leave the transforms to
// dominate.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/Passes.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/transforms/WeightGlobals.h"

#include "runtime/cpu/kernels/ConvWinogradWeights.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_WINOGRADCONVWEIGHTS
#define GEN_PASS_DEF_WINOGRADCONVWEIGHTS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

constexpr int64_t kBlock = 16;
/// The fewest input and output channels (each).
constexpr int64_t kMinChannels = 32;
/// The fewest 2x2 output tiles per image: a 7x7 output map.
constexpr int64_t kMinTiles = 16;
/// The smallest output height and width computed in 4x4 tiles.
constexpr int64_t kMinSideF4 = 14;

/// Whether `conv` should run as Winograd F(2x2, 3x3) (see the file
/// comment).
bool runsAsWinograd(fused::BlockedConvOp conv) {
  auto x = llvm::dyn_cast<RankedTensorType>(conv.getX().getType());
  auto w = llvm::dyn_cast<RankedTensorType>(conv.getW().getType());
  auto y = llvm::dyn_cast<RankedTensorType>(conv.getY().getType());
  if (!x || !w || !y || !w.getElementType().isF32() ||
      !x.getElementType().isF32() || x.getRank() != 5 || y.getRank() != 5 ||
      !w.hasStaticShape() || w.getRank() != 6)
    return false;
  ArrayRef<int64_t> wShape = w.getShape();
  if (wShape[2] != 3 || wShape[3] != 3 || wShape[4] != kBlock ||
      wShape[5] != kBlock || x.getShape().back() != kBlock)
    return false;
  int64_t inChannels = conv.getInChannels();
  int64_t outChannels = conv.getOutChannels();
  auto ones = [](SmallVector<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 1; });
  };
  if (conv.getGroup() != 1 || inChannels < kMinChannels ||
      outChannels < kMinChannels ||
      wShape[0] != (outChannels + kBlock - 1) / kBlock ||
      wShape[1] != (inChannels + kBlock - 1) / kBlock ||
      !ones(getI64Array(conv.getStrides(), 2, 1)) ||
      !ones(getI64Array(conv.getDilations(), 2, 1)))
    return false;
  if (y.isDynamicDim(2) || y.isDynamicDim(3))
    return false;
  int64_t tiles = (y.getDimSize(2) + 1) / 2 * ((y.getDimSize(3) + 1) / 2);
  return tiles >= kMinTiles && conv.getW().hasOneUse();
}

struct WinogradConvWeights
    : impl::WinogradConvWeightsBase<WinogradConvWeights> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    module.walk([&](fused::BlockedConvOp conv) {
      if (!runsAsWinograd(conv))
        return;
      DenseElementsAttr value = constantValue(conv.getW());
      if (!value)
        return;
      int64_t inChannels = conv.getInChannels();
      int64_t outChannels = conv.getOutChannels();
      auto y = llvm::cast<RankedTensorType>(conv.getY().getType());
      int tile = y.getDimSize(2) >= kMinSideF4 && y.getDimSize(3) >= kMinSideF4
                     ? 4
                     : 2;
      std::vector<float> w = floatValues(value);
      std::vector<float> u(
          onnxc_conv_winograd_weight_floats(tile, inChannels, outChannels));
      onnxc_conv_winograd_weights(tile, inChannels, outChannels, w.data(),
                                  u.data());
      conv->setAttr(kWinogradTileAttr, builder.getI64IntegerAttr(tile));
      conv->setAttr(kWinogradWeightsAttr,
                    createWeightGlobal(builder, symbols, conv.getLoc(),
                                       "onnxc_winograd_u", u));
    });
  }
};

} // namespace
} // namespace onnxc::cpu

std::unique_ptr<Pass> onnxc::cpu::createWinogradConvWeightsPass() {
  return std::make_unique<WinogradConvWeights>();
}
