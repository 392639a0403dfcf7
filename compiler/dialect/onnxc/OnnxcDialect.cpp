//===- OnnxcDialect.cpp - The onnxc dialect of fused ops ------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace onnxc::fused;

#include "compiler/dialect/onnxc/OnnxcDialect.cpp.inc"

void OnnxcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/onnxc/OnnxcOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "compiler/dialect/onnxc/OnnxcOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifiers of the transformer fusions. Operand types may still be unranked
// (!onnx.unknown) before shape inference; only what is known is checked.
//===----------------------------------------------------------------------===//

static bool isOmitted(Value v) { return llvm::isa<NoneType>(v.getType()); }

static RankedTensorType rankedOrNull(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

/// Checks that `param` (when ranked) is 1-D and, when both are static, as
/// long as `hidden`.
static LogicalResult verifyHiddenVector(Operation *op, Value param,
                                        StringRef name, int64_t hidden) {
  RankedTensorType type = rankedOrNull(param);
  if (!type)
    return success();
  if (type.getRank() != 1)
    return op->emitOpError() << name << " must be 1-D, got " << type;
  int64_t size = type.getDimSize(0);
  if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(hidden) &&
      size != hidden)
    return op->emitOpError() << name << " has " << size
                             << " elements, the normalized dim " << hidden;
  return success();
}

LogicalResult SkipLayerNormOp::verify() {
  RankedTensorType input = rankedOrNull(getInput());
  RankedTensorType skip = rankedOrNull(getSkip());
  int64_t hidden = ShapedType::kDynamic;
  if (input) {
    if (input.getRank() < 1)
      return emitOpError() << "input must have rank >= 1";
    hidden = input.getShape().back();
  }
  if (input && skip &&
      (skip.getRank() != input.getRank() ||
       failed(verifyCompatibleShape(input.getShape(), skip.getShape()))))
    return emitOpError() << "skip " << skip << " must have the shape of input "
                         << input;
  if (failed(verifyHiddenVector(*this, getGamma(), "gamma", hidden)))
    return failure();
  if (!isOmitted(getBeta()) &&
      failed(verifyHiddenVector(*this, getBeta(), "beta", hidden)))
    return failure();
  if (!isOmitted(getBias()) &&
      failed(verifyHiddenVector(*this, getBias(), "bias", hidden)))
    return failure();
  return success();
}

LogicalResult BiasGeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError() << "approximate must be \"none\" or \"tanh\", got \""
                         << getApproximate() << "\"";
  RankedTensorType x = rankedOrNull(getX());
  RankedTensorType bias = rankedOrNull(getBias());
  if (x && bias && bias.getRank() > x.getRank())
    return emitOpError() << "bias " << bias << " has a higher rank than X "
                         << x;
  return success();
}

LogicalResult BiasSoftmaxOp::verify() {
  RankedTensorType data = rankedOrNull(getData());
  RankedTensorType bias = rankedOrNull(getBias());
  if (!data)
    return success();
  int64_t rank = data.getRank();
  if (getAxis() < -rank || getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is out of range for "
                         << data;
  if (bias && bias.getRank() > rank)
    return emitOpError() << "bias " << bias << " has a higher rank than data "
                         << data;
  return success();
}

LogicalResult EmbedLayerNormOp::verify() {
  if (isOmitted(getSegmentIds()) != isOmitted(getSegmentEmbedding()))
    return emitOpError()
           << "segment_ids and segment_embedding are given together or not "
              "at all";
  int64_t hidden = ShapedType::kDynamic;
  for (auto [table, name] :
       {std::pair{getWordEmbedding(), "word_embedding"},
        std::pair{getPositionEmbedding(), "position_embedding"},
        std::pair{getSegmentEmbedding(), "segment_embedding"}}) {
    RankedTensorType type = rankedOrNull(table);
    if (!type)
      continue;
    if (type.getRank() != 2)
      return emitOpError() << name << " must be 2-D, got " << type;
    int64_t size = type.getDimSize(1);
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(hidden) &&
        size != hidden)
      return emitOpError() << name << " has hidden size " << size
                           << ", another table " << hidden;
    if (!ShapedType::isDynamic(size))
      hidden = size;
  }
  for (auto [ids, name] : {std::pair{getInputIds(), "input_ids"},
                           std::pair{getPositionIds(), "position_ids"},
                           std::pair{getSegmentIds(), "segment_ids"}}) {
    RankedTensorType type = rankedOrNull(ids);
    if (type && !llvm::isa<IntegerType>(type.getElementType()))
      return emitOpError() << name << " must hold integers, got " << type;
  }
  if (failed(verifyHiddenVector(*this, getGamma(), "gamma", hidden)))
    return failure();
  if (!isOmitted(getBeta()) &&
      failed(verifyHiddenVector(*this, getBeta(), "beta", hidden)))
    return failure();
  return success();
}
