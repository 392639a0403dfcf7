// RUN: onnxc-opt --onnxc-partition="targets=test-host partition-graph=%t.dot" %s -o %t.mlir
// RUN: FileCheck %s --input-file=%t.dot

// --partition-graph: a cluster per partition, the nodes coloured by target.
// CHECK: digraph partitions {
// CHECK: subgraph cluster_0 {
// CHECK: label="#0 test-host";
// CHECK: [label="conv1\nConv", fillcolor="#a6cee3"];
// CHECK: subgraph cluster_1 {
// CHECK: label="#1 cpu";
// CHECK: [label="sigmoid\nSigmoid", fillcolor="#b2df8a"];
// CHECK: n0 -> n1;
// CHECK: legend
func.func @main_graph(%x: tensor<1x2x4x4xf32> {onnxc.name = "x"}) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv1")
  %r = "onnx.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("relu")
  %s = "onnx.Sigmoid"(%r) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("sigmoid")
  return %s : tensor<1x2x4x4xf32>
}
