// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// Multidirectional broadcasting, static.
// CHECK-LABEL: func.func @broadcast_static
// CHECK-SAME: -> tensor<2x3x4xf32>
func.func @broadcast_static(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> !onnx.unknown {
  // CHECK: "onnx.Add"{{.*}} -> tensor<2x3x4xf32>
  %0 = "onnx.Add"(%a, %b) : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// Dynamic dims: ? vs n -> n, ? vs 1 -> ?, ? vs ? -> ?, scalar operand.
// CHECK-LABEL: func.func @broadcast_dynamic
func.func @broadcast_dynamic(%a: tensor<?x?x1xf32>, %b: tensor<4x1x?xf32>, %s: tensor<f32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Mul"{{.*}} -> tensor<4x?x?xf32>
  %0 = "onnx.Mul"(%a, %b) : (tensor<?x?x1xf32>, tensor<4x1x?xf32>) -> !onnx.unknown
  // CHECK: "onnx.Sub"{{.*}} -> tensor<?x?x1xf32>
  %1 = "onnx.Sub"(%a, %s) : (tensor<?x?x1xf32>, tensor<f32>) -> !onnx.unknown
  // CHECK: "onnx.Div"{{.*}} -> tensor<4x?x?xf32>
  %2 = "onnx.Div"(%b, %a) : (tensor<4x1x?xf32>, tensor<?x?x1xf32>) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Comparisons give bool (i1); logical ops stay bool; element types are kept
// (ui8 stays unsigned).
// CHECK-LABEL: func.func @types
func.func @types(%a: tensor<5xui8>, %b: tensor<1xui8>, %c: tensor<5xi1>, %f: tensor<3x5xf16>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Max"{{.*}} -> tensor<5xui8>
  %0 = "onnx.Max"(%a, %b) : (tensor<5xui8>, tensor<1xui8>) -> !onnx.unknown
  // CHECK: "onnx.Equal"{{.*}} -> tensor<5xi1>
  %1 = "onnx.Equal"(%a, %b) : (tensor<5xui8>, tensor<1xui8>) -> !onnx.unknown
  // CHECK: "onnx.GreaterOrEqual"{{.*}} -> tensor<3x5xi1>
  %2 = "onnx.GreaterOrEqual"(%f, %f) : (tensor<3x5xf16>, tensor<3x5xf16>) -> !onnx.unknown
  // CHECK: "onnx.Xor"{{.*}} -> tensor<5xi1>
  %3 = "onnx.Xor"(%c, %1) : (tensor<5xi1>, !onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.BitShift"{{.*}} -> tensor<5xui8>
  %4 = "onnx.BitShift"(%a, %b) <{direction = "LEFT"}> : (tensor<5xui8>, tensor<1xui8>) -> !onnx.unknown
  // CHECK: "onnx.Not"{{.*}} -> tensor<5xi1>
  %5 = "onnx.Not"(%c) : (tensor<5xi1>) -> !onnx.unknown
  // CHECK: "onnx.IsNaN"{{.*}} -> tensor<3x5xi1>
  %6 = "onnx.IsNaN"(%f) : (tensor<3x5xf16>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5, %6 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Variadic ops broadcast all inputs; Pow keeps the base's type; Where takes
// X's type and broadcasts all three; PRelu broadcasts the slope.
// CHECK-LABEL: func.func @nary
func.func @nary(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>, %c: tensor<?x1x1xf32>, %e: tensor<i64>, %cond: tensor<2x3xi1>, %slope: tensor<3x1x1xf32>, %x: tensor<1x3x8x8xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.Sum"{{.*}} -> tensor<?x2x3xf32>
  %0 = "onnx.Sum"(%a, %b, %c) : (tensor<2x1xf32>, tensor<1x3xf32>, tensor<?x1x1xf32>) -> !onnx.unknown
  // CHECK: "onnx.Mean"{{.*}} -> tensor<2x3xf32>
  %1 = "onnx.Mean"(%a, %b) : (tensor<2x1xf32>, tensor<1x3xf32>) -> !onnx.unknown
  // CHECK: "onnx.Min"{{.*}} -> tensor<2x1xf32>
  %2 = "onnx.Min"(%a) : (tensor<2x1xf32>) -> !onnx.unknown
  // CHECK: "onnx.Pow"{{.*}} -> tensor<2x1xf32>
  %3 = "onnx.Pow"(%a, %e) : (tensor<2x1xf32>, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.Where"{{.*}} -> tensor<2x3xf32>
  %4 = "onnx.Where"(%cond, %a, %b) : (tensor<2x3xi1>, tensor<2x1xf32>, tensor<1x3xf32>) -> !onnx.unknown
  // CHECK: "onnx.PRelu"{{.*}} -> tensor<1x3x8x8xf32>
  %5 = "onnx.PRelu"(%x, %slope) : (tensor<1x3x8x8xf32>, tensor<3x1x1xf32>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Unary ops keep the input's type, including Clip with omitted bounds and
// Mod/Gelu/Identity.
// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<?x7xbf16>, %i: tensor<4xi32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Sigmoid"{{.*}} -> tensor<?x7xbf16>
  %0 = "onnx.Sigmoid"(%x) : (tensor<?x7xbf16>) -> !onnx.unknown
  // CHECK: "onnx.Gelu"{{.*}} -> tensor<?x7xbf16>
  %1 = "onnx.Gelu"(%0) : (!onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Clip"{{.*}} -> tensor<?x7xbf16>
  %2 = "onnx.Clip"(%1, %n, %n) : (!onnx.unknown, none, none) -> !onnx.unknown
  // CHECK: "onnx.Abs"{{.*}} -> tensor<4xi32>
  %3 = "onnx.Abs"(%i) : (tensor<4xi32>) -> !onnx.unknown
  // CHECK: "onnx.Mod"{{.*}} -> tensor<4xi32>
  %4 = "onnx.Mod"(%3, %i) : (!onnx.unknown, tensor<4xi32>) -> !onnx.unknown
  // CHECK: "onnx.Identity"{{.*}} -> tensor<?x7xbf16>
  %5 = "onnx.Identity"(%2) : (!onnx.unknown) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// An op with an untyped operand, or without a rule, is left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME: -> (!onnx.unknown {onnxc.rank_lost_at = {{.*}}}, !onnx.unknown {onnxc.rank_lost_at = {{.*}}})
func.func @left_alone(%x: tensor<4xf32>) -> (!onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.StringNormalizer"{{.*}} -> !onnx.unknown
  %0 = "onnx.StringNormalizer"(%x) : (tensor<4xf32>) -> !onnx.unknown
  // CHECK: "onnx.Relu"{{.*}} -> !onnx.unknown
  %1 = "onnx.Relu"(%0) : (!onnx.unknown) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}
