//===- OpEmitter.cpp - Building onnx ops in the imported form -------------===//

#include "compiler/import/OpEmitter.h"

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/import/OpSchemas.h"

#include "mlir/IR/OperationSupport.h"

using namespace mlir;

namespace onnxc {

Value OpEmitter::noValue() {
  Block *block = builder.getInsertionBlock();
  Value &cached = noValues[block];
  if (!cached)
    cached = builder.create<onnx::NoValueOp>(defaultLoc, builder.getNoneType())
                 .getResult();
  return cached;
}

FailureOr<Operation *>
OpEmitter::create(Location loc, const OnnxOpSchema &schema,
                  ArrayRef<Value> inputs, ArrayRef<NamedAttribute> attributes,
                  ArrayRef<bool> outputPresent, unsigned numRegions) {
  MLIRContext *ctx = getContext();
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(schema.mlirName, ctx);
  if (!name)
    return emitError(loc) << "op '" << schema.mlirName << "' is not registered";
  unsigned fixedInputs = schema.numInputs - (schema.variadicInput ? 1 : 0);
  if (inputs.size() > fixedInputs && !schema.variadicInput)
    return emitError(loc) << schema.opType << " takes at most "
                          << schema.numInputs << " inputs, not "
                          << inputs.size();

  OperationState state(loc, *name);
  for (unsigned i = 0; i < fixedInputs; ++i) {
    Value input = i < inputs.size() ? inputs[i] : Value();
    state.operands.push_back(input ? input : noValue());
  }
  for (unsigned i = fixedInputs; i < inputs.size(); ++i) {
    if (!inputs[i])
      return emitError(loc) << "input " << i << " of " << schema.opType
                            << " (part of its variadic input) is empty";
    state.operands.push_back(inputs[i]);
  }

  Type unknown = onnx::UnknownType::get(ctx);
  Type none = NoneType::get(ctx);
  Type constantType;
  if (llvm::StringRef(schema.mlirName) == "onnx.Constant")
    for (const NamedAttribute &attr : attributes)
      if (attr.getName() == "value")
        if (auto typed = llvm::dyn_cast<TypedAttr>(attr.getValue()))
          constantType = typed.getType();
  for (bool present : outputPresent)
    state.types.push_back(!present       ? none
                          : constantType ? constantType
                                         : unknown);
  // Inherent attributes given this way are stored as the op's properties.
  state.addAttributes(attributes);
  for (unsigned i = 0; i < numRegions; ++i)
    state.addRegion();
  return builder.create(state);
}

FailureOr<Operation *> OpEmitter::create(Location loc, StringRef opName,
                                         ArrayRef<Value> inputs,
                                         ArrayRef<NamedAttribute> attributes,
                                         unsigned numResults) {
  const OnnxOpSchema *schema = lookupOpSchema(opName);
  if (!schema)
    return emitError(loc) << "op '" << opName << "' is not in the dialect";
  llvm::SmallVector<bool> present(numResults, true);
  return create(loc, *schema, inputs, attributes, present);
}

FailureOr<Value> OpEmitter::createValue(Location loc, StringRef opName,
                                        ArrayRef<Value> inputs,
                                        ArrayRef<NamedAttribute> attributes) {
  FailureOr<Operation *> op = create(loc, opName, inputs, attributes, 1);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

FailureOr<Value> OpEmitter::constant(Location loc, DenseElementsAttr value) {
  return createValue(loc, "onnx.Constant", {},
                     {builder.getNamedAttr("value", value)});
}

FailureOr<Value> OpEmitter::i64Constant(Location loc, ArrayRef<int64_t> values,
                                        bool scalar) {
  llvm::SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(values.size()));
  auto type = RankedTensorType::get(shape, builder.getI64Type());
  return constant(loc, DenseElementsAttr::get(type, values));
}

FailureOr<Value> OpEmitter::f32Constant(Location loc, ArrayRef<float> values,
                                        bool scalar) {
  llvm::SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(values.size()));
  auto type = RankedTensorType::get(shape, builder.getF32Type());
  return constant(loc, DenseElementsAttr::get(type, values));
}

} // namespace onnxc
