// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s | FileCheck %s --check-prefix=STATIC

// MatMulInteger with a constant 2-D B: the int8 GEMM with the call site's
// slot (B packed once); flags 2 | 4 = s8 B, A zero point given. A's batch
// dim folds into rows on the C side.
// CHECK-DAG: memref.global "private" @[[SLOT:onnxc_packed_b_slot[_0-9]*]] : memref<1xi64>
// CHECK-DAG: func.func private @onnxc_rt_matmul_integer_packed(memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi32>, memref<1xi64>, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_integer_weight
// CHECK: %[[S:.*]] = memref.get_global @[[SLOT]]
// CHECK: %[[F:.*]] = arith.constant 6 : i32
// CHECK: %[[STATUS:.*]] = call @onnxc_rt_matmul_integer_packed_r3_0_3_3({{.*}}, %[[S]], %[[F]]) {{.*}} -> i32
// A nonzero status (no memory, operands that do not fit) becomes the run's
// error, kind 5, naming the node.
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[STATUS]]
// CHECK: scf.if %[[FAILED]]
// CHECK: func.call @onnxc_rt_shape_error_at(%c5_i32
// CHECK-NOT: linalg.matmul
// --emit static keeps the loops.
// STATIC-LABEL: func.func @matmul_integer_weight
// STATIC-NOT: onnxc_rt_matmul_integer
// STATIC: linalg.matmul
func.func @matmul_integer_weight(%a: tensor<2x7x13xui8>, %az: tensor<ui8>) -> tensor<2x7x5xi32> {
  %b = "onnx.Constant"() <{value = dense<3> : tensor<13x5xi8>}> : () -> tensor<13x5xi8>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %az, %none) : (tensor<2x7x13xui8>, tensor<13x5xi8>, tensor<ui8>, none) -> tensor<2x7x5xi32>
  return %0 : tensor<2x7x5xi32>
}

// -----

// A B that is an input: the plain entry point, packing per call. A
// batched B stays with the linalg lowering.
// CHECK-LABEL: func.func @matmul_integer_input_b
// CHECK: call @onnxc_rt_matmul_integer_r2_2_2_2(
// CHECK-NOT: onnxc_packed_b_slot
func.func @matmul_integer_input_b(%a: tensor<4x8xui8>, %b: tensor<8x3xui8>) -> tensor<4x3xi32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %none, %none) : (tensor<4x8xui8>, tensor<8x3xui8>, none, none) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

// CHECK-LABEL: func.func @matmul_integer_batched_b
// CHECK-NOT: call @onnxc_rt_matmul_integer
// CHECK: linalg.batch_matmul
func.func @matmul_integer_batched_b(%a: tensor<2x4x8xui8>, %b: tensor<2x8x3xi8>) -> tensor<2x4x3xi32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %none, %none) : (tensor<2x4x8xui8>, tensor<2x8x3xi8>, none, none) -> tensor<2x4x3xi32>
  return %0 : tensor<2x4x3xi32>
}

// -----

// DynamicQuantizeLinear: one call fills the u8 tensor and [scale, zero
// point]; the two scalars are loaded from that pair.
// CHECK-LABEL: func.func @dynamic_quantize
// CHECK: %[[P:.*]] = memref.alloc() : memref<2xf32>
// CHECK: call @onnxc_rt_dynamic_quantize_f32_r2({{.*}}, %[[P]])
// CHECK: memref.load %[[P]]
// CHECK: arith.fptoui {{.*}} : f32 to i8
// STATIC-LABEL: func.func @dynamic_quantize
// STATIC-NOT: onnxc_rt_dynamic_quantize
func.func @dynamic_quantize(%x: tensor<3x5xf32>) -> (tensor<3x5xui8>, tensor<f32>, tensor<ui8>) {
  %y, %s, %z = "onnx.DynamicQuantizeLinear"(%x) : (tensor<3x5xf32>) -> (tensor<3x5xui8>, tensor<f32>, tensor<ui8>)
  return %y, %s, %z : tensor<3x5xui8>, tensor<f32>, tensor<ui8>
}

// -----

// QLinearConv with a constant W: one call with every operand, the slot
// (W packed per group) and the resolved window (pads 1, strides 2,
// dilations 1, group 1); flags 2 | 8 | 16 = s8 W, bias, y zero point.
// CHECK-LABEL: func.func @qlinear_conv
// CHECK: %[[F:.*]] = arith.constant 26 : i32
// CHECK: call @onnxc_rt_qlinear_conv2d_r4_0_0_4_1_1_0_0_1_4({{.*}}, %[[F]],
// CHECK-SAME: memref<1xi64>, i32, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-NOT: linalg.conv
// STATIC-LABEL: func.func @qlinear_conv
// STATIC-NOT: onnxc_rt_qlinear_conv2d
func.func @qlinear_conv(%x: tensor<1x3x8x8xui8>) -> tensor<1x4x4x4xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %w = "onnx.Constant"() <{value = dense<1> : tensor<4x3x3x3xi8>}> : () -> tensor<4x3x3x3xi8>
  %ws = "onnx.Constant"() <{value = dense<0.25> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<4xi8>}> : () -> tensor<4xi8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
  %b = "onnx.Constant"() <{value = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %0 = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) <{pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x3x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<4x3x3x3xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, tensor<4xi32>) -> tensor<1x4x4x4xui8>
  return %0 : tensor<1x4x4x4xui8>
}

// -----

// QLinearMatMul with a constant B: one call requantizing in the GEMM's
// epilogue (flags 2 = s8 B), its status checked; no int32 product.
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: %[[STATUS:.*]] = call @onnxc_rt_qlinear_matmul_r2_0_0_2_1_1_0_0_2({{.*}}) {{.*}} -> i32
// CHECK: arith.cmpi ne, %[[STATUS]]
// CHECK-NOT: linalg.matmul
// STATIC-LABEL: func.func @qlinear_matmul
// STATIC-NOT: onnxc_rt_qlinear_matmul
func.func @qlinear_matmul(%a: tensor<4x8xui8>) -> tensor<4x3xui8> {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %az = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %b = "onnx.Constant"() <{value = dense<3> : tensor<8x3xi8>}> : () -> tensor<8x3xi8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<3xf32>}> : () -> tensor<3xf32>
  %bz = "onnx.Constant"() <{value = dense<0> : tensor<3xi8>}> : () -> tensor<3xi8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<10> : tensor<ui8>}> : () -> tensor<ui8>
  %0 = "onnx.QLinearMatMul"(%a, %as, %az, %b, %bs, %bz, %ys, %yz) : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>, tensor<8x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>) -> tensor<4x3xui8>
  return %0 : tensor<4x3xui8>
}
