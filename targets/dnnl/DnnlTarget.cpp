//===- DnnlTarget.cpp - The dnnl target: capability, pipeline, artifact ---===//
//
// oneDNN's primitives for the nodes where a library beats generated loops:
// convolutions, matrix products, pooling and layer normalization (f32),
// and int8 convolutions and matrix products. Values stay
// in host memory, so its partitions are lowered to runtime calls and inlined
// into the host graph. An artifact with dnnl partitions links
// libonnxc_rt_dnnl.a and needs libdnnl.so.2 at load time; one without links
// neither.
//
//===----------------------------------------------------------------------===//

#include "targets/dnnl/DnnlTarget.h"
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/emit/Linker.h"
#include "runtime/RuntimePaths.h"
#include "targets/Target.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

class DnnlTarget final : public Target {
public:
  llvm::StringRef name() const override { return "dnnl"; }
  llvm::StringRef description() const override {
    return "oneDNN primitives for Conv, ConvTranspose, MatMul/Gemm, "
           "pooling and layer "
           "normalization (f32), and int8 QLinearConv, QLinearMatMul, "
           "MatMulInteger";
  }

  Claim claim(Operation *op) const override {
    for (auto family :
         {claimConv, claimQuantizedConv, claimConvTranspose, claimMatMul,
          claimQuantizedMatMul, claimPooling, claimNormalization})
      if (std::optional<Claim> claim = family(op))
        return *claim;
    // oneDNN 2.6's softmax gives the other entries of a row holding a NaN
    // or +inf a 0 where ONNX makes the whole row NaN (and its log-softmax
    // of one element is 1.4e-6, not 0): the cpu keeps them.
    if (llvm::isa<onnx::SoftmaxOp, onnx::LogSoftmaxOp>(op))
      return Claim::refuse("oneDNN's softmax does not make a row with a NaN "
                           "or +inf all NaN as ONNX does");
    return Claim::refuse("the dnnl target does not lower '" +
                         op->getName().stripDialect().str() + "'");
  }

  void buildPartitionPipeline(OpPassManager &pm,
                              const LoweringOptions &) const override {
    pm.addPass(createLowerToDnnlCallsPass());
  }

  llvm::Error checkOptions(const LoweringOptions &options) const override {
    if (options.staticMemory)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--emit static cannot use it: oneDNN allocates while it runs "
          "(compile without --targets dnnl)");
    if (!isHostTriple(options.triple))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "it calls this machine's oneDNN and cannot cross-compile for '%s'",
          options.triple.c_str());
    return llvm::Error::success();
  }

  llvm::Expected<LinkInputs>
  linkInputs(const LoweringOptions &options) const override {
    llvm::Expected<std::string> archive =
        findRuntimeArchive(options.argv0, options.triple, "libonnxc_rt_dnnl.a",
                           ONNXC_RT_DNNL_ARCHIVE_BUILD_PATH, "");
    if (!archive)
      return archive.takeError();
    LinkInputs inputs;
    inputs.archives.push_back(*archive);
    inputs.sharedLibraries.push_back("dnnl");
    inputs.libraryDirs.push_back(ONNXC_DNNL_LIBRARY_DIR);
    return inputs;
  }

  std::vector<std::string> loadRequirements() const override {
    return {"libdnnl.so.2 (oneDNN 2.x)"};
  }
};

} // namespace

const Target &getDnnlTarget() {
  static DnnlTarget target;
  return target;
}

} // namespace onnxc::dnnl
