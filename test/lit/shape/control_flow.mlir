// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s | FileCheck %s

// If: both branches are inferred (they may use outer values); each output
// joins the branches' types.
// CHECK-LABEL: func.func @if_join
// CHECK-SAME: -> (tensor<2x?xf32>, tensor<2x3xf32>)
func.func @if_join(%c: tensor<i1>, %x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> (!onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.If"
  %0:2 = "onnx.If"(%c) ({
    // CHECK: "onnx.Relu"{{.*}} -> tensor<2x5xf32>
    %a = "onnx.Relu"(%y) : (tensor<2x5xf32>) -> !onnx.unknown
    %b = "onnx.Neg"(%x) : (tensor<2x3xf32>) -> !onnx.unknown
    // CHECK: onnx.Yield {{.*}} : tensor<2x5xf32>, tensor<2x3xf32>
    "onnx.Yield"(%a, %b) : (!onnx.unknown, !onnx.unknown) -> ()
  }, {
    %a = "onnx.Exp"(%x) : (tensor<2x3xf32>) -> !onnx.unknown
    "onnx.Yield"(%a, %x) : (!onnx.unknown, tensor<2x3xf32>) -> ()
  }) : (tensor<i1>) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: -> (tensor<2x?xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}

// -----

// Loop: the body's arguments get the iteration/condition types and the
// initial state types; a state whose shape changes across iterations is
// generalized. Scan outputs get a dynamic leading dim (or M when there is no
// condition).
// CHECK-LABEL: func.func @loop
func.func @loop(%x: tensor<4xf32>, %acc: tensor<1x4xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %m = "onnx.Constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Loop"
  %0:3 = "onnx.Loop"(%m, %n, %x, %acc) ({
  // CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<?x4xf32>):
  ^bb0(%i: !onnx.unknown, %cond: !onnx.unknown, %v: !onnx.unknown, %rows: !onnx.unknown):
    %v2 = "onnx.Add"(%v, %x) : (!onnx.unknown, tensor<4xf32>) -> !onnx.unknown
    %u = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %row = "onnx.Unsqueeze"(%v2, %u) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
    // CHECK: "onnx.Concat"{{.*}} -> tensor<?x4xf32>
    %rows2 = "onnx.Concat"(%rows, %row) <{axis = 0 : i64}> : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
    %s = "onnx.Sum"(%v2) : (!onnx.unknown) -> !onnx.unknown
    "onnx.Yield"(%cond, %v2, %rows2, %s) : (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) -> ()
  }) : (tensor<i64>, none, tensor<4xf32>, tensor<1x4xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  // CHECK: -> (tensor<4xf32>, tensor<?x4xf32>, tensor<5x4xf32>)
  return %0#0, %0#1, %0#2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// -----

// Scan: the body sees slices of the scan inputs; scan outputs stack along
// scan_output_axes.
// CHECK-LABEL: func.func @scan
func.func @scan(%init: tensor<3xf32>, %seq: tensor<3x7xf32>) -> (!onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Scan"
  %0:2 = "onnx.Scan"(%init, %seq) <{num_scan_inputs = 1 : i64, scan_input_axes = [1], scan_output_axes = [1]}> ({
  // CHECK: ^bb0(%{{.*}}: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
  ^bb0(%state: !onnx.unknown, %item: !onnx.unknown):
    %next = "onnx.Add"(%state, %item) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
    %out = "onnx.Mul"(%next, %item) : (!onnx.unknown, !onnx.unknown) -> !onnx.unknown
    "onnx.Yield"(%next, %out) : (!onnx.unknown, !onnx.unknown) -> ()
  }) : (tensor<3xf32>, tensor<3x7xf32>) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: -> (tensor<3xf32>, tensor<3x7xf32>)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @if_types(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xi64>) -> !onnx.unknown {
  // expected-error @+1 {{the branches yield different element types 'f32' and 'i64' for output #0}}
  %0 = "onnx.If"(%c) ({
    "onnx.Yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    "onnx.Yield"(%y) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

// An error inside a body fails the pass.
func.func @body_error(%c: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) -> !onnx.unknown {
  %0 = "onnx.If"(%c) ({
    // expected-error @+1 {{cannot broadcast input shapes}}
    %a = "onnx.Add"(%x, %y) : (tensor<2xf32>, tensor<3xf32>) -> !onnx.unknown
    "onnx.Yield"(%a) : (!onnx.unknown) -> ()
  }, {
    "onnx.Yield"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

// An If whose condition is known at compile time is replaced by the branch
// taken (then_branch is the second region); the other branch is never
// inferred, so it may be invalid for these inputs.
// CHECK-LABEL: func.func @if_known
// CHECK-SAME: -> tensor<2xf32>
// CHECK-NOT: onnx.If
// CHECK: %[[E:.+]] = "onnx.Exp"(%arg0) {{.*}} -> tensor<2xf32>
// CHECK-NOT: onnx.Add
// CHECK: return %[[E]]
func.func @if_known(%x: tensor<2xf32>, %y: tensor<3xf32>) -> !onnx.unknown {
  %four = "onnx.Constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %n = "onnx.Size"(%y) : (tensor<3xf32>) -> !onnx.unknown
  %c = "onnx.Equal"(%n, %four) : (!onnx.unknown, tensor<i64>) -> !onnx.unknown
  %0 = "onnx.If"(%c) ({
    %e = "onnx.Exp"(%x) : (tensor<2xf32>) -> !onnx.unknown
    "onnx.Yield"(%e) : (!onnx.unknown) -> ()
  }, {
    %a = "onnx.Add"(%x, %y) : (tensor<2xf32>, tensor<3xf32>) -> !onnx.unknown
    "onnx.Yield"(%a) : (!onnx.unknown) -> ()
  }) : (!onnx.unknown) -> !onnx.unknown
  return %0 : !onnx.unknown
}
