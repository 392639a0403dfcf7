// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// BatchNormalization folds scale/B/mean/var into a[c] = scale / sqrt(var +
// eps) and b[c] = B - mean * a once, then computes x * a[c] + b[c].
// CHECK-DAG: #[[ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x8x8xf32> {{.*}}, %[[S:.+]]: tensor<3xf32> {{.*}}, %[[B:.+]]: tensor<3xf32> {{.*}}, %[[M:.+]]: tensor<3xf32> {{.*}}, %[[V:.+]]: tensor<3xf32>
// CHECK: %[[AB:.+]]:2 = linalg.generic
// CHECK-SAME: ins(%[[S]], %[[B]], %[[M]], %[[V]] :
// CHECK: ^bb0(%[[SC:.+]]: f32, %[[BI:.+]]: f32, %[[ME:.+]]: f32, %[[VA:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[VA]], %[[EPS]]
// CHECK: %[[SD:.+]] = math.sqrt %[[VE]]
// CHECK: %[[A:.+]] = arith.divf %[[SC]], %[[SD]]
// CHECK: %[[MA:.+]] = arith.mulf %[[ME]], %[[A]]
// CHECK: %[[SH:.+]] = arith.subf %[[BI]], %[[MA]]
// CHECK: linalg.yield %[[A]], %[[SH]]
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[CH]], #[[CH]], #[[ID4]]]
// CHECK-SAME: ins(%[[X]], %[[AB]]#0, %[[AB]]#1 :
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @batch_norm(%x: tensor<?x3x8x8xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x8x8xf32> {
  %0:3 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {epsilon = 1.0e-03 : f32} : (tensor<?x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x8x8xf32>, none, none)
  return %0#0 : tensor<?x3x8x8xf32>
}

// -----

// LayerNormalization over the last axis: mean, then the mean of squared
// deviations, then (x - mean) * invStdDev * scale + B; Mean and InvStdDev
// come back with a unit last dim.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[N:.+]] = arith.uitofp %{{.+}} : i64 to f32
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} ins(%[[SUM]] :
// CHECK: arith.divf %{{.+}}, %[[N]]
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %[[MEAN]] :
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%[[SQ]] :
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[LAST]], #[[LAST]], #[[ID]]]
// CHECK-SAME: ins(%arg0, %[[MEAN]], %[[INV]], %arg1, %arg2 :
// CHECK: %[[MEAN3:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2]] output_shape [2, %{{.+}}, 1]
// CHECK: %[[INV3:.+]] = tensor.expand_shape %[[INV]] {{\[}}[0], [1, 2]] output_shape [2, %{{.+}}, 1]
// CHECK: return %[[Y]], %[[MEAN3]], %[[INV3]]
func.func @layer_norm(%x: tensor<2x?x16xf32>, %s: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<2x?x16xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>) {
  %0:3 = "onnx.LayerNormalization"(%x, %s, %b) {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x?x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x?x16xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x?x16xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>
}

// -----

// Without B and statistics outputs; f16 input with f32 statistics.
// CHECK-LABEL: func.func @layer_norm_half
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f16, %[[M:.+]]: f32, %[[I:.+]]: f32, %[[S:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[C:.+]] = arith.subf %[[W]], %[[M]]
// CHECK-NEXT: %[[N:.+]] = arith.mulf %[[C]], %[[I]]
// CHECK-NEXT: %[[SW:.+]] = arith.extf %[[S]] : f16 to f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[N]], %[[SW]]
// CHECK-NEXT: arith.truncf %[[R]] : f32 to f16
func.func @layer_norm_half(%x: tensor<4x8xf16>, %s: tensor<8xf16>) -> tensor<4x8xf16> {
  %none = "onnx.NoValue"() : () -> none
  %0:3 = "onnx.LayerNormalization"(%x, %s, %none) : (tensor<4x8xf16>, tensor<8xf16>, none) -> (tensor<4x8xf16>, none, none)
  return %0#0 : tensor<4x8xf16>
}

// -----

// InstanceNormalization: statistics per (n, c) over the spatial dims.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[NC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @instance_norm
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NC]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NC]], #[[NC]], #[[CH]], #[[CH]], #[[ID]]]
func.func @instance_norm(%x: tensor<1x3x10xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<1x3x10xf32> {
  %0 = "onnx.InstanceNormalization"(%x, %s, %b) : (tensor<1x3x10xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x10xf32>
  return %0 : tensor<1x3x10xf32>
}

// -----

// LpNormalization p=1 along axis 0; a zero norm gives 0.
// CHECK-LABEL: func.func @lp_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: math.absf
// CHECK: %[[Z:.+]] = arith.cmpf oeq
// CHECK: %[[Q:.+]] = arith.divf
// CHECK: arith.select %[[Z]], %{{.+}}, %[[Q]]
func.func @lp_norm(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.LpNormalization"(%x) {axis = 0 : i64, p = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Running statistics only exist in training mode.
func.func @batch_norm_running_stats_at_inference(%x: tensor<2x3xf32>, %p: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'BatchNormalization' node}}
  %0:3 = "onnx.BatchNormalization"(%x, %p, %p, %p, %p) {training_mode = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#1 : tensor<3xf32>
}

// -----

func.func @batch_norm_wrong_channels(%x: tensor<2x3xf32>, %p: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'BatchNormalization' node}}
  %0:3 = "onnx.BatchNormalization"(%x, %p, %p, %p, %p) : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3xf32>, none, none)
  return %0#0 : tensor<2x3xf32>
}

// -----

func.func @layer_norm_bad_axis(%x: tensor<4x8xf32>, %s: tensor<8xf32>) -> tensor<4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+2 {{axis -3 is out of range for a rank-2 input}}
  // expected-error @+1 {{the cpu target cannot lower this 'LayerNormalization' node}}
  %0:3 = "onnx.LayerNormalization"(%x, %s, %none) {axis = -3 : i64} : (tensor<4x8xf32>, tensor<8xf32>, none) -> (tensor<4x8xf32>, none, none)
  return %0#0 : tensor<4x8xf32>
}
