// RUN: onnxc-opt --onnxc-cse -split-input-file %s | FileCheck %s

// Two identical MatMuls (different node names) and identical constants
// merge; ops that differ in an attribute or an operand do not.
// CHECK-LABEL: func.func @merge
// CHECK-COUNT-1: "onnx.Constant"
// CHECK-NOT: "onnx.Constant"
// CHECK: %[[M:.*]] = "onnx.MatMul"
// CHECK-NOT: "onnx.MatMul"
// CHECK: "onnx.Softmax"(%[[M]]) <{axis = 0 : i64}>
// CHECK: "onnx.Softmax"(%[[M]]) <{axis = 1 : i64}>
// CHECK: "onnx.Add"(%[[M]], %[[M]])
// CHECK: "onnx.Sub"(%[[M]], %arg0)
func.func @merge(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32> loc("w1")
  %w2 = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32> loc("w2")
  %a = "onnx.MatMul"(%x, %w1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc("mm_a")
  %b = "onnx.MatMul"(%x, %w2) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc("mm_b")
  %s0 = "onnx.Softmax"(%a) <{axis = 0 : i64}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s1 = "onnx.Softmax"(%b) <{axis = 1 : i64}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %sum = "onnx.Add"(%a, %b) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %diff = "onnx.Sub"(%b, %x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s0, %s1, %sum, %diff : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Random ops and training-mode Dropout give new values each time: kept.
// Inference Dropout is deterministic: merged.
// CHECK-LABEL: func.func @random
// CHECK-COUNT-2: "onnx.RandomNormal"
// CHECK-COUNT-2: "onnx.Dropout"(%arg0, %{{.*}}, %arg1)
// CHECK-COUNT-1: "onnx.Dropout"(%arg0, %{{.*}}, %{{.*}}) : (tensor<2xf32>, none, none)
// CHECK-NOT: "onnx.Dropout"
func.func @random(%x: tensor<2xf32>, %t: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %r1 = "onnx.RandomNormal"() <{shape = [2]}> : () -> tensor<2xf32>
  %r2 = "onnx.RandomNormal"() <{shape = [2]}> : () -> tensor<2xf32>
  %ratio = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %d1, %m1 = "onnx.Dropout"(%x, %ratio, %t) : (tensor<2xf32>, tensor<f32>, tensor<i1>) -> (tensor<2xf32>, none)
  %d2, %m2 = "onnx.Dropout"(%x, %ratio, %t) : (tensor<2xf32>, tensor<f32>, tensor<i1>) -> (tensor<2xf32>, none)
  %d3, %m3 = "onnx.Dropout"(%x, %none, %none) : (tensor<2xf32>, none, none) -> (tensor<2xf32>, none)
  %d4, %m4 = "onnx.Dropout"(%x, %none, %none) : (tensor<2xf32>, none, none) -> (tensor<2xf32>, none)
  %e3 = "onnx.Exp"(%d3) : (tensor<2xf32>) -> tensor<2xf32>
  %e4 = "onnx.Exp"(%d4) : (tensor<2xf32>) -> tensor<2xf32>
  return %r1, %r2, %d1, %d2, %e3, %e4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Inside an If branch an op equal to one of the enclosing graph is replaced
// by it; ops of one branch are not visible in the other or outside.
// CHECK-LABEL: func.func @regions
// CHECK: %[[N:.*]] = "onnx.Neg"(%arg1)
// CHECK: "onnx.If"
// CHECK-NEXT: %[[E:.*]] = "onnx.Exp"(%arg1)
// CHECK-NEXT: "onnx.Add"(%[[N]], %[[E]])
// CHECK: "onnx.Exp"(%arg1)
// CHECK: "onnx.Exp"(%arg1)
func.func @regions(%c: tensor<i1>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %n = "onnx.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %r = "onnx.If"(%c) ({
    %n2 = "onnx.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %e = "onnx.Exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %s = "onnx.Add"(%n2, %e) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%s) : (tensor<2xf32>) -> ()
  }, {
    %e = "onnx.Exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%e) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  %e = "onnx.Exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %sum = "onnx.Add"(%r, %e) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %sum, %n : tensor<2xf32>, tensor<2xf32>
}

// -----

// Two graph outputs never become one value.
// CHECK-LABEL: func.func @outputs
// CHECK-COUNT-2: "onnx.Relu"
func.func @outputs(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = "onnx.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = "onnx.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}
