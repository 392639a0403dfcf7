// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// Axes read at run time: the rank is known, the dims are matched against
// each axis at run time.

// LLVM: llvm.func @unsqueeze
// LLVM: llvm.func @squeeze
// LLVM: llvm.func @slice
// LLVM: llvm.func @pad

// CHECK-LABEL: func.func @unsqueeze
// CHECK: tensor.extract %{{.*}} : tensor<1xi64>
// CHECK: arith.cmpi eq
// CHECK: %[[SHAPE:.*]] = tensor.from_elements {{.*}} : tensor<4xi64>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) : (tensor<3x4x5xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
func.func @unsqueeze(%x: tensor<3x4x5xf32>, %axes: tensor<1xi64>) -> tensor<?x?x?x?xf32> {
  %0 = "onnx.Unsqueeze"(%x, %axes) : (tensor<3x4x5xf32>, tensor<1xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// CHECK-LABEL: func.func @squeeze
// CHECK: %[[SHAPE:.*]] = tensor.from_elements {{.*}} : tensor<2xi64>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @squeeze(%x: tensor<1x3x1xf32>, %axes: tensor<1xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Squeeze"(%x, %axes) : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Each dim takes the start/step/size of the axis naming it (else all of it);
// the run-time strides make it a gathering linalg.generic.
// CHECK-LABEL: func.func @slice
// CHECK: %[[AXIS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<20x10xf32>
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<20x10xf32>
func.func @slice(%x: tensor<20x10xf32>, %starts: tensor<1xi64>, %ends: tensor<1xi64>, %axes: tensor<1xi64>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %starts, %ends, %axes, %none) : (tensor<20x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: linalg.fill
// CHECK: tensor.insert_slice
func.func @pad(%x: tensor<2x3xf32>, %pads: tensor<2xi64>, %axes: tensor<1xi64>) -> tensor<?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %pads, %none, %axes) <{mode = "constant"}> : (tensor<2x3xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
