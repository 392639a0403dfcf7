// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Conv with bias, asymmetric pads and strides, dynamic batch: tensor.pad of
// the spatial dims, the bias broadcast as the accumulator, and
// linalg.conv_2d_nchw_fchw.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv_bias_pads
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 0] high[0, 0, 2, 1]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<?x3x7x13xf32> to tensor<?x3x10x14xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<?x5x4x5xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}], {{.*}}} ins(%arg2 : tensor<5xf32>) outs(%[[EMPTY]] : tensor<?x5x4x5xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%[[PAD]], %arg1 : tensor<?x3x10x14xf32>, tensor<5x3x3x2xf32>) outs(%[[INIT]] : tensor<?x5x4x5xf32>)
func.func @conv_bias_pads(%x: tensor<?x3x7x13xf32>, %w: tensor<5x3x3x2xf32>, %b: tensor<5xf32>) -> tensor<?x5x4x5xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) <{pads = [1, 0, 2, 1], strides = [2, 3]}> : (tensor<?x3x7x13xf32>, tensor<5x3x3x2xf32>, tensor<5xf32>) -> tensor<?x5x4x5xf32>
  return %0 : tensor<?x5x4x5xf32>
}

// -----

// Depthwise (group == C == M) with auto_pad SAME_UPPER (the odd pad goes to
// the end): W loses its unit dim.
// CHECK-LABEL: func.func @conv_depthwise_same
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.fill
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<4x1x3x2xf32> into tensor<4x3x2xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[PAD]], %[[W]] : tensor<1x4x9x9xf32>, tensor<4x3x2xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
func.func @conv_depthwise_same(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x2xf32>) -> tensor<1x4x4x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{auto_pad = "SAME_UPPER", group = 4 : i64, strides = [2, 1]}> : (tensor<1x4x8x8xf32>, tensor<4x1x3x2xf32>, none) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// Two groups in 2-D: channel-split views and linalg.conv_2d_ngchw_gfchw.
// CHECK-LABEL: func.func @conv_groups
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 7, 8] : tensor<2x4x7x8xf32> into tensor<2x2x2x7x8xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[ACC:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 3, 5, 6] : tensor<2x6x5x6xf32> into tensor<2x2x3x5x6xf32>
// CHECK: %[[Y:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<2x2x2x7x8xf32>, tensor<2x3x2x3x3xf32>) outs(%[[ACC]] : tensor<2x2x3x5x6xf32>)
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x3x5x6xf32> into tensor<2x6x5x6xf32>
func.func @conv_groups(%x: tensor<2x4x7x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x6xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) <{group = 2 : i64}> : (tensor<2x4x7x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x6xf32>
  return %0 : tensor<2x6x5x6xf32>
}

// -----

// Grouped 1-D f16 Conv with dilation: a linalg.generic on the channel-split
// views accumulating in f32, rounded once at the end.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5 * 2)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_1d_groups_f16
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x2x2x10xf16>, tensor<2x3x2x3xf16>) outs(%{{.*}} : tensor<2x2x3x6xf32>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @conv_1d_groups_f16(%x: tensor<2x4x10xf16>, %w: tensor<6x2x3xf16>) -> tensor<2x6x6xf16> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{group = 2 : i64, dilations = [2]}> : (tensor<2x4x10xf16>, tensor<6x2x3xf16>, none) -> tensor<2x6x6xf16>
  return %0 : tensor<2x6x6xf16>
}

// -----

// 1-D and 3-D use their named ops; kernel_shape may restate W's shape.
// CHECK-LABEL: func.func @conv_1d
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
func.func @conv_1d(%x: tensor<2x3x13xf32>, %w: tensor<5x3x4xf32>) -> tensor<2x5x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{pads = [2, 1], strides = [2], dilations = [2], kernel_shape = [4]}> : (tensor<2x3x13xf32>, tensor<5x3x4xf32>, none) -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// CHECK-LABEL: func.func @conv_3d
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>}
// CHECK-SAME: outs(%{{.*}} : tensor<1x3x5x3x3xf32>)
func.func @conv_3d(%x: tensor<1x2x5x6x7xf32>, %w: tensor<3x2x3x2x3xf32>) -> tensor<1x3x5x3x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{pads = [1, 0, 1, 1, 1, 0], strides = [1, 2, 2]}> : (tensor<1x2x5x6x7xf32>, tensor<3x2x3x2x3xf32>, none) -> tensor<1x3x5x3x3xf32>
  return %0 : tensor<1x3x5x3x3xf32>
}

// -----

// Dynamic spatial dims with SAME_LOWER: the pads and output sizes are index
// arithmetic on the input dims.
// CHECK-LABEL: func.func @conv_dynamic_same
// CHECK: %[[H:.*]] = tensor.dim %arg0, %c2
// CHECK: arith.ceildivsi %[[H]], %c2
// CHECK: tensor.pad %arg0 low[0, 0, %{{.*}}, %{{.*}}] high[0, 0, %{{.*}}, %{{.*}}]
// CHECK: } : tensor<?x3x?x?xf32> to tensor<?x3x?x?xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<?x4x?x?xf32>)
func.func @conv_dynamic_same(%x: tensor<?x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{auto_pad = "SAME_LOWER", strides = [2, 2]}> : (tensor<?x3x?x?xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// ConvTranspose with strides: X is spread onto a zero buffer with a strided
// insert_slice (offset kernel span - pad), then a stride-1 generic reads it
// with the kernel flipped (index o + span - k). output_shape [6, 7] trims one
// element (total padding 1, at the beginning as ONNX Runtime does).
// CHECK-DAG: #[[CT_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 - d6 + 2, d4 - d7 + 2)>
// CHECK-DAG: #[[CT_W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-LABEL: func.func @conv_transpose_strided
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x8x9xf32>)
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %arg0 into %[[ZEROS]][0, 0, 1, 2] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x8x9xf32>
// CHECK: %[[IN:.*]] = tensor.expand_shape %[[SPREAD]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 1, 2, 8, 9]
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [1, 2, 3, 3, 3]
// CHECK: linalg.generic {indexing_maps = [#[[CT_IN]], #[[CT_W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[IN]], %[[W]] : tensor<1x1x2x8x9xf32>, tensor<1x2x3x3x3xf32>) outs(%{{.*}} : tensor<1x1x3x6x7xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x1x3x6x7xf32> into tensor<1x3x6x7xf32>
func.func @conv_transpose_strided(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x6x7xf32> {
  %0 = "onnx.ConvTranspose"(%x, %w, %b) <{strides = [2, 2], output_shape = [6, 7]}> : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x6x7xf32>
  return %0 : tensor<1x3x6x7xf32>
}

// -----

// Unit strides: the spread buffer is a plain tensor.pad; dynamic batch and
// spatial dims work.
// CHECK-LABEL: func.func @conv_transpose_dynamic
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, %{{.*}}, %{{.*}}]
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x1x2x?x?xf32>)
func.func @conv_transpose_dynamic(%x: tensor<?x3x?x?xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x2x?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<?x3x?x?xf32>, tensor<3x2x3x3xf32>, none) -> tensor<?x2x?x?xf32>
  return %0 : tensor<?x2x?x?xf32>
}
