//===- CpuTarget.cpp - The cpu target: capability, pipeline, artifact -----===//
//
// The capability table is not written by hand: it is the set of root ops of
// the lowering patterns, so it can never claim an op the lowering lacks.
//
// As the host target, cpu lowers the whole module once every other target
// has lowered its partitions and the host-memory ones have been inlined:
// compile-time weight packing for the CPU the artifact targets, the runtime
// helpers' declarations, onnx -> linalg, then CpuPipeline.cpp down to the
// LLVM dialect. Its runtime (runtime/cpu) is linked into every artifact.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/CpuTarget.h"
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/emit/Linker.h"
#include "runtime/RuntimePaths.h"
#include "targets/Target.h"
#include "targets/cpu/Passes.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The runtime GEMM variant (onnxc_sgemm_isa) that the target CPU of
/// `machine` will run, whose layout constant weights are packed in at
/// compile time; 0 when that is not known (a generic x86-64, other
/// architectures): the runtime then packs them on the first run. Mirrors
/// the run-time choice in runtime/cpu/kernels/Gemm.c (best_variant).
int32_t gemmPackingIsa(const llvm::TargetMachine &machine) {
  const llvm::Triple &triple = machine.getTargetTriple();
  if (triple.isAArch64())
    return 4; // NEON: in the AArch64 base ISA
  if (triple.getArch() != llvm::Triple::x86_64)
    return 0;
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  if (info->checkFeatures("+avx512f,+avx512vl"))
    return 3;
  if (info->checkFeatures("+avx2,+fma"))
    return 2;
  return 0;
}

class CpuTarget final : public HostTarget {
public:
  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef description() const override {
    return "generated loops and onnxc's own kernels (always last)";
  }

  Claim claim(Operation *op) const override {
    if (llvm::isa<onnx::NoValueOp, onnx::YieldOp>(op))
      return Claim::take();
    std::call_once(once, [&] { collectLoweredOps(op->getContext()); });
    if (loweredOps.contains(op->getName().getStringRef()))
      return Claim::take();
    return Claim::refuse("the cpu target has no lowering for '" +
                         op->getName().getStringRef().str() + "'");
  }

  // --profile: every node's op type into its location, before any target
  // replaces the onnx ops (the profile names them).
  void buildPreparePipeline(OpPassManager &pm,
                            const LoweringOptions &options) const override {
    if (options.profile)
      pm.addNestedPass<func::FuncOp>(createTagOpTypes());
  }

  // The host pipeline lowers cpu partitions after they are inlined.
  void buildPartitionPipeline(OpPassManager &,
                              const LoweringOptions &) const override {}

  void buildHostPipeline(OpPassManager &pm,
                         const LoweringOptions &options) const override;

  llvm::Expected<LinkInputs>
  linkInputs(const LoweringOptions &options) const override;

  void finalizeLLVMModule(llvm::Module &module) const override;

  HostEntryFunctions entryFunctions() const override {
    return {"onnxc_cpu_run", "onnxc_cpu_run_with_workspace",
            "onnxc_cpu_release_tensor", "onnxc_cpu_set_num_threads"};
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

void CpuTarget::buildHostPipeline(OpPassManager &pm,
                                  const LoweringOptions &options) const {
  // A static artifact must not allocate while it runs; the GEMM kernel
  // allocates its packing buffers, so MatMul/Gemm become loops there.
  // Constant GEMM weights are packed now, for the CPU the artifact targets,
  // so that its first run does not pack them (not for a static artifact,
  // which has no GEMM kernel).
  // Upsampling ConvTransposes (k = s) as 1x1 convolutions, and 1-D
  // convolutions as 2-D ones, which the kernels below run (at -O0 the graph
  // stays as written). A static artifact lowers both to loops either way.
  if (options.optLevel >= 1 && !options.staticMemory) {
    pm.addNestedPass<func::FuncOp>(createDecomposeConvTransposePass());
    pm.addNestedPass<func::FuncOp>(createConv1dAsConv2dPass());
  }
  if (!options.staticMemory) {
    pm.addPass(createPrepackGemmWeightsPass(
        options.machine ? gemmPackingIsa(*options.machine) : 0));
    // Likewise the Winograd weights of the 3x3 convolutions that run as
    // Winograd F(2x2, 3x3).
    pm.addPass(createWinogradConvWeightsPass());
  }
  pm.addPass(createDeclareRuntimeHelpersPass(
      /*gemmKernel=*/!options.staticMemory));
  pm.addNestedPass<func::FuncOp>(createConvertOnnxToLinalgPass());
  buildCpuLoweringPipeline(pm, options.optLevel, options.staticMemory,
                           options.profile);
}

llvm::Expected<LinkInputs>
CpuTarget::linkInputs(const LoweringOptions &options) const {
  llvm::Expected<std::string> archive = findRuntimeArchive(
      options.argv0, options.triple, "libonnxc_rt_cpu.a",
      ONNXC_RT_CPU_ARCHIVE_BUILD_PATH, ONNXC_RT_CPU_CROSS_BUILD_DIR);
  if (!archive)
    return archive.takeError();
  LinkInputs inputs;
  inputs.archives.push_back(*archive);
  // The compiler support library the runtime was built with, when the build
  // put it next to the archive: helpers that compiled code calls.
  llvm::SmallString<256> libgcc(llvm::sys::path::parent_path(*archive));
  llvm::sys::path::append(libgcc, "libgcc.a");
  if (llvm::sys::fs::exists(libgcc))
    inputs.archives.push_back(libgcc.str().str());
  return inputs;
}

/// Points the graph's heap buffers at the runtime's pool
/// (runtime/cpu/BufferPool.c): calls of aligned_alloc and free become calls
/// of onnxc_rt_alloc and onnxc_rt_free, which keep freed blocks warm for the
/// next run. Done after LLVM's optimization pipeline, whose passes know what
/// the libc functions do (a fresh, unaliased block; dead allocations) and
/// would not know the runtime's.
void CpuTarget::finalizeLLVMModule(llvm::Module &module) const {
  static constexpr std::pair<llvm::StringRef, llvm::StringRef> kRoutes[] = {
      {"aligned_alloc", "onnxc_rt_alloc"}, {"free", "onnxc_rt_free"}};
  for (auto [from, to] : kRoutes)
    if (llvm::Function *f = module.getFunction(from); f && f->isDeclaration())
      f->setName(to);
}

} // namespace

const HostTarget &getCpuTarget() {
  static CpuTarget target;
  return target;
}

} // namespace onnxc::cpu
