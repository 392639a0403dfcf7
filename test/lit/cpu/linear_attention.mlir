// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// gated_delta with 8 query heads over 4 kv heads, a per-key decay, a shared
// beta and a dynamic sequence: one scf.for over the tokens carries the f32
// state and output; the state is decayed and updated in place (the generics'
// init is the loop's state), the delta reads the decayed state, query head h
// reads kv head h floordiv 2, and the scale 1/sqrt(8) and the f16 rounding
// happen once after the loop.
// CHECK-DAG: #[[GQA:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 2, d3, d2)>
// CHECK-DAG: #[[BETA:.+]] = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK-LABEL: func.func @gated_delta_gqa
// CHECK: %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<2x4x8x8xf32>
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[S:.+]] = %[[INIT]], %[[OUT:.+]] = %{{.+}}) -> (tensor<2x4x8x8xf32>, tensor<2x?x8x8xf32>)
// CHECK: tensor.extract_slice %{{.+}}[0, %[[T]], 0, 0] [2, 1, 8, 8]
// CHECK: %[[DECAYED:.+]] = linalg.generic {{.*}} outs(%[[S]] : tensor<2x4x8x8xf32>)
// CHECK: math.exp
// CHECK: %[[RETRIEVED:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[DECAYED]], %{{.+}} : tensor<2x4x8x8xf32>, tensor<2x4x8xf16>)
// CHECK: %[[CORRECTED:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[BETA]], #{{.+}}]{{.*}} ins(%{{.+}}, %[[RETRIEVED]], %{{.+}} :
// CHECK: arith.subf
// CHECK: %[[UPDATED:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[CORRECTED]] : tensor<2x4x8xf16>, tensor<2x4x8xf32>) outs(%[[DECAYED]] : tensor<2x4x8x8xf32>)
// CHECK: %[[O:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[GQA]], #{{.+}}], iterator_types = [{{.*}}"reduction"]} ins(%{{.+}}, %[[UPDATED]] :
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[O]] into %[[OUT]][0, %[[T]], 0, 0] [2, 1, 8, 8]
// CHECK: scf.yield %[[UPDATED]], %[[INS]]
// CHECK: arith.constant 0.353553385 : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: tensor.collapse_shape %{{.+}} {{\[\[}}0], [1], [2, 3]] : tensor<2x?x8x8xf16> into tensor<2x?x64xf16>
func.func @gated_delta_gqa(%q: tensor<2x?x64xf16>, %k: tensor<2x?x32xf16>, %v: tensor<2x?x32xf16>, %g: tensor<2x?x32xf16>, %beta: tensor<2x?x1xf16>) -> (tensor<2x?x64xf16>, tensor<2x4x8x8xf16>) {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %g, %beta) <{q_num_heads = 8 : i64, kv_num_heads = 4 : i64}> : (tensor<2x?x64xf16>, tensor<2x?x32xf16>, tensor<2x?x32xf16>, none, tensor<2x?x32xf16>, tensor<2x?x1xf16>) -> (tensor<2x?x64xf16>, tensor<2x4x8x8xf16>) loc("la")
  return %o, %s : tensor<2x?x64xf16>, tensor<2x4x8x8xf16>
}

// -----

// The linear rule from a past state, with an explicit scale: no decay, no
// delta, and the past state is copied into the loop's f32 state.
// CHECK-LABEL: func.func @linear_with_past
// CHECK: %[[PAST:.+]] = linalg.generic {{.*}} ins(%arg3 : tensor<1x2x4x3xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[PAST]], %{{.+}} = %{{.+}})
// CHECK-NOT: math.exp
// CHECK: scf.yield
// CHECK: arith.constant 5.000000e-01 : f32
func.func @linear_with_past(%q: tensor<1x5x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x6xf32>, %past: tensor<1x2x4x3xf32>) -> (tensor<1x5x6xf32>, tensor<1x2x4x3xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %past, %none, %none) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64, scale = 0.5 : f32, update_rule = "linear"}> : (tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x6xf32>, tensor<1x2x4x3xf32>, none, none) -> (tensor<1x5x6xf32>, tensor<1x2x4x3xf32>) loc("la_linear")
  return %o, %s : tensor<1x5x6xf32>, tensor<1x2x4x3xf32>
}
