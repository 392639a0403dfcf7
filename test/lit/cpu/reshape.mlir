// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @reshape_static
// LLVM: llvm.func @tile_runtime

// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Static shapes that group: a view (collapse/expand), no copy.
// CHECK-LABEL: func.func @reshape_static
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[-1, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// 0 copies the input dim: one dynamic dim on each side still groups.
// CHECK-LABEL: func.func @reshape_copy_dim
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x768xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x768xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 12, 64] : tensor<?x768xf32> into tensor<?x12x64xf32>
func.func @reshape_copy_dim(%x: tensor<?x768xf32>) -> tensor<?x12x64xf32> {
  %s = "onnx.Constant"() <{value = dense<[0, 12, 64]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x768xf32>, tensor<3xi64>) -> tensor<?x12x64xf32>
  return %0 : tensor<?x12x64xf32>
}

// -1 with a dynamic input: numel / known, guarded against a zero divisor,
// into a tensor.reshape (no grouping exists for 2 dynamic dims).
// CHECK-LABEL: func.func @reshape_infer_dynamic
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x?xf32>
// CHECK: %[[N:.*]] = arith.muli
// CHECK: %[[Q:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK: %[[SZ:.*]] = arith.index_cast %[[Q]] : index to i64
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %[[SZ]] : tensor<2xi64>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<3x?xf32>
func.func @reshape_infer_dynamic(%x: tensor<?x?xf32>) -> tensor<3x?xf32> {
  %s = "onnx.Constant"() <{value = dense<[3, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// A run-time shape: 0 and -1 are resolved at run time.
// CHECK-LABEL: func.func @reshape_runtime
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x4xf32>{{.*}}, %[[S:[^:]+]]: tensor<2xi64>
// CHECK: %[[V0:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// CHECK: %[[I0:.*]] = arith.index_cast %[[V0]] : i64 to index
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[I0]], %{{.*}} : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: arith.select %[[Z]], %[[D]], %[[I0]] : index
// CHECK: arith.divui
// CHECK: %[[SHAPE:.*]] = tensor.from_elements
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
func.func @reshape_runtime(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A static result type (from shape inference) wins over a run-time shape.
// CHECK-LABEL: func.func @reshape_runtime_static_result
// CHECK-NOT: tensor.extract
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
func.func @reshape_runtime_static_result(%x: tensor<6xf32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = "onnx.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<?x3x4x5xf32> into tensor<?x20xf32>
func.func @flatten(%x: tensor<?x3x4x5xf32>) -> tensor<?x20xf32> {
  %0 = "onnx.Flatten"(%x) <{axis = -2 : i64}> : (tensor<?x3x4x5xf32>) -> tensor<?x20xf32>
  return %0 : tensor<?x20xf32>
}

// axis 0: everything in the second dim, a unit first dim.
// CHECK-LABEL: func.func @flatten_axis0
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [1, 6] : tensor<6xf32> into tensor<1x6xf32>
func.func @flatten_axis0(%x: tensor<2x3xf32>) -> tensor<1x6xf32> {
  %0 = "onnx.Flatten"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<1x6xf32>
  return %0 : tensor<1x6xf32>
}

// A dynamic squeezed dim is cast to 1 first.
// CHECK-LABEL: func.func @squeeze
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<?x3x1x?xf32> to tensor<1x3x1x?xf32>
// CHECK: tensor.collapse_shape %[[C]] {{\[}}[0, 1], [2, 3]] : tensor<1x3x1x?xf32> into tensor<3x?xf32>
func.func @squeeze(%x: tensor<?x3x1x?xf32>) -> tensor<3x?xf32> {
  %a = "onnx.Constant"() <{value = dense<[0, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Squeeze"(%x, %a) : (tensor<?x3x1x?xf32>, tensor<2xi64>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// Without axes: the static unit dims.
// CHECK-LABEL: func.func @squeeze_all
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x5x1xf32> into tensor<5xf32>
func.func @squeeze_all(%x: tensor<1x5x1xf32>) -> tensor<5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Squeeze"(%x, %none) : (tensor<1x5x1xf32>, none) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// Negative axes count in the output rank.
// CHECK-LABEL: func.func @unsqueeze
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x4xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0, 1], [2, 3]] output_shape [1, %[[D]], 4, 1] : tensor<?x4xf32> into tensor<1x?x4x1xf32>
func.func @unsqueeze(%x: tensor<?x4xf32>) -> tensor<1x?x4x1xf32> {
  %a = "onnx.Constant"() <{value = dense<[-1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<1x?x4x1xf32>
  return %0 : tensor<1x?x4x1xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x3x4xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<3x4x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x3x4xf32>) outs(%[[E]] : tensor<3x4x?xf32>) permutation = [1, 2, 0]
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<3x4x?xf32> {
  %0 = "onnx.Transpose"(%x) <{perm = [1, 2, 0]}> : (tensor<?x3x4xf32>) -> tensor<3x4x?xf32>
  return %0 : tensor<3x4x?xf32>
}

// The default perm reverses the dims.
// CHECK-LABEL: func.func @transpose_default
// CHECK: linalg.transpose {{.*}} permutation = [2, 1, 0]
func.func @transpose_default(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = "onnx.Transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// Static broadcasting: a constant 0 index for the unit dim, new leading dim.
// CHECK-LABEL: func.func @expand
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %s = "onnx.Constant"() <{value = dense<[2, 1, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "onnx.Expand"(%x, %s) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// A dynamic input dim with a run-time target may or may not broadcast:
// decided per element at run time.
// CHECK-LABEL: func.func @expand_runtime
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?xf32>{{.*}}, %[[S:[^:]+]]: tensor<1xi64>
// CHECK: %[[T:.*]] = tensor.extract %[[S]]
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = arith.select %[[ONE]], %{{.*}}, %[[I]] : index
// CHECK: tensor.extract %[[X]][%[[J]]] : tensor<?xf32>
func.func @expand_runtime(%x: tensor<?xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %0 = "onnx.Expand"(%x, %s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Tile: broadcast into (repeat, dim) pairs and collapse each pair.
// CHECK-LABEL: func.func @tile
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x3x4xf32>
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<3x4xf32>) outs(%[[E]] : tensor<2x3x3x4xf32>) dimensions = [0, 2]
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2, 3]] : tensor<2x3x3x4xf32> into tensor<6x12xf32>
func.func @tile(%x: tensor<3x4xf32>) -> tensor<6x12xf32> {
  %r = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Tile"(%x, %r) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<6x12xf32>
  return %0 : tensor<6x12xf32>
}

// CHECK-LABEL: func.func @tile_runtime
// CHECK: tensor.extract
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x3x?x4xf32>
// CHECK: linalg.broadcast {{.*}} dimensions = [0, 2]
// CHECK: tensor.collapse_shape {{.*}} : tensor<?x3x?x4xf32> into tensor<?x?xf32>
func.func @tile_runtime(%x: tensor<3x4xf32>, %r: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "onnx.Tile"(%x, %r) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// DepthToSpace CRD: C split as (C/b^2, b, b), copied into the output viewed
// as [N, C/b^2, H, b, W, b] with W innermost (the input's rows).
// CHECK-LABEL: func.func @depth_to_space
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x8x3x2xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2, 3], [4], [5]] output_shape [%[[D]], 2, 2, 2, 3, 2] : tensor<?x8x3x2xf32> into tensor<?x2x2x2x3x2xf32>
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<?x2x2x2x3x2xf32>) outs(%{{.*}} : tensor<?x2x3x2x2x2xf32>)
// CHECK: tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<?x2x3x2x2x2xf32> into tensor<?x2x6x4xf32>
func.func @depth_to_space(%x: tensor<?x8x3x2xf32>) -> tensor<?x2x6x4xf32> {
  %0 = "onnx.DepthToSpace"(%x) <{blocksize = 2 : i64, mode = "CRD"}> : (tensor<?x8x3x2xf32>) -> tensor<?x2x6x4xf32>
  return %0 : tensor<?x2x6x4xf32>
}

// SpaceToDepth (DCR): H and W split by the block, block offsets before C.
// CHECK-LABEL: func.func @space_to_depth
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 3, 2, 2, 3, 2] : tensor<1x3x4x6xf32> into tensor<1x3x2x2x3x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<1x3x2x2x3x2xf32>) outs(%{{.*}} : tensor<1x2x2x3x2x3xf32>) permutation = [0, 3, 5, 1, 2, 4]
// CHECK: tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2, 3], [4], [5]] : tensor<1x2x2x3x2x3xf32> into tensor<1x12x2x3xf32>
func.func @space_to_depth(%x: tensor<1x3x4x6xf32>) -> tensor<1x12x2x3xf32> {
  %0 = "onnx.SpaceToDepth"(%x) <{blocksize = 2 : i64}> : (tensor<1x3x4x6xf32>) -> tensor<1x12x2x3xf32>
  return %0 : tensor<1x12x2x3xf32>
}

// With a static 0 dim the element count does not fix the dynamic dim: a
// real reshape, not the input.
// CHECK-LABEL: func.func @reshape_zero_size
// CHECK: %[[SHAPE:.*]] = tensor.from_elements
// CHECK: %[[R:.*]] = tensor.reshape %{{.*}}(%[[SHAPE]]) : (tensor<?x0xf32>, tensor<2xi64>) -> tensor<?x0xf32>
// CHECK: return %[[R]]
func.func @reshape_zero_size(%x: tensor<?x0xf32>, %s: tensor<2xi64>) -> tensor<?x0xf32> {
  %0 = "onnx.Reshape"(%x, %s) <{allowzero = 1 : i64}> : (tensor<?x0xf32>, tensor<2xi64>) -> tensor<?x0xf32>
  return %0 : tensor<?x0xf32>
}
