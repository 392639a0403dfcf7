//===- ObjectFile.cpp - LLVM module -> optimized native object ------------===//

#include "compiler/emit/ObjectFile.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace onnxc {

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef tripleName, StringRef cpu, int optLevel) {
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
  InitializeAllAsmPrinters();

  std::string hostTriple = sys::getDefaultTargetTriple();
  Triple triple(Triple::normalize(tripleName.empty() ? hostTriple : tripleName));
  bool isHost = triple.str() == Triple::normalize(hostTriple);
  std::string error;
  const llvm::Target *target = TargetRegistry::lookupTarget(triple.str(), error);
  if (!target)
    return createStringError(inconvertibleErrorCode(),
                             "unknown target triple '%s': %s",
                             triple.str().c_str(), error.c_str());

  std::string cpuName = cpu.str();
  SubtargetFeatures features;
  if (cpuName.empty() || cpuName == "native") {
    if (isHost) {
      cpuName = sys::getHostCPUName().str();
      for (const auto &[feature, enabled] : sys::getHostCPUFeatures())
        features.AddFeature(feature, enabled);
      // LLVM tunes AVX-512 CPUs to 256-bit vectors (for the clock drop
      // of 512-bit code on early parts); the generated loops are short
      // kernels where full width wins (Softmax 256x1024: 0.36 -> 0.27 ms
      // on a Rocket Lake host). No effect without AVX-512.
      if (triple.isX86())
        features.AddFeature("prefer-256-bit", false);
    } else {
      cpuName = "generic";
    }
  }
  TargetOptions options;
  CodeGenOptLevel level = optLevel <= 0   ? CodeGenOptLevel::None
                          : optLevel == 1 ? CodeGenOptLevel::Less
                          : optLevel == 2 ? CodeGenOptLevel::Default
                                          : CodeGenOptLevel::Aggressive;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple.str(), cpuName, features.getString(), options, Reloc::PIC_,
      std::nullopt, level));
  if (!machine)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a target machine for '%s' (cpu "
                             "'%s')",
                             triple.str().c_str(), cpuName.c_str());
  return machine;
}

void optimizeModule(Module &module, TargetMachine &machine, int optLevel) {
  module.setTargetTriple(machine.getTargetTriple().str());
  module.setDataLayout(machine.createDataLayout());

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel <= 0   ? OptimizationLevel::O0
                            : optLevel == 1 ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager mpm = level == OptimizationLevel::O0
                              ? builder.buildO0DefaultPipeline(level)
                              : builder.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

Error emitObjectFile(Module &module, TargetMachine &machine,
                     raw_pwrite_stream &os) {
  legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr,
                                  CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(),
                             "the target cannot emit object files");
  pm.run(module);
  return Error::success();
}

} // namespace onnxc
