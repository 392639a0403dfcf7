// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @bitwise_and
// LLVM: llvm.func @acosh

// Bitwise ops broadcast like the other binary ops and work on the bits.
// CHECK-LABEL: func.func @bitwise_and
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.andi %[[A]], %[[B]] : i32
func.func @bitwise_and(%a: tensor<3x4xi32>, %b: tensor<4xi32>) -> tensor<3x4xi32> {
  %0 = "onnx.BitwiseAnd"(%a, %b) : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// CHECK-LABEL: func.func @bitwise_or_xor
// CHECK: arith.ori
// CHECK: arith.xori
func.func @bitwise_or_xor(%a: tensor<3xi16>, %b: tensor<3xi16>) -> tensor<3xi16> {
  %0 = "onnx.BitwiseOr"(%a, %b) : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  %1 = "onnx.BitwiseXor"(%0, %b) : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  return %1 : tensor<3xi16>
}

// Not flips every bit: xor with all ones (unsigned types included).
// CHECK-LABEL: func.func @bitwise_not
// CHECK: ^bb0(%[[X:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[ONES:.*]] = arith.constant -1 : i8
// CHECK: arith.xori %[[X]], %[[ONES]] : i8
func.func @bitwise_not(%a: tensor<3xui8>) -> tensor<3xui8> {
  %0 = "onnx.BitwiseNot"(%a) : (tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// CHECK-LABEL: func.func @acosh
// CHECK: math.acosh
// CHECK: math.asinh
// CHECK: math.atanh
func.func @acosh(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Acosh"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "onnx.Asinh"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "onnx.Atanh"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// Shrink: x + bias below -lambd, x - bias above lambd, else 0.
// CHECK-LABEL: func.func @shrink
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[NEGL:.*]] = arith.constant -1.500000e+00 : f32
// CHECK-DAG: %[[L:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[BELOW:.*]] = arith.cmpf olt, %[[X]], %[[NEGL]] : f32
// CHECK-DAG: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[L]] : f32
// CHECK-DAG: %[[PLUS:.*]] = arith.addf %[[X]], %[[BIAS]] : f32
// CHECK-DAG: %[[MINUS:.*]] = arith.subf %[[X]], %[[BIAS]] : f32
// CHECK: %[[INNER:.*]] = arith.select %[[ABOVE]], %[[MINUS]], %{{.*}} : f32
// CHECK: arith.select %[[BELOW]], %[[PLUS]], %[[INNER]] : f32
func.func @shrink(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Shrink"(%a) <{lambd = 1.5 : f32, bias = 0.5 : f32}> : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
