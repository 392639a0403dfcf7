// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<?x16x8x8xf32>, %p: tensor<16xf32>) -> (!onnx.unknown, !onnx.unknown) {
  // Inference form: the running statistics outputs are omitted.
  // CHECK: "onnx.BatchNormalization"{{.*}} -> (tensor<?x16x8x8xf32>, none, none)
  %0:3 = "onnx.BatchNormalization"(%x, %p, %p, %p, %p) : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (!onnx.unknown, none, none)
  // CHECK: "onnx.BatchNormalization"{{.*}} -> (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>)
  %1:3 = "onnx.BatchNormalization"(%x, %p, %p, %p, %p) <{training_mode = 1 : i64}> : (tensor<?x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  return %0#0, %1#1 : !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<?x128x768xf16>, %s: tensor<768xf16>, %t: tensor<128x768xf16>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.LayerNormalization"{{.*}} -> (tensor<?x128x768xf16>, none, none)
  %0:3 = "onnx.LayerNormalization"(%x, %s, %n) : (tensor<?x128x768xf16>, tensor<768xf16>, none) -> (!onnx.unknown, none, none)
  // Mean and InvStdDev: 1 for the normalized dims, in the stash type (f32).
  // CHECK: "onnx.LayerNormalization"{{.*}} -> (tensor<?x128x768xf16>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
  %1:3 = "onnx.LayerNormalization"(%x, %t, %n) <{axis = 1 : i64}> : (tensor<?x128x768xf16>, tensor<128x768xf16>, none) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown)
  return %0#0, %1#0, %1#1 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x?x10xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %s = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Softmax"{{.*}} -> tensor<2x?x10xf32>
  %0 = "onnx.Softmax"(%x) : (tensor<2x?x10xf32>) -> !onnx.unknown
  // CHECK: "onnx.LogSoftmax"{{.*}} -> tensor<2x?x10xf32>
  %1 = "onnx.LogSoftmax"(%x) <{axis = -3 : i64}> : (tensor<2x?x10xf32>) -> !onnx.unknown
  // CHECK: "onnx.InstanceNormalization"{{.*}} -> tensor<2x?x10xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %2 = "onnx.InstanceNormalization"(%x, %p, %p) : (tensor<2x?x10xf32>, tensor<2xf32>, tensor<2xf32>) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}
