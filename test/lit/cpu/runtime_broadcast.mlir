// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg %s \
// RUN:   | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg %s \
// RUN:   | FileCheck %s --check-prefix=UNDECLARED
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg \
// RUN:   --onnxc-cpu-lowering %s | FileCheck %s --check-prefix=LLVM

// Run-time broadcasting checks (LinalgBuilders.cpp: broadcastOperandTo): only
// dynamic dims get a compare, an scf.if and an error call; static shapes and
// a lone dynamic operand are unchanged.

// CHECK: func.func private @onnxc_rt_shape_error_at(i32, i64, i64)
// UNDECLARED-NOT: onnxc_rt_shape_error

// A dynamic dim against a static 3: equal (as it is), 1 (copy), else error.
// CHECK-LABEL: func.func @dynamic_static
// CHECK: %[[N:.+]] = tensor.dim %arg0, %{{.+}} : tensor<?xf32>
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[FULL:.+]] = arith.cmpi eq, %[[N]], %[[C3]]
// CHECK: %[[ONE:.+]] = arith.cmpi eq, %[[N]], %[[C1]]
// CHECK: %[[VALID:.+]] = arith.ori %[[FULL]], %[[ONE]]
// CHECK: %[[X:.+]] = scf.if %[[FULL]] -> (tensor<3xf32>) {
// CHECK:   %[[CAST:.+]] = tensor.cast %arg0 : tensor<?xf32> to tensor<3xf32>
// CHECK:   scf.yield %[[CAST]]
// CHECK: } else {
// CHECK:   %[[R:.+]] = scf.if %[[VALID]] -> (tensor<3xf32>) {
// CHECK:     linalg.generic
// CHECK:       arith.minui
// CHECK:       tensor.extract %arg0
// CHECK:   } else {
// CHECK:     scf.if
// CHECK:       %[[KIND:.+]] = arith.constant 0 : i32
// CHECK:       %[[A:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:       %[[B:.+]] = arith.index_cast %[[C3]] : index to i64
// CHECK:       func.call @onnxc_rt_shape_error_at(%[[KIND]], %[[A]], %[[B]])
// CHECK:     linalg.fill
// CHECK:   scf.yield %[[R]]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %arg1 : tensor<3xf32>, tensor<3xf32>)
// UNDECLARED-LABEL: func.func @dynamic_static
// UNDECLARED: scf.if
// UNDECLARED-NOT: call
// UNDECLARED: return
func.func @dynamic_static(%x: tensor<?xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<3xf32>) -> tensor<3xf32> loc("add0")
  return %0 : tensor<3xf32>
}

// Two dynamic dims: the result size is the last one that is not 1; each
// operand is checked against it.
// CHECK-LABEL: func.func @dynamic_dynamic
// CHECK: %[[N:.+]] = tensor.dim %arg0
// CHECK: %[[M:.+]] = tensor.dim %arg1
// CHECK: %[[MONE:.+]] = arith.cmpi eq, %[[M]], %{{.+}}
// CHECK: %[[SIZE:.+]] = arith.select %[[MONE]], %[[N]], %[[M]] : index
// CHECK: arith.cmpi eq, %[[N]], %[[SIZE]]
// CHECK: scf.if
// CHECK: func.call @onnxc_rt_shape_error_at
// CHECK: arith.cmpi eq, %[[M]], %[[SIZE]]
// CHECK: scf.if
// CHECK: func.call @onnxc_rt_shape_error_at
// CHECK: tensor.empty(%[[SIZE]]) : tensor<?xf32>
// CHECK: linalg.generic
func.func @dynamic_dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "onnx.Add"(%x, %y) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> loc("add1")
  return %0 : tensor<?xf32>
}

// Static shapes: no check at all.
// CHECK-LABEL: func.func @static
// CHECK-NOT: scf.if
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: return
func.func @static(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Add"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// A dynamic dim against a static 1 or against nothing, and a unary op: the
// dynamic size is the result's, nothing to check.
// CHECK-LABEL: func.func @lone_dynamic
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: return
func.func @lone_dynamic(%x: tensor<?x4xf32>, %y: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Sub"(%x, %y) : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %1 = "onnx.Relu"(%0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// After the cpu pipeline the report names the node (onnxc-name-shape-errors)
// and the check of an operand against itself is gone.
// LLVM-DAG: llvm.mlir.global private unnamed_addr constant @onnxc_node_name{{.*}}("add0\00")
// LLVM-DAG: llvm.mlir.global private unnamed_addr constant @onnxc_node_name{{.*}}("add1\00")
// LLVM-DAG: llvm.func @onnxc_rt_shape_error(!llvm.ptr, i32, i64, i64)
// LLVM-NOT: onnxc_rt_shape_error_at
// LLVM-LABEL: llvm.func @dynamic_static
// LLVM: llvm.mlir.addressof @onnxc_node_name
// LLVM: llvm.call @onnxc_rt_shape_error(
// LLVM-LABEL: llvm.func @same_operand
// LLVM-NOT: onnxc_rt_shape_error
// LLVM: llvm.return
func.func @same_operand(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = "onnx.Mul"(%0, %x) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> loc("mul0")
  return %1 : tensor<?xf32>
}
