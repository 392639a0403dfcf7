//===- FlattenConstantGlobals.cpp - Give weight globals a 1-D type --------===//
//
// The LLVM translation of a multi-dimensional constant global builds nested
// LLVM arrays: one uniqued ConstantDataArray per innermost row. For conv
// weights the innermost dim is the kernel width (3, or 1 for 1x1 convs), so a
// 100 MB model turns into millions of tiny LLVM constants and gigabytes of
// compile memory. This pass gives every constant memref.global of rank > 1 a
// 1-D type (the same bytes in the same row-major order, so the meaning is
// unchanged) and has each memref.get_global expand it back to the original
// static shape, a view that memref-to-LLVM lowers to a descriptor without a
// copy. Resource-backed initial values keep their blob: only the type
// changes.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_FLATTENCONSTANTGLOBALS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The initial value of `global` with a 1-D type of `flatType`'s shape, or
/// null if it is of a kind this pass does not know how to retype.
Attribute flattenInitialValue(memref::GlobalOp global,
                              RankedTensorType flatType) {
  std::optional<Attribute> init = global.getInitialValue();
  if (!init)
    return {};
  if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(*init))
    return DenseResourceElementsAttr::get(flatType, resource.getRawHandle());
  if (auto dense = llvm::dyn_cast<DenseElementsAttr>(*init))
    return dense.reshape(flatType);
  return {};
}

struct FlattenConstantGlobals
    : impl::FlattenConstantGlobalsBase<FlattenConstantGlobals> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The original type of every global given a 1-D type, by name.
    llvm::DenseMap<StringAttr, MemRefType> originalTypes;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      MemRefType type = global.getType();
      if (!global.getConstant() || type.getRank() <= 1 ||
          !type.hasStaticShape() || !type.getLayout().isIdentity())
        continue;
      auto flatMemref =
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace());
      Attribute flatInit = flattenInitialValue(
          global, RankedTensorType::get(flatMemref.getShape(),
                                        type.getElementType()));
      if (!flatInit)
        continue;
      global.setType(flatMemref);
      global.setInitialValueAttr(flatInit);
      originalTypes[global.getSymNameAttr()] = type;
    }
    if (originalTypes.empty())
      return;

    module.walk([&](memref::GetGlobalOp get) {
      auto it = originalTypes.find(get.getNameAttr().getAttr());
      if (it == originalTypes.end())
        return;
      MemRefType original = it->second;
      OpBuilder builder(get);
      builder.setInsertionPointAfter(get);
      get.getResult().setType(
          MemRefType::get({original.getNumElements()},
                          original.getElementType(),
                          MemRefLayoutAttrInterface(),
                          original.getMemorySpace()));
      ReassociationIndices all;
      for (int64_t d = 0; d < original.getRank(); ++d)
        all.push_back(d);
      auto expanded = builder.create<memref::ExpandShapeOp>(
          get.getLoc(), original, get.getResult(),
          ArrayRef<ReassociationIndices>{all});
      get.getResult().replaceAllUsesExcept(expanded.getResult(), expanded);
    });
  }
};

} // namespace
} // namespace onnxc::cpu
