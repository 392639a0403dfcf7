//===- DnnlCalls.cpp - Call sites of the dnnl runtime ---------------------===//

#include "targets/dnnl/DnnlCalls.h"
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::dnnl {

// Must match runtime/cpu/kernels/Gemm.h (onnxc_activation).
enum : int32_t {
  kActNone = 0,
  kActRelu = 1,
  kActLeakyRelu = 2,
  kActClip = 3,
  kActSigmoid = 4,
  kActTanh = 5,
  kActGelu = 7,
  kActFastGelu = 8,
  kActSilu = 9,
  kActHardSwish = 10,
};

RankedTensorType f32Tensor(Value value) {
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  return type && type.getElementType().isF32() ? type : RankedTensorType();
}

Value i64Argument(OpBuilder &b, Location loc, OpFoldResult size) {
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return b.create<arith::ConstantIntOp>(loc, *c, 64);
  return b.create<arith::IndexCastOp>(
      loc, b.getI64Type(), getValueOrCreateConstantIndexOp(b, loc, size));
}

bool isAbsent(Value value) {
  return !value || llvm::isa<NoneType>(value.getType());
}

std::optional<DnnlActivation> dnnlActivationFor(Operation *op,
                                                std::string &whyNot) {
  auto name = op->getAttrOfType<StringAttr>("activation");
  llvm::StringRef act = name ? name.getValue() : "";
  SmallVector<float, 2> params;
  if (auto list = op->getAttrOfType<ArrayAttr>("activation_params"))
    for (Attribute a : list)
      params.push_back(llvm::cast<FloatAttr>(a).getValueAsDouble());
  // Every activation runs on the host after the call: oneDNN's eltwise
  // post-ops do not keep NaN as ONNX does, and not alike in every
  // implementation (Relu and Clip turn it into 0 everywhere; Sigmoid only in
  // the GEMM-based convolution of a one-pixel output).
  auto after = [&](int32_t kind, float alpha = 0.0f,
                   float beta = 0.0f) -> std::optional<DnnlActivation> {
    return DnnlActivation{kind, alpha, beta, /*afterCall=*/true};
  };
  auto noParams = [&](int32_t kind) -> std::optional<DnnlActivation> {
    if (!params.empty()) {
      whyNot = "activation " + act.str() + " with parameters";
      return std::nullopt;
    }
    return after(kind);
  };
  if (act.empty())
    return DnnlActivation{kActNone};
  if (act == "Relu")
    return noParams(kActRelu);
  if (act == "Sigmoid")
    return noParams(kActSigmoid);
  if (act == "Tanh")
    return noParams(kActTanh);
  if (act == "Gelu")
    return noParams(kActGelu);
  if (act == "FastGelu")
    return noParams(kActFastGelu);
  if (act == "Silu")
    return noParams(kActSilu);
  if (act == "HardSwish" && params.empty())
    return after(kActHardSwish);
  if (act == "LeakyRelu" && params.size() <= 1)
    return after(kActLeakyRelu, params.empty() ? 0.01f : params[0]);
  if (act == "Clip" && params.size() == 2)
    return after(kActClip, params[0], params[1]);
  whyNot = "activation " + act.str() + " has no host form here";
  return std::nullopt;
}

DnnlCallBuilder::DnnlCallBuilder(ModuleOp module)
    : module(module), symbols(module) {
  // The run-time error reports (the lowerings' dim checks, a failed call)
  // go through the cpu runtime's shape-error callee.
  if (symbols.lookup(cpu::kShapeErrorCallee))
    return;
  OpBuilder b(module.getBodyRegion());
  auto decl = b.create<func::FuncOp>(
      module.getLoc(), cpu::kShapeErrorCallee,
      b.getFunctionType({b.getI32Type(), b.getI64Type(), b.getI64Type()}, {}));
  decl.setPrivate();
  symbols.insert(decl);
}

Value DnnlCallBuilder::slot(OpBuilder &b, Location loc) {
  auto type = MemRefType::get({1}, b.getI64Type());
  std::string name;
  do
    name = "onnxc_dnnl_slot_" + std::to_string(nextSlot++);
  while (symbols.lookup(name));
  OpBuilder atModule(module.getBodyRegion());
  auto global = atModule.create<memref::GlobalOp>(
      module.getLoc(), name, atModule.getStringAttr("private"), type,
      DenseElementsAttr::get(RankedTensorType::get({1}, b.getI64Type()),
                             llvm::ArrayRef<int64_t>{0}),
      /*constant=*/false, /*alignment=*/nullptr);
  symbols.insert(global);
  Value ref = b.create<memref::GetGlobalOp>(loc, type, name);
  return b.create<memref::CastOp>(
      loc, UnrankedMemRefType::get(b.getI64Type(), 0), ref);
}

Value DnnlCallBuilder::tensorArgument(OpBuilder &b, Location loc,
                                      Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  Value memref = b.create<bufferization::ToMemrefOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      b.getUnitAttr());
  return b.create<memref::CastOp>(
      loc, UnrankedMemRefType::get(type.getElementType(), 0), memref);
}

Value DnnlCallBuilder::allocResult(OpBuilder &b, Location loc,
                                   RankedTensorType type,
                                   llvm::ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamicSizes;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return b.create<memref::AllocOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes, b.getI64IntegerAttr(64));
}

Value DnnlCallBuilder::resultArgument(OpBuilder &b, Location loc,
                                      Value buffer) {
  auto type = llvm::cast<MemRefType>(buffer.getType());
  return b.create<memref::CastOp>(
      loc, UnrankedMemRefType::get(type.getElementType(), 0), buffer);
}

void DnnlCallBuilder::callAndReplace(OpBuilder &b, Operation *op,
                                     llvm::StringRef name, ValueRange args,
                                     Value buffer,
                                     const DnnlActivation *activation) {
  Location loc = op->getLoc();
  auto callee = symbols.lookup<func::FuncOp>(name);
  if (!callee) {
    OpBuilder atModule(module.getBodyRegion());
    callee = atModule.create<func::FuncOp>(
        module.getLoc(), name,
        b.getFunctionType(ValueRange(args).getTypes(), {b.getI32Type()}));
    callee.setPrivate();
    callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    symbols.insert(callee);
  }
  Value status = b.create<func::CallOp>(loc, callee, args).getResult(0);
  Value failed =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, status,
                              b.create<arith::ConstantIntOp>(loc, 0, 32));
  Value code = b.create<arith::IndexCastOp>(loc, b.getIndexType(), status);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  cpu::emitShapeErrorIf(b, loc, failed, cpu::ShapeErrorKind::LibraryCall, code,
                        zero);
  auto type = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  Value result = b.create<bufferization::ToTensorOp>(
      loc, type, buffer, /*restrict=*/b.getUnitAttr(),
      /*writable=*/b.getUnitAttr());
  if (activation && activation->afterCall)
    result = applyOnHost(b, loc, *activation, result);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// An onnx node of `name` on `operands` with `x`'s type, which the host
/// pipeline lowers once the partition is inlined.
static Value onnxNode(OpBuilder &b, Location loc, llvm::StringRef name,
                      ValueRange operands, Type type) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  return b.create(state)->getResult(0);
}

Value DnnlCallBuilder::applyOnHost(OpBuilder &b, Location loc,
                                   const DnnlActivation &activation, Value x) {
  Type type = x.getType();
  auto node = [&](llvm::StringRef name, ValueRange operands) {
    return onnxNode(b, loc, name, operands, type);
  };
  Operation *op = nullptr;
  switch (activation.kind) {
  case kActRelu:
    return node("onnx.Relu", x);
  case kActSigmoid:
    return node("onnx.Sigmoid", x);
  case kActTanh:
    return node("onnx.Tanh", x);
  case kActHardSwish:
    return node("onnx.HardSwish", x);
  case kActSilu:
    return node("onnx.Mul", {x, node("onnx.Sigmoid", x)});
  case kActGelu:
  case kActFastGelu:
    op = node("onnx.Gelu", x).getDefiningOp();
    op->setAttr("approximate", b.getStringAttr(activation.kind == kActGelu
                                                   ? "none"
                                                   : "tanh"));
    return op->getResult(0);
  case kActLeakyRelu:
    op = node("onnx.LeakyRelu", x).getDefiningOp();
    op->setAttr("alpha", b.getF32FloatAttr(activation.alpha));
    return op->getResult(0);
  default: {
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    auto bound = [&](float v) {
      OperationState state(loc, "onnx.Constant");
      state.addAttribute("value", DenseElementsAttr::get(scalar, v));
      state.addTypes(scalar);
      return b.create(state)->getResult(0);
    };
    return node("onnx.Clip",
                {x, bound(activation.alpha), bound(activation.beta)});
  }
  }
}

} // namespace onnxc::dnnl
