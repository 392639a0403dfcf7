// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg %s \
// RUN:   | FileCheck %s --check-prefix=LOOPS

// With the runtime's GEMM declared, a recurrent node's f32 products are its
// calls: X * W^T once before the loop, and each step's H * R^T (and GRU's
// (r * H) * Rh^T without linear_before_reset) inside it, where the hidden
// state's few rows take the GEMM's small-M path. --emit static
// (gemm-kernel=false) keeps the linalg products.
// CHECK-LABEL: func.func @gru_reverse_lens
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2({{.*}}, %c2_i32{{(_[0-9]+)?}},
// CHECK: scf.for
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2({{.*}}, %c2_i32{{(_[0-9]+)?}},
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2({{.*}}, %c2_i32{{(_[0-9]+)?}},
// CHECK-NOT: linalg.matmul_transpose_b
// LOOPS-LABEL: func.func @gru_reverse_lens
// LOOPS-NOT: call @onnxc_rt_matmul
// LOOPS: linalg.matmul_transpose_b
func.func @gru_reverse_lens(%x: tensor<?x2x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>, %lens: tensor<2xi32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %none, %lens, %none) <{direction = "reverse", hidden_size = 4 : i64}> : (tensor<?x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, tensor<2xi32>, none) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>)
  return %y, %yh : tensor<?x1x2x4xf32>, tensor<1x2x4xf32>
}
