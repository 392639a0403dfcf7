/*===- UnloadProbe.c - An artifact stand-in that the test unloads ---------===*
 *
 * Links its own copy of runtime/cuda, as an artifact does. CudaGpuTest.cpp
 * (the fake-driver build) calls it on a thread, unloads it, then lets the
 * thread exit: the runtime's per-thread destructor must still be mapped.
 *
 *===----------------------------------------------------------------------===*/

#include "runtime/cuda/CudaRuntime.h"

__attribute__((visibility("default"))) int onnxc_probe_use_gpu(void) {
  void *p = mgpuMemAlloc(100, NULL, false);
  mgpuMemFree(p, NULL);
  return p != NULL;
}
