// RUN: onnxc-opt --onnxc-expand-arith %s | FileCheck %s

// f32/f64 min/max stay (LLVM intrinsics, vectorizable reductions); f16
// min/max, ceil division and bf16 conversions are expanded.
// CHECK-LABEL: func @expand
// CHECK: arith.maximumf %{{.*}} : f32
// CHECK: arith.minnumf %{{.*}} : vector<4xf64>
// CHECK-NOT: arith.maximumf %{{.*}} : f16
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.extf %{{.*}} : bf16
// CHECK: return
func.func @expand(%a: f32, %v: vector<4xf64>, %h: f16, %i: i32, %b: bf16)
    -> (f32, vector<4xf64>, f16, i32, f32) {
  %0 = arith.maximumf %a, %a : f32
  %1 = arith.minnumf %v, %v : vector<4xf64>
  %2 = arith.maximumf %h, %h : f16
  %3 = arith.ceildivsi %i, %i : i32
  %4 = arith.extf %b : bf16 to f32
  return %0, %1, %2, %3, %4 : f32, vector<4xf64>, f16, i32, f32
}
