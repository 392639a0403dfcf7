// RUN: onnxc-opt --onnxc-constant-folding=fold-dequantize=true -split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-constant-folding -split-input-file %s | FileCheck %s --check-prefix=KEEP

// DequantizeLinear of an integer constant (a weight the QDQ fusions left to
// a float op): (x - zero_point) * scale in f32, per axis (axis 0: scales
// 0.5 and 0.25, u8 zero points 128 and 0) and per tensor (s8, no zero
// point). Only with fold-dequantize: the graph optimizer's early folds
// must leave it for FuseQdq. (Each feeds an Add: a graph output stays its
// node's.)
// CHECK-LABEL: func.func @dequantize_linear
// CHECK-DAG: "onnx.Constant"() <{value = dense<{{\[}}[-6.400000e+01, 0.000000e+00, 6.350000e+01], [0.000000e+00, 3.200000e+01, 6.375000e+01]]> : tensor<2x3xf32>}>
// CHECK-DAG: "onnx.Constant"() <{value = dense<[-3.810000e+00, 0.000000e+00, 3.000000e-02]> : tensor<3xf32>}>
// CHECK-NOT: onnx.DequantizeLinear
// KEEP-LABEL: func.func @dequantize_linear
// KEEP-COUNT-2: onnx.DequantizeLinear
func.func @dequantize_linear(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %x = "onnx.Constant"() <{value = dense<[[0, 128, 255], [0, 128, 255]]> : tensor<2x3xui8>}> : () -> tensor<2x3xui8>
  %s = "onnx.Constant"() <{value = dense<[0.5, 0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %z = "onnx.Constant"() <{value = dense<[128, 0]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) <{axis = 0 : i64, block_size = 0 : i64, output_dtype = 0 : i64}> : (tensor<2x3xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x3xf32>
  %x2 = "onnx.Constant"() <{value = dense<[-127, 0, 1]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %s2 = "onnx.Constant"() <{value = dense<0.03> : tensor<f32>}> : () -> tensor<f32>
  %none = "onnx.NoValue"() : () -> none
  %d2 = "onnx.DequantizeLinear"(%x2, %s2, %none) <{axis = 1 : i64, block_size = 0 : i64, output_dtype = 0 : i64}> : (tensor<3xi8>, tensor<f32>, none) -> tensor<3xf32>
  %r = "onnx.Add"(%d, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r2 = "onnx.Add"(%d2, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r, %r2 : tensor<2x3xf32>, tensor<3xf32>
}
