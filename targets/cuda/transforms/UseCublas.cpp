//===- UseCublas.cpp - linalg matrix products -> cuBLAS calls -------------===//
//
// Matches the named matrix products the cpu lowerings emit (matmul, its
// transposed forms, batch_matmul) on f32 tensors and replaces each by a
// call of onnxc_cuda_matmul_f32, which runs cuBLAS's SGEMM on the device
// buffers: C = op(A) x op(B). A product whose accumulator is not a zero
// fill (a Gemm's bias broadcast into it) adds the accumulator afterwards in
// an elementwise op, which fuses with nothing but is one cheap kernel.
// Legal because the call computes the same sums; cuBLAS fixes its own
// summation order, which ONNX leaves open.
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace onnxc::cuda {
namespace {

struct Product {
  bool transA = false;
  bool transB = false;
};

std::optional<Product> productKind(Operation *op) {
  if (llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return Product{};
  if (llvm::isa<linalg::MatmulTransposeAOp, linalg::BatchMatmulTransposeAOp>(
          op))
    return Product{true, false};
  if (llvm::isa<linalg::MatmulTransposeBOp, linalg::BatchMatmulTransposeBOp>(
          op))
    return Product{false, true};
  return std::nullopt;
}

bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

bool isF32Tensor(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.getElementType().isF32();
}

func::FuncOp declareMatMul(ModuleOp module) {
  if (auto func = module.lookupSymbol<func::FuncOp>(kMatMulCallee))
    return func;
  MLIRContext *ctx = module.getContext();
  Type unranked = UnrankedMemRefType::get(Float32Type::get(ctx), 0);
  Type i64 = IntegerType::get(ctx, 64);
  auto type = FunctionType::get(
      ctx, {unranked, unranked, unranked, i64, i64, Float32Type::get(ctx)},
      {IntegerType::get(ctx, 32)});
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = b.create<func::FuncOp>(module.getLoc(), kMatMulCallee, type);
  func.setPrivate();
  return func;
}

/// A ranked tensor as a read-only memref<*xf32> argument.
Value argument(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  Value memref = b.create<bufferization::ToMemrefOp>(
      loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      b.getUnitAttr());
  return b.create<memref::CastOp>(
      loc, UnrankedMemRefType::get(type.getElementType(), 0), memref);
}

/// `product + accumulator`, elementwise, into the accumulator.
Value addAccumulator(OpBuilder &b, Location loc, Value product,
                     Value accumulator) {
  auto type = llvm::cast<RankedTensorType>(product.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, type, ValueRange{product}, ValueRange{accumulator},
          SmallVector<AffineMap>{identity, identity}, parallel,
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            Value sum = nb.create<arith::AddFOp>(nloc, args[0], args[1]);
            nb.create<linalg::YieldOp>(nloc, sum);
          })
      .getResult(0);
}

void replaceByCall(linalg::LinalgOp op, Product kind, func::FuncOp callee) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value init = op.getDpsInits()[0];
  auto resultType = llvm::cast<RankedTensorType>(init.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
    if (resultType.isDynamicDim(dim))
      dynamicSizes.push_back(b.create<tensor::DimOp>(loc, init, dim));
  auto bufferType =
      MemRefType::get(resultType.getShape(), resultType.getElementType());
  Value buffer = b.create<memref::AllocOp>(loc, bufferType, dynamicSizes,
                                           b.getI64IntegerAttr(64));
  Value out = b.create<memref::CastOp>(
      loc, UnrankedMemRefType::get(resultType.getElementType(), 0), buffer);
  Value a = argument(b, loc, op.getDpsInputs()[0]);
  Value bm = argument(b, loc, op.getDpsInputs()[1]);
  Value transA = b.create<arith::ConstantIntOp>(loc, kind.transA, 64);
  Value transB = b.create<arith::ConstantIntOp>(loc, kind.transB, 64);
  Value alpha = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1.0f));
  // Failures are recorded by the runtime and fail the run.
  b.create<func::CallOp>(loc, callee,
                         ValueRange{a, bm, out, transA, transB, alpha});
  Value result = b.create<bufferization::ToTensorOp>(
      loc, resultType, buffer, /*restrict=*/true, /*writable=*/true);
  if (!isZeroFill(init))
    result = addAccumulator(b, loc, result, init);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct UseCublasPass : PassWrapper<UseCublasPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UseCublasPass)

  StringRef getArgument() const final { return "onnxc-cuda-use-cublas"; }
  StringRef getDescription() const final {
    return "Replace f32 linalg matrix products by cuBLAS calls";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    func::FuncDialect, memref::MemRefDialect,
                    tensor::TensorDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, Product>> products;
    module.walk([&](linalg::LinalgOp op) {
      std::optional<Product> kind = productKind(op);
      if (kind && op.hasPureTensorSemantics() &&
          llvm::all_of(op->getOperands(), isF32Tensor))
        products.push_back({op, *kind});
    });
    if (products.empty())
      return;
    func::FuncOp callee = declareMatMul(module);
    for (auto [op, kind] : products)
      replaceByCall(op, kind, callee);
  }
};

} // namespace

std::unique_ptr<Pass> createUseCublasPass() {
  return std::make_unique<UseCublasPass>();
}

} // namespace onnxc::cuda
