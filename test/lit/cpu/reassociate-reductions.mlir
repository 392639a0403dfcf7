// RUN: onnxc-opt --onnxc-reassociate-reductions --split-input-file %s | FileCheck %s

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m)>

// The combiner of a float row sum and of a row max become reassoc; the
// other ops of the payload keep exact semantics.
// CHECK-LABEL: func @sum_and_max
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @sum_and_max(%x: tensor<4x16xf32>, %acc: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    %y = arith.addf %o, %e : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(m, n) -> (m, n)>

// Elementwise generics are not reductions: their adds stay exact.
// CHECK-LABEL: func @elementwise
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fastmath
func.func @elementwise(%x: tensor<4x16xf32>, %init: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %o, %a : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (m)>

// An add that does not fold into the accumulator (here the yielded value is
// a select) is left alone.
// CHECK-LABEL: func @not_a_combiner
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fastmath
func.func @not_a_combiner(%x: tensor<4x16xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %o, %a : f32
    %c = arith.cmpf ogt, %a, %o : f32
    %z = arith.select %c, %a, %y : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
