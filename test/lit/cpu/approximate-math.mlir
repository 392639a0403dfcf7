// RUN: onnxc-opt --onnxc-approximate-math %s | FileCheck %s

// f32 exp, erf and tanh become arith polynomials (no math call left for
// them); f64 exp and f32 log keep their math ops (libm later).
// CHECK-LABEL: func @approximated
// CHECK-NOT: math.exp %{{.*}} : f32
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.log %{{.*}} : f32
// CHECK: return
func.func @approximated(%x: f32, %d: f64) -> (f32, f32, f32, f64, f32) {
  %e = math.exp %x : f32
  %r = math.erf %x : f32
  %t = math.tanh %x : f32
  %ed = math.exp %d : f64
  %l = math.log %x : f32
  return %e, %r, %t, %ed, %l : f32, f32, f32, f64, f32
}

// The approximation is arithmetic with fma, which vectorizes.
// CHECK-LABEL: func @exp_is_arith
// CHECK: math.fma
// CHECK: arith.bitcast
func.func @exp_is_arith(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
