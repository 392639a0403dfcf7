// RUN: onnxc-opt --split-input-file --onnxc-parallelize-loops %s | FileCheck %s
// RUN: onnxc-opt --split-input-file --onnxc-parallelize-loops \
// RUN:   --convert-scf-to-cf --convert-math-to-llvm --convert-arith-to-llvm --convert-index-to-llvm \
// RUN:   --finalize-memref-to-llvm --convert-func-to-llvm \
// RUN:   --convert-cf-to-llvm --reconcile-unrealized-casts %s \
// RUN:   | FileCheck %s --check-prefix=LLVM

// A big elementwise nest: outlined into a task of onnxc_parallel_for. The
// caller packs the captured memrefs (descriptor structs), the split dim's
// trip count, the linear range and the task count into a struct on its
// stack (the alloca sits in the entry block); the task unpacks them and runs
// its chunk of rows, the inner dim whole.
// CHECK-LABEL: func.func @big_elementwise
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64, i64, i64)>
// CHECK: %[[THREADS:.*]] = call @onnxc_num_threads() : () -> i32
// CHECK: %[[FN:.*]] = constant @big_elementwise_task : (!llvm.ptr, i64, i32) -> ()
// CHECK: call @onnxc_parallel_for(%{{.*}}, %{{.*}}, %[[FN]], %{{.*}})
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK-LABEL: func.func private @big_elementwise_task(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i32)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<256x1024xf32>
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK: math.exp
// CHECK: memref.store
// LLVM-LABEL: llvm.func @big_elementwise
// LLVM: llvm.mlir.addressof @big_elementwise_task
// LLVM: llvm.call @onnxc_parallel_for
// LLVM-LABEL: llvm.func internal @big_elementwise_task
// LLVM-NOT: unrealized_conversion_cast
// LLVM: llvm.intr.exp
func.func @big_elementwise(%x: memref<256x1024xf32>, %y: memref<256x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j] : memref<256x1024xf32>
    scf.reduce
  }
  return
}
// CHECK-LABEL: func.func private @onnxc_parallel_for(i64, i32, (!llvm.ptr, i64, i32) -> (), !llvm.ptr)

// -----

// Leading dims of size 1 and 8 give too few rows: the split linearizes
// dims until 64 iterations (here 1x8x16) and the task delinearizes them,
// once per row of the last split dim (h): a loop over the chunk's rows, the
// linear index taken apart at the start of each, a loop over h inside.
// CHECK-LABEL: func.func private @linearized_task
// CHECK: scf.while (%[[LIN:.*]] = %{{.*}}) : (index) -> index
// CHECK: arith.cmpi ult, %[[LIN]]
// CHECK: do {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index):
// CHECK: %[[H0:.*]] = arith.remui %[[ROW]], %c16
// CHECK: arith.divui %[[ROW]], %c16
// CHECK: %[[COUNT:.*]] = arith.minui
// CHECK: %[[HEND:.*]] = arith.addi %[[H0]], %[[COUNT]]
// CHECK: scf.for %{{.*}} = %[[H0]] to %[[HEND]]
// CHECK: scf.parallel (%{{.*}}) =
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: arith.addi %[[ROW]], %[[COUNT]]
func.func @linearized(%x: memref<1x8x16x1024xf32>, %y: memref<1x8x16x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c1, %c8, %c16, %c1024) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<1x8x16x1024xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%n, %c, %h, %w] : memref<1x8x16x1024xf32>
    scf.reduce
  }
  return
}

// -----

// Dynamic sizes: outlined, and the work is checked at run time (one task
// when it is small).
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %{{.*}}, %c
// CHECK: %[[USE:.*]] = arith.andi %{{.*}}, %[[BIG]] : i1
// CHECK: arith.select %[[USE]]
// CHECK: call @onnxc_parallel_for
func.func @dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    memref.store %v, %y[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// Too little work (64 elements): stays serial, nothing declared.
// CHECK-LABEL: func.func @small
// CHECK: scf.parallel
// CHECK-NOT: onnxc_parallel_for
// CHECK: return
func.func @small(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x8xf32>
    memref.store %v, %y[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  return
}

// -----

// A run-time shape error report is recorded in the calling thread's storage
// (runtime/cpu/ShapeError.c), so a nest that may call it stays serial; so
// does one with any other call.
// CHECK-LABEL: func.func @calls_shape_error
// CHECK: scf.parallel
// CHECK: call @onnxc_rt_shape_error_at
// CHECK-NOT: onnxc_parallel_for
// CHECK: return
func.func private @onnxc_rt_shape_error_at(i32, i64, i64)
func.func @calls_shape_error(%x: memref<256x1024xf32>, %y: memref<256x1024xf32>, %a: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %kind = arith.constant 1 : i32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    func.call @onnxc_rt_shape_error_at(%kind, %a, %a) : (i32, i64, i64) -> ()
    memref.store %v, %y[%i, %j] : memref<256x1024xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction into shared state (scf.reduce operands) stays serial.
// CHECK-LABEL: func.func @shared_reduction
// CHECK: scf.parallel
// CHECK: scf.reduce(
// CHECK-NOT: onnxc_parallel_for
// CHECK: return
func.func @shared_reduction(%x: memref<256x1024xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) init (%zero) -> f32 {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// -----

// Every iteration stores into the same element (its index does not follow
// the split dims): two tasks would race, so it stays serial.
// CHECK-LABEL: func.func @store_not_split
// CHECK: scf.parallel
// CHECK-NOT: onnxc_parallel_for
// CHECK: return
func.func @store_not_split(%x: memref<256x1024xf32>, %y: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    memref.store %v, %y[%j] : memref<1024xf32>
    scf.reduce
  }
  return
}

// -----

// A heap allocation in the body stays serial.
// CHECK-LABEL: func.func @allocates
// CHECK: scf.parallel
// CHECK: memref.alloc
// CHECK-NOT: onnxc_parallel_for
// CHECK: return
func.func @allocates(%x: memref<256x1024xf32>, %y: memref<256x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %t = memref.alloc() : memref<4xf32>
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    memref.store %v, %t[%c0] : memref<4xf32>
    %w = memref.load %t[%c0] : memref<4xf32>
    memref.store %w, %y[%i, %j] : memref<256x1024xf32>
    memref.dealloc %t : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// A matmul-like nest (parallel i, j around a reduction over k): split on i
// (64 rows), the k loop stays inside the task; inside a Loop/Scan-like
// scf.for the context slot still sits in the entry block.
// CHECK-LABEL: func.func @in_loop
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.alloca
// CHECK: scf.for
// CHECK: call @onnxc_parallel_for
// CHECK-LABEL: func.func private @in_loop_task
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: arith.mulf
func.func @in_loop(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %it = %c0 to %n step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      scf.for %k = %c0 to %c64 step %c1 {
        %x = memref.load %a[%i, %k] : memref<64x64xf32>
        %y = memref.load %b[%k, %j] : memref<64x64xf32>
        %z = memref.load %c[%i, %j] : memref<64x64xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        memref.store %s, %c[%i, %j] : memref<64x64xf32>
      }
      scf.reduce
    }
  }
  return
}

// -----

// Views of the workspace are rebuilt in the task from the captured
// workspace (one descriptor in the context), so LLVM still sees two slices
// at constant offsets of one buffer and knows they do not overlap.
// CHECK-LABEL: func.func @workspace_views
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64, i64, i64)>
// CHECK-LABEL: func.func private @workspace_views_task
// CHECK: %[[WS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<2097152xi8>
// CHECK-DAG: memref.view %[[WS]][%{{.*}}][] : memref<2097152xi8> to memref<256x1024xf32>
// CHECK-DAG: memref.view %[[WS]][%{{.*}}][] : memref<2097152xi8> to memref<256x1024xf32>
// CHECK: scf.for
func.func @workspace_views(%ws: memref<2097152xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %half = arith.constant 1048576 : index
  %x = memref.view %ws[%c0][] : memref<2097152xi8> to memref<256x1024xf32>
  %y = memref.view %ws[%half][] : memref<2097152xi8> to memref<256x1024xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<256x1024xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j] : memref<256x1024xf32>
    scf.reduce
  }
  return
}
