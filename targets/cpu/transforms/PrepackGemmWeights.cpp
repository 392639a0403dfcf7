//===- PrepackGemmWeights.cpp - Pack constant GEMM weights at compile time ===//
//
// The runtime GEMM multiplies B in NR-wide panels (runtime/cpu/kernels/
// GemmPackedLayout.h). For a constant B it would pack the weight on the
// artifact's first run (a copy the size of the weight, into fresh pages)
// and keep the copy; an ahead-of-time compiler can do that once, here, for
// the ISA the artifact targets. This pass matches f32 onnx.MatMul,
// onnx.Gemm, onnxc.FusedMatMul and onnxc.FusedGemm whose B is a 2-D
// constant used by nothing else, packs op(B) into a new constant global
// and marks the op (kPrepackedBAttr, kPrepackedIsaAttr); the GEMM lowering
// (lowering/GemmCall.cpp) then passes that global instead of B, and the
// original weight, left without users, is not emitted. The artifact holds
// one copy of the weight, as before, in the layout the kernel reads.
//
// It is legal because the packed global holds exactly op(B)'s values (plus
// zero padding the kernel multiplies by nothing that reaches C), and the
// runtime checks the layout against the CPU it runs on: on another CPU it
// repacks once from this copy (onnxc_sgemm_prepacked). Left alone: a weight
// with other users (it would then be emitted twice: GPT-2's tied embedding
// is also a Gather table), and products that may have 4 rows or fewer
// (a dynamic dim of A counts as 1), which the runtime multiplies without
// packing B at all.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/transforms/WeightGlobals.h"

#include "runtime/cpu/kernels/GemmPackedLayout.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

#include <vector>

namespace onnxc::cpu {
#define GEN_PASS_DECL_PREPACKGEMMWEIGHTS
#define GEN_PASS_DEF_PREPACKGEMMWEIGHTS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The runtime multiplies products of up to this many rows without packing
/// B, reading it as it is (runtime/cpu/kernels/GemmKernels.h,
/// ONNXC_SGEMM_SMALL_M_N); from 5 rows on, a packed B is faster.
constexpr int64_t kUnpackedRows = 4;

/// Whether `op` takes its B transposed ([N, K]).
bool transposesB(Operation *op) {
  auto transB = op->getAttrOfType<IntegerAttr>("transB");
  return transB && transB.getInt() != 0;
}

/// The fewest rows the product `op` can compute (the rows of op(A) times
/// its batch dims, a dynamic dim counted as 1), or nullopt for an A that
/// is not a ranked tensor of the expected rank.
std::optional<int64_t> fewestProductRows(Operation *op) {
  auto a = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!a || a.getRank() == 0)
    return std::nullopt;
  auto atLeastOne = [](int64_t size) {
    return ShapedType::isDynamic(size) ? 1 : size;
  };
  StringRef name = op->getName().getStringRef();
  if (name == "onnx.Gemm" || name == "onnxc.FusedGemm") {
    if (a.getRank() != 2)
      return std::nullopt;
    auto transA = op->getAttrOfType<IntegerAttr>("transA");
    return atLeastOne(a.getDimSize(transA && transA.getInt() ? 1 : 0));
  }
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < a.getRank(); ++d)
    rows *= atLeastOne(a.getDimSize(d));
  return rows;
}

struct PrepackGemmWeights : impl::PrepackGemmWeightsBase<PrepackGemmWeights> {
  using PrepackGemmWeightsBase::PrepackGemmWeightsBase;

  void runOnOperation() override {
    onnxc_sgemm_b_layout layout;
    if (!onnxc_sgemm_b_layout_for_isa(isa, &layout))
      return; // no layout known for the target: the runtime packs
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    module.walk([&](Operation *op) {
      if (!isF32GemmOp(op))
        return;
      Value b = op->getOperand(1);
      auto bType = llvm::dyn_cast<RankedTensorType>(b.getType());
      if (!bType || !bType.getElementType().isF32() || bType.getRank() != 2 ||
          !bType.hasStaticShape() || !b.hasOneUse())
        return;
      std::optional<int64_t> rows = fewestProductRows(op);
      if (!rows || *rows <= kUnpackedRows)
        return;
      DenseElementsAttr value = constantValue(b);
      if (!value)
        return;
      bool transB = transposesB(op);
      auto k = static_cast<size_t>(bType.getDimSize(transB ? 1 : 0));
      auto n = static_cast<size_t>(bType.getDimSize(transB ? 0 : 1));
      if (k == 0 || n == 0)
        return;
      std::vector<float> plain = floatValues(value);
      std::vector<float> packed(onnxc_sgemm_packed_b_floats(&layout, n, k));
      onnxc_sgemm_pack_b_layout(
          &layout, plain.data(), n, k, transB ? 1 : static_cast<ptrdiff_t>(n),
          transB ? static_cast<ptrdiff_t>(k) : 1, packed.data());

      FlatSymbolRefAttr global = createWeightGlobal(
          builder, symbols, op->getLoc(), "onnxc_prepacked_b", packed);
      op->setAttr(kPrepackedBAttr, global);
      op->setAttr(kPrepackedIsaAttr, builder.getI32IntegerAttr(isa));
    });
  }
};

} // namespace

std::unique_ptr<Pass> createPrepackGemmWeightsPass(int32_t isa) {
  PrepackGemmWeightsOptions options;
  options.isa = isa;
  return createPrepackGemmWeights(options);
}

} // namespace onnxc::cpu
