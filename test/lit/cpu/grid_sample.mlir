// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// Bilinear sampling with zero padding: the grid's (x, y) are read in reverse
// dim order, denormalized, and four taps are summed, each zeroed outside X.
// CHECK-LABEL: func.func @linear_zeros
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x3x5xf32>)
// CHECK: tensor.extract %arg1[%{{.+}}, %{{.+}}, %{{.+}}, %c1{{.*}}] : tensor<1x3x5x2xf32>
// CHECK: tensor.extract %arg1[%{{.+}}, %{{.+}}, %{{.+}}, %c0{{.*}}] : tensor<1x3x5x2xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: linalg.yield
func.func @linear_zeros(%x: tensor<1x2x4x4xf32>, %g: tensor<1x3x5x2xf32>) -> tensor<1x2x3x5xf32> {
  %0 = "onnx.GridSample"(%x, %g) : (tensor<1x2x4x4xf32>, tensor<1x3x5x2xf32>) -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

// AffineGrid: theta[n, k, 2] plus theta[n, k, j] times the base coordinate
// of dim 1 - j (x runs along W).
// CHECK-LABEL: func.func @affine_grid
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<2x3x4x2xf32>)
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}, %c2{{.*}}] : tensor<2x2x3xf32>
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}, %c0{{.*}}] : tensor<2x2x3xf32>
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}, %c1{{.*}}] : tensor<2x2x3xf32>
func.func @affine_grid(%theta: tensor<2x2x3xf32>, %size: tensor<4xi64>) -> tensor<2x3x4x2xf32> {
  %0 = "onnx.AffineGrid"(%theta, %size) : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  return %0 : tensor<2x3x4x2xf32>
}

// -----

// CenterCropPad: index o reads o + (in - out) / 2, 0 outside the input.
// CHECK-LABEL: func.func @crop_pad
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4x6xf32>)
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %arg0
// CHECK: arith.select
func.func @crop_pad(%x: tensor<6x3xf32>, %s: tensor<2xi64>) -> tensor<4x6xf32> {
  %0 = "onnx.CenterCropPad"(%x, %s) : (tensor<6x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Col2Im: a reduction over the kernel offsets gathers the matching block.
// CHECK-LABEL: func.func @col2im
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x10x12xf32>
// CHECK: arith.addf
func.func @col2im(%x: tensor<1x10x12xf32>, %image: tensor<2xi64>, %block: tensor<2xi64>) -> tensor<1x2x5x5xf32> {
  %0 = "onnx.Col2Im"(%x, %image, %block) : (tensor<1x10x12xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}
