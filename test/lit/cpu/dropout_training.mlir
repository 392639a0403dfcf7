// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @dropout_runtime_mode

// Run-time ratio and training mode: an element survives when training is
// off or its hashed position u >= ratio; survivors scale by 1 / (1 - ratio).
// CHECK-LABEL: func.func @dropout_runtime_mode
// CHECK-DAG: %[[R:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK-DAG: %[[T:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[SCALE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[U:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpf oge, %[[U]], %[[R]] : f32
// CHECK: linalg.generic
// CHECK: arith.cmpf oge
// CHECK: return %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<3x4xi1>
func.func @dropout_runtime_mode(%x: tensor<3x4xf32>, %r: tensor<f32>, %t: tensor<i1>) -> (tensor<3x4xf32>, tensor<3x4xi1>) {
  %y, %m = "onnx.Dropout"(%x, %r, %t) <{seed = 3 : i64}> : (tensor<3x4xf32>, tensor<f32>, tensor<i1>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
  return %y, %m : tensor<3x4xf32>, tensor<3x4xi1>
}
