// RUN: not onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s
// RUN: not onnxc-opt --convert-onnx-to-linalg %s 2>&1 | FileCheck %s --check-prefix=UNDECLARED

// CHECK: error: loc("nms"): center_point_box must be 0 or 1, got 2
func.func @bad_center(%boxes: tensor<1x5x4xf32>, %scores: tensor<1x1x5xf32>) -> tensor<?x3xi64> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %none, %none, %none) <{center_point_box = 2 : i64}> : (tensor<1x5x4xf32>, tensor<1x1x5xf32>, none, none, none) -> tensor<?x3xi64> loc("nms")
  return %0 : tensor<?x3xi64>
}

// -----

// CHECK: error: loc("nms_shapes"): boxes 'tensor<1x5x4xf32>' and scores 'tensor<1x1x6xf32>' must be [B, N, 4] and [B, C, N]
func.func @bad_shapes(%boxes: tensor<1x5x4xf32>, %scores: tensor<1x1x6xf32>) -> tensor<?x3xi64> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %none, %none, %none) : (tensor<1x5x4xf32>, tensor<1x1x6xf32>, none, none, none) -> tensor<?x3xi64> loc("nms_shapes")
  return %0 : tensor<?x3xi64>
}

// -----

// CHECK: error: loc("unique"): axis 2 is out of range for a rank-2 input
// UNDECLARED: error: loc("nms"): the runtime helper for this node is not declared
func.func @bad_axis(%x: tensor<3x4xf32>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>) {
  %0:4 = "onnx.Unique"(%x) <{axis = 2 : i64}> : (tensor<3x4xf32>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>) loc("unique")
  return %0#0, %0#1, %0#2, %0#3 : tensor<3x?xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>
}

// -----

// CHECK: error: loc("roi"): mode must be avg or max, got 'sum'
func.func @bad_roi_mode(%x: tensor<1x2x6x6xf32>, %rois: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x1x1xf32> {
  %0 = "onnx.RoiAlign"(%x, %rois, %b) <{mode = "sum"}> : (tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x1x1xf32> loc("roi")
  return %0 : tensor<3x2x1x1xf32>
}
