//===- ObjectFile.cpp - LLVM module -> optimized native object ------------===//

#include "compiler/emit/ObjectFile.h"

#include "compiler/emit/Linker.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
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
  Triple triple(
      Triple::normalize(tripleName.empty() ? hostTriple : tripleName));
  bool isHost = isHostTriple(triple.str());
  std::string error;
  const llvm::Target *target =
      TargetRegistry::lookupTarget(triple.str(), error);
  if (!target)
    return createStringError(inconvertibleErrorCode(),
                             "unknown target triple '%s': %s",
                             triple.str().c_str(), error.c_str());

  // The runtime and the lowering (64-bit index, memref descriptors of
  // int64_t sizes) assume 64-bit pointers.
  if (!triple.isArch64Bit())
    return createStringError(inconvertibleErrorCode(),
                             "target '%s' is not 64-bit: onnxc compiles for "
                             "64-bit targets only",
                             triple.str().c_str());

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
  // For an unknown CPU LLVM would only warn and fall back to a generic one.
  std::unique_ptr<MCSubtargetInfo> genericInfo(
      target->createMCSubtargetInfo(triple.str(), "generic", ""));
  if (genericInfo && !genericInfo->isCPUStringValid(cpuName))
    return createStringError(inconvertibleErrorCode(),
                             "'%s' is not a CPU of target '%s' (--mcpu)",
                             cpuName.c_str(), triple.str().c_str());
  TargetOptions options;
  // RISC-V Linux distributions are RV64GC with the hard-float lp64d ABI
  // (their libc and our runtime archive); LLVM's default is soft-float lp64,
  // which the linker refuses to mix with them.
  if (triple.getArch() == Triple::riscv64 && triple.isOSLinux()) {
    for (const char *feature : {"m", "a", "f", "d", "c"})
      features.AddFeature(feature);
    options.MCOptions.ABIName = "lp64d";
  }
  CodeGenOptLevel level = optLevel <= 0   ? CodeGenOptLevel::None
                          : optLevel == 1 ? CodeGenOptLevel::Less
                          : optLevel == 2 ? CodeGenOptLevel::Default
                                          : CodeGenOptLevel::Aggressive;
  std::unique_ptr<TargetMachine> machine(
      target->createTargetMachine(triple.str(), cpuName, features.getString(),
                                  options, Reloc::PIC_, std::nullopt, level));
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
  if (machine.addPassesToEmitFile(pm, os, nullptr, CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(),
                             "the target cannot emit object files");
  pm.run(module);
  return Error::success();
}

} // namespace onnxc
