// RUN: not onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg %s 2>&1 | FileCheck %s

// Attributes wrong at compile time are reported once, by the linalg
// lowering (the call pattern just does not match).
// CHECK: error: spatial dim 0 of the output is 5 but the attributes give 6
// CHECK-NOT: error: spatial dim 0
func.func @bad_output(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x5x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}
