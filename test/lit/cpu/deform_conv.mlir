// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// Two groups over 4 channels, two offset groups, a mask and a bias. The
// columns generic [N, G, C/G, kh, kw, oh, ow] reads the two offsets of its
// tap (channel (og * 4 + tap) * 2 + i), samples the input at the 4 corners
// around the position (out-of-range corners contribute 0) and multiplies by
// the mask; W is split into [G, M/G, C/G, kh, kw] and contracted with the
// columns over (c, kh, kw); the bias is added after merging the groups.
// CHECK-DAG: #[[COLS:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d6, d7, d3, d4)>
// CHECK-DAG: #[[FILT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[ACC:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @groups
// CHECK: %[[COLUMNS:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x2x2x2x4x4xf32>)
// CHECK: tensor.extract %arg2[{{.+}}] : tensor<1x16x4x4xf32>
// CHECK: math.floor
// CHECK: tensor.extract %arg2[{{.+}}] : tensor<1x16x4x4xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %arg0[{{.+}}] : tensor<1x4x5x5xf32>
// CHECK: %[[MASK:.+]] = tensor.extract %arg4[{{.+}}] : tensor<1x8x4x4xf32>
// CHECK: %[[MASKED:.+]] = arith.mulf %{{.+}}, %[[MASK]]
// CHECK: linalg.yield %[[MASKED]]
// CHECK: %[[W:.+]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 2, 2]
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[COLS]], #[[FILT]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[COLUMNS]], %[[W]] :
// CHECK: %[[MERGED:.+]] = tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[MERGED]], %arg3 : tensor<1x6x4x4xf32>, tensor<6xf32>)
func.func @groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x2x2xf32>, %off: tensor<1x16x4x4xf32>, %b: tensor<6xf32>, %m: tensor<1x8x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %y = "onnx.DeformConv"(%x, %w, %off, %b, %m) <{group = 2 : i64, offset_group = 2 : i64, kernel_shape = [2, 2]}> : (tensor<1x4x5x5xf32>, tensor<6x2x2x2xf32>, tensor<1x16x4x4xf32>, tensor<6xf32>, tensor<1x8x4x4xf32>) -> tensor<1x6x4x4xf32> loc("dc")
  return %y : tensor<1x6x4x4xf32>
}

// -----

// 1-D f16 with stride, padding and dilation: positions are o * 2 - 1 + k * 2
// plus the offset, two corners per tap, accumulation in f32 and one rounding.
// CHECK-LABEL: func.func @strided_1d_f16
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x1x3x3x3xf32>)
// CHECK-COUNT-2: tensor.extract %arg0[{{.+}}] : tensor<2x3x8xf16>
// CHECK: linalg.yield
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @strided_1d_f16(%x: tensor<2x3x8xf16>, %w: tensor<5x3x3xf16>, %off: tensor<2x3x3xf16>) -> tensor<2x5x3xf16> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %n, %n) <{strides = [2], pads = [1, 1], dilations = [2]}> : (tensor<2x3x8xf16>, tensor<5x3x3xf16>, tensor<2x3x3xf16>, none, none) -> tensor<2x5x3xf16> loc("dc1")
  return %y : tensor<2x5x3xf16>
}
