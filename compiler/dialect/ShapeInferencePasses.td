//===- ShapeInferencePasses.td - Shape inference pass ------*- tablegen -*-===//

#ifndef ONNXC_DIALECT_SHAPEINFERENCEPASSES_TD
#define ONNXC_DIALECT_SHAPEINFERENCEPASSES_TD

include "mlir/Pass/PassBase.td"

def OnnxShapeInference : Pass<"onnx-shape-inference", "mlir::func::FuncOp"> {
  let summary = "Infer element types and (static or dynamic) shapes of onnx ops";
  let description = [{
    Walks a function in order and gives every onnx op result the most refined
    ranked tensor type its operands (and constant operand values, such as a
    Reshape's target shape) imply, replacing `!onnx.unknown`. Updates the
    function's result types to match. Fails, naming the node, when an op's
    inputs violate its ONNX shape rule.
  }];
  let constructor = "onnxc::createShapeInferencePass()";
  let dependentDialects = ["onnxc::onnx::ONNXDialect"];
}

#endif
