// RUN: not onnxc-opt --split-input-file --convert-onnx-to-linalg %s 2>&1 | FileCheck %s

// CHECK: error: loc("if"): the condition must be a one-element bool tensor
func.func @if_two_conditions(%c: tensor<2xi1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.If"(%c) ({
    "onnx.Yield"(%x) : (tensor<3xf32>) -> ()
  }, {
    "onnx.Yield"(%x) : (tensor<3xf32>) -> ()
  }) : (tensor<2xi1>) -> tensor<3xf32> loc("if")
  return %0 : tensor<3xf32>
}

// -----

// CHECK: error: loc("scan"): scan input axis 2 is out of range for rank 2
func.func @scan_bad_axis(%seq: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "onnx.Scan"(%seq) <{num_scan_inputs = 1 : i64, scan_input_axes = [2]}> ({
  ^bb0(%item: tensor<3xf32>):
    "onnx.Yield"(%item) : (tensor<3xf32>) -> ()
  }) : (tensor<4x3xf32>) -> tensor<4x3xf32> loc("scan")
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK: error: loc("loop"): M must be a one-element int64 tensor and cond a one-element bool tensor
func.func @loop_bad_trip_count(%m: tensor<2xi64>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Loop"(%m, %none, %v) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %s: tensor<3xf32>):
    "onnx.Yield"(%cond, %s) : (tensor<i1>, tensor<3xf32>) -> ()
  }) : (tensor<2xi64>, none, tensor<3xf32>) -> tensor<3xf32> loc("loop")
  return %0 : tensor<3xf32>
}
