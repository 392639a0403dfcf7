// RUN: onnxc-opt --onnxc-fuse-attention --split-input-file %s | FileCheck %s

// The classic export: MatMul(Q, Transpose(K')), Div by sqrt(head size), mask
// Add, Softmax, MatMul V. K' is [B, L, N, H] transposed with perm [0, 2, 3, 1]
// into K^T, so K is K' transposed with perm [0, 2, 1, 3].
// CHECK-LABEL: func.func @div_mask
// CHECK: %[[K:.*]] = "onnx.Transpose"(%arg1) <{perm = [0, 2, 1, 3]}> : (tensor<?x5x2x8xf32>) -> tensor<?x2x5x8xf32>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}}, %{{.*}} = "onnx.Attention"(%arg0, %[[K]], %arg2, %arg3, %{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}scale = 2.500000e-01 : f32{{.*}}}> : (tensor<?x2x3x8xf32>, tensor<?x2x5x8xf32>, tensor<?x2x5x8xf32>, tensor<?x1x1x5xf32>, none, none, none) -> (tensor<?x2x3x8xf32>, none, none, none)
// CHECK-NOT: onnx.Softmax
// CHECK: return %[[Y]]
func.func @div_mask(%q: tensor<?x2x3x8xf32>, %kp: tensor<?x5x2x8xf32>, %v: tensor<?x2x5x8xf32>, %mask: tensor<?x1x1x5xf32>) -> tensor<?x2x3x8xf32> {
  %four = "onnx.Constant"() <{value = dense<4.0> : tensor<f32>}> : () -> tensor<f32>
  %kt = "onnx.Transpose"(%kp) <{perm = [0, 2, 3, 1]}> : (tensor<?x5x2x8xf32>) -> tensor<?x2x8x5xf32>
  %s = "onnx.MatMul"(%q, %kt) : (tensor<?x2x3x8xf32>, tensor<?x2x8x5xf32>) -> tensor<?x2x3x5xf32>
  %t = "onnx.Div"(%s, %four) : (tensor<?x2x3x5xf32>, tensor<f32>) -> tensor<?x2x3x5xf32>
  %m = "onnx.Add"(%t, %mask) : (tensor<?x2x3x5xf32>, tensor<?x1x1x5xf32>) -> tensor<?x2x3x5xf32>
  %p = "onnx.Softmax"(%m) <{axis = -1 : i64}> : (tensor<?x2x3x5xf32>) -> tensor<?x2x3x5xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<?x2x3x5xf32>, tensor<?x2x5x8xf32>) -> tensor<?x2x3x8xf32>
  return %y : tensor<?x2x3x8xf32>
}

// -----

// torch's scaled_dot_product_attention export: Q and K^T each scaled by
// 8^-1/4, a mask Add, and the NaN guard; K^T is a plain argument here, so K
// is its [0, 1, 3, 2] transpose.
// CHECK-LABEL: func.func @sdpa_guard
// CHECK: %[[K:.*]] = "onnx.Transpose"(%arg1) <{perm = [0, 1, 3, 2]}>
// CHECK: "onnx.Attention"(%arg0, %[[K]], %arg2, %arg3, %{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}scale = 0.353553{{[0-9]*}} : f32{{.*}}}>
// CHECK-NOT: onnx.IsNaN
func.func @sdpa_guard(%q: tensor<2x4x3x8xf32>, %kt: tensor<2x4x8x6xf32>, %v: tensor<2x4x6x8xf32>, %mask: tensor<2x1x3x6xf32>) -> tensor<2x4x3x8xf32> {
  %c = "onnx.Constant"() <{value = dense<0.594603539> : tensor<f32>}> : () -> tensor<f32>
  %zero = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %qs = "onnx.Mul"(%q, %c) : (tensor<2x4x3x8xf32>, tensor<f32>) -> tensor<2x4x3x8xf32>
  %ks = "onnx.Mul"(%kt, %c) : (tensor<2x4x8x6xf32>, tensor<f32>) -> tensor<2x4x8x6xf32>
  %s = "onnx.MatMul"(%qs, %ks) : (tensor<2x4x3x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x3x6xf32>
  %m = "onnx.Add"(%s, %mask) : (tensor<2x4x3x6xf32>, tensor<2x1x3x6xf32>) -> tensor<2x4x3x6xf32>
  %p = "onnx.Softmax"(%m) <{axis = -1 : i64}> : (tensor<2x4x3x6xf32>) -> tensor<2x4x3x6xf32>
  %nan = "onnx.IsNaN"(%p) : (tensor<2x4x3x6xf32>) -> tensor<2x4x3x6xi1>
  %g = "onnx.Where"(%nan, %zero, %p) : (tensor<2x4x3x6xi1>, tensor<f32>, tensor<2x4x3x6xf32>) -> tensor<2x4x3x6xf32>
  %y = "onnx.MatMul"(%g, %v) : (tensor<2x4x3x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x3x8xf32>
  return %y : tensor<2x4x3x8xf32>
}

// -----

// A MatMul scale fusion that ran first (FusedMatMul alpha), no mask, and
// K^T from a Transpose whose folded perm is the identity: K is used as is.
// CHECK-LABEL: func.func @fused_alpha
// CHECK-NOT: onnx.Transpose
// CHECK: "onnx.Attention"(%arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}scale = 5.000000e-01 : f32{{.*}}}>
func.func @fused_alpha(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %kt = "onnx.Transpose"(%k) <{perm = [0, 1, 3, 2]}> : (tensor<1x2x5x4xf32>) -> tensor<1x2x4x5xf32>
  %s = "onnxc.FusedMatMul"(%q, %kt, %none) <{alpha = 0.5 : f32}> : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>, none) -> tensor<1x2x3x5xf32>
  %p = "onnx.Softmax"(%s) <{axis = 3 : i64}> : (tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
  %y = "onnx.MatMul"(%p, %v) : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// Not attention: Softmax over another axis, probabilities used twice, 3-D
// inputs, a mask whose last dim broadcasts over the keys, dynamic heads.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnx.Attention
func.func @negative(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x5xf32>, %v: tensor<1x2x5x4xf32>, %q3: tensor<2x3x4xf32>, %kt3: tensor<2x4x5xf32>, %v3: tensor<2x5x4xf32>, %mask: tensor<1x1x3x1xf32>, %qd: tensor<1x?x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x?x3x4xf32>) {
  %s0 = "onnx.MatMul"(%q, %kt) : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x3x5xf32>
  %p0 = "onnx.Softmax"(%s0) <{axis = 2 : i64}> : (tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
  %y0 = "onnx.MatMul"(%p0, %v) : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  %s1 = "onnx.MatMul"(%q, %kt) : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x3x5xf32>
  %p1 = "onnx.Softmax"(%s1) : (tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
  %y1 = "onnx.MatMul"(%p1, %v) : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  %s2 = "onnx.MatMul"(%q3, %kt3) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %p2 = "onnx.Softmax"(%s2) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %y2 = "onnx.MatMul"(%p2, %v3) : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  %s3 = "onnx.MatMul"(%q, %kt) : (tensor<1x2x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x2x3x5xf32>
  %m3 = "onnx.Add"(%s3, %mask) : (tensor<1x2x3x5xf32>, tensor<1x1x3x1xf32>) -> tensor<1x2x3x5xf32>
  %p3 = "onnx.Softmax"(%m3) : (tensor<1x2x3x5xf32>) -> tensor<1x2x3x5xf32>
  %y3 = "onnx.MatMul"(%p3, %v) : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  %s4 = "onnx.MatMul"(%qd, %kt) : (tensor<1x?x3x4xf32>, tensor<1x2x4x5xf32>) -> tensor<1x?x3x5xf32>
  %p4 = "onnx.Softmax"(%s4) : (tensor<1x?x3x5xf32>) -> tensor<1x?x3x5xf32>
  %y4 = "onnx.MatMul"(%p4, %v) : (tensor<1x?x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x?x3x4xf32>
  return %y0, %y1, %p1, %y2, %y3, %y4 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x?x3x4xf32>
}
