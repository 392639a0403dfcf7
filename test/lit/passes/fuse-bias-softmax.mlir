// RUN: onnxc-opt --onnxc-fuse-bias-softmax --split-input-file %s | FileCheck %s

// BERT's additive mask [batch, 1, 1, seq] onto [batch, heads, seq, seq]
// scores, dynamic batch and sequence.
// CHECK-LABEL: func.func @bert_mask
// CHECK: %[[Y:.*]] = "onnxc.BiasSoftmax"(%arg0, %arg1) <{axis = -1 : i64}> : (tensor<?x2x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x2x?x?xf32>
// CHECK-NOT: onnx.Softmax
// CHECK: return %[[Y]]
func.func @bert_mask(%scores: tensor<?x2x?x?xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x2x?x?xf32> {
  %s = "onnx.Add"(%scores, %mask) : (tensor<?x2x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x2x?x?xf32>
  %y = "onnx.Softmax"(%s) <{axis = -1 : i64}> : (tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32>
  return %y : tensor<?x2x?x?xf32>
}

// -----

// The bias first, the axis as rank - 1.
// CHECK-LABEL: func.func @bias_first
// CHECK: "onnxc.BiasSoftmax"(%arg0, %arg1) <{axis = -1 : i64}> : (tensor<2x3x5xf32>, tensor<5xf32>)
func.func @bias_first(%x: tensor<2x3x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %s = "onnx.Add"(%b, %x) : (tensor<5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %y = "onnx.Softmax"(%s) <{axis = 2 : i64}> : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Must not fire: Softmax on another axis.
// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: onnxc.BiasSoftmax
func.func @other_axis(%x: tensor<2x3x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %s = "onnx.Add"(%x, %b) : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %y = "onnx.Softmax"(%s) <{axis = 1 : i64}> : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Must not fire: both operands broadcast (the sum is larger than either).
// CHECK-LABEL: func.func @both_broadcast
// CHECK-NOT: onnxc.BiasSoftmax
func.func @both_broadcast(%x: tensor<2x1x5xf32>, %b: tensor<1x3x5xf32>) -> tensor<2x3x5xf32> {
  %s = "onnx.Add"(%x, %b) : (tensor<2x1x5xf32>, tensor<1x3x5xf32>) -> tensor<2x3x5xf32>
  %y = "onnx.Softmax"(%s) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// -----

// Must not fire: the masked scores are used twice.
// CHECK-LABEL: func.func @sum_used_twice
// CHECK-NOT: onnxc.BiasSoftmax
func.func @sum_used_twice(%x: tensor<2x5xf32>, %b: tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %s = "onnx.Add"(%x, %b) : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %y = "onnx.Softmax"(%s) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y, %s : tensor<2x5xf32>, tensor<2x5xf32>
}
