// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s
// Shape chains that compute their split points with Mod, as the TorchScript
// exporter writes torch's unflatten (torchvision's ViT attention splits its
// packed QKV projection this way): Mod must fold, or the Slice bounds, the
// Concat and the Reshape all lose their lengths and the graph its ranks.

// The ViT-B/16 attention's QKV split, [197, batch, 2304] ->
// [197, batch, 3, 768], with the dim to unflatten normalized by Mod(2, 3).
// CHECK-LABEL: func.func @vit_qkv_unflatten
// CHECK-SAME: -> tensor<197x?x3x768xf32>
func.func @vit_qkv_unflatten(%x: tensor<197x?x2304xf32>) -> !onnx.unknown {
  %none = "onnx.NoValue"() : () -> none
  %s = "onnx.Shape"(%x) : (tensor<197x?x2304xf32>) -> !onnx.unknown
  %dim = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %rank = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Mod"{{.*}} -> tensor<1xi64>
  %axis = "onnx.Mod"(%dim, %rank) <{fmod = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  %one = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %zero = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %end = "onnx.Reshape"(%axis, %one) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  // CHECK: "onnx.Slice"{{.*}} -> tensor<2xi64>
  %lead = "onnx.Slice"(%s, %zero, %end, %none, %none) : (!onnx.unknown, tensor<1xi64>, !onnx.unknown, none, none) -> !onnx.unknown
  %next = "onnx.Add"(%axis, %one) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %start = "onnx.Reshape"(%next, %one) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %max = "onnx.Constant"() <{value = dense<9223372036854775807> : tensor<1xi64>}> : () -> tensor<1xi64>
  // CHECK: "onnx.Slice"{{.*}} -> tensor<0xi64>
  %trail = "onnx.Slice"(%s, %start, %max, %none, %none) : (!onnx.unknown, !onnx.unknown, tensor<1xi64>, none, none) -> !onnx.unknown
  %split = "onnx.Constant"() <{value = dense<[3, 768]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // CHECK: "onnx.Concat"{{.*}} -> tensor<4xi64>
  %shape = "onnx.Concat"(%lead, %split, %trail) <{axis = 0 : i64}> : (!onnx.unknown, tensor<2xi64>, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Reshape"{{.*}} -> tensor<197x?x3x768xf32>
  %r = "onnx.Reshape"(%x, %shape) : (tensor<197x?x2304xf32>, !onnx.unknown) -> !onnx.unknown
  return %r : !onnx.unknown
}

// The sign rules of ONNX Mod on integers: without fmod the remainder takes
// the divisor's sign (-7 mod 3 = 2, 7 mod -3 = -2, -7 mod -3 = -1), with
// fmod the dividend's (-7 fmod 3 = -1, 7 fmod -3 = 1). The known values show
// as the dims of a ConstantOfShape (plus 10, to keep them positive).
// CHECK-LABEL: func.func @mod_signs
// CHECK-SAME: -> (tensor<12x8x9x10xf32>, tensor<9x11x9x10xf32>, tensor<?xi64>)
func.func @mod_signs() -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %a = "onnx.Constant"() <{value = dense<[-7, 7, -7, 8]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %b = "onnx.Constant"() <{value = dense<[3, -3, -3, 4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %ten = "onnx.Constant"() <{value = dense<10> : tensor<1xi64>}> : () -> tensor<1xi64>
  %m = "onnx.Mod"(%a, %b) <{fmod = 0 : i64}> : (tensor<4xi64>, tensor<4xi64>) -> !onnx.unknown
  %m10 = "onnx.Add"(%m, %ten) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %c = "onnx.ConstantOfShape"(%m10) : (!onnx.unknown) -> !onnx.unknown
  %f = "onnx.Mod"(%a, %b) <{fmod = 1 : i64}> : (tensor<4xi64>, tensor<4xi64>) -> !onnx.unknown
  %f10 = "onnx.Add"(%f, %ten) : (!onnx.unknown, tensor<1xi64>) -> !onnx.unknown
  %d = "onnx.ConstantOfShape"(%f10) : (!onnx.unknown) -> !onnx.unknown
  // A zero divisor is not folded: the Slice's length stays unknown.
  %z = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %bad = "onnx.Mod"(%two, %z) <{fmod = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> !onnx.unknown
  %none = "onnx.NoValue"() : () -> none
  %e = "onnx.Slice"(%a, %z, %bad, %none, %none) : (tensor<4xi64>, tensor<1xi64>, !onnx.unknown, none, none) -> !onnx.unknown
  return %c, %d, %e : !onnx.unknown, !onnx.unknown, !onnx.unknown
}
