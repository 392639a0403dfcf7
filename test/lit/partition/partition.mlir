// RUN: onnxc-opt --onnxc-partition="targets=test-host" --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-partition="targets=test-host print-partitions=1" --split-input-file %s -o %t.mlir | FileCheck %s --check-prefix=REPORT

// Mixed assignment: test-host takes the Conv and the Relu after it, the cpu
// (always last) the Sigmoid it refuses; each run of one target is one
// partition, the constants cloned into the partitions that read them.
// CHECK-LABEL: func.func private @partition_0_test_host
// CHECK-SAME: onnxc.target = "test-host"
// CHECK: onnx.Constant
// CHECK: onnx.Conv
// CHECK: onnx.Relu
// CHECK-LABEL: func.func private @partition_1_cpu
// CHECK-SAME: onnxc.target = "cpu"
// CHECK: onnx.Sigmoid
// CHECK-LABEL: func.func private @partition_2_test_host
// CHECK: onnx.Constant
// CHECK: onnx.Conv
// CHECK-LABEL: func.func @main_graph
// CHECK-NOT: onnx.
// CHECK: %[[A:.*]] = call @partition_0_test_host(%arg0)
// CHECK: %[[B:.*]] = call @partition_1_cpu(%[[A]])
// CHECK: %[[C:.*]] = call @partition_2_test_host(%[[B]])
// CHECK: return %[[C]]
// REPORT: partitions of main_graph: 3 (targets in priority order: test-host, cpu)
// REPORT-NEXT: #0 test-host: 2 nodes (Conv 1, Relu 1)
// REPORT-NEXT: in:  x
// REPORT-NEXT: out: relu
// REPORT-NEXT: #1 cpu: 1 node (Sigmoid 1)
// REPORT: #2 test-host: 1 node (Conv 1)
// REPORT: refused:
// REPORT-NEXT: test-host refused 1 Sigmoid node: 'Sigmoid' is not in test-host's op list
// REPORT-NEXT: sigmoid
func.func @main_graph(%x: tensor<1x2x4x4xf32> {onnxc.name = "x"}) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv1")
  %r = "onnx.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("relu")
  %s = "onnx.Sigmoid"(%r) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("sigmoid")
  %c2 = "onnx.Conv"(%s, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv2")
  return %c2 : tensor<1x2x4x4xf32>
}

// -----

// CPU fallback with a reason: test-host refuses the grouped Conv, which the
// cpu then takes; the whole graph is one cpu partition.
// CHECK-LABEL: func.func private @partition_0_cpu
// CHECK: onnx.Conv
// CHECK-SAME: group = 2
// CHECK: onnx.Sigmoid
// CHECK-LABEL: func.func @main_graph
// CHECK: call @partition_0_cpu(%arg0)
// CHECK-NOT: call
// REPORT: partitions of main_graph: 1
// REPORT: #0 cpu: 2 nodes (Conv 1, Sigmoid 1)
// REPORT: test-host refused 1 Conv node: grouped convolutions are not supported
// REPORT-NEXT: grouped
func.func @main_graph(%x: tensor<1x2x4x4xf32> {onnxc.name = "x"}) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) <{group = 2 : i64}> : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("grouped")
  %s = "onnx.Sigmoid"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("sigmoid")
  return %s : tensor<1x2x4x4xf32>
}

// -----

// No fragmentation: test-host takes the Relu, but it sits alone between cpu
// nodes and is cheap, so it stays with them: one partition, not three.
// CHECK-LABEL: func.func private @partition_0_cpu
// CHECK: onnx.Sigmoid
// CHECK: onnx.Relu
// CHECK: onnx.Sigmoid
// CHECK-LABEL: func.func @main_graph
// CHECK: call @partition_0_cpu(%arg0)
// CHECK-NOT: call
// REPORT: partitions of main_graph: 1
// REPORT: #0 cpu: 3 nodes (Sigmoid 2, Relu 1)
// REPORT: test-host refused 1 Relu node: claimed, but its group of connected test-host nodes has no compute-heavy node
// REPORT-NEXT: lonely_relu
func.func @main_graph(%x: tensor<4xf32> {onnxc.name = "x"}) -> tensor<4xf32> {
  %a = "onnx.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("s1")
  %b = "onnx.Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32> loc("lonely_relu")
  %c = "onnx.Sigmoid"(%b) : (tensor<4xf32>) -> tensor<4xf32> loc("s2")
  return %c : tensor<4xf32>
}

// -----

// The schedule keeps a target's nodes together: the two independent
// MatMuls become one test-host partition although the cpu's Sigmoid comes
// between them in the model's order.
// CHECK-LABEL: func.func private @partition_0_test_host
// CHECK: onnx.MatMul
// CHECK: onnx.MatMul
// CHECK-LABEL: func.func private @partition_1_cpu
// CHECK: onnx.Sigmoid
// CHECK: onnx.Add
// CHECK-LABEL: func.func @main_graph
// CHECK: %[[M:.*]]:2 = call @partition_0_test_host(%arg0, %arg1)
// CHECK: call @partition_1_cpu(%arg0, %[[M]]#0, %[[M]]#1)
func.func @main_graph(%a: tensor<4x4xf32> {onnxc.name = "a"}, %b: tensor<4x4xf32> {onnxc.name = "b"}) -> tensor<4x4xf32> {
  %m1 = "onnx.MatMul"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = "onnx.Sigmoid"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = "onnx.MatMul"(%b, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = "onnx.Add"(%m1, %s) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %u = "onnx.Add"(%t, %m2) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}
