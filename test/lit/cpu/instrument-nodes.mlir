// RUN: onnxc-opt --onnxc-instrument-nodes %s | FileCheck %s

// InstrumentNodes on buffers: segments are runs of work ops (calls, linalg
// ops) naming the same nodes; glue (views, constants) does not start one.
// A node met again later keeps its entry (conv0 -> 0 twice); ops fused from
// several nodes make one entry naming them all. The clock starts at the top
// and the last lap is just before the return.
// CHECK: module attributes {onnxc.profile_nodes = {{\[}}["conv0", "Conv"], ["relu0", "Relu"], ["conv1, add1", "Conv+Add"]]}
// CHECK: memref.global "private" @onnxc_profile_ns : memref<3xi64> = dense<0>
// CHECK: func.func private @onnxc_rt_profile_lap(memref<3xi64>, i32, i64) -> i64 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @main_graph
// CHECK-NEXT: %[[N:.*]] = memref.get_global @onnxc_profile_ns
// CHECK-NEXT: %[[T0:.*]] = call @onnxc_rt_profile_clock()
// CHECK: call @kernel
// CHECK-NEXT: memref.view
// CHECK-NEXT: %[[E0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[T1:.*]] = call @onnxc_rt_profile_lap(%[[N]], %[[E0]], %[[T0]])
// CHECK-NEXT: linalg.generic
// CHECK: linalg.generic
// CHECK: %[[E1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[T2:.*]] = call @onnxc_rt_profile_lap(%[[N]], %[[E1]], %[[T1]])
// CHECK-NEXT: call @kernel
// CHECK-NEXT: %[[E2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[T3:.*]] = call @onnxc_rt_profile_lap(%[[N]], %[[E2]], %[[T2]])
// CHECK-NEXT: call @kernel
// CHECK-NEXT: %[[E3:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @onnxc_rt_profile_lap(%[[N]], %[[E3]], %[[T3]])
// CHECK-NEXT: return
#map = affine_map<(d0) -> (d0)>
func.func private @kernel(memref<16xf32>, memref<16xf32>)
func.func @main_graph(%a: memref<16xf32>, %ws: memref<128xi8>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x = memref.view %ws[%c0][] : memref<128xi8> to memref<16xf32>
  call @kernel(%a, %x) : (memref<16xf32>, memref<16xf32>) -> () loc(fused<"Conv">["conv0"])
  %y = memref.view %ws[%c64][] : memref<128xi8> to memref<16xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } loc(fused<"Relu">["relu0"])
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%y : memref<16xf32>) outs(%x : memref<16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } loc(fused<"Relu">["relu0"])
  call @kernel(%x, %y) : (memref<16xf32>, memref<16xf32>) -> () loc(fused[fused<"Conv">["conv1"], fused<"Add">["add1"]])
  call @kernel(%y, %x) : (memref<16xf32>, memref<16xf32>) -> () loc(fused<"Conv">["conv0"])
  return %x : memref<16xf32>
}
