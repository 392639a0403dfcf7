// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @bn_training

// Training mode: batch mean and variance over N and the spatial dims, then
// running = input * momentum + batch * (1 - momentum).
// CHECK-LABEL: func.func @bn_training
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>)
// CHECK: ^bb0(%[[OLD:.*]]: f32, %[[BATCH:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[KEEP:.*]] = arith.constant 8.000000e-01 : f32
// CHECK-DAG: %[[NEW:.*]] = arith.constant 0.199999988 : f32
// CHECK-DAG: arith.mulf %[[OLD]], %[[KEEP]] : f32
// CHECK-DAG: arith.mulf %[[BATCH]], %[[NEW]] : f32
// CHECK: arith.addf
// CHECK: math.sqrt
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>
func.func @bn_training(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) <{training_mode = 1 : i64, momentum = 0.8 : f32}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %rm, %rv : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>
}
