// STUB: replaced by the shape inference work.
#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/ShapeInference.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
namespace onnxc {
#define GEN_PASS_DEF_ONNXSHAPEINFERENCE
#include "compiler/dialect/ShapeInferencePasses.h.inc"
namespace {
struct ShapeInferencePass
    : impl::OnnxShapeInferenceBase<ShapeInferencePass> {
  void runOnOperation() override {}
};
} // namespace
std::unique_ptr<mlir::Pass> createShapeInferencePass() {
  return std::make_unique<ShapeInferencePass>();
}
mlir::LogicalResult inferShapes(mlir::Operation *) { return mlir::success(); }
namespace {
#define GEN_PASS_REGISTRATION
#include "compiler/dialect/ShapeInferencePasses.h.inc"
} // namespace
void registerShapeInferencePasses() { registerOnnxcShapeInferencePasses(); }
} // namespace onnxc
