// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// Grouped-query attention (4 query heads over 2 kv heads) with a KV cache, a
// bool mask and a causal frontier offset by the past length (2): the caches
// are concatenated, K/V are read at head h floordiv 2, the scale's square
// root (1/sqrt(8))^0.5 multiplies Q and K, and rows whose bias is all -inf
// get zero probabilities.
// CHECK-DAG: #[[QMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d3, d4)>
// CHECK-DAG: #[[VMAP:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 2, d4, d3)>
// CHECK-LABEL: func.func @gqa
// CHECK: %[[K0:.+]] = tensor.insert_slice %arg4 into %{{.+}}[0, 0, 0, 0] [2, 2, 2, 8]
// CHECK: %[[K:.+]] = tensor.insert_slice %arg1 into %[[K0]][0, 0, 2, 0] [2, 2, 5, 8]
// CHECK: %[[V0:.+]] = tensor.insert_slice %arg5 into %{{.+}}[0, 0, 0, 0] [2, 2, 2, 6]
// CHECK: %[[V:.+]] = tensor.insert_slice %arg2 into %[[V0]][0, 0, 2, 0] [2, 2, 5, 6]
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[KMAP]], {{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %[[K]] :
// CHECK: arith.constant 0.594603539 : f32
// CHECK: %[[BIAS:.+]] = linalg.generic {{.+}} ins(%arg3 : tensor<3x7xi1>) outs(%{{.+}} : tensor<2x4x3x7xf32>)
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: %[[I:.+]] = linalg.index 2 : index
// CHECK: %[[J:.+]] = linalg.index 3 : index
// CHECK: %[[POS:.+]] = arith.addi %[[I]], %c2 : index
// CHECK: arith.cmpi sle, %[[J]], %[[POS]] : index
// CHECK: %[[BIASED:.+]] = linalg.generic {{.+}} ins(%[[S]], %[[BIAS]] :
// CHECK: %[[MASKED:.+]] = linalg.generic {{.+}} ins(%[[BIAS]] : tensor<2x4x3x7xf32>) outs(%{{.+}} : tensor<2x4x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[P:.+]] = linalg.generic {{.+}} ins(%[[BIASED]], %{{.+}}, %{{.+}}, %[[MASKED]] :
// CHECK: linalg.generic {indexing_maps = [#[[QMAP]], #[[VMAP]], {{.+}}], {{.+}} ins(%[[P]], %[[V]] :
// CHECK: return %{{.+}}, %[[K]], %[[V]]
func.func @gqa(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x5x8xf32>, %v: tensor<2x2x5x6xf32>, %m: tensor<3x7xi1>, %pk: tensor<2x2x2x8xf32>, %pv: tensor<2x2x2x6xf32>) -> (tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %pk2, %pv2, %qk = "onnx.Attention"(%q, %k, %v, %m, %pk, %pv, %none) {is_causal = 1 : i64} : (tensor<2x4x3x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x6xf32>, tensor<3x7xi1>, tensor<2x2x2x8xf32>, tensor<2x2x2x6xf32>, none) -> (tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>, none)
  return %y, %pk2, %pv2 : tensor<2x4x3x6xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x6xf32>
}

// -----

// 3-D inputs are split into heads ([B, S, H*D] -> [B, H, S, D]); Y is written
// as [B, S, H, Dv] and collapsed back. A short float mask is padded with -inf.
// CHECK-LABEL: func.func @three_d
// CHECK: tensor.expand_shape %arg0 {{.+}} into tensor<1x3x2x4xf32>
// CHECK: linalg.transpose ins(%{{.+}} : tensor<1x3x2x4xf32>) outs(%{{.+}} : tensor<1x2x3x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: math.tanh
// CHECK: %[[NEG:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[NEG]] : f32) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK: tensor.insert_slice %arg3 into %[[FILL]][0, 0] [3, 4] [1, 1]
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<1x3x2x4xf32>)
// CHECK: tensor.collapse_shape %{{.+}} {{.+}} : tensor<1x3x2x4xf32> into tensor<1x3x8xf32>
func.func @three_d(%q: tensor<1x3x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>, %m: tensor<3x4xf32>) -> tensor<1x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %a, %b, %c = "onnx.Attention"(%q, %k, %v, %m, %none, %none, %none) {q_num_heads = 2 : i64, kv_num_heads = 2 : i64, softcap = 2.0 : f32} : (tensor<1x3x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<3x4xf32>, none, none, none) -> (tensor<1x3x8xf32>, none, none, none)
  return %y : tensor<1x3x8xf32>
}
