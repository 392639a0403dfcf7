//===- CudaTarget.cpp - The cuda target: capability, device code, artifact ===//
//
// NVIDIA GPUs through MLIR's GPU path. The target claims f32 nodes whose
// lowering to linalg runs as kernels (elementwise chains, reductions,
// normalizations, convolutions, pooling, data movement with constant
// shapes) and the matrix products, which go to cuBLAS. Its partitions keep
// their values in device memory: each becomes a function of its own module
// (DevicePipeline.cpp) that takes host buffers, copies them to the device,
// launches the kernels and copies the results back. The kernels are
// compiled for --cuda-arch (a fatbin with the toolkit's ptxas when it is
// installed at compile time, else PTX the driver compiles at load) and
// embedded in the artifact. An artifact with cuda partitions links
// libonnxc_rt_cuda.a, which loads libcuda.so.1 (and libcublas) when it
// runs; one without links neither.
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/CudaTarget.h"
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/emit/Linker.h"
#include "runtime/RuntimePaths.h"
#include "targets/cuda/DevicePipeline.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"

using namespace mlir;

namespace onnxc::cuda {
namespace {

/// The nodes whose lowering the device pipeline maps to kernels (or
/// cuBLAS). Each was checked to lower without host reads of device data.
const llvm::StringSet<> &claimedOps() {
  static const llvm::StringSet<> ops = {
      // Elementwise.
      "onnx.Add", "onnx.Sub", "onnx.Mul", "onnx.Div", "onnx.Pow", "onnx.Neg",
      "onnx.Abs", "onnx.Relu", "onnx.LeakyRelu", "onnx.Sigmoid", "onnx.Tanh",
      "onnx.Exp", "onnx.Log", "onnx.Sqrt", "onnx.Reciprocal", "onnx.Erf",
      "onnx.Gelu", "onnx.Softplus", "onnx.Clip", "onnx.Max", "onnx.Min",
      "onnx.HardSigmoid", "onnx.HardSwish", "onnx.Elu", "onnx.Selu", "onnx.Sum",
      "onnx.Mean",
      // Reductions and normalizations.
      "onnx.Softmax", "onnx.LogSoftmax", "onnx.ReduceMean", "onnx.ReduceSum",
      "onnx.ReduceMax", "onnx.LayerNormalization", "onnx.BatchNormalization",
      "onnx.GlobalAveragePool",
      // Matrix products (cuBLAS) and convolutions, pooling.
      "onnx.MatMul", "onnx.Gemm", "onnxc.FusedGemm", "onnxc.FusedMatMul",
      "onnx.Conv", "onnxc.FusedConv", "onnx.MaxPool", "onnx.AveragePool",
      // Data movement.
      "onnx.Transpose", "onnx.Reshape", "onnx.Flatten", "onnx.Squeeze",
      "onnx.Unsqueeze", "onnx.Identity", "onnx.Concat", "onnx.Gather",
      // Transformer fusions.
      "onnx.Attention", "onnxc.SkipLayerNorm", "onnxc.BiasGelu"};
  return ops;
}

bool isF32Tensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool isIntegerTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && llvm::isa<IntegerType>(tensor.getElementType());
}

bool isConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && llvm::isa<onnx::ConstantOp, onnx::NoValueOp>(def);
}

class CudaTarget final : public Target {
public:
  llvm::StringRef name() const override { return "cuda"; }
  llvm::StringRef description() const override {
    return "NVIDIA GPUs: generated kernels (MLIR's GPU path -> PTX) and "
           "cuBLAS (f32)";
  }

  Claim claim(Operation *op) const override {
    std::string name = op->getName().getStringRef().str();
    if (!claimedOps().contains(name))
      return Claim::refuse("the cuda target does not lower '" +
                           op->getName().stripDialect().str() + "'");
    if (op->getNumRegions())
      return Claim::refuse("nodes with subgraphs stay on the host");
    for (Type type : op->getResultTypes())
      if (!isF32Tensor(type) && !llvm::isa<NoneType>(type))
        return Claim::refuse("the cuda target takes f32 tensors with a known "
                             "rank only");
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      if (isF32Tensor(operand.getType()) || isConstant(operand))
        continue;
      // Gather reads its indices in the kernel; the host reads the shapes
      // and axes of the reshapes (a partition keeps those in host memory).
      if (index == 1 && isIntegerTensor(operand.getType()) &&
          (name == "onnx.Gather" || name == "onnx.Reshape" ||
           name == "onnx.Unsqueeze" || name == "onnx.Squeeze"))
        continue;
      return Claim::refuse("input " + std::to_string(index) +
                           " is neither an f32 tensor, a constant, nor a "
                           "shape or indices");
    }
    return Claim::take();
  }

  MemorySpace memorySpace() const override { return MemorySpace::Device; }

  void buildPartitionPipeline(OpPassManager &,
                              const LoweringOptions &) const override {
    // Everything happens in lowerDeviceCode, on a module of its own.
  }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  lowerDeviceCode(ModuleOp module, llvm::LLVMContext &context,
                  const LoweringOptions &options) const override {
    return lowerCudaPartitions(module, context, options);
  }

  llvm::Error checkOptions(const LoweringOptions &options) const override {
    if (options.staticMemory)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--emit static cannot use it: device memory is allocated while "
          "the graph runs (compile without --targets cuda)");
    llvm::StringRef arch = options.targetOption("cuda-arch", kDefaultArch);
    if (!arch.starts_with("sm_"))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--cuda-arch '%s' is not of the form "
                                     "sm_XY (e.g. sm_90)",
                                     arch.str().c_str());
    llvm::StringRef math = options.targetOption("gpu-math", "fp32");
    if (math != "fp32" && math != "tf32")
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--gpu-math '%s' is not fp32 or tf32",
                                     math.str().c_str());
    return llvm::Error::success();
  }

  llvm::Expected<LinkInputs>
  linkInputs(const LoweringOptions &options) const override {
    llvm::Expected<std::string> archive =
        findRuntimeArchive(options.argv0, options.triple, "libonnxc_rt_cuda.a",
                           ONNXC_RT_CUDA_ARCHIVE_BUILD_PATH, "");
    if (!archive)
      return archive.takeError();
    LinkInputs inputs;
    inputs.archives.push_back(*archive);
    return inputs;
  }

  std::vector<std::string> loadRequirements() const override {
    return {"libcuda.so.1 (the NVIDIA driver) and a GPU that runs the "
            "compiled architecture; libcublas.so for matrix products"};
  }
};

} // namespace

const Target &getCudaTarget() {
  static CudaTarget target;
  return target;
}

} // namespace onnxc::cuda
