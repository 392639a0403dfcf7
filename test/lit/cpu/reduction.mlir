// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// A reduction over a negative axis of a dynamic tensor: fill, reduce into
// the dims that stay, then expand back for keepdims.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[ZERO:.+]] = arith.constant 0.0{{.*}} : f32
// CHECK: %[[DIM:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[EMPTY:.+]] = tensor.empty(%[[DIM]]) : tensor<?x5xf32>
// CHECK: %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<?x5xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: outs(%[[FILL]] : tensor<?x5xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]] : f32
// CHECK: tensor.expand_shape %[[SUM]] {{\[}}[0], [1, 2]] output_shape [%{{.+}}, 1, 5] : tensor<?x5xf32> into tensor<?x1x5xf32>
func.func @reduce_sum(%x: tensor<?x4x5xf32>) -> tensor<?x1x5xf32> {
  %axes = arith.constant dense<[-2]> : tensor<1xi64>
  %0 = "onnx.ReduceSum"(%x, %axes) : (tensor<?x4x5xf32>, tensor<1xi64>) -> tensor<?x1x5xf32>
  return %0 : tensor<?x1x5xf32>
}

// -----

// Absent axes reduce everything; f16 accumulates in f32, and the mean
// divides by the (dynamic) element count before rounding.
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK-SAME: outs(%{{.+}} : tensor<f32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[DIM:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[COUNT:.+]] = arith.muli %[[DIM]], %c4
// CHECK: %[[I64:.+]] = arith.index_castui %[[COUNT]] : index to i64
// CHECK: %[[N:.+]] = arith.uitofp %[[I64]] : i64 to f32
// CHECK: linalg.generic
// CHECK: %[[MEAN:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK-NEXT: arith.truncf %[[MEAN]] : f32 to f16
func.func @reduce_mean_all(%x: tensor<?x4xf16>) -> tensor<f16> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.ReduceMean"(%x, %none) {keepdims = 0 : i64} : (tensor<?x4xf16>, none) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// Unsigned max starts from 0 and compares unsigned.
// CHECK-LABEL: func.func @reduce_max_unsigned
// CHECK: %[[INIT:.+]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[INIT]] : i8)
// CHECK: arith.maxui
func.func @reduce_max_unsigned(%x: tensor<3x4xui8>) -> tensor<3xui8> {
  %axes = arith.constant dense<[1]> : tensor<1xi64>
  %0 = "onnx.ReduceMax"(%x, %axes) {keepdims = 0 : i64} : (tensor<3x4xui8>, tensor<1xi64>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// noop_with_empty_axes reduces over no axis: ReduceSumSquare squares.
// CHECK-LABEL: func.func @noop
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: %[[SQ:.+]] = arith.mulf %[[X:.+]], %[[X]] : f32
// CHECK-NEXT: arith.addf %{{.+}}, %[[SQ]] : f32
func.func @noop(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.ReduceSumSquare"(%x, %none) {noop_with_empty_axes = 1 : i64} : (tensor<3x4xf32>, none) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// LogSumExp subtracts the max (+inf ignored, -inf replaced by 0) first.
// CHECK-LABEL: func.func @log_sum_exp
// CHECK: %[[MAX:.+]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[MAX]] :
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%arg0, %[[SHIFT]] :
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[SHIFT]] :
// CHECK: %[[LOG:.+]] = math.log
// CHECK-NEXT: arith.addf %[[LOG]]
// CHECK: tensor.expand_shape
func.func @log_sum_exp(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %axes = arith.constant dense<[1]> : tensor<1xi64>
  %0 = "onnx.ReduceLogSumExp"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// ArgMax carries (value, index); select_last_index uses >=.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.+}}, %{{.+}} : tensor<3xf32>, tensor<3xi64>)
// CHECK: arith.cmpf oge
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: arith.index_cast %[[I]] : index to i64
// CHECK: tensor.expand_shape %[[R]]#1
func.func @argmax(%x: tensor<3x?xf32>) -> tensor<3x1xi64> {
  %0 = "onnx.ArgMax"(%x) {axis = 1 : i64, select_last_index = 1 : i64} : (tensor<3x?xf32>) -> tensor<3x1xi64>
  return %0 : tensor<3x1xi64>
}

// -----

// CHECK-LABEL: func.func @global_average_pool
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: %[[H:.+]] = tensor.dim %arg0, %c2
// CHECK: %[[W:.+]] = tensor.dim %arg0, %c3
// CHECK: arith.muli %[[H]], %[[W]]
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2, 3]] output_shape [2, 8, 1, 1]
func.func @global_average_pool(%x: tensor<2x8x?x?xf32>) -> tensor<2x8x1x1xf32> {
  %0 = "onnx.GlobalAveragePool"(%x) : (tensor<2x8x?x?xf32>) -> tensor<2x8x1x1xf32>
  return %0 : tensor<2x8x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @global_max_pool
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @global_max_pool(%x: tensor<1x3x5xf32>) -> tensor<1x3x1xf32> {
  %0 = "onnx.GlobalMaxPool"(%x) : (tensor<1x3x5xf32>) -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Axes only known at run time: a mask of the reduced dims is computed from
// the axes (negative ones normalized), and a loop nest accumulates each
// element at an index whose masked coordinates are 0.
// CHECK-LABEL: func.func @runtime_axes
// CHECK: %[[MASK:.+]]:2 = scf.for %[[I:.+]] = %c0 to %[[N:.+]] step %c1 iter_args(%{{.+}} = %false, %{{.+}} = %false) -> (i1, i1)
// CHECK: tensor.extract %arg1[%[[I]]] : tensor<1xi64>
// CHECK: arith.cmpi slt
// CHECK: %[[EMPTY:.+]] = arith.cmpi eq, %[[N]], %c0
// CHECK: %[[R0:.+]] = arith.select %[[EMPTY]], %true, %[[MASK]]#0
// CHECK: %[[R1:.+]] = arith.select %[[EMPTY]], %true, %[[MASK]]#1
// CHECK: %[[S1:.+]] = arith.select %[[R1]], %{{.+}}, %c4
// CHECK: %[[ACC0:.+]] = tensor.empty(%{{.+}}, %[[S1]]) : tensor<?x?xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ACC0]]
// CHECK: scf.for %[[I0:.+]] = %{{.+}} to %c3
// CHECK: scf.for %[[I1:.+]] = %{{.+}} to %c4 {{.*}} iter_args(%[[ACC:.+]] =
// CHECK: %[[C0:.+]] = arith.select %[[R0]], %{{.+}}, %[[I0]]
// CHECK: %[[C1:.+]] = arith.select %[[R1]], %{{.+}}, %[[I1]]
// CHECK: %[[X:.+]] = tensor.extract %arg0[%[[I0]], %[[I1]]]
// CHECK: %[[OLD:.+]] = tensor.extract %[[ACC]][%[[C0]], %[[C1]]]
// CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %[[X]]
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[C0]], %[[C1]]]
// CHECK: tensor.cast %{{.+}} : tensor<?x?xf32> to tensor<3x1xf32>
func.func @runtime_axes(%x: tensor<3x4xf32>, %axes: tensor<1xi64>) -> tensor<3x1xf32> {
  %0 = "onnx.ReduceSum"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Without keepdims the result dims (the unreduced ones, in order) are picked
// at run time and the keepdims-form result is reshaped; the mean divides by
// the product of the reduced dims.
// CHECK-LABEL: func.func @runtime_axes_drop
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: %[[SHAPE:.+]] = tensor.from_elements %{{.+}} : tensor<1xi64>
// CHECK: tensor.reshape %{{.+}}(%[[SHAPE]]) : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
func.func @runtime_axes_drop(%x: tensor<3x4xf32>, %axes: tensor<1xi64>) -> tensor<?xf32> {
  %0 = "onnx.ReduceMean"(%x, %axes) {keepdims = 0 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @runtime_axes_bad_rank(%x: tensor<3x4xf32>, %axes: tensor<1xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{the cpu target cannot lower this 'ReduceSum' node}}
  %0 = "onnx.ReduceSum"(%x, %axes) {keepdims = 0 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Hardmax: an ArgMax along the axis, then 1 where the index matches.
// CHECK-LABEL: func.func @hardmax
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[R]]#1 : tensor<3xi64>)
// CHECK: %[[I:.+]] = linalg.index 1
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]]
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[I64]]
// CHECK: arith.select %[[EQ]], %{{.+}}, %{{.+}} : f32
func.func @hardmax(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %0 = "onnx.Hardmax"(%x) : (tensor<3x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

func.func @hardmax_bad_axis(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{the cpu target cannot lower this 'Hardmax' node}}
  %0 = "onnx.Hardmax"(%x) {axis = 2 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @axis_out_of_range(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %axes = arith.constant dense<[2]> : tensor<1xi64>
  // expected-error @+2 {{axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{the cpu target cannot lower this 'ReduceMean' node}}
  %0 = "onnx.ReduceMean"(%x, %axes) : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @log_sum_int(%x: tensor<3x4xi32>) -> tensor<3x1xi32> {
  %axes = arith.constant dense<[1]> : tensor<1xi64>
  // expected-error @+1 {{the cpu target cannot lower this 'ReduceLogSum' node}}
  %0 = "onnx.ReduceLogSum"(%x, %axes) : (tensor<3x4xi32>, tensor<1xi64>) -> tensor<3x1xi32>
  return %0 : tensor<3x1xi32>
}
