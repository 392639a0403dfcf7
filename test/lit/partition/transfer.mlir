// RUN: onnxc-opt --onnxc-partition="targets=test-device" %s | FileCheck %s

// A device target: its MatMul reads the host's Sigmoid result through a
// host->device transfer; the host reads its result back through a
// device->host one, and the returned device value comes back to the host.
// CHECK-LABEL: func.func private @partition_0_cpu
// CHECK: onnx.Sigmoid
// CHECK-LABEL: func.func private @partition_1_test_device
// CHECK-SAME: onnxc.target = "test-device"
// CHECK: onnx.MatMul
// CHECK: onnx.Softmax
// CHECK-LABEL: func.func private @partition_2_cpu
// CHECK: onnx.Add
// CHECK-LABEL: func.func @main_graph
// CHECK: %[[S:.*]] = call @partition_0_cpu(%arg0)
// CHECK: %[[SD:.*]] = "onnxc.Transfer"(%[[S]]) <{from = "host", to = "device"}>
// CHECK: %[[AD:.*]] = "onnxc.Transfer"(%arg0) <{from = "host", to = "device"}>
// CHECK: %[[D:.*]]:2 = call @partition_1_test_device(%[[SD]], %[[AD]])
// CHECK: %[[DH:.*]] = "onnxc.Transfer"(%[[D]]#1) <{from = "device", to = "host"}>
// CHECK: %[[R:.*]] = call @partition_2_cpu(%[[DH]], %arg0)
// CHECK: %[[BACK:.*]] = "onnxc.Transfer"(%[[D]]#0) <{from = "device", to = "host"}>
// CHECK: return %[[R]], %[[BACK]]
func.func @main_graph(%a: tensor<4x4xf32> {onnxc.name = "a"}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %s = "onnx.Sigmoid"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = "onnx.MatMul"(%s, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = "onnx.Softmax"(%m) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = "onnx.Add"(%p, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %t, %m : tensor<4x4xf32>, tensor<4x4xf32>
}
