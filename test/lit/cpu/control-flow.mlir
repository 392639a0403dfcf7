// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg --onnxc-cpu-lowering %s | FileCheck %s --check-prefix=LLVM

// If: scf.if on the condition's element; then_branch is the second region.
// Each branch's body is lowered in place and yields a value cast to the
// If's (joined) result type.
// CHECK-LABEL: func.func @if_select
// CHECK: %[[C:.+]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[C]] -> (tensor<?xf32>)
// CHECK: math.exp
// CHECK: %[[T:.+]] = tensor.cast %{{.+}} : tensor<3xf32> to tensor<?xf32>
// CHECK: scf.yield %[[T]]
// CHECK: } else {
// CHECK: arith.negf
// CHECK: %[[E:.+]] = tensor.cast %{{.+}} : tensor<5xf32> to tensor<?xf32>
// CHECK: scf.yield %[[E]]
// LLVM-LABEL: llvm.func @if_select
func.func @if_select(%c: tensor<i1>, %x: tensor<3xf32>, %y: tensor<5xf32>) -> tensor<?xf32> {
  %0 = "onnx.If"(%c) ({
    %e = "onnx.Neg"(%y) : (tensor<5xf32>) -> tensor<5xf32>
    "onnx.Yield"(%e) : (tensor<5xf32>) -> ()
  }, {
    %e = "onnx.Exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%e) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Loop: scf.while carrying (iteration, condition, state, scan buffer); it
// continues while the condition holds and the iteration is below M. The
// body sees the iteration and condition as 0-D tensors and an outer value
// (%v); its scan output is appended to a buffer that doubles when full, and
// the rows written are sliced out after the loop.
// CHECK-LABEL: func.func @loop
// CHECK: %[[M:.+]] = tensor.extract %arg0[] : tensor<i64>
// CHECK: %[[COND0:.+]] = tensor.extract %arg1[] : tensor<i1>
// CHECK: %[[BUF0:.+]] = tensor.empty(%{{.+}}) : tensor<?x2xf32>
// CHECK: %[[W:.+]]:4 = scf.while (%[[I:.+]] = %c0_i64, %[[CND:.+]] = %[[COND0]], %[[S:.+]] = %arg2, %[[B:.+]] = %[[BUF0]])
// CHECK: %[[BELOW:.+]] = arith.cmpi slt, %[[I]], %[[M]] : i64
// CHECK: %[[GO:.+]] = arith.andi %[[CND]], %[[BELOW]]
// CHECK: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK: ^bb0(%[[IA:.+]]: i64, %[[CA:.+]]: i1, %[[SA:.+]]: tensor<2xf32>, %[[BA:.+]]: tensor<?x2xf32>):
// CHECK: %[[IT:.+]] = tensor.from_elements %[[IA]] : tensor<i64>
// CHECK: %[[R:.+]]:3 = scf.execute_region -> (tensor<i1>, tensor<2xf32>, tensor<2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SA]], %arg2 : tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.addf
// CHECK: arith.sitofp
// CHECK: %[[NEXT:.+]] = arith.addi %[[IA]], %c1_i64
// CHECK: %[[ROW:.+]] = arith.index_cast %[[IA]] : i64 to index
// CHECK: %[[CAP:.+]] = tensor.dim %[[BA]], %{{.+}} : tensor<?x2xf32>
// CHECK: %[[FULL:.+]] = arith.cmpi sge, %[[ROW]], %[[CAP]]
// CHECK: %[[GROWN:.+]] = scf.if %[[FULL]] -> (tensor<?x2xf32>)
// CHECK: arith.muli %[[CAP]], %c2
// CHECK: tensor.insert_slice %[[BA]] into
// CHECK: %[[APP:.+]] = tensor.insert_slice %[[R]]#2 into %[[GROWN]][%[[ROW]], 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<?x2xf32>
// CHECK: scf.yield %[[NEXT]], %{{.+}}, %[[R]]#1, %[[APP]]
// CHECK: %[[COUNT:.+]] = arith.index_cast %[[W]]#0 : i64 to index
// CHECK: %[[ROWS:.+]] = tensor.extract_slice %[[W]]#3[0, 0] [%[[COUNT]], 2] [1, 1]
// CHECK: return %[[W]]#2, %[[ROWS]]
// LLVM-LABEL: llvm.func @loop
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %0:2 = "onnx.Loop"(%m, %c, %v) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %s: tensor<2xf32>):
    %n = "onnx.Add"(%s, %v) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %f = "onnx.Cast"(%i) <{to = 1 : i64}> : (tensor<i64>) -> tensor<f32>
    %r = "onnx.Mul"(%n, %f) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    "onnx.Yield"(%cond, %n, %r) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<?x2xf32>
}

// -----

// Loop without cond: it starts as true; the body's condition still stops
// the loop (as in ONNX Runtime). M is a one-element 1-D tensor here.
// CHECK-LABEL: func.func @loop_for
// CHECK: %[[M:.+]] = tensor.extract %arg0[%{{.+}}] : tensor<1xi64>
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: scf.while (%{{.+}} = %c0_i64, %{{.+}} = %[[TRUE]], %{{.+}} = %arg1)
// CHECK: arith.cmpi slt, %{{.+}}, %[[M]]
// CHECK: %[[R:.+]]:2 = scf.execute_region
// CHECK: %[[C:.+]] = tensor.extract %[[R]]#0[] : tensor<i1>
// CHECK: scf.yield %{{.+}}, %[[C]], %[[R]]#1 : i64, i1, tensor<?xf32>
func.func @loop_for(%m: tensor<1xi64>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Loop"(%m, %none, %v) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %s: tensor<?xf32>):
    %n = "onnx.Neg"(%s) : (tensor<?xf32>) -> tensor<?xf32>
    "onnx.Yield"(%cond, %n) : (tensor<i1>, tensor<?xf32>) -> ()
  }) : (tensor<1xi64>, none, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Scan over axis 1 backwards: scf.for over the scan length; each iteration
// slices column T-1-t, runs the body and inserts its scan output as row t.
// CHECK-LABEL: func.func @scan
// CHECK: %[[LAST:.+]] = arith.subi %c7, %c1
// CHECK: %[[BUF:.+]] = tensor.empty(%c7) : tensor<?x3xf32>
// CHECK: %[[F:.+]]:2 = scf.for %[[T:.+]] = %c0 to %c7 step %c1 iter_args(%[[S:.+]] = %arg0, %[[B:.+]] = %[[BUF]])
// CHECK: %[[BACK:.+]] = arith.subi %[[LAST]], %[[T]]
// CHECK: %[[COL:.+]] = tensor.extract_slice %arg1[0, %[[BACK]]] [3, 1] [1, 1] : tensor<3x7xf32> to tensor<3xf32>
// CHECK: %[[R:.+]]:2 = scf.execute_region -> (tensor<3xf32>, tensor<3xf32>)
// CHECK: ins(%[[S]], %[[COL]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[R]]#1 into %[[B]][%[[T]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK: scf.yield %[[R]]#0, %[[INS]]
// CHECK: %[[OUT:.+]] = tensor.cast %[[F]]#1 : tensor<?x3xf32> to tensor<7x3xf32>
// CHECK: return %[[F]]#0, %[[OUT]]
// LLVM-LABEL: llvm.func @scan
func.func @scan(%init: tensor<3xf32>, %seq: tensor<3x7xf32>) -> (tensor<3xf32>, tensor<7x3xf32>) {
  %0:2 = "onnx.Scan"(%init, %seq) <{num_scan_inputs = 1 : i64, scan_input_axes = [1], scan_input_directions = [1]}> ({
  ^bb0(%state: tensor<3xf32>, %item: tensor<3xf32>):
    %next = "onnx.Add"(%state, %item) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%next, %next) : (tensor<3xf32>, tensor<3xf32>) -> ()
  }) : (tensor<3xf32>, tensor<3x7xf32>) -> (tensor<3xf32>, tensor<7x3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<7x3xf32>
}

// -----

// Scan output written backwards along axis 1, rows of run-time size: the
// first iteration runs before the loop, its row gives the buffer its dims,
// and the loop carries that buffer over the other iterations (one shape
// throughout, as the canonicalizer's folds of loop-carried tensors assume).
// No iteration: an empty output.
// CHECK-LABEL: func.func @scan_dynamic_rows
// CHECK: %[[N:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[LAST:.+]] = arith.subi %[[N]]
// CHECK: %[[ANY:.+]] = arith.cmpi sgt, %[[N]]
// CHECK: scf.if %[[ANY]] -> (tensor<?x?xf32>)
// CHECK: %[[ROW0:.+]] = scf.execute_region -> tensor<?xf32>
// CHECK: %[[BUF:.+]] = tensor.empty(%{{.+}}, %[[N]]) : tensor<?x?xf32>
// CHECK: %[[FIRST:.+]] = tensor.insert_slice %[[ROW0]] into %[[BUF]]
// CHECK: scf.for %[[T:.+]] = %c1{{.*}} to %[[N]] step %c1{{.*}} iter_args(%[[B:.+]] = %[[FIRST]])
// CHECK: %[[BACK:.+]] = arith.subi %[[LAST]], %[[T]]
// CHECK: tensor.insert_slice %{{.+}} into %[[B]][0, %[[BACK]]] [%{{.+}}, 1] [1, 1] : tensor<?xf32> into tensor<?x?xf32>
// CHECK: } else {
// CHECK: tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x?xf32>
func.func @scan_dynamic_rows(%seq: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "onnx.Scan"(%seq) <{num_scan_inputs = 1 : i64, scan_output_axes = [-1], scan_output_directions = [1]}> ({
  ^bb0(%item: tensor<?xf32>):
    %r = "onnx.Relu"(%item) : (tensor<?xf32>) -> tensor<?xf32>
    "onnx.Yield"(%r) : (tensor<?xf32>) -> ()
  }) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
