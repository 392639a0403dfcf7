//===- TargetRegistry.cpp - The targets built into onnxc ------------------===//
//
// One line per target in builtinTargets(); the first is the host target.
// A target that its CMake option left out is simply not listed (its folder
// defines the ONNXC_HAVE_<NAME>_TARGET macro when built).
//
//===----------------------------------------------------------------------===//

#include "targets/Target.h"
#include "targets/cpu/CpuTarget.h"
#include "targets/cuda/CudaTarget.h"
#ifdef ONNXC_HAVE_DNNL_TARGET
#include "targets/dnnl/DnnlTarget.h"
#endif

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"

namespace onnxc {
namespace {

std::vector<const Target *> &registry() {
  static std::vector<const Target *> targets = {
      &cpu::getCpuTarget(),
#ifdef ONNXC_HAVE_DNNL_TARGET
      &dnnl::getDnnlTarget(),
#endif
      &cuda::getCudaTarget(),
  };
  return targets;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
Target::lowerDeviceCode(mlir::ModuleOp, llvm::LLVMContext &,
                        const LoweringOptions &) const {
  return nullptr;
}

llvm::StringRef memorySpaceName(MemorySpace space) {
  return space == MemorySpace::Host ? "host" : "device";
}

const Target *lookupTarget(llvm::StringRef name) {
  for (const Target *target : registry())
    if (target->name() == name)
      return target;
  return nullptr;
}

const HostTarget &hostTarget() { return cpu::getCpuTarget(); }

std::vector<const Target *> allTargets() { return registry(); }

std::vector<std::string> availableTargets() {
  std::vector<std::string> names;
  for (const Target *target : registry())
    names.push_back(target->name().str());
  return names;
}

void registerExtraTarget(std::unique_ptr<Target> target) {
  registry().push_back(target.release());
}

llvm::Expected<std::vector<const Target *>>
resolveTargets(const std::vector<std::string> &names) {
  std::vector<const Target *> order;
  for (const std::string &name : names) {
    const Target *target = lookupTarget(name);
    if (!target)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "unknown target '%s' (this onnxc has: %s)", name.c_str(),
          llvm::join(availableTargets(), ", ").c_str());
    if (llvm::is_contained(order, target))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "target '%s' is listed twice",
                                     name.c_str());
    order.push_back(target);
  }
  const Target *host = &hostTarget();
  if (!llvm::is_contained(order, host))
    order.push_back(host);
  return order;
}

} // namespace onnxc
