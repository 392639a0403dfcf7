// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<2x?x4xf32>, %b: tensor<?x3x4xf32>, %c: tensor<2x3x1xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // Static dims refine dynamic ones off the axis.
  // CHECK: "onnx.Concat"{{.*}} -> tensor<2x3x9xf32>
  %0 = "onnx.Concat"(%a, %b, %c) <{axis = -1 : i64}> : (tensor<2x?x4xf32>, tensor<?x3x4xf32>, tensor<2x3x1xf32>) -> !onnx.unknown
  // CHECK: "onnx.Concat"{{.*}} -> tensor<?x3x4xf32>
  %1 = "onnx.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2x?x4xf32>, tensor<?x3x4xf32>) -> !onnx.unknown
  // CHECK: "onnx.Concat"{{.*}} -> tensor<4x3x1xf32>
  %2 = "onnx.Concat"(%c, %c) <{axis = 0 : i64}> : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @split
func.func @split(%x: tensor<10x6xf32>, %y: tensor<2x7xi64>, %d: tensor<?x6xf32>, %s: tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %sizes = "onnx.Constant"() <{value = dense<[3, 7]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // CHECK: "onnx.Split"{{.*}} -> (tensor<3x6xf32>, tensor<7x6xf32>)
  %0:2 = "onnx.Split"(%x, %sizes) : (tensor<10x6xf32>, tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown)
  // num_outputs: chunks of ceil(7 / 3), the last one smaller.
  // CHECK: "onnx.Split"{{.*}} -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x1xi64>)
  %1:3 = "onnx.Split"(%y, %n) <{axis = 1 : i64, num_outputs = 3 : i64}> : (tensor<2x7xi64>, none) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  // Neither: equal parts by the number of outputs.
  // CHECK: "onnx.Split"{{.*}} -> (tensor<10x2xf32>, tensor<10x2xf32>, tensor<10x2xf32>)
  %2:3 = "onnx.Split"(%x, %n) <{axis = -1 : i64}> : (tensor<10x6xf32>, none) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.Split"{{.*}} -> (tensor<?x6xf32>, tensor<?x6xf32>)
  %3:2 = "onnx.Split"(%d, %n) : (tensor<?x6xf32>, none) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.Split"{{.*}} -> (tensor<?x6xf32>, tensor<?x6xf32>)
  %4:2 = "onnx.Split"(%x, %s) : (tensor<10x6xf32>, tensor<2xi64>) -> (!onnx.unknown, !onnx.unknown)
  return %0#1, %1#2, %2#0, %3#0, %4#0, %1#0 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @gather
func.func @gather(%x: tensor<5x6x7xf32>, %i: tensor<2x3xi64>, %j: tensor<i32>, %e: tensor<?x4xi64>, %k: tensor<5x?x7xi64>, %g: tensor<?x2xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Gather"{{.*}} -> tensor<5x2x3x7xf32>
  %0 = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> : (tensor<5x6x7xf32>, tensor<2x3xi64>) -> !onnx.unknown
  // CHECK: "onnx.Gather"{{.*}} -> tensor<5x6xf32>
  %1 = "onnx.Gather"(%x, %j) <{axis = -1 : i64}> : (tensor<5x6x7xf32>, tensor<i32>) -> !onnx.unknown
  // CHECK: "onnx.Gather"{{.*}} -> tensor<?x4x6x7xf32>
  %2 = "onnx.Gather"(%x, %e) : (tensor<5x6x7xf32>, tensor<?x4xi64>) -> !onnx.unknown
  // CHECK: "onnx.GatherElements"{{.*}} -> tensor<5x?x7xf32>
  %3 = "onnx.GatherElements"(%x, %k) <{axis = 1 : i64}> : (tensor<5x6x7xf32>, tensor<5x?x7xi64>) -> !onnx.unknown
  // CHECK: "onnx.GatherND"{{.*}} -> tensor<?x7xf32>
  %4 = "onnx.GatherND"(%x, %g) <{batch_dims = 0 : i64}> : (tensor<5x6x7xf32>, tensor<?x2xi64>) -> !onnx.unknown
  return %0, %1, %2, %3, %4 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Slice lengths agree with numpy slicing (ONNX clamping rules).
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<10x20x30xf32>, %d: tensor<?x20xf32>, %dyn: tensor<1xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %st = "onnx.Constant"() <{value = dense<[1, -5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %en = "onnx.Constant"() <{value = dense<[8, 1000]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ax = "onnx.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sp = "onnx.Constant"() <{value = dense<[2, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // x[1:8:2, :, -5:1000]
  // CHECK: "onnx.Slice"{{.*}} -> tensor<4x20x5xf32>
  %0 = "onnx.Slice"(%x, %st, %en, %ax, %sp) : (tensor<10x20x30xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> !onnx.unknown
  %m1 = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %min = "onnx.Constant"() <{value = dense<-9223372036854775808> : tensor<1xi64>}> : () -> tensor<1xi64>
  %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %m3 = "onnx.Constant"() <{value = dense<-3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %big = "onnx.Constant"() <{value = dense<100> : tensor<1xi64>}> : () -> tensor<1xi64>
  %m100 = "onnx.Constant"() <{value = dense<-100> : tensor<1xi64>}> : () -> tensor<1xi64>
  // x[:, -1::-3] (ends = INT64_MIN)
  // CHECK: "onnx.Slice"{{.*}} -> tensor<10x7x30xf32>
  %1 = "onnx.Slice"(%x, %m1, %min, %one, %m3) : (tensor<10x20x30xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // x[:, 100:-100:-1] reverses the whole axis
  // CHECK: "onnx.Slice"{{.*}} -> tensor<10x20x30xf32>
  %2 = "onnx.Slice"(%x, %big, %m100, %one, %m1) : (tensor<10x20x30xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  // x[100:] is empty; no axes means the leading axes.
  // CHECK: "onnx.Slice"{{.*}} -> tensor<0x20x30xf32>
  %3 = "onnx.Slice"(%x, %big, %min, %n, %n) : (tensor<10x20x30xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> !onnx.unknown
  // Starts known only at run time: that axis is dynamic.
  // CHECK: "onnx.Slice"{{.*}} -> tensor<10x?x30xf32>
  %4 = "onnx.Slice"(%x, %dyn, %big, %one, %n) : (tensor<10x20x30xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> !onnx.unknown
  // Axes known only at run time: every dim is dynamic.
  // CHECK: "onnx.Slice"{{.*}} -> tensor<?x?x?xf32>
  %5 = "onnx.Slice"(%x, %one, %big, %dyn, %n) : (tensor<10x20x30xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> !onnx.unknown
  // A dynamic input dim stays dynamic.
  // CHECK: "onnx.Slice"{{.*}} -> tensor<?x19xf32>
  %ax01 = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s01 = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e01 = "onnx.Constant"() <{value = dense<[4, 100]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %6 = "onnx.Slice"(%d, %s01, %e01, %ax01, %n) : (tensor<?x20xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, none) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}
