// RUN: onnxc-opt --onnxc-fuse-layernorm --split-input-file %s | FileCheck %s

// The PyTorch form over the last axis, with Pow(d, 2), gamma and beta.
// CHECK-LABEL: func.func @torch_form
// CHECK-DAG: %[[G:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<8xf32>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<8xf32>}>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%arg0, %[[G]], %[[B]]) <{axis = 2 : i64, epsilon = 9.99999974E-6 : f32, stash_type = 1 : i64}> : (tensor<?x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x3x8xf32>, none, none)
// CHECK-NOT: onnx.ReduceMean
// CHECK: return %[[Y]]
func.func @torch_form(%x: tensor<?x3x8xf32>) -> tensor<?x3x8xf32> {
  %axes = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %beta = "onnx.Constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<?x3x8xf32>, tensor<1xi64>) -> tensor<?x3x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<?x3x8xf32>, tensor<?x3x1xf32>) -> tensor<?x3x8xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<?x3x8xf32>, tensor<f32>) -> tensor<?x3x8xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<?x3x8xf32>, tensor<1xi64>) -> tensor<?x3x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<?x3x1xf32>, tensor<f32>) -> tensor<?x3x1xf32>
  %std = "onnx.Sqrt"(%ve) : (tensor<?x3x1xf32>) -> tensor<?x3x1xf32>
  %n = "onnx.Div"(%d, %std) : (tensor<?x3x8xf32>, tensor<?x3x1xf32>) -> tensor<?x3x8xf32>
  %y = "onnx.Mul"(%n, %gamma) : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32>
  %z = "onnx.Add"(%y, %beta) : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32>
  return %z : tensor<?x3x8xf32>
}

// -----

// Over the last two axes, Mul(d, d), Mul by Reciprocal, no gamma or beta:
// Scale becomes a constant 1 and B is omitted.
// CHECK-LABEL: func.func @tf_form
// CHECK: %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1xf32>}>
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = "onnx.LayerNormalization"(%arg0, %[[ONE]], %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-03 : f32, stash_type = 1 : i64}> : (tensor<2x4x6xf32>, tensor<1xf32>, none)
// CHECK: return %[[Y]]
func.func @tf_form(%x: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %axes = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %eps = "onnx.Constant"() <{value = dense<1.0e-3> : tensor<f32>}> : () -> tensor<f32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x4x6xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x4x6xf32>, tensor<2x1x1xf32>) -> tensor<2x4x6xf32>
  %sq = "onnx.Mul"(%d, %d) : (tensor<2x4x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x4x6xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %ve = "onnx.Add"(%eps, %var) : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %std = "onnx.Sqrt"(%ve) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %r = "onnx.Reciprocal"(%std) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n = "onnx.Mul"(%d, %r) : (tensor<2x4x6xf32>, tensor<2x1x1xf32>) -> tensor<2x4x6xf32>
  return %n : tensor<2x4x6xf32>
}

// -----

// Not layer norm: the two means over different axes, a mean over a leading
// axis, a non-constant epsilon, x - mean used a third time.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnx.LayerNormalization
func.func @negative(%x: tensor<2x4x6xf32>, %e: tensor<f32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %last = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %mid = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  // different axes
  %m0 = "onnx.ReduceMean"(%x, %last) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %d0 = "onnx.Sub"(%x, %m0) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %s0 = "onnx.Pow"(%d0, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %v0 = "onnx.ReduceMean"(%s0, %mid) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x1x6xf32>
  %e0 = "onnx.Add"(%v0, %eps) : (tensor<2x1x6xf32>, tensor<f32>) -> tensor<2x1x6xf32>
  %q0 = "onnx.Sqrt"(%e0) : (tensor<2x1x6xf32>) -> tensor<2x1x6xf32>
  %n0 = "onnx.Div"(%d0, %q0) : (tensor<2x4x6xf32>, tensor<2x1x6xf32>) -> tensor<2x4x6xf32>
  // a leading axis
  %m1 = "onnx.ReduceMean"(%x, %mid) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x1x6xf32>
  %d1 = "onnx.Sub"(%x, %m1) : (tensor<2x4x6xf32>, tensor<2x1x6xf32>) -> tensor<2x4x6xf32>
  %s1 = "onnx.Pow"(%d1, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %v1 = "onnx.ReduceMean"(%s1, %mid) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x1x6xf32>
  %e1 = "onnx.Add"(%v1, %eps) : (tensor<2x1x6xf32>, tensor<f32>) -> tensor<2x1x6xf32>
  %q1 = "onnx.Sqrt"(%e1) : (tensor<2x1x6xf32>) -> tensor<2x1x6xf32>
  %n1 = "onnx.Div"(%d1, %q1) : (tensor<2x4x6xf32>, tensor<2x1x6xf32>) -> tensor<2x4x6xf32>
  // a non-constant epsilon
  %m2 = "onnx.ReduceMean"(%x, %last) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %d2 = "onnx.Sub"(%x, %m2) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %s2 = "onnx.Pow"(%d2, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %v2 = "onnx.ReduceMean"(%s2, %last) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %e2 = "onnx.Add"(%v2, %e) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %q2 = "onnx.Sqrt"(%e2) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %n2 = "onnx.Div"(%d2, %q2) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  // x - mean used again
  %m3 = "onnx.ReduceMean"(%x, %last) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %d3 = "onnx.Sub"(%x, %m3) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %s3 = "onnx.Pow"(%d3, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %v3 = "onnx.ReduceMean"(%s3, %last) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %e3 = "onnx.Add"(%v3, %eps) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %q3 = "onnx.Sqrt"(%e3) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %n3 = "onnx.Div"(%d3, %q3) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  return %n0, %n1, %n2, %n3, %d3 : tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>
}

// -----

// A gamma that broadcasts over a non-normalized axis is not folded into
// LayerNormalization's Scale (the Mul stays).
// CHECK-LABEL: func.func @gamma_over_leading_axis
// CHECK: "onnx.LayerNormalization"
// CHECK: onnx.Mul
func.func @gamma_over_leading_axis(%x: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %axes = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<4x6xf32>}> : () -> tensor<4x6xf32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %ve = "onnx.Add"(%var, %eps) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %std = "onnx.Sqrt"(%ve) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %n = "onnx.Div"(%d, %std) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %y = "onnx.Mul"(%n, %gamma) : (tensor<2x4x6xf32>, tensor<4x6xf32>) -> tensor<2x4x6xf32>
  return %y : tensor<2x4x6xf32>
}

// -----

// Epsilon added outside the square root is a different normalization.
// CHECK-LABEL: func.func @epsilon_outside_sqrt
// CHECK-NOT: onnx.LayerNormalization
func.func @epsilon_outside_sqrt(%x: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %axes = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
  %mean = "onnx.ReduceMean"(%x, %axes) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %d = "onnx.Sub"(%x, %mean) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %sq = "onnx.Pow"(%d, %two) : (tensor<2x4x6xf32>, tensor<f32>) -> tensor<2x4x6xf32>
  %var = "onnx.ReduceMean"(%sq, %axes) : (tensor<2x4x6xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %std = "onnx.Sqrt"(%var) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %se = "onnx.Add"(%std, %eps) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %n = "onnx.Div"(%d, %se) : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  return %n : tensor<2x4x6xf32>
}
