// RUN: onnxc-opt --onnxc-drop-qdq-around-data-movement --split-input-file %s | FileCheck %s

// A nearest Resize between a DQ and a Q with the same scale and zero point
// runs on the uint8 tensor; the pair goes.
// CHECK-LABEL: func.func @nearest_resize
// CHECK: %[[R:.*]] = "onnx.Resize"(%arg0, {{.*}}) <{{.*}}mode = "nearest"{{.*}}> : (tensor<1x2x3x3xui8>, {{.*}}) -> tensor<1x2x6x6xui8>
// CHECK-NOT: onnx.QuantizeLinear
// CHECK: return %[[R]]
func.func @nearest_resize(%q: tensor<1x2x3x3xui8>) -> tensor<1x2x6x6xui8> {
  %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %s2 = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z2 = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %none = "onnx.NoValue"() : () -> none
  %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %x = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<1x2x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xf32>
  %r = "onnx.Resize"(%x, %none, %scales, %none) <{mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}> : (tensor<1x2x3x3xf32>, none, tensor<4xf32>, none) -> tensor<1x2x6x6xf32>
  %y = "onnx.QuantizeLinear"(%r, %s2, %z2) : (tensor<1x2x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x6x6xui8>
  return %y : tensor<1x2x6x6xui8>
}

// -----

// Must not fire: the Q's zero point differs from the DQ's.
// CHECK-LABEL: func.func @other_zero_point
// CHECK: onnx.DequantizeLinear
// CHECK: "onnx.Transpose"({{.*}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: onnx.QuantizeLinear
func.func @other_zero_point(%q: tensor<2x3xi8>) -> tensor<3x2xi8> {
  %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<1> : tensor<i8>}> : () -> tensor<i8>
  %z2 = "onnx.Constant"() <{value = dense<2> : tensor<i8>}> : () -> tensor<i8>
  %x = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
  %t = "onnx.Transpose"(%x) <{perm = [1, 0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = "onnx.QuantizeLinear"(%t, %s, %z2) : (tensor<3x2xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  return %y : tensor<3x2xi8>
}

// -----

// Must not fire: a linear Resize computes new values.
// CHECK-LABEL: func.func @linear_resize
// CHECK: onnx.DequantizeLinear
// CHECK: onnx.QuantizeLinear
func.func @linear_resize(%q: tensor<1x2x3x3xui8>) -> tensor<1x2x6x6xui8> {
  %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %none = "onnx.NoValue"() : () -> none
  %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %x = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<1x2x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xf32>
  %r = "onnx.Resize"(%x, %none, %scales, %none) <{mode = "linear"}> : (tensor<1x2x3x3xf32>, none, tensor<4xf32>, none) -> tensor<1x2x6x6xf32>
  %y = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x2x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x6x6xui8>
  return %y : tensor<1x2x6x6xui8>
}
