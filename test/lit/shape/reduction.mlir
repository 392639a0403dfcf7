// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<2x?x4x5xf32>, %dyn_axes: tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %axes = "onnx.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %empty = "onnx.Constant"() <{value = dense<> : tensor<0xi64>}> : () -> tensor<0xi64>
  // CHECK: "onnx.ReduceSum"{{.*}} -> tensor<2x1x4x1xf32>
  %0 = "onnx.ReduceSum"(%x, %axes) : (tensor<2x?x4x5xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.ReduceMean"{{.*}} -> tensor<2x4xf32>
  %1 = "onnx.ReduceMean"(%x, %axes) <{keepdims = 0 : i64}> : (tensor<2x?x4x5xf32>, tensor<2xi64>) -> !onnx.unknown
  // No axes: reduce everything.
  // CHECK: "onnx.ReduceMax"{{.*}} -> tensor<1x1x1x1xf32>
  %2 = "onnx.ReduceMax"(%x, %n) : (tensor<2x?x4x5xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.ReduceL2"{{.*}} -> tensor<f32>
  %3 = "onnx.ReduceL2"(%x, %empty) <{keepdims = 0 : i64}> : (tensor<2x?x4x5xf32>, tensor<0xi64>) -> !onnx.unknown
  // noop_with_empty_axes: the identity.
  // CHECK: "onnx.ReduceLogSumExp"{{.*}} -> tensor<2x?x4x5xf32>
  %4 = "onnx.ReduceLogSumExp"(%x, %empty) <{noop_with_empty_axes = 1 : i64}> : (tensor<2x?x4x5xf32>, tensor<0xi64>) -> !onnx.unknown
  // Axes only known at run time: rank known, dims not.
  // CHECK: "onnx.ReduceProd"{{.*}} -> tensor<?x?x?x?xf32>
  %5 = "onnx.ReduceProd"(%x, %dyn_axes) : (tensor<2x?x4x5xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.ReduceSumSquare"{{.*}} -> tensor<?x?xf32>
  %6 = "onnx.ReduceSumSquare"(%x, %dyn_axes) <{keepdims = 0 : i64}> : (tensor<2x?x4x5xf32>, tensor<2xi64>) -> !onnx.unknown
  // Axes computed by a shape expression.
  %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %axes2 = "onnx.Add"(%axes, %two) : (tensor<2xi64>, tensor<1xi64>) -> !onnx.unknown
  %one = "onnx.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // axes = [1, -1] + 2 - [1, 0] = [2, 1]
  %axes3 = "onnx.Sub"(%axes2, %one) : (!onnx.unknown, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.ReduceMin"{{.*}} -> tensor<2x5xf32>
  %7 = "onnx.ReduceMin"(%x, %axes3) <{keepdims = 0 : i64}> : (tensor<2x?x4x5xf32>, !onnx.unknown) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6, %7 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @arg_topk
func.func @arg_topk(%x: tensor<3x?x7xf32>, %k: tensor<1xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %three = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.ArgMax"{{.*}} -> tensor<3x?x1xi64>
  %0 = "onnx.ArgMax"(%x) <{axis = -1 : i64}> : (tensor<3x?x7xf32>) -> !onnx.unknown
  // CHECK: "onnx.ArgMin"{{.*}} -> tensor<?x7xi64>
  %1 = "onnx.ArgMin"(%x) <{keepdims = 0 : i64}> : (tensor<3x?x7xf32>) -> !onnx.unknown
  // CHECK: "onnx.TopK"{{.*}} -> (tensor<3x?x3xf32>, tensor<3x?x3xi64>)
  %2:2 = "onnx.TopK"(%x, %three) : (tensor<3x?x7xf32>, tensor<1xi64>) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.TopK"{{.*}} -> (tensor<?x?x7xf32>, tensor<?x?x7xi64>)
  %3:2 = "onnx.TopK"(%x, %k) <{axis = 0 : i64}> : (tensor<3x?x7xf32>, tensor<1xi64>) -> (!onnx.unknown, !onnx.unknown)
  return %0, %1, %2#0, %2#1, %3#0 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}
