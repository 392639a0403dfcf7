//===- DnnlCalls.cpp - Call sites of the dnnl runtime ---------------------===//

#include "targets/dnnl/DnnlCalls.h"
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/KernelActivation.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::dnnl {

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

/// A fused op's `activation` name and `activation_params`.
static std::pair<llvm::StringRef, SmallVector<float, 2>>
activationOf(Operation *op) {
  auto name = op->getAttrOfType<StringAttr>("activation");
  SmallVector<float, 2> params;
  if (auto list = op->getAttrOfType<ArrayAttr>("activation_params"))
    for (Attribute a : list)
      if (auto f = llvm::dyn_cast<FloatAttr>(a))
        params.push_back(f.getValueAsDouble());
  return {name ? name.getValue() : "", params};
}

bool hasKnownActivation(Operation *op) {
  auto params = op->getAttrOfType<ArrayAttr>("activation_params");
  auto name = op->getAttrOfType<StringAttr>("activation");
  return cpu::kernelActivationFor(name ? name.getValue() : "",
                                  params ? std::optional<ArrayAttr>(params)
                                         : std::nullopt)
      .has_value();
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

/// `type` with a signless element type: what the host pipeline's type
/// conversion makes of onnx's ui8 / si8 tensors.
static RankedTensorType signless(RankedTensorType type) {
  auto integer = llvm::dyn_cast<IntegerType>(type.getElementType());
  if (!integer || integer.isSignless())
    return type;
  return type.clone(IntegerType::get(type.getContext(), integer.getWidth()));
}

/// `value` as `type`: a cast the host pipeline's conversion cancels against
/// its own (unsigned and signless integers of one width share their bits).
static Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return b.create<UnrealizedConversionCastOp>(loc, type, value).getResult(0);
}

Value signlessTensor(OpBuilder &b, Location loc, Value tensor) {
  return castTo(b, loc, tensor,
                signless(llvm::cast<RankedTensorType>(tensor.getType())));
}

Value DnnlCallBuilder::tensorArgument(OpBuilder &b, Location loc,
                                      Value tensor) {
  tensor = signlessTensor(b, loc, tensor);
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
  type = signless(type);
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
                                     Value buffer) {
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
      loc, signless(type), buffer, /*restrict=*/b.getUnitAttr(),
      /*writable=*/b.getUnitAttr());
  result = applyActivation(b, loc, op, castTo(b, loc, result, type));
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

Value DnnlCallBuilder::applyActivation(OpBuilder &b, Location loc,
                                       Operation *op, Value x) {
  auto [name, params] = activationOf(op);
  if (name.empty())
    return x;
  Type type = x.getType();
  auto node = [&](llvm::StringRef opName, ValueRange operands) {
    return onnxNode(b, loc, opName, operands, type);
  };
  auto withAttrs = [&](Value v, ArrayRef<NamedAttribute> attrs) {
    for (const NamedAttribute &attr : attrs)
      v.getDefiningOp()->setAttr(attr.getName(), attr.getValue());
    return v;
  };
  auto param = [&](size_t i, float fallback) {
    return b.getF32FloatAttr(i < params.size() ? params[i] : fallback);
  };
  if (name == "Silu")
    return node("onnx.Mul", {x, node("onnx.Sigmoid", x)});
  if (name == "Gelu" || name == "FastGelu")
    return withAttrs(
        node("onnx.Gelu", x),
        b.getNamedAttr("approximate",
                       b.getStringAttr(name == "Gelu" ? "none" : "tanh")));
  if (name == "LeakyRelu")
    return withAttrs(node("onnx.LeakyRelu", x),
                     b.getNamedAttr("alpha", param(0, 0.01f)));
  if (name == "HardSigmoid")
    return withAttrs(node("onnx.HardSigmoid", x),
                     {b.getNamedAttr("alpha", param(0, 0.2f)),
                      b.getNamedAttr("beta", param(1, 0.5f))});
  if (name == "Clip") {
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    auto bound = [&](float v) {
      OperationState state(loc, "onnx.Constant");
      state.addAttribute("value", DenseElementsAttr::get(scalar, v));
      state.addTypes(scalar);
      return b.create(state)->getResult(0);
    };
    return node("onnx.Clip", {x, bound(params[0]), bound(params[1])});
  }
  // Relu, Sigmoid, Tanh, HardSwish: the onnx op of the same name.
  return node(("onnx." + name).str(), x);
}

} // namespace onnxc::dnnl
