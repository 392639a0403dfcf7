// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<2x3x4xf32>, %d: tensor<?x3x4xf32>, %s: tensor<3xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %a = "onnx.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = "onnx.Constant"() <{value = dense<[0, 0, 2, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %c = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<4x6xf32>
  %0 = "onnx.Reshape"(%x, %a) : (tensor<2x3x4xf32>, tensor<2xi64>) -> !onnx.unknown
  // 0 copies the input dim, also a dynamic one.
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x3x2x2xf32>
  %1 = "onnx.Reshape"(%d, %b) : (tensor<?x3x4xf32>, tensor<4xi64>) -> !onnx.unknown
  // The copied dynamic dim cancels out when solving for -1.
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x12xf32>
  %2 = "onnx.Reshape"(%d, %c) : (tensor<?x3x4xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?xf32>
  %3 = "onnx.Reshape"(%d, %e) : (tensor<?x3x4xf32>, tensor<1xi64>) -> !onnx.unknown
  // A shape only known at run time: the rank is its length.
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<?x?x?xf32>
  %4 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<3xi64>) -> !onnx.unknown
  // allowzero keeps a 0 as a 0-sized dim.
  %z = "onnx.Constant"() <{value = dense<[0, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %empty = "onnx.ConstantOfShape"(%z) : (tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<5x0xf32>
  %zz = "onnx.Constant"() <{value = dense<[5, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %5 = "onnx.Reshape"(%empty, %zz) <{allowzero = 1 : i64}> : (!onnx.unknown, tensor<2xi64>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @flatten_squeeze_transpose
func.func @flatten_squeeze_transpose(%x: tensor<2x1x?x1xf32>, %y: tensor<2x3x4x5xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %ax = "onnx.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ux = "onnx.Constant"() <{value = dense<[0, 3, -1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  // CHECK: "onnx.Flatten"{{.*}} -> tensor<6x20xi64>
  %0 = "onnx.Flatten"(%y) <{axis = 2 : i64}> : (tensor<2x3x4x5xi64>) -> !onnx.unknown
  // CHECK: "onnx.Flatten"{{.*}} -> tensor<1x120xi64>
  %1 = "onnx.Flatten"(%y) <{axis = 0 : i64}> : (tensor<2x3x4x5xi64>) -> !onnx.unknown
  // CHECK: "onnx.Flatten"{{.*}} -> tensor<2x?xf32>
  %2 = "onnx.Flatten"(%x) : (tensor<2x1x?x1xf32>) -> !onnx.unknown
  // CHECK: "onnx.Squeeze"{{.*}} -> tensor<2x?xf32>
  %3 = "onnx.Squeeze"(%x, %ax) : (tensor<2x1x?x1xf32>, tensor<2xi64>) -> !onnx.unknown
  // Without axes, a dynamic dim makes the rank unknown.
  // CHECK: "onnx.Squeeze"{{.*}} -> !onnx.unknown
  %4 = "onnx.Squeeze"(%x, %n) : (tensor<2x1x?x1xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<1x2x1x1x?x1x1xf32>
  %5 = "onnx.Unsqueeze"(%x, %ux) : (tensor<2x1x?x1xf32>, tensor<3xi64>) -> !onnx.unknown
  // CHECK: "onnx.Transpose"{{.*}} -> tensor<5x4x3x2xi64>
  %6 = "onnx.Transpose"(%y) : (tensor<2x3x4x5xi64>) -> !onnx.unknown
  // CHECK: "onnx.Transpose"{{.*}} -> tensor<2x?x1x1xf32>
  %7 = "onnx.Transpose"(%x) <{perm = [0, 2, 3, 1]}> : (tensor<2x1x?x1xf32>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6, %7 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @expand_tile_pad
func.func @expand_tile_pad(%x: tensor<3x1xf32>, %d: tensor<?x4xf32>, %s: tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %shape = "onnx.Constant"() <{value = dense<[2, 1, 6]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %reps = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %pads = "onnx.Constant"() <{value = dense<[1, 0, 2, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %pads1 = "onnx.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Expand"{{.*}} -> tensor<2x3x6xf32>
  %0 = "onnx.Expand"(%x, %shape) : (tensor<3x1xf32>, tensor<3xi64>) -> !onnx.unknown
  // Unknown target elements broadcast like dynamic dims.
  // CHECK: "onnx.Expand"{{.*}} -> tensor<3x?xf32>
  %1 = "onnx.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Tile"{{.*}} -> tensor<6x3xf32>
  %2 = "onnx.Tile"(%x, %reps) : (tensor<3x1xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Tile"{{.*}} -> tensor<?x12xf32>
  %3 = "onnx.Tile"(%d, %reps) : (tensor<?x4xf32>, tensor<2xi64>) -> !onnx.unknown
  // CHECK: "onnx.Pad"{{.*}} -> tensor<6x4xf32>
  %4 = "onnx.Pad"(%x, %pads, %n, %n) : (tensor<3x1xf32>, tensor<4xi64>, none, none) -> !onnx.unknown
  // CHECK: "onnx.Pad"{{.*}} -> tensor<?x6xf32>
  %5 = "onnx.Pad"(%d, %pads1, %n, %axes) <{mode = "reflect"}> : (tensor<?x4xf32>, tensor<2xi64>, none, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Pad"{{.*}} -> tensor<?x?xf32>
  %sp = "onnx.Concat"(%s, %s) <{axis = 0 : i64}> : (tensor<2xi64>, tensor<2xi64>) -> !onnx.unknown
  %6 = "onnx.Pad"(%x, %sp, %n, %n) : (tensor<3x1xf32>, !onnx.unknown, none, none) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @sources
func.func @sources(%x: tensor<?x3x5xf32>, %n: tensor<i64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Shape"{{.*}} -> tensor<3xi64>
  %0 = "onnx.Shape"(%x) : (tensor<?x3x5xf32>) -> !onnx.unknown
  // CHECK: "onnx.Shape"{{.*}} -> tensor<2xi64>
  %1 = "onnx.Shape"(%x) <{start = -2 : i64}> : (tensor<?x3x5xf32>) -> !onnx.unknown
  // CHECK: "onnx.Size"{{.*}} -> tensor<i64>
  %2 = "onnx.Size"(%x) : (tensor<?x3x5xf32>) -> !onnx.unknown
  // ConstantOfShape takes the value's element type (f32 without one).
  // CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<3x5xi32>
  %3 = "onnx.ConstantOfShape"(%1) <{value = dense<7> : tensor<1xi32>}> : (!onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.ConstantOfShape"{{.*}} -> tensor<?x3x5xf32>
  %4 = "onnx.ConstantOfShape"(%0) : (!onnx.unknown) -> !onnx.unknown
  %start = "onnx.Constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  %limit = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %delta = "onnx.Constant"() <{value = dense<-3> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.Range"{{.*}} -> tensor<3xi64>
  %5 = "onnx.Range"(%start, %limit, %delta) : (tensor<i64>, tensor<i64>, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.Range"{{.*}} -> tensor<?xi64>
  %6 = "onnx.Range"(%limit, %n, %limit) : (tensor<i64>, tensor<i64>, tensor<i64>) -> !onnx.unknown
  %fs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %fl = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %fd = "onnx.Constant"() <{value = dense<0.4> : tensor<f32>}> : () -> tensor<f32>
  // CHECK: "onnx.Range"{{.*}} -> tensor<4xf32>
  %7 = "onnx.Range"(%fs, %fl, %fd) : (tensor<f32>, tensor<f32>, tensor<f32>) -> !onnx.unknown
  // CHECK: "onnx.Constant"() <{value_ints = [1, 2]}> : () -> tensor<2xi64>
  %8 = "onnx.Constant"() <{value_ints = [1, 2]}> : () -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<?x4xf32>, %t: tensor<1xf16>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Cast"{{.*}} -> tensor<?x4xui8>
  %0 = "onnx.Cast"(%x) <{to = 2 : i64}> : (tensor<?x4xf32>) -> !onnx.unknown
  // CHECK: "onnx.Cast"{{.*}} -> tensor<?x4xi1>
  %1 = "onnx.Cast"(%x) <{to = 9 : i64}> : (tensor<?x4xf32>) -> !onnx.unknown
  // CHECK: "onnx.Cast"{{.*}} -> tensor<?x4xbf16>
  %2 = "onnx.Cast"(%x) <{to = 16 : i64}> : (tensor<?x4xf32>) -> !onnx.unknown
  // CHECK: "onnx.CastLike"{{.*}} -> tensor<?x4xf16>
  %3 = "onnx.CastLike"(%x, %t) : (tensor<?x4xf32>, tensor<1xf16>) -> !onnx.unknown
  // CHECK: "onnx.Dropout"{{.*}} -> (tensor<?x4xf32>, tensor<?x4xi1>)
  %4:2 = "onnx.Dropout"(%x, %n, %n) : (tensor<?x4xf32>, none, none) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.Dropout"{{.*}} -> (tensor<?x4xf32>, none)
  %5:2 = "onnx.Dropout"(%x, %n, %n) : (tensor<?x4xf32>, none, none) -> (!onnx.unknown, none)
  // CHECK: "onnx.Cast"{{.*}} -> tensor<?x4xf64>
  %6 = "onnx.Cast"(%x) <{to = 11 : i64}> : (tensor<?x4xf32>) -> !onnx.unknown
  return %0, %1, %2, %3, %4#1, %5#0, %6 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// A 0-D axes names one axis (as ONNX Runtime reads it); run-time values
// still give the rank.
// CHECK-LABEL: func.func @unsqueeze_scalar_axes
func.func @unsqueeze_scalar_axes(%x: tensor<2x3xf32>, %r: tensor<i64>) -> (!onnx.unknown, !onnx.unknown) {
  %ax = "onnx.Constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<2x3x1xf32>
  %0 = "onnx.Unsqueeze"(%x, %ax) : (tensor<2x3xf32>, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.Unsqueeze"{{.*}} -> tensor<?x?x?xf32>
  %1 = "onnx.Unsqueeze"(%x, %r) : (tensor<2x3xf32>, tensor<i64>) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}
