// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// The runtime helper is declared once, with the C interface, and reached
// through its _mlir_ciface_ wrapper after lowering.
// CHECK: func.func private @onnxc_rt_nms(memref<?x?x?xf32>, memref<?x?x?xf32>, i64, f32, f32, i32, i64, memref<?x3xi64>) -> i64 attributes {llvm.emit_c_interface}
// LLVM: llvm.func @_mlir_ciface_onnxc_rt_nms(
// LLVM: llvm.func @nms
// LLVM: llvm.func @nms_defaults
// LLVM: llvm.func @roi_align_max
// LLVM: llvm.func @roi_align_avg

// Room for B * C * min(N, max(max_per_class, 0)) rows; the call returns how
// many it wrote and the result is that prefix.
// CHECK-LABEL: func.func @nms
// CHECK-DAG: %[[MAX:.+]] = tensor.extract %arg2[%{{.+}}] : tensor<1xi64>
// CHECK-DAG: %[[IOU:.+]] = tensor.extract %arg3[%{{.+}}] : tensor<1xf32>
// CHECK-DAG: %[[SCORE:.+]] = tensor.extract %arg4[] : tensor<f32>
// CHECK-DAG: %[[HAS:.+]] = arith.constant 1 : i32
// CHECK: %[[PER:.+]] = arith.maxsi %[[MAX]], %{{.+}} : i64
// CHECK: %[[ROWS:.+]] = memref.alloc(%{{.+}}) : memref<?x3xi64>
// CHECK: %[[BOXES:.+]] = bufferization.to_memref %{{.+}} read_only : memref<?x?x?xf32>
// CHECK: %[[SCORES:.+]] = bufferization.to_memref %{{.+}} read_only : memref<?x?x?xf32>
// CHECK: %[[CENTER:.+]] = arith.constant 1 : i64
// CHECK: %[[COUNT:.+]] = call @onnxc_rt_nms(%[[BOXES]], %[[SCORES]], %[[MAX]], %[[IOU]], %[[SCORE]], %[[HAS]], %[[CENTER]], %[[ROWS]])
// CHECK: %[[N:.+]] = arith.index_cast %[[COUNT]] : i64 to index
// CHECK: %[[ALL:.+]] = bufferization.to_tensor %[[ROWS]] restrict writable
// CHECK: tensor.extract_slice %[[ALL]][0, 0] [%[[N]], 3] [1, 1]
func.func @nms(%boxes: tensor<2x5x4xf32>, %scores: tensor<2x3x5xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>, %score: tensor<f32>) -> tensor<?x3xi64> {
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %max, %iou, %score) <{center_point_box = 1 : i64}> : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<f32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// Omitted inputs: keep nothing (max 0), IoU threshold 0, no score threshold.
// CHECK-LABEL: func.func @nms_defaults
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[NONE:.+]] = arith.constant 0 : i32
// CHECK: call @onnxc_rt_nms(%{{.+}}, %{{.+}}, %[[ZERO]], %{{.+}}, %{{.+}}, %[[NONE]], %{{.+}}, %{{.+}})
func.func @nms_defaults(%boxes: tensor<?x?x4xf32>, %scores: tensor<?x?x?xf32>) -> tensor<?x3xi64> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.NonMaxSuppression"(%boxes, %scores, %none, %none, %none) : (tensor<?x?x4xf32>, tensor<?x?x?xf32>, none, none, none) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// RoiAlign: one parallel generic over [R, C, PH, PW]; the sampling grid of
// each bin (here the bin size rounded up) bounds two nested scf.for loops
// that read the four bilinear taps of each sample from X. f16 computes in
// f32; max mode keeps the largest weighted tap.
// CHECK-LABEL: func.func @roi_align_max
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<?x3x2x2xf16>)
// CHECK: %[[B:.+]] = tensor.extract %arg2[%{{.+}}] : tensor<?xi64>
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract %arg1{{.*}} : tensor<?x4xf16>
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.ceil
// CHECK: math.ceil
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: scf.for {{.*}} -> (f32)
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK: %[[NEXT:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK: scf.yield %[[NEXT]] : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @roi_align_max(%x: tensor<2x3x8x8xf16>, %rois: tensor<?x4xf16>, %b: tensor<?xi64>) -> tensor<?x3x2x2xf16> {
  %0 = "onnx.RoiAlign"(%x, %rois, %b) <{coordinate_transformation_mode = "output_half_pixel", mode = "max", output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 0.5 : f32}> : (tensor<2x3x8x8xf16>, tensor<?x4xf16>, tensor<?xi64>) -> tensor<?x3x2x2xf16>
  return %0 : tensor<?x3x2x2xf16>
}

// avg with a fixed grid: the sum of the samples over grid_h * grid_w.
// CHECK-LABEL: func.func @roi_align_avg
// CHECK-NOT: math.ceil
// CHECK: %[[SUM:.+]] = scf.for {{.*}} -> (f32)
// CHECK: arith.addf
// CHECK: %[[AVG:.+]] = arith.divf %[[SUM]], %{{.+}} : f32
// CHECK: linalg.yield %[[AVG]] : f32
func.func @roi_align_avg(%x: tensor<1x2x6x6xf32>, %rois: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x4x4xf32> {
  %0 = "onnx.RoiAlign"(%x, %rois, %b) <{output_height = 4 : i64, output_width = 4 : i64, sampling_ratio = 2 : i64}> : (tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x4x4xf32>
  return %0 : tensor<3x2x4x4xf32>
}
