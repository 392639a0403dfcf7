//===- FusionUtils.cpp - Matching helpers of the fusion passes ------------===//

#include "passes/fusion/FusionUtils.h"

#include "passes/RewriteCounts.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

using namespace mlir;

namespace onnxc::fusion {

Value skipIdentity(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isOnnxOp(def, "Identity") || def->getNumOperands() != 1)
      break;
    value = def->getOperand(0);
  }
  return value;
}

DenseElementsAttr getConstant(Value value) {
  Operation *def = skipIdentity(value).getDefiningOp();
  if (!def || !isOnnxOp(def, "Constant"))
    return {};
  return def->getAttrOfType<DenseElementsAttr>("value");
}

DenseFPElementsAttr getFloatConstant(Value value) {
  return llvm::dyn_cast_or_null<DenseFPElementsAttr>(getConstant(value));
}

std::optional<double> getScalarConstant(Value value) {
  DenseFPElementsAttr attr = getFloatConstant(value);
  if (!attr || attr.getNumElements() == 0)
    return std::nullopt;
  if (!attr.isSplat() && attr.getNumElements() != 1)
    return std::nullopt;
  return (*attr.getValues<APFloat>().begin()).convertToDouble();
}

bool isScalarConstant(Value value, double expected) {
  std::optional<double> actual = getScalarConstant(value);
  return actual && std::abs(*actual - expected) <= 1e-4 * std::abs(expected);
}

RankedTensorType getFloatTensorType(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !llvm::isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
                   type.getElementType()))
    return {};
  return type;
}

bool hasSingleUse(Value value) { return value.hasOneUse(); }

Value getOtherOperand(Operation *op, Value value) {
  if (op->getNumOperands() != 2)
    return {};
  if (op->getOperand(0) == value)
    return op->getOperand(1);
  if (op->getOperand(1) == value)
    return op->getOperand(0);
  return {};
}

bool isOnnxOp(Operation *op, llvm::StringRef name) {
  if (!op)
    return false;
  llvm::StringRef full = op->getName().getStringRef();
  return full.consume_front("onnx.") && full == name;
}

Operation *getSingleUserOp(Value value, llvm::StringRef name) {
  if (!value.hasOneUse())
    return nullptr;
  Operation *user = *value.getUsers().begin();
  return isOnnxOp(user, name) ? user : nullptr;
}

bool broadcastsInto(RankedTensorType operand, RankedTensorType result) {
  if (operand.getRank() > result.getRank())
    return false;
  int64_t offset = result.getRank() - operand.getRank();
  for (auto [i, dim] : llvm::enumerate(operand.getShape())) {
    int64_t target = result.getDimSize(offset + i);
    if (dim == 1)
      continue;
    if (ShapedType::isDynamic(dim) || ShapedType::isDynamic(target) ||
        dim != target)
      return false;
  }
  return true;
}

Value createConstant(OpBuilder &b, Location loc, DenseElementsAttr value) {
  OperationState state(loc, "onnx.Constant");
  state.addTypes(value.getType());
  state.addAttribute("value", value);
  return b.create(state)->getResult(0);
}

Value createNoValue(OpBuilder &b, Location loc) {
  OperationState state(loc, "onnx.NoValue");
  state.addTypes(b.getNoneType());
  return b.create(state)->getResult(0);
}

DenseElementsAttr getFloatElements(RankedTensorType type,
                                   llvm::ArrayRef<double> values) {
  if (type.getElementType().isF64())
    return DenseElementsAttr::get(type, values);
  if (type.getElementType().isF32()) {
    SmallVector<float> floats(values.begin(), values.end());
    return DenseElementsAttr::get(type, llvm::ArrayRef(floats));
  }
  return {};
}

SmallVector<double> getDoubles(DenseFPElementsAttr attr) {
  SmallVector<double> values;
  values.reserve(attr.getNumElements());
  for (const APFloat &v : attr.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

namespace {
/// Counts the pattern applications that succeeded (each one fusion).
struct RewriteCountingListener : RewriterBase::Listener {
  int64_t count = 0;
  void notifyPatternEnd(const Pattern &, LogicalResult status) override {
    if (succeeded(status))
      ++count;
  }
};
} // namespace

LogicalResult applyFusionPatterns(Operation *op, RewritePatternSet &&patterns,
                                  StringRef passArgument, StringRef counter) {
  RewriteCountingListener listener;
  GreedyRewriteConfig config;
  config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
  config.listener = &listener;
  LogicalResult result =
      applyPatternsAndFoldGreedily(op, std::move(patterns), config);
  addRewriteCount(passArgument, counter, listener.count);
  return result;
}

} // namespace onnxc::fusion
