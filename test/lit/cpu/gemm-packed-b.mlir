// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s | FileCheck %s --check-prefix=STATIC
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// A MatMul whose B is a constant (a weight) passes a cache slot of its own:
// a zero-initialized mutable i64 global where the runtime keeps B packed
// after the first run. The slot goes right after the result.
// CHECK-DAG: memref.global "private" @[[SLOT:onnxc_packed_b_slot[_0-9]*]] : memref<1xi64> = dense<0> {alignment = 8 : i64}
// CHECK-DAG: func.func private @onnxc_rt_matmul_packed_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<*xf32>, memref<1xi64>, i32, f32, f32, i32, f32, f32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @onnxc_rt_matmul_packed_f32_r2_2_2_2(%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<1xi64>,
// CHECK-LABEL: func.func @constant_b
// CHECK: %[[S:.*]] = memref.get_global @[[SLOT]] : memref<1xi64>
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_2_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<1xi64>, i32, f32, f32, i32, f32, f32) -> ()
// CHECK-NOT: linalg.matmul
// With --emit static (gemm-kernel=false) nothing may allocate during a run:
// no slot, no packed call; the product stays loops.
// STATIC-NOT: onnxc_packed_b_slot
// STATIC-NOT: onnxc_rt_matmul
// STATIC-LABEL: func.func @constant_b
// STATIC: linalg.matmul
// The slot lowers to a writable LLVM global ("private constant" otherwise).
// LLVM: llvm.mlir.global private @onnxc_packed_b_slot(dense<0> : tensor<1xi64>)
// LLVM-LABEL: llvm.func @constant_b
// LLVM: llvm.mlir.addressof @onnxc_packed_b_slot
// LLVM: llvm.call @onnxc_rt_matmul_packed_f32_r2_2_2_2(
func.func @constant_b(%a: tensor<7x13xf32>) -> tensor<7x5xf32> {
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<13x5xf32>}> : () -> tensor<13x5xf32>
  %0 = "onnx.MatMul"(%a, %b) : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// Two Gemms with constant B (transposed) get one slot each; a B that is a
// function argument gets none and calls the plain entry point.
// CHECK-DAG: memref.global "private" @[[S1:onnxc_packed_b_slot[_0-9]*]] : memref<1xi64>
// CHECK-DAG: memref.global "private" @[[S2:onnxc_packed_b_slot[_0-9]*]] : memref<1xi64>
// CHECK-LABEL: func.func @two_sites_and_a_variable_b
// CHECK: %[[G1:.*]] = memref.get_global @[[S1]]
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_1_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G1]],
// CHECK: %[[G2:.*]] = memref.get_global @[[S2]]
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_1_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G2]],
// CHECK-NOT: memref.get_global
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2(
// CHECK-NOT: memref.get_global
// CHECK: return
// STATIC-NOT: onnxc_packed_b_slot
// STATIC-LABEL: func.func @two_sites_and_a_variable_b
// STATIC-NOT: onnxc_packed_b_slot
func.func @two_sites_and_a_variable_b(%a: tensor<4x8xf32>, %v: tensor<8x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %w1 = "onnx.Constant"() <{value = dense<0.25> : tensor<6x8xf32>}> : () -> tensor<6x8xf32>
  %w2 = "onnx.Constant"() <{value = dense<0.75> : tensor<6x8xf32>}> : () -> tensor<6x8xf32>
  %c = "onnx.Constant"() <{value = dense<1.0> : tensor<6xf32>}> : () -> tensor<6xf32>
  %0 = "onnx.Gemm"(%a, %w1, %c) <{transB = 1 : i64}> : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %1 = "onnx.Gemm"(%a, %w2, %c) <{transB = 1 : i64}> : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %2 = "onnx.MatMul"(%a, %v) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
