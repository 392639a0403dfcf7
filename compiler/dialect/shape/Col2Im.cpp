//===- Col2Im.cpp - Shape rule of Col2Im ----------------------------------===//
//
// Col2Im(input [N, C * prod(block_shape), L], image_shape, block_shape) ->
// [N, C, image_shape...].
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

LogicalResult inferCol2Im(RuleContext &ctx) {
  ArrayRef<int64_t> input = ctx.getInputShape(0);
  if (input.size() != 3 || ctx.getInputRank(1) != 1 || ctx.getInputRank(2) != 1)
    return ctx.emitError() << "expects an input [N, C * prod(block), L] and "
                              "1-D image_shape and block_shape, got "
                           << ctx.getInputType(0);
  std::optional<int64_t> spatial = ctx.getStaticLength(1);
  if (!spatial)
    return success();
  std::optional<int64_t> blockLength = ctx.getStaticLength(2);
  if (blockLength && *blockLength != *spatial)
    return ctx.emitError() << "image_shape has " << *spatial
                           << " values, block_shape " << *blockLength;
  int64_t channels = ShapedType::kDynamic;
  if (std::optional<SmallVector<int64_t>> block = ctx.getKnownInts(2)) {
    int64_t product = 1;
    for (int64_t v : *block)
      product *= v;
    if (product <= 0)
      return ctx.emitError() << "block_shape must be positive";
    if (!ShapedType::isDynamic(input[1])) {
      if (input[1] % product != 0)
        return ctx.emitError()
               << "input dim 1 (" << input[1]
               << ") is not a multiple of the block size " << product;
      channels = input[1] / product;
    }
  }
  SmallVector<int64_t> shape{input[0], channels};
  std::optional<SmallVector<int64_t>> image = ctx.getKnownInts(1);
  for (int64_t d = 0; d < *spatial; ++d)
    shape.push_back(image ? (*image)[d] : ShapedType::kDynamic);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

} // namespace

void addCol2ImRules(RuleTable &rules) { rules.add("Col2Im", inferCol2Im); }

} // namespace onnxc::shape
