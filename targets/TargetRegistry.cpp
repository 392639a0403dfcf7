//===- TargetRegistry.cpp - The targets built into onnxc ------------------===//

#include "targets/Target.h"
#include "targets/cpu/CpuTarget.h"

namespace onnxc {

const Target *lookupTarget(llvm::StringRef name) {
  if (name == "cpu")
    return &cpu::getCpuTarget();
  return nullptr;
}

std::vector<std::string> availableTargets() { return {"cpu"}; }

} // namespace onnxc
