// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// ReorderToBlocked: the channels zero-padded to whole blocks (20 -> 32),
// then one copy reading channel cb * 16 + b. Dynamic batch.
// CHECK-DAG: #[[TO:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 16 + d4, d2, d3)>
// CHECK-LABEL: func.func @to_blocked
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 12, 0, 0]
// CHECK: } : tensor<?x20x5x7xf32> to tensor<?x32x5x7xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TO]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[P]] : tensor<?x32x5x7xf32>) outs(%{{.*}} : tensor<?x2x5x7x16xf32>)
func.func @to_blocked(%x: tensor<?x20x5x7xf32>) -> tensor<?x2x5x7x16xf32> {
  %y = "onnxc.ReorderToBlocked"(%x) <{block_size = 16 : i64}> : (tensor<?x20x5x7xf32>) -> tensor<?x2x5x7x16xf32>
  return %y : tensor<?x2x5x7x16xf32>
}

// -----

// ReorderFromBlocked: one copy reading (n, c floordiv 16, h, w, c mod 16);
// the padding channels are never read.
// CHECK-DAG: #[[FROM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 floordiv 16, d2, d3, d1 mod 16)>
// CHECK-LABEL: func.func @from_blocked
// CHECK: linalg.generic {indexing_maps = [#[[FROM]], #{{.*}}]{{.*}} ins(%arg0 : tensor<?x2x5x7x16xf32>) outs(%{{.*}} : tensor<?x20x5x7xf32>)
func.func @from_blocked(%x: tensor<?x2x5x7x16xf32>) -> tensor<?x20x5x7xf32> {
  %y = "onnxc.ReorderFromBlocked"(%x) <{channels = 20 : i64}> : (tensor<?x2x5x7x16xf32>) -> tensor<?x20x5x7xf32>
  return %y : tensor<?x20x5x7xf32>
}

// -----

// BlockedConv, group 1, stride 2, pads 1: the spatial pad, the accumulator
// initialized with the blocked bias, the convolution with the output lane
// (d8) innermost and the weights read at (mo, cb, kh, kw, ci, mo-lane),
// then one epilogue generic adding Z and applying Relu. 20 input channels:
// the reduction is split into the whole first block and the 4 true lanes
// of the second (X and W sliced), so X's padding lanes, which may be inf or
// NaN, are never read.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6, d7)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d4, d5, d6, d7, d8)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d8)>
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], {{.*}}ins(%{{.*}} : tensor<2x16xf32>)
// CHECK: %[[W0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0, 0] [2, 1, 3, 3, 16, 16] [1, 1, 1, 1, 1, 1] : tensor<2x2x3x3x16x16xf32> to tensor<2x1x3x3x16x16xf32>
// CHECK: %[[X0:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0, 0] [%{{.*}}, 1, 10, 10, 16] [1, 1, 1, 1, 1] : tensor<?x2x10x10x16xf32> to tensor<?x1x10x10x16xf32>
// CHECK: %[[ACC0:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction", "parallel"]} ins(%[[X0]], %[[W0]] : tensor<?x1x10x10x16xf32>, tensor<2x1x3x3x16x16xf32>) outs(%[[INIT]] : tensor<?x2x4x4x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[W1:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0, 0, 0, 0] [2, 1, 3, 3, 4, 16] [1, 1, 1, 1, 1, 1] : tensor<2x2x3x3x16x16xf32> to tensor<2x1x3x3x4x16xf32>
// CHECK: %[[X1:.*]] = tensor.extract_slice %[[P]][0, 1, 0, 0, 0] [%{{.*}}, 1, 10, 10, 4] [1, 1, 1, 1, 1] : tensor<?x2x10x10x16xf32> to tensor<?x1x10x10x4xf32>
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], {{.*}} ins(%[[X1]], %[[W1]] : tensor<?x1x10x10x4xf32>, tensor<2x1x3x3x4x16xf32>) outs(%[[ACC0]] : tensor<?x2x4x4x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x2x4x4x16xf32>, tensor<?x2x4x4x16xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: onnxc.
func.func @conv(%x: tensor<?x2x8x8x16xf32>, %z: tensor<?x2x4x4x16xf32>) -> tensor<?x2x4x4x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<2x16xf32>}> : () -> tensor<2x16xf32>
  %y = "onnxc.BlockedConv"(%x, %w, %b, %z) <{activation = "Relu", dilations = [1, 1], group = 1 : i64, in_channels = 20 : i64, kernel_shape = [3, 3], out_channels = 24 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<?x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<2x16xf32>, tensor<?x2x4x4x16xf32>) -> tensor<?x2x4x4x16xf32>
  return %y : tensor<?x2x4x4x16xf32>
}

// -----

// Depthwise, dilation 2, no bias and no epilogue: a zero-filled accumulator
// and the convolution over (n, cb, oh, ow, kh, kw, lane) with the lane shared
// by input, weights and output, not split (a padding lane only feeds
// itself).
// CHECK-DAG: #[[DIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2 + d4 * 2, d3 + d5 * 2, d6)>
// CHECK-DAG: #[[DW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func @depthwise
// CHECK: tensor.pad %arg0 low[0, 0, 2, 2, 0] high[0, 0, 2, 2, 0]
// CHECK: linalg.fill
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[DIN]], #[[DW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK: return %[[R]]
func.func @depthwise(%x: tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3x3x16xf32>}> : () -> tensor<2x3x3x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{dilations = [2, 2], group = 20 : i64, in_channels = 20 : i64, out_channels = 20 : i64, pads = [2, 2, 2, 2]}> : (tensor<1x2x8x8x16xf32>, tensor<2x3x3x16xf32>, none, none) -> tensor<1x2x8x8x16xf32>
  return %y : tensor<1x2x8x8x16xf32>
}

// -----

// f16: accumulated in f32, rounded once in the epilogue. The 8 channels
// fill the block: one reduction, not split.
// CHECK-LABEL: func.func @conv_f16
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK-NOT: tensor.extract_slice
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf
func.func @conv_f16(%x: tensor<1x1x4x4x8xf16>) -> tensor<1x1x4x4x8xf16> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x1x1x1x8x8xf16>}> : () -> tensor<1x1x1x1x8x8xf16>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 8 : i64, out_channels = 8 : i64}> : (tensor<1x1x4x4x8xf16>, tensor<1x1x1x1x8x8xf16>, none, none) -> tensor<1x1x4x4x8xf16>
  return %y : tensor<1x1x4x4x8xf16>
}
