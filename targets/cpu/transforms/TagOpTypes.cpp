//===- TagOpTypes.cpp - Op types into locations, for the profiler ---------===//
//
// The profiler reports time per node with the node's op type, as ONNX
// Runtime's does. After lowering, a node is only linalg ops, loops and
// kernel calls that carry its location; its op type is gone. This pass runs
// just before the lowering and wraps each onnx/onnxc op's location in a
// FusedLoc whose metadata is the op type, which the lowering patterns copy
// to every op they create. Diagnostics still find the node's NameLoc inside
// (a FusedLoc is described by its first location).
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_TAGOPTYPES
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct TagOpTypesPass : impl::TagOpTypesBase<TagOpTypesPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](Operation *op) {
      StringRef dialect = op->getName().getDialectNamespace();
      if (dialect != "onnx" && dialect != "onnxc")
        return;
      auto type = StringAttr::get(ctx, op->getName().stripDialect());
      op->setLoc(FusedLoc::get({op->getLoc()}, type, ctx));
    });
  }
};

} // namespace
} // namespace onnxc::cpu
