//===- WeightGlobals.cpp - Constant weights rewritten at compile time -----===//

#include "targets/cpu/transforms/WeightGlobals.h"

#include "compiler/dialect/OnnxDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace onnxc::cpu {

DenseElementsAttr constantValue(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  if (auto constant = llvm::dyn_cast<onnx::ConstantOp>(def))
    return llvm::dyn_cast_or_null<DenseElementsAttr>(constant.getValueAttr());
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return attr;
  return {};
}

std::vector<float> floatValues(DenseElementsAttr attr) {
  if (attr.isSplat())
    return std::vector<float>(attr.getNumElements(),
                              attr.getSplatValue<float>());
  ArrayRef<char> raw = attr.getRawData();
  std::vector<float> values(attr.getNumElements());
  std::memcpy(values.data(), raw.data(), values.size() * sizeof(float));
  return values;
}

FlatSymbolRefAttr createWeightGlobal(OpBuilder &builder, SymbolTable &symbols,
                                     Location loc, StringRef name,
                                     ArrayRef<float> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getF32Type());
  auto value = DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(values.data()),
                           values.size() * sizeof(float)));
  auto global = builder.create<memref::GlobalOp>(
      loc, name, builder.getStringAttr("private"),
      MemRefType::get(type.getShape(), builder.getF32Type()), value,
      /*constant=*/true, /*alignment=*/builder.getI64IntegerAttr(64));
  symbols.insert(global); // renames it to a unique name
  return FlatSymbolRefAttr::get(global.getSymNameAttr());
}

} // namespace onnxc::cpu
