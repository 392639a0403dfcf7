// RUN: onnxc-opt --onnxc-fuse-elementwise --split-input-file %s | FileCheck %s

// An expensive producer (erf) read by a matmul-like reduction through a map
// that drops the n loop stays its own op: fused, erf would run once per n.
// CHECK-LABEL: func @erf_into_matmul
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK-NOT: math.erf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, k) -> (m, k)>
func.func @erf_into_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                           %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.erf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A cheap producer (one add) fuses into the same reduction.
// CHECK-LABEL: func @add_into_matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, k) -> (m, k)>
func.func @add_into_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                           %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A division per row (LayerNorm's 1/sqrt(var + eps)) broadcast along the row
// is computed once per row, not once per element.
// CHECK-LABEL: func @rsqrt_broadcast
// CHECK: linalg.generic
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic
// CHECK-NOT: math.sqrt
// CHECK: arith.mulf
// CHECK: return
#row = affine_map<(m, n) -> (m)>
#id = affine_map<(m, n) -> (m, n)>
#v = affine_map<(m) -> (m)>
func.func @rsqrt_broadcast(%x: tensor<4x16xf32>, %var: tensor<4xf32>) -> tensor<4x16xf32> {
  %c1 = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %inv = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%var : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %i = arith.divf %c1, %s : f32
    linalg.yield %i : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv : tensor<4x16xf32>, tensor<4xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// exp feeding a row sum is read once per element: it fuses (Softmax's
// denominator needs no buffer of exponentials).
// CHECK-LABEL: func @exp_into_sum
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m)>
func.func @exp_into_sum(%x: tensor<4x16xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x16xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %o, %a : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
