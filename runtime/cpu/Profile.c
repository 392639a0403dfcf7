/*===- Profile.c - Per-node timers of `onnxc compile --profile` -----------===*
 *
 * An artifact compiled with --profile calls these from its graph function
 * (targets/cpu/transforms/InstrumentNodes.cpp): once at the start, then at
 * every boundary between two nodes' code, and once before it returns. The
 * time since the previous boundary goes to the counter of the node that
 * just ended. The timestamps travel through the graph's own SSA values, so
 * concurrent runs of one model need no shared state but the counters,
 * which take atomic adds.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"

#include <time.h>

int64_t onnxc_rt_profile_clock(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t _mlir_ciface_onnxc_rt_profile_lap(onnxc_memref1 *counters,
                                          int32_t entry, int64_t since) {
  int64_t now = onnxc_rt_profile_clock();
  if (entry >= 0 && entry < counters->size) {
    uint64_t *counter = (uint64_t *)counters->aligned + counters->offset +
                        entry * counters->stride;
    __atomic_fetch_add(counter, (uint64_t)(now - since), __ATOMIC_RELAXED);
  }
  return now;
}
