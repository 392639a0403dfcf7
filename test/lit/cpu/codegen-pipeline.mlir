// RUN: onnxc-opt --onnxc-cpu-lowering %s | FileCheck %s
// RUN: onnxc-opt --onnxc-cpu-lowering=opt-level=0 %s | FileCheck %s --check-prefix=O0

// What the cpu pipeline hands LLVM for a Softmax-like row: a max reduction
// as llvm.intr.maximum and a sum whose add may be reassociated (both
// vectorizable reductions), exp as inline polynomial arithmetic instead of a
// libm call, and buffers from aligned_alloc (no pointer arithmetic hiding
// them from alias analysis). -O0 keeps exact libm code.
// CHECK-LABEL: llvm.func @row_softmax_parts
// CHECK: llvm.call @aligned_alloc
// CHECK: llvm.intr.maximum
// CHECK: llvm.intr.fma
// CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>}
// CHECK-NOT: llvm.intr.exp
// O0-LABEL: llvm.func @row_softmax_parts
// O0: llvm.intr.exp
// O0-NOT: fastmath<reassoc>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m)>
func.func @row_softmax_parts(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %o, %a : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<4x16xf32>, tensor<4xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x2 = math.exp %d : f32
    %y = arith.addf %o, %x2 : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %max, %sum : tensor<4xf32>, tensor<4xf32>
}
