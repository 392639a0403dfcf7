// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// Per-axis QuantizeLinear to uint8: x / scale, rounded half to even, plus the
// zero point, saturated to [0, 255].
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[AXIS:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_per_axis
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[AXIS]], #[[AXIS]], #[[ID]]]
// CHECK: arith.divf
// CHECK: arith.uitofp
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK: arith.trunci {{.*}} : i32 to i8
// CHECK: -> tensor<2x3xi8>
func.func @quantize_per_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Blocked DequantizeLinear of int4: the scale is read at (i, j floordiv 2).
// CHECK-DAG: #[[BLOCK:.+]] = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
// CHECK-LABEL: func.func @dequantize_blocked
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[BLOCK]], #[[BLOCK]], #{{.+}}]
// CHECK-SAME: ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>)
// CHECK: arith.sitofp {{.*}} : i4 to f32
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @dequantize_blocked(%x: tensor<2x4xi4>, %s: tensor<2x2xf32>, %z: tensor<2x2xi4>) -> tensor<2x4xf32> {
  %0 = "onnx.DequantizeLinear"(%x, %s, %z) <{axis = 1 : i64, block_size = 2 : i64}> : (tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// float8 values are their i8 encodings: a Cast to f8E4M3FN encodes the f32
// bits with integer arithmetic; saturate = 0 makes overflow NaN (0x7F = 127).
// CHECK-LABEL: func.func @cast_to_float8
// CHECK-SAME: -> tensor<4xi8>
// CHECK: linalg.generic
// CHECK: arith.bitcast {{.*}} : f32 to i32
// CHECK: math.roundeven
// CHECK: arith.constant 127 : i32
// CHECK: arith.trunci {{.*}} : i32 to i8
func.func @cast_to_float8(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = "onnx.Cast"(%x) <{to = 17 : i64, saturate = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Decoding float8 (f8E5M2) to f16 goes through f32.
// CHECK-LABEL: func.func @cast_from_float8
// CHECK-SAME: (%{{.+}}: tensor<4xi8>
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.bitcast {{.*}} : i32 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @cast_from_float8(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = "onnx.Cast"(%x) <{to = 10 : i64}> : (tensor<4xf8E5M2>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// BitCast between equal widths is arith.bitcast per element.
// CHECK-LABEL: func.func @bitcast
// CHECK: arith.bitcast {{.*}} : f32 to i32
func.func @bitcast(%x: tensor<3xf32>) -> tensor<3xi32> {
  %0 = "onnx.BitCast"(%x) <{to = 6 : i64}> : (tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// DynamicQuantizeLinear: two full reductions (min and max with 0), then one
// quantizing pass.
// CHECK-LABEL: func.func @dynamic_quantize
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: tensor.extract
// CHECK: linalg.generic
// CHECK: arith.fptoui
// CHECK: tensor.from_elements
func.func @dynamic_quantize(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  %y, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  return %y, %s, %z : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}
