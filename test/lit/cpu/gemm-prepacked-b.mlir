// RUN: onnxc-opt --onnxc-prepack-gemm-weights=isa=3 --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-prepack-gemm-weights=isa=0 --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s --check-prefix=NONE
// RUN: onnxc-opt --onnxc-prepack-gemm-weights=isa=3 --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// A Gemm with a constant transposed B: op(B) (3 x 2) is packed at compile
// time in the AVX-512 layout (isa=3: NR = 32, so each of the 3 rows is one
// 32-float panel row, zero-padded) into a constant global, which the call
// passes instead of B, followed by the slot, the ISA, K = 3 and N = 2, and
// flags without transB (the packed copy is op(B)); bias flag 4 stays.
// CHECK: memref.global "private" @[[SLOT:onnxc_packed_b_slot[_0-9]*]] : memref<1xi64>
// CHECK: memref.global "private" constant @[[PACKED:onnxc_prepacked_b[_0-9]*]] : memref<96xf32> = dense<[1.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 2.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 3.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK-DAG: %[[S:.*]] = memref.get_global @[[SLOT]] : memref<1xi64>
// CHECK-DAG: %[[P:.*]] = memref.get_global @[[PACKED]] : memref<96xf32>
// CHECK-DAG: %[[PC:.*]] = memref.cast %[[P]] : memref<96xf32> to memref<?xf32>
// CHECK-DAG: %[[ISA:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK: call @onnxc_rt_matmul_prepacked_f32_r2_1_1_2(%{{.*}}, %[[PC]], %{{.*}}, %{{.*}}, %[[S]], %[[ISA]], %[[K]], %[[N]], %[[FLAGS]],
// Without a known layout (isa=0) the runtime packs B on the first run.
// NONE-NOT: onnxc_prepacked_b
// NONE-LABEL: func.func @gemm_trans_b
// NONE: call @onnxc_rt_matmul_packed_f32_r2_2_1_2(
// After lowering only the packed copy is left: the original weight (values
// 1..6 in B's row-major order) is not emitted.
// LLVM: llvm.mlir.global private constant @onnxc_prepacked_b(dense<[1.000000e+00, 4.000000e+00,
// LLVM-NOT: dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00
// LLVM-LABEL: llvm.func @gemm_trans_b
// LLVM: llvm.call @onnxc_rt_matmul_prepacked_f32_r2_1_1_2(
func.func @gemm_trans_b(%a: tensor<20x3xf32>) -> tensor<20x2xf32> {
  %b = "onnx.Constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %c = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "onnx.Gemm"(%a, %b, %c) <{transB = 1 : i64}> : (tensor<20x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<20x2xf32>
  return %0 : tensor<20x2xf32>
}

// -----

// Left to the runtime: 4 rows (multiplied without packing B), a weight
// with a second user (packing it would emit it twice), a row count that is
// all dynamic (it may be 1). Packed: a MatMul whose batch dims make 2 x 10
// rows, and one with a dynamic batch of 8-row matrices (at least 8 rows).
// CHECK-LABEL: func.func @what_is_packed
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_2_2(
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_2_2(
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_2_2(
// CHECK: call @onnxc_rt_matmul_packed_f32_r2_2_2_2(
// CHECK: call @onnxc_rt_matmul_prepacked_f32_r3_1_3_3(
// CHECK: call @onnxc_rt_matmul_prepacked_f32_r3_1_3_3(
func.func @what_is_packed(%a4: tensor<4x8xf32>, %a: tensor<20x8xf32>, %d: tensor<?x8xf32>, %batched: tensor<2x10x8xf32>, %dynbatch: tensor<?x8x8xf32>) -> (tensor<4x6xf32>, tensor<20x6xf32>, tensor<20x6xf32>, tensor<?x6xf32>, tensor<2x10x6xf32>, tensor<?x8x6xf32>) {
  %w1 = "onnx.Constant"() <{value = dense<0.25> : tensor<8x6xf32>}> : () -> tensor<8x6xf32>
  %w2 = "onnx.Constant"() <{value = dense<0.5> : tensor<8x6xf32>}> : () -> tensor<8x6xf32>
  %w3 = "onnx.Constant"() <{value = dense<0.75> : tensor<8x6xf32>}> : () -> tensor<8x6xf32>
  %w4 = "onnx.Constant"() <{value = dense<1.5> : tensor<8x6xf32>}> : () -> tensor<8x6xf32>
  %w5 = "onnx.Constant"() <{value = dense<2.5> : tensor<8x6xf32>}> : () -> tensor<8x6xf32>
  %0 = "onnx.MatMul"(%a4, %w1) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = "onnx.MatMul"(%a, %w2) : (tensor<20x8xf32>, tensor<8x6xf32>) -> tensor<20x6xf32>
  %2 = "onnx.MatMul"(%a, %w2) : (tensor<20x8xf32>, tensor<8x6xf32>) -> tensor<20x6xf32>
  %3 = "onnx.MatMul"(%d, %w3) : (tensor<?x8xf32>, tensor<8x6xf32>) -> tensor<?x6xf32>
  %4 = "onnx.MatMul"(%batched, %w4) : (tensor<2x10x8xf32>, tensor<8x6xf32>) -> tensor<2x10x6xf32>
  %5 = "onnx.MatMul"(%dynbatch, %w5) : (tensor<?x8x8xf32>, tensor<8x6xf32>) -> tensor<?x8x6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x6xf32>, tensor<20x6xf32>, tensor<20x6xf32>, tensor<?x6xf32>, tensor<2x10x6xf32>, tensor<?x8x6xf32>
}
