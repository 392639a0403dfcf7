// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// MaxPool, ceil_mode, dynamic batch: pad the end with the lowest float for
// the last (partial) window, then a window reduction with arith.maxnumf
// (NaN is ignored, as ONNX Runtime does).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[LOWEST]] : f32
// CHECK: } : tensor<?x3x7x7xf32> to tensor<?x3x8x8xf32>
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<2x2xi1>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x3x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %[[WINDOW]] : tensor<?x3x8x8xf32>, tensor<2x2xi1>) outs(%[[INIT]] : tensor<?x3x4x4xf32>)
// CHECK: arith.maxnumf
func.func @maxpool_ceil(%x: tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1 : i64}> : (tensor<?x3x7x7xf32>) -> (tensor<?x3x4x4xf32>, none)
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// Integer MaxPool: padding with the type's minimum, signed or unsigned max.
// CHECK-LABEL: func.func @maxpool_int8
// CHECK: arith.constant -128 : i8
// CHECK: arith.maxsi
func.func @maxpool_int8(%x: tensor<1x2x5x5xi8>) -> tensor<1x2x5x5xi8> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x2x5x5xi8>) -> (tensor<1x2x5x5xi8>, none)
  return %0 : tensor<1x2x5x5xi8>
}

// CHECK-LABEL: func.func @maxpool_uint8
// CHECK: tensor.pad
// CHECK: tensor.yield %c0_i8 : i8
// CHECK: arith.maxui
func.func @maxpool_uint8(%x: tensor<1x2x5x5xui8>) -> tensor<1x2x5x5xui8> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [3, 3], pads = [1, 1, 1, 1]}> : (tensor<1x2x5x5xui8>) -> (tensor<1x2x5x5xui8>, none)
  return %0 : tensor<1x2x5x5xui8>
}

// -----

// A used Indices output: values and flat offsets of the first maximum are
// updated together (strict >), offsets row-major over the whole input.
// CHECK-LABEL: func.func @maxpool_indices
// CHECK: %[[VALS:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>)
// CHECK: linalg.index 2
// CHECK: linalg.index 4
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.select
// CHECK: return %[[VALS]]#0, %[[VALS]]#1
func.func @maxpool_indices(%x: tensor<1x2x7x8xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>) {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [3, 2], strides = [2, 2]}> : (tensor<1x2x7x8xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>)
  return %0, %1 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xi64>
}

// -----

// AveragePool whose windows are all full: a sum, then a division by the
// constant kernel size.
// CHECK-LABEL: func.func @avgpool_full_windows
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.addf
// CHECK: %[[NINE:.*]] = arith.constant 9.000000e+00 : f32
// CHECK: linalg.generic
// CHECK-NOT: linalg.index
// CHECK: arith.divf %{{.*}}, %[[NINE]]
func.func @avgpool_full_windows(%x: tensor<?x3x7x7xf32>) -> tensor<?x3x3x3xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [3, 3], strides = [2, 2]}> : (tensor<?x3x7x7xf32>) -> tensor<?x3x3x3xf32>
  return %0 : tensor<?x3x3x3xf32>
}

// -----

// Padded AveragePool without count_include_pad: zero padding, and the
// divisor counts the window taps inside the input, from the output index.
// CHECK-LABEL: func.func @avgpool_exclude_pad
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %cst : f32
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: linalg.index 2
// CHECK: arith.ceildivsi
// CHECK: arith.floordivsi
// CHECK: linalg.index 3
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @avgpool_exclude_pad(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// count_include_pad with explicit pads and no ceil_mode: every window lies in
// the padded input, so the divisor is the constant kernel size.
// CHECK-LABEL: func.func @avgpool_include_pad
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: arith.constant 9.000000e+00 : f32
// CHECK-NOT: linalg.index
func.func @avgpool_include_pad(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1], count_include_pad = 1 : i64}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// 3-D f16 AveragePool accumulates in f32.
// CHECK-LABEL: func.func @avgpool_3d_f16
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x2x3x3xf32>)
// CHECK: arith.extf
// CHECK: arith.truncf
func.func @avgpool_3d_f16(%x: tensor<1x2x4x6x6xf16>) -> tensor<1x2x2x3x3xf16> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2, 2, 2], strides = [2, 2, 2]}> : (tensor<1x2x4x6x6xf16>) -> tensor<1x2x2x3x3xf16>
  return %0 : tensor<1x2x2x3x3xf16>
}

// -----

// auto_pad SAME with a kernel shorter than the stride needs a negative pad:
// the input is cut instead (ONNX Runtime starts the windows inside it).
// CHECK-LABEL: func.func @avgpool_same_negative_pad
// CHECK: tensor.extract_slice %arg0[0, 0, 1] [1, 1, 6] [1, 1, 1] : tensor<1x1x8xf32> to tensor<1x1x6xf32>
func.func @avgpool_same_negative_pad(%x: tensor<1x1x8xf32>) -> tensor<1x1x2xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2], strides = [4], auto_pad = "SAME_UPPER"}> : (tensor<1x1x8xf32>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

// LpPool p = 2: sum of squares, then a square root.
// CHECK-LABEL: func.func @lppool
// CHECK: math.absf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.sqrt
func.func @lppool(%x: tensor<1x2x7x8xf32>) -> tensor<1x2x4x5xf32> {
  %0 = "onnx.LpPool"(%x) <{kernel_shape = [3, 2], strides = [2, 2], pads = [1, 1, 1, 1]}> : (tensor<1x2x7x8xf32>) -> tensor<1x2x4x5xf32>
  return %0 : tensor<1x2x4x5xf32>
}
