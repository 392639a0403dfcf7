//===- TestTargets.cpp - Targets that exist only for the partitioner's tests
//-===//
//
// Two small targets registered by onnxc-opt, so the lit tests of
// onnxc-partition can show mixed assignment, refusals with reasons and
// transfers across memory spaces without depending on which real targets
// this onnxc was built with:
//   test-host    host memory; takes Conv (not grouped), MatMul, Gemm, Relu
//   test-device  device memory; takes MatMul, Softmax, Tanh
// Neither lowers anything: the tests stop after partitioning.
//
//===----------------------------------------------------------------------===//

#include "tools/onnxc-opt/TestTargets.h"
#include "targets/Target.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace onnxc {
namespace {

class TestTarget final : public Target {
public:
  TestTarget(llvm::StringRef name, MemorySpace space,
             std::initializer_list<llvm::StringRef> ops)
      : targetName(name), space(space) {
    for (llvm::StringRef op : ops)
      this->ops.insert(op);
  }

  llvm::StringRef name() const override { return targetName; }
  llvm::StringRef description() const override {
    return "a target of the partitioner's lit tests";
  }
  MemorySpace memorySpace() const override { return space; }

  Claim claim(Operation *op) const override {
    llvm::StringRef opName = op->getName().stripDialect();
    if (!ops.contains(opName))
      return Claim::refuse("'" + opName.str() + "' is not in " + targetName +
                           "'s op list");
    if (auto group = op->getAttrOfType<IntegerAttr>("group");
        group && group.getInt() != 1)
      return Claim::refuse("grouped convolutions are not supported");
    return Claim::take();
  }

  void buildPartitionPipeline(OpPassManager &,
                              const LoweringOptions &) const override {}
  llvm::Expected<LinkInputs>
  linkInputs(const LoweringOptions &) const override {
    return LinkInputs{};
  }

private:
  std::string targetName;
  MemorySpace space;
  llvm::StringSet<> ops;
};

} // namespace

void registerTestTargets() {
  registerExtraTarget(
      std::make_unique<TestTarget>("test-host", MemorySpace::Host,
                                   std::initializer_list<llvm::StringRef>{
                                       "Conv", "MatMul", "Gemm", "Relu"}));
  registerExtraTarget(std::make_unique<TestTarget>(
      "test-device", MemorySpace::Device,
      std::initializer_list<llvm::StringRef>{"MatMul", "Softmax", "Tanh"}));
}

} // namespace onnxc
