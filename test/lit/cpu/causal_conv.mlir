// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// f16 with a carried state, bias and SiLU over a dynamic length: the state
// and the input are written into one zero-filled [B, C, L + 2] buffer, a
// depthwise conv accumulates in f32, the bias is added and the sum rounded
// to f16 before the SiLU (computed in f32, rounded again); the new state is
// the last 2 positions of the padded input.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @silu_past
// CHECK: %[[LEN:.+]] = tensor.dim %arg0, %{{.+}} : tensor<2x4x?xf16>
// CHECK: %[[PADLEN:.+]] = arith.addi %[[LEN]], %{{.+}} : index
// CHECK: %[[EMPTY:.+]] = tensor.empty(%[[PADLEN]]) : tensor<2x4x?xf16>
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} outs(%[[EMPTY]]
// CHECK: %[[WITHPAST:.+]] = tensor.insert_slice %arg3 into %[[ZERO]][0, 0, 0] [2, 4, 2] [1, 1, 1]
// CHECK: %[[PADDED:.+]] = tensor.insert_slice %arg0 into %[[WITHPAST]][0, 0, 2] [2, 4, %[[LEN]]] [1, 1, 1]
// CHECK: %[[FILTER:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<4x1x3xf16> into tensor<4x3xf16>
// CHECK: %[[CONV:.+]] = linalg.depthwise_conv_1d_ncw_cw {{.*}} ins(%[[PADDED]], %[[FILTER]] : tensor<2x4x?xf16>, tensor<4x3xf16>) outs(%{{.+}} : tensor<2x4x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[BIAS]], #{{.+}}]{{.*}} ins(%[[CONV]], %arg2
// CHECK: arith.addf
// CHECK: %[[R:.+]] = arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[X:.+]] = arith.extf %[[R]] : f16 to f32
// CHECK: math.exp
// CHECK: arith.mulf %[[X]]
// CHECK: arith.truncf
// CHECK: tensor.extract_slice %[[PADDED]][0, 0, %[[LEN]]] [2, 4, 2] [1, 1, 1] : tensor<2x4x?xf16> to tensor<2x4x2xf16>
func.func @silu_past(%x: tensor<2x4x?xf16>, %w: tensor<4x1x3xf16>, %b: tensor<4xf16>, %p: tensor<2x4x2xf16>) -> (tensor<2x4x?xf16>, tensor<2x4x2xf16>) {
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %b, %p) <{activation = "silu"}> : (tensor<2x4x?xf16>, tensor<4x1x3xf16>, tensor<4xf16>, tensor<2x4x2xf16>) -> (tensor<2x4x?xf16>, tensor<2x4x2xf16>) loc("cc")
  return %y, %s : tensor<2x4x?xf16>, tensor<2x4x2xf16>
}

// -----

// A one-tap kernel without state: nothing to pad, the conv result is the
// output and the state is empty.
// CHECK-LABEL: func.func @one_tap
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[CONV:.+]] = linalg.depthwise_conv_1d_ncw_cw {{.*}} ins(%arg0, %{{.+}} : tensor<2x4x8xf32>, tensor<4x1xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[STATE:.+]] = tensor.extract_slice %arg0[0, 0, 8] [2, 4, 0] [1, 1, 1]
// CHECK: return %[[CONV]], %[[STATE]]
func.func @one_tap(%x: tensor<2x4x8xf32>, %w: tensor<4x1x1xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x0xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %n, %n) : (tensor<2x4x8xf32>, tensor<4x1x1xf32>, none, none) -> (tensor<2x4x8xf32>, tensor<2x4x0xf32>) loc("cc1")
  return %y, %s : tensor<2x4x8xf32>, tensor<2x4x0xf32>
}
