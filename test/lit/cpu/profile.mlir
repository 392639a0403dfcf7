// RUN: onnxc-opt --onnxc-tag-op-types --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s --check-prefix=TAG
// RUN: onnxc-opt --onnxc-tag-op-types --convert-onnx-to-linalg --onnxc-cpu-lowering=profile=true %s | FileCheck %s --check-prefix=PIPE

// onnxc compile --profile. TagOpTypes wraps each onnx op's location in a
// FusedLoc naming its op type. Through the whole pipeline, the Add that
// elementwise fusion merges into the Relu's loop shares the Relu's entry
// (FuseElementwise keeps both locations); the reduction and the Sub keep
// their own, and the graph function laps the clock between them.
// TAG-LABEL: func.func @main_graph
// TAG: "onnx.Add"{{.*}} loc(fused<"Add">["add0"])
// TAG: "onnx.Relu"{{.*}} loc(fused<"Relu">["relu0"])
// PIPE: module attributes {onnxc.profile_nodes = {{\[}}["relu0, add0", "Relu+Add"], ["sum0", "ReduceSum"], ["sub0", "Sub"]]
// PIPE: llvm.mlir.global private @onnxc_profile_ns(dense<0> : tensor<3xi64>)
// PIPE-LABEL: llvm.func @main_graph
// PIPE: llvm.call @onnxc_rt_profile_clock()
// PIPE-COUNT-3: llvm.call @onnxc_rt_profile_lap(
// PIPE-NOT: llvm.call @onnxc_rt_profile_lap(
// PIPE: llvm.return
func.func @main_graph(%a: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> loc("add0")
  %1 = "onnx.Relu"(%0) : (tensor<4x16xf32>) -> tensor<4x16xf32> loc("relu0")
  %none = "onnx.NoValue"() : () -> none
  %2 = "onnx.ReduceSum"(%1, %none) : (tensor<4x16xf32>, none) -> tensor<1x1xf32> loc("sum0")
  %3 = "onnx.Sub"(%1, %2) : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32> loc("sub0")
  return %3 : tensor<4x16xf32>
}
