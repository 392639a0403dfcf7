//===- CpuTarget.cpp - The cpu target's capability ------------------------===//
//
// The capability table is not written by hand: it is the set of root ops of
// the lowering patterns, so it can never claim an op the lowering lacks.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/CpuTarget.h"
#include "compiler/dialect/OnnxDialect.h"
#include "targets/Target.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"

#include <mutex>

using namespace mlir;

namespace onnxc::cpu {
namespace {

class CpuTarget final : public Target {
public:
  llvm::StringRef name() const override { return "cpu"; }

  bool supports(Operation *op) const override {
    if (llvm::isa<onnx::NoValueOp, onnx::YieldOp>(op))
      return true;
    std::call_once(once, [&] { collectLoweredOps(op->getContext()); });
    return loweredOps.contains(op->getName().getStringRef());
  }

private:
  void collectLoweredOps(MLIRContext *ctx) const {
    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    RewritePatternSet patterns(ctx);
    populateAllLoweringPatterns(converter, patterns);
    for (const auto &pattern : patterns.getNativePatterns())
      if (std::optional<OperationName> root = pattern->getRootKind())
        loweredOps.insert(root->getStringRef());
  }

  mutable std::once_flag once;
  mutable llvm::StringSet<> loweredOps;
};

} // namespace

const Target &getCpuTarget() {
  static CpuTarget target;
  return target;
}

} // namespace onnxc::cpu
