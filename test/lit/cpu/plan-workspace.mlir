// RUN: onnxc-opt --split-input-file --onnxc-plan-workspace %s | FileCheck %s
// RUN: onnxc-opt --split-input-file --verify-diagnostics \
// RUN:   --onnxc-plan-workspace=require-no-heap %s -o /dev/null

// Buffers whose lifetimes do not overlap share bytes: each copy ends one
// buffer's life, so the five 64-byte buffers alternate between two slots.
// %d lives on through its expand_shape view until it is copied into the
// returned %r, which is planned too and lives to the end. Deallocs of
// planned buffers go away.
// CHECK-LABEL: module attributes {onnxc.workspace_planned_bytes = 320 : i64, onnxc.workspace_size = 128 : i64}
// CHECK: func.func @main_graph(%[[IN:.*]]: memref<16xf32>, %[[WS:.*]]: memref<128xi8> {onnxc.workspace})
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O0]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[O1:.*]] = arith.constant 64 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O1]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[O2:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O2]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[O3:.*]] = arith.constant 64 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O3]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[O4:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[R:.*]] = memref.view %[[WS]][%[[O4]]][] : memref<128xi8> to memref<4x4xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return %[[R]]
func.func @main_graph(%in: memref<16xf32>) -> memref<4x4xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  %d = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %c, %d : memref<16xf32> to memref<16xf32>
  %r = memref.alloc() {alignment = 64 : i64} : memref<4x4xf32>
  %dv = memref.expand_shape %d [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  memref.copy %dv, %r : memref<4x4xf32> to memref<4x4xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  memref.dealloc %d : memref<16xf32>
  return %r : memref<4x4xf32>
}

// -----

// A view keeps its buffer alive: %a is read through %flat after %b is
// allocated, so they may not share. A use inside a loop counts at the loop.
// CHECK-LABEL: module attributes {onnxc.workspace_planned_bytes = 128 : i64, onnxc.workspace_size = 128 : i64}
// CHECK: func.func @main_graph
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[C0]]][] : memref<128xi8> to memref<2x2xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: memref.view %{{.*}}[%[[C64]]][] : memref<128xi8> to memref<4xf32>
// CHECK: scf.for
func.func @main_graph(%in: memref<4xf32>, %out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<2x2xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.copy %in, %flat : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %in, %b : memref<4xf32> to memref<4xf32>
  scf.for %i = %c1 to %c4 step %c1 {
    %x = memref.load %flat[%i] : memref<4xf32>
    %y = memref.load %b[%i] : memref<4xf32>
    %z = arith.addf %x, %y : f32
    memref.store %z, %out[%i] : memref<4xf32>
  }
  memref.dealloc %a : memref<2x2xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// What stays on the heap: a buffer of dynamic size, one allocated inside a
// loop, and one that becomes a loop's iteration argument (the loop may
// replace it with another buffer). Nothing is planned: no workspace.
// CHECK-LABEL: module attributes {onnxc.workspace_planned_bytes = 0 : i64, onnxc.workspace_size = 0 : i64}
// CHECK: func.func @main_graph(%{{[^,]*}}: index) -> memref<4xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[CARRIED:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[CARRIED]])
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc
func.func @main_graph(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{a buffer of type 'memref<?xf32>' has a size only known at run time; a static artifact must not allocate while it runs}}
  %dyn = memref.alloc(%n) : memref<?xf32>
  memref.store %f, %dyn[%c0] : memref<?xf32>
  memref.dealloc %dyn : memref<?xf32>
  // expected-error @+1 {{a buffer of type 'memref<4xf32>' flows where the memory plan cannot follow it}}
  %init = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> memref<4xf32> {
    // expected-error @+1 {{a buffer of type 'memref<4xf32>' leaves the loop or branch that allocates it}}
    %next = memref.alloc() : memref<4xf32>
    memref.copy %acc, %next : memref<4xf32> to memref<4xf32>
    memref.dealloc %acc : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// Heap buffers are freed after their last use, not at the end of the block
// where the deallocation pipeline put their deallocs: %a after the copy that
// reads it through a view, %b after its last read. A buffer freed under a
// condition (the ownership-based pipeline's scf.if) keeps its dealloc.
// CHECK-LABEL: func.func @main_graph(%{{.*}}: index, %{{.*}}: memref<?xf32>, %{{.*}}: memref<?xf32>, %{{.*}}: i1)
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[AV:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: memref.copy %[[AV]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[C:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: memref.copy %[[B]], %[[C]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: memref.copy %[[C]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.dealloc %[[C]]
func.func @main_graph(%n: index, %in: memref<?xf32>, %out: memref<?xf32>,
                      %flag: i1) {
  // expected-error @+1 {{a buffer of type 'memref<?xf32>' has a size only known at run time}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %in, %a : memref<?xf32> to memref<?xf32>
  %av = memref.subview %a[0] [%n] [1]
      : memref<?xf32> to memref<?xf32, strided<[1]>>
  // expected-error @+1 {{a buffer of type 'memref<?xf32>' has a size only known at run time}}
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %av, %b : memref<?xf32, strided<[1]>> to memref<?xf32>
  // expected-error @+1 {{a buffer of type 'memref<?xf32>' has a size only known at run time}}
  %c = memref.alloc(%n) : memref<?xf32>
  memref.copy %b, %c : memref<?xf32> to memref<?xf32>
  memref.copy %c, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  scf.if %flag {
    memref.dealloc %c : memref<?xf32>
  }
  return
}

// -----

// A loop body's temporary that is not yielded dies within its iteration: it
// takes one slot, live over the whole loop, that every iteration reuses; so
// does a branch's. Inside scf.parallel, whose iterations may run at the same
// time, it stays on the heap. The loop's and the branch's temporaries run
// one after the other: they share offset 64.
// CHECK-LABEL: module attributes {onnxc.workspace_planned_bytes = 192 : i64, onnxc.workspace_size = 128 : i64}
// CHECK: func.func @main_graph(%{{.*}}: memref<4xf32>, %{{.*}}: i1, %[[WS:.*]]: memref<128xi8> {onnxc.workspace})
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ACC:.*]] = memref.view %[[WS]][%[[O0]]][] : memref<128xi8> to memref<4xf32>
// CHECK: scf.for
// CHECK-NEXT: %[[O1:.*]] = arith.constant 64 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O1]]][] : memref<128xi8> to memref<4xf32>
// CHECK-NOT: memref.dealloc
// CHECK: scf.if
// CHECK-NEXT: %[[O2:.*]] = arith.constant 64 : index
// CHECK-NEXT: memref.view %[[WS]][%[[O2]]][] : memref<128xi8> to memref<4xf32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @main_graph(%in: memref<4xf32>, %flag: i1) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = memref.alloc() : memref<4xf32>
  memref.copy %in, %acc : memref<4xf32> to memref<4xf32>
  scf.for %i = %c1 to %c4 step %c1 {
    %tmp = memref.alloc() : memref<4xf32>
    memref.copy %acc, %tmp : memref<4xf32> to memref<4xf32>
    memref.copy %tmp, %in : memref<4xf32> to memref<4xf32>
    memref.dealloc %tmp : memref<4xf32>
  }
  scf.if %flag {
    %b = memref.alloc() : memref<4xf32>
    memref.copy %acc, %b : memref<4xf32> to memref<4xf32>
    memref.dealloc %b : memref<4xf32>
  }
  scf.parallel (%j) = (%c1) to (%c4) step (%c1) {
    // expected-error @+1 {{a buffer of type 'memref<4xf32>' is allocated inside 'scf.parallel', which the memory plan does not enter}}
    %p = memref.alloc() : memref<4xf32>
    memref.copy %in, %p : memref<4xf32> to memref<4xf32>
    memref.dealloc %p : memref<4xf32>
  }
  memref.dealloc %acc : memref<4xf32>
  return
}

// -----

// Only the graph function is planned.
// CHECK-LABEL: func.func @helper
// CHECK: memref.alloc
// CHECK: memref.dealloc
func.func @helper() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
