// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// Exclusive reverse CumSum over a run-time axis: a loop nest visiting the
// elements from the end; each one is its successor along the axis (chosen by
// comparing the run-time axis with every dim) plus that successor's result,
// or 0 for the last element of the axis.
// CHECK-LABEL: func.func @cumsum_exclusive_reverse
// CHECK: %[[A:.+]] = tensor.extract %arg1[] : tensor<i32>
// CHECK: %[[AX:.+]] = arith.index_cast %[[A]] : i32 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[AX]], %c0
// CHECK: %[[NORM:.+]] = arith.select %[[NEG]]
// CHECK: %[[IS0:.+]] = arith.cmpi eq, %[[NORM]], %{{.+}}
// CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[NORM]], %{{.+}}
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: scf.for %[[I:.+]] = {{.*}} iter_args(%{{.+}} = %[[INIT]])
// CHECK: scf.for %[[J:.+]] = {{.*}} iter_args(%[[ACC:.+]] =
// CHECK: %[[R0:.+]] = arith.subi %{{.+}}, %[[I]] : index
// CHECK: %[[R1:.+]] = arith.subi %{{.+}}, %[[J]] : index
// CHECK: %[[HAS:.+]] = arith.cmpi ne
// CHECK: %[[P0:.+]] = arith.select %{{.+}}, %{{.+}}, %[[R0]] : index
// CHECK: %[[P1:.+]] = arith.select %{{.+}}, %{{.+}}, %[[R1]] : index
// CHECK: %[[PREV:.+]] = tensor.extract %[[ACC]][%[[P0]], %[[P1]]]
// CHECK: %[[X:.+]] = tensor.extract %arg0[%[[P0]], %[[P1]]]
// CHECK: %[[SUM:.+]] = arith.addf %[[PREV]], %[[X]] : f32
// CHECK: %[[V:.+]] = arith.select %[[HAS]], %[[SUM]], %{{.+}} : f32
// CHECK: tensor.insert %[[V]] into %[[ACC]][%[[R0]], %[[R1]]]
func.func @cumsum_exclusive_reverse(%x: tensor<2x3xf32>, %axis: tensor<i32>) -> tensor<2x3xf32> {
  %0 = "onnx.CumSum"(%x, %axis) {exclusive = 1 : i64, reverse = 1 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CumProd multiplies; the inclusive form takes the element itself first.
// CHECK-LABEL: func.func @cumprod
// CHECK: scf.for
// CHECK: %[[X:.+]] = tensor.extract %arg0
// CHECK: %[[P:.+]] = arith.muli %{{.+}}, %[[X]] : i32
// CHECK: arith.select %{{.+}}, %[[P]], %[[X]] : i32
func.func @cumprod(%x: tensor<?xi32>, %axis: tensor<1xi64>) -> tensor<?xi32> {
  %0 = "onnx.CumProd"(%x, %axis) : (tensor<?xi32>, tensor<1xi64>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @two_axes(%x: tensor<2x3xf32>, %axis: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+2 {{axis must be a one-element integer tensor, got 'tensor<2xi64>'}}
  // expected-error @+1 {{the cpu target cannot lower this 'CumSum' node}}
  %0 = "onnx.CumSum"(%x, %axis) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
