// RUN: onnxc-opt --onnxc-eliminate-redundant-nodes -split-input-file %s | FileCheck %s

// Identity, inference Dropout (no training_mode, or a constant false one),
// a Cast to the type it has, and CastLike of the same type all go.
// CHECK-LABEL: func.func @forwarding
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = "onnx.Relu"(%[[X]])
// CHECK-NEXT: return %[[R]]
func.func @forwarding(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %i = "onnx.Identity"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %ratio = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %d, %mask = "onnx.Dropout"(%i, %ratio, %none) : (tensor<2x3xf32>, tensor<f32>, none) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  %false = "onnx.Constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
  %d2, %m2 = "onnx.Dropout"(%d, %none, %false) : (tensor<2x3xf32>, none, tensor<i1>) -> (tensor<2x3xf32>, none)
  %c = "onnx.Cast"(%d2) <{to = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %cl = "onnx.CastLike"(%c, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "onnx.Relu"(%cl) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Dropout that may train, or whose mask is used, stays; so does a Cast that
// changes the type.
// CHECK-LABEL: func.func @dropout_kept
// CHECK: "onnx.Dropout"(%arg0, %{{.*}}, %arg1)
// CHECK: "onnx.Dropout"
// CHECK: "onnx.Cast"
func.func @dropout_kept(%x: tensor<4xf32>, %training: tensor<i1>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf16>) {
  %none = "onnx.NoValue"() : () -> none
  %ratio = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %d, %m = "onnx.Dropout"(%x, %ratio, %training) : (tensor<4xf32>, tensor<f32>, tensor<i1>) -> (tensor<4xf32>, none)
  %d2, %m2 = "onnx.Dropout"(%d, %none, %none) : (tensor<4xf32>, none, none) -> (tensor<4xf32>, tensor<4xi1>)
  %c = "onnx.Cast"(%d2) <{to = 10 : i64}> : (tensor<4xf32>) -> tensor<4xf16>
  return %d2, %m2, %c : tensor<4xf32>, tensor<4xi1>, tensor<4xf16>
}

// -----

// A graph output that is an Identity of a graph input stays an op result, as
// does one that would become another output or a constant.
// CHECK-LABEL: func.func @interface
// CHECK-COUNT-3: "onnx.Identity"
// CHECK: return
func.func @interface(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %i = "onnx.Identity"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %r = "onnx.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %j = "onnx.Identity"(%r) : (tensor<2xf32>) -> tensor<2xf32>
  %c = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %k = "onnx.Identity"(%c) : (tensor<2xf32>) -> tensor<2xf32>
  return %i, %r, %j, %k : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// No-op Slice (all of each axis, step 1), Expand to the same shape, Reshape
// to the same shape, Transpose with the identity permutation.
// CHECK-LABEL: func.func @no_ops
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>
// CHECK-NEXT: "onnx.Relu"(%[[X]])
func.func @no_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %starts = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "onnx.Slice"(%x, %starts, %ends, %none, %none) : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<2x3xf32>
  %shape = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e = "onnx.Expand"(%s, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %r = "onnx.Reshape"(%e, %shape) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %t = "onnx.Transpose"(%r) <{perm = [0, 1]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "onnx.Relu"(%t) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Not no-ops: a Slice that reverses (step -1) keeps the shape but not the
// data; an Expand that broadcasts; a Reshape of a dynamic input; a real
// Transpose.
// CHECK-LABEL: func.func @not_no_ops
// CHECK: "onnx.Slice"
// CHECK: "onnx.Expand"
// CHECK: "onnx.Reshape"
// CHECK: "onnx.Transpose"
func.func @not_no_ops(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<?x3xf32>, tensor<3x2xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %starts = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<-9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
  %steps = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "onnx.Slice"(%x, %starts, %ends, %none, %steps) : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<2x3xf32>
  %shape = "onnx.Constant"() <{value = dense<[4, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %e = "onnx.Expand"(%x, %shape) : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
  %rs = "onnx.Constant"() <{value = dense<[-1, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%d, %rs) : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  %t = "onnx.Transpose"(%x) <{perm = [1, 0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %s, %e, %r, %t : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<?x3xf32>, tensor<3x2xf32>
}

// -----

// Transpose pairs: inverse permutations cancel; others compose into one
// Transpose when the inner one has no other user.
// CHECK-LABEL: func.func @transpose_pairs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK: %[[A:.*]] = "onnx.Relu"(%[[X]])
// CHECK: %[[B:.*]] = "onnx.Transpose"(%[[X]]) <{perm = [2, 0, 1]}>
// CHECK: return %[[A]], %[[B]]
func.func @transpose_pairs(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %t1 = "onnx.Transpose"(%x) <{perm = [1, 2, 0]}> : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %t2 = "onnx.Transpose"(%t1) <{perm = [2, 0, 1]}> : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %a = "onnx.Relu"(%t2) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %t3 = "onnx.Transpose"(%x) <{perm = [1, 0, 2]}> : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t4 = "onnx.Transpose"(%t3) <{perm = [2, 1, 0]}> : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %a, %t4 : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// A shared inner Transpose is not composed (nothing would be saved).
// CHECK-LABEL: func.func @transpose_shared
// CHECK: %[[T:.*]] = "onnx.Transpose"(%arg0) <{perm = [1, 0, 2]}>
// CHECK: "onnx.Transpose"(%[[T]]) <{perm = [2, 1, 0]}>
func.func @transpose_shared(%x: tensor<2x3x4xf32>) -> (tensor<3x2x4xf32>, tensor<4x2x3xf32>) {
  %t3 = "onnx.Transpose"(%x) <{perm = [1, 0, 2]}> : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t4 = "onnx.Transpose"(%t3) <{perm = [2, 1, 0]}> : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %t3, %t4 : tensor<3x2x4xf32>, tensor<4x2x3xf32>
}

// -----

// Squeeze(Unsqueeze(s, [1]), [1]) and Unsqueeze(Squeeze(y, [-1]), [2]) are
// their inputs; a pair on different axes, or with an op between, is not.
// CHECK-LABEL: func.func @squeeze_pairs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<2x3x1xf32>
// CHECK: %[[U:.*]] = "onnx.Unsqueeze"(%[[X]]
// CHECK: %[[R:.*]] = "onnx.Relu"(%[[U]])
// CHECK: %[[S:.*]] = "onnx.Squeeze"(%[[R]]
// CHECK-NOT: "onnx.Squeeze"(%[[Y]]
// CHECK: %[[RY:.*]] = "onnx.Relu"(%[[Y]])
// CHECK: %[[SX:.*]] = "onnx.Squeeze"
// CHECK: return %[[S]], %[[RY]], %[[SX]]
func.func @squeeze_pairs(%x: tensor<2x3xf32>, %y: tensor<2x3x1xf32>) -> (tensor<2x3xf32>, tensor<2x3x1xf32>, tensor<1x3xf32>) {
  %a1 = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u = "onnx.Unsqueeze"(%x, %a1) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  %r = "onnx.Relu"(%u) : (tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
  %s = "onnx.Squeeze"(%r, %a1) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %u1 = "onnx.Unsqueeze"(%s, %a1) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
  %s1 = "onnx.Squeeze"(%u1, %a1) : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %last = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %sy = "onnx.Squeeze"(%y, %last) : (tensor<2x3x1xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %uy = "onnx.Unsqueeze"(%sy, %two) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ry = "onnx.Relu"(%uy) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %ux = "onnx.Unsqueeze"(%x, %zero) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<1x2x3xf32>
  %sx = "onnx.Squeeze"(%ux, %a1) : (tensor<1x2x3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  return %s1, %ry, %sx : tensor<2x3xf32>, tensor<2x3x1xf32>, tensor<1x3xf32>
}

// -----

// Reshape(Reshape(x)) -> one Reshape; when the outer target copies a dim
// (0) of the intermediate, the static result shape replaces it. A shared
// inner Reshape stays.
// CHECK-LABEL: func.func @reshape_pairs
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK-DAG: %[[S1:.*]] = "onnx.Constant"() <{value = dense<[4, 6]> : tensor<2xi64>}>
// CHECK-DAG: %[[S2:.*]] = "onnx.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}>
// CHECK-DAG: "onnx.Reshape"(%[[X]], %[[S1]]) <{allowzero = 0 : i64}>
// CHECK-DAG: "onnx.Reshape"(%[[X]], %[[S2]])
// CHECK: "onnx.Reshape"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<6x4xf32>, tensor<1xi64>) -> tensor<24xf32>
func.func @reshape_pairs(%x: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>, tensor<24xf32>, tensor<6x4xf32>) {
  %s24 = "onnx.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s46 = "onnx.Constant"() <{value = dense<[4, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r1 = "onnx.Reshape"(%x, %s24) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %r2 = "onnx.Reshape"(%r1, %s46) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %s64 = "onnx.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %flat = "onnx.Constant"() <{value = dense<[24]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %r3 = "onnx.Reshape"(%x, %flat) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<24xf32>
  %r4 = "onnx.Reshape"(%r3, %s64) : (tensor<24xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %r5 = "onnx.Reshape"(%x, %s64) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %r6 = "onnx.Reshape"(%r5, %flat) : (tensor<6x4xf32>, tensor<1xi64>) -> tensor<24xf32>
  return %r2, %r4, %r6, %r5 : tensor<4x6xf32>, tensor<6x4xf32>, tensor<24xf32>, tensor<6x4xf32>
}

// -----

// Unsqueeze chains (as exporters write for attention masks) become one
// Unsqueeze with every inserted axis; a shared inner one stays.
// CHECK-LABEL: func.func @unsqueeze_chains
// CHECK-DAG: %[[A:.*]] = "onnx.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}>
// CHECK-DAG: "onnx.Unsqueeze"(%arg0, %[[A]]) : (tensor<?xi64>, tensor<3xi64>) -> tensor<?x1x1x1xi64>
// CHECK-DAG: "onnx.Unsqueeze"(%arg1, %[[B]]) : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
// CHECK: %[[S:.*]] = "onnx.Unsqueeze"(%arg1, %{{.*}}) : (tensor<3xf32>, tensor<1xi64>) -> tensor<3x1xf32>
// CHECK: "onnx.Unsqueeze"(%[[S]], %{{.*}}) : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<1x3x1xf32>
func.func @unsqueeze_chains(%m: tensor<?xi64>, %x: tensor<3xf32>) -> (tensor<?x1x1x1xi64>, tensor<1x3x1xf32>, tensor<3x1xf32>, tensor<1x3x1xf32>) {
  %a0 = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a1 = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a2 = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a3 = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %u1 = "onnx.Unsqueeze"(%m, %a1) : (tensor<?xi64>, tensor<1xi64>) -> tensor<?x1xi64>
  %u2 = "onnx.Unsqueeze"(%u1, %a2) : (tensor<?x1xi64>, tensor<1xi64>) -> tensor<?x1x1xi64>
  %u3 = "onnx.Unsqueeze"(%u2, %a3) : (tensor<?x1x1xi64>, tensor<1xi64>) -> tensor<?x1x1x1xi64>
  %v1 = "onnx.Unsqueeze"(%x, %a0) : (tensor<3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %v2 = "onnx.Unsqueeze"(%v1, %a2) : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1x3x1xf32>
  %w1 = "onnx.Unsqueeze"(%x, %a1) : (tensor<3xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %w2 = "onnx.Unsqueeze"(%w1, %a0) : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<1x3x1xf32>
  return %u3, %v2, %w1, %w2 : tensor<?x1x1x1xi64>, tensor<1x3x1xf32>, tensor<3x1xf32>, tensor<1x3x1xf32>
}
