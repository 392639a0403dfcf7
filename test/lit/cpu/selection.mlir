// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @non_zero
// LLVM: llvm.func @compress
// LLVM: llvm.func @reverse_sequence
// LLVM: llvm.func @max_unpool
// LLVM: llvm.func @det

// Count first, then fill the [rank, count] result.
// CHECK-LABEL: func.func @non_zero
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} -> (index)
// CHECK: arith.cmpf une
// CHECK: %[[E0:.*]] = tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
// CHECK: %[[E:.*]] = linalg.fill {{.*}} outs(%[[E0]] : tensor<2x?xi64>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[E]], %{{.*}} = %{{.*}}) -> (tensor<2x?xi64>, index)
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.insert
func.func @non_zero(%x: tensor<3x4xf32>) -> tensor<2x?xi64> {
  %0 = "onnx.NonZero"(%x) : (tensor<3x4xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// The selected positions (up to the shorter of condition and axis) index
// the axis of the data.
// CHECK-LABEL: func.func @compress
// CHECK: %[[LIMIT:.*]] = arith.minsi
// CHECK: %[[COUNT:.*]] = scf.for %{{.*}} = %{{.*}} to %[[LIMIT]]
// CHECK: %[[E:.*]] = tensor.empty(%[[COUNT]]) : tensor<3x?xf32>
// CHECK: %[[POS:.*]]:2 = scf.for
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<3x?xf32>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[P:.*]] = tensor.extract %[[POS]]#0[%[[J]]] : tensor<?xindex>
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[P]]] : tensor<3x4xf32>
func.func @compress(%x: tensor<3x4xf32>, %c: tensor<?xi1>) -> tensor<3x?xf32> {
  %0 = "onnx.Compress"(%x, %c) <{axis = -1 : i64}> : (tensor<3x4xf32>, tensor<?xi1>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// Within the sequence length the time index is mirrored.
// CHECK-LABEL: func.func @reverse_sequence
// CHECK: linalg.generic
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[T:.*]] = linalg.index 1 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T]], %{{.*}} : index
// CHECK: %[[SRC:.*]] = arith.select %[[IN]], %{{.*}}, %[[T]] : index
// CHECK: tensor.extract %{{.*}}[%[[B]], %[[SRC]], %{{.*}}] : tensor<4x5x2xf32>
func.func @reverse_sequence(%x: tensor<4x5x2xf32>, %l: tensor<4xi64>) -> tensor<4x5x2xf32> {
  %0 = "onnx.ReverseSequence"(%x, %l) <{batch_axis = 0 : i64, time_axis = 1 : i64}> : (tensor<4x5x2xf32>, tensor<4xi64>) -> tensor<4x5x2xf32>
  return %0 : tensor<4x5x2xf32>
}

// Scatter into zeros of the unpooled shape ((2 - 1) * 2 + 2 = 4).
// CHECK-LABEL: func.func @max_unpool
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<1x1x4x4xf32>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (tensor<1x1x4x4xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<1x1x2x2xi64>
// CHECK: tensor.insert %{{.*}} into %[[ACC]]
func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.MaxUnpool"(%x, %i, %none) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// Gaussian elimination with a pivot search per column.
// CHECK-LABEL: func.func @det
// CHECK: scf.for
// CHECK: math.absf
// CHECK: scf.if
// CHECK: arith.negf
// CHECK: arith.divf
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}] : tensor<2xf32>
func.func @det(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %0 = "onnx.Det"(%x) : (tensor<2x3x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
