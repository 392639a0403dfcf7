//===- ConvertOnnxToLinalg.cpp - The onnx -> linalg conversion pass -------===//
//
// Collects the pattern families of lowering/*.cpp and applies them as one
// partial conversion: every onnx op must be rewritten (onnx.NoValue, which
// only marks an omitted input, is left for dead-code elimination).
//
// Element types: ONNX's unsigned integers are `ui8..ui64` in the onnx dialect
// but arith only takes signless integers, so the type converter maps them to
// signless integers of the same width. Patterns whose semantics depend on
// signedness (Cast, Div, comparisons, Min/Max, ...) read the element type of
// the original op, not of the converted operands. float8 types have no
// arithmetic on the cpu target: they become i8 (their encodings), which only
// Cast/CastLike and the quantization ops interpret.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/Passes.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_CONVERTONNXTOLINALG
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Maps unsigned integer element types to signless ones and float8 types to
/// i8 (their encodings); everything else is kept as is.
class SignlessTypeConverter : public TypeConverter {
public:
  SignlessTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](IntegerType type) -> Type {
      if (type.isSignless())
        return type;
      return IntegerType::get(type.getContext(), type.getWidth());
    });
    addConversion([](FloatType type) -> Type {
      if (isFloat8(type))
        return IntegerType::get(type.getContext(), 8);
      return type;
    });
    addConversion([this](RankedTensorType type) -> Type {
      return RankedTensorType::get(type.getShape(),
                                   convertType(type.getElementType()));
    });
    auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                          Location loc) -> Value {
      return builder.create<UnrealizedConversionCastOp>(loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(materialize);
    addTargetMaterialization(materialize);
    addArgumentMaterialization(materialize);
  }
};

struct ConvertOnnxToLinalgPass
    : impl::ConvertOnnxToLinalgBase<ConvertOnnxToLinalgPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    // A declaration (e.g. a runtime function a test calls) has nothing to
    // lower and no arguments to mark.
    if (func.isExternal())
      return;

    // Every onnx value must have a ranked (or at least known) type by now.
    WalkResult typed = func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (llvm::isa<onnx::UnknownType>(t)) {
          op->emitError("the type of this node's output is unknown; shape "
                        "inference could not determine it");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (typed.wasInterrupted())
      return signalPassFailure();

    SignlessTypeConverter typeConverter;
    RewritePatternSet patterns(ctx);
    populateAllLoweringPatterns(typeConverter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(
        patterns, typeConverter);
    populateReturnOpTypeConversionPattern(patterns, typeConverter);

    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect,
                           bufferization::BufferizationDialect>();
    target.addIllegalDialect<onnx::ONNXDialect>();
    // The graph optimizer's fused ops (compiler/dialect/onnxc) too.
    target.addIllegalDialect("onnxc");
    target.addLegalOp<onnx::NoValueOp, UnrealizedConversionCastOp>();
    // Calls into the runtime (lowering/RuntimeHelpers.h) and the buffers
    // they fill.
    target.addLegalDialect<memref::MemRefDialect>();
    target.addLegalOp<func::CallOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return typeConverter.isSignatureLegal(op.getFunctionType());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return typeConverter.isLegal(op); });

    // The conversion stops at the first op no pattern could lower and
    // reports it as "failed to legalize operation ..."; say the same in the
    // CLI's words, at that op's location (its node name).
    std::optional<Location> failedAt;
    std::string failedOp;
    LogicalResult converted = success();
    {
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
        std::string text = diag.str();
        if (!failedAt &&
            llvm::StringRef(text).starts_with("failed to legalize operation")) {
          failedAt = diag.getLocation();
          failedOp = text;
          return success(); // replaced by the error below
        }
        return failure(); // pass everything else on
      });
      converted = applyPartialConversion(func, target, std::move(patterns));
    }
    if (failed(converted)) {
      if (failedAt) {
        llvm::StringRef name = llvm::StringRef(failedOp).split('\'').second;
        name = name.split('\'').first;
        emitError(*failedAt)
            << "the cpu target cannot lower this '"
            << name.drop_front(std::min<size_t>(name.size(), 5))
            << "' node (unsupported operator, attribute, or input type)";
      }
      return signalPassFailure();
    }

    // The caller owns the input buffers (onnxc_tensor.data is const to the
    // model): bufferization must never write into them in place.
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (llvm::isa<TensorType>(func.getArgument(i).getType()))
        func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(ctx, false));
  }
};

} // namespace

std::unique_ptr<Pass> createConvertOnnxToLinalgPass() {
  return std::make_unique<ConvertOnnxToLinalgPass>();
}

} // namespace onnxc::cpu
