// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// RMSNormalization over the last axis: a sum of squares, then
// x * 1/sqrt(sum/count + eps) * scale[d2].
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @rms
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 :
// CHECK: %[[SQ:.+]] = arith.mulf %[[IN:.+]], %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[LAST]], #[[ID]]], {{.+}} ins(%arg0, %[[SUM]], %arg1 :
// CHECK: math.sqrt
// CHECK: arith.mulf
// CHECK-NEXT: arith.mulf
func.func @rms(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %y = "onnx.RMSNormalization"(%x, %s) {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// SwiGLU on f16: swish(a) * b computed in f32, rounded once.
// CHECK-LABEL: func.func @swiglu
// CHECK: ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[AW:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK: math.exp
// CHECK: %[[SW:.+]] = arith.mulf %[[AW]], %{{.+}} : f32
// CHECK: %[[Y:.+]] = arith.mulf %[[SW]], %{{.+}} : f32
// CHECK: arith.truncf %[[Y]] : f32 to f16
func.func @swiglu(%a: tensor<5xf16>, %b: tensor<5xf16>) -> tensor<5xf16> {
  %y = "onnx.SwiGLU"(%a, %b) {alpha = 2.0 : f32} : (tensor<5xf16>, tensor<5xf16>) -> tensor<5xf16>
  return %y : tensor<5xf16>
}

// -----

// Interleaved RotaryEmbedding: element d pairs with d xor 1 and reads the
// caches at [batch, seq, d / 2].
// CHECK-LABEL: func.func @rope
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK: %[[S:.+]] = linalg.index 2 : index
// CHECK: %[[D:.+]] = linalg.index 3 : index
// CHECK: arith.remui %[[D]], %c2
// CHECK: %[[K:.+]] = arith.divui %[[D]], %c2
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg1[%[[B]], %[[S]], %{{.+}}] : tensor<1x3x4xf32>
// CHECK: tensor.extract %arg2[%[[B]], %[[S]], %{{.+}}] : tensor<1x3x4xf32>
func.func @rope(%x: tensor<1x2x3x8xf32>, %c: tensor<1x3x4xf32>, %s: tensor<1x3x4xf32>) -> tensor<1x2x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.RotaryEmbedding"(%x, %c, %s, %none) {interleaved = 1 : i64} : (tensor<1x2x3x8xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, none) -> tensor<1x2x3x8xf32>
  return %y : tensor<1x2x3x8xf32>
}

// -----

// LRN (size 3): a window reduction over channels c - 1 .. c + 1, out-of-range
// channels adding zero, then x / (bias + alpha/size * sum)^beta.
// CHECK-LABEL: func.func @lrn
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.cmpi slt, %{{.+}}, %c5 : index
// CHECK: tensor.extract %arg0
// CHECK: math.powf
func.func @lrn(%x: tensor<1x5x2xf32>) -> tensor<1x5x2xf32> {
  %y = "onnx.LRN"(%x) {size = 3 : i64} : (tensor<1x5x2xf32>) -> tensor<1x5x2xf32>
  return %y : tensor<1x5x2xf32>
}

// -----

// GroupNormalization over a [N, G, C/G, ...] view: scale and bias are read
// at channel g * 3 + c.
// CHECK-DAG: #[[CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1 * 3 + d2)>
// CHECK-LABEL: func.func @group_norm
// CHECK: tensor.expand_shape %arg0 {{.+}} into tensor<1x2x3x2xf32>
// CHECK: linalg.generic {indexing_maps = [{{.+}}, {{.+}}, {{.+}}, #[[CH]], #[[CH]], {{.+}}]
// CHECK: tensor.collapse_shape {{.+}} into tensor<1x6x2xf32>
func.func @group_norm(%x: tensor<1x6x2xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<1x6x2xf32> {
  %y = "onnx.GroupNormalization"(%x, %s, %b) {num_groups = 2 : i64} : (tensor<1x6x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x2xf32>
  return %y : tensor<1x6x2xf32>
}
