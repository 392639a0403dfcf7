//===- DnnlSlot.h - A dnnl call site's cache slot for the glue tests ------===//
//
// What an artifact passes as a call site's slot (runtime/dnnl/
// DnnlRuntime.h): a zeroed memref<1xi64>. Pinned in memory, so its
// descriptor is built once and threads may share it.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TEST_UNIT_DNNLSLOT_H
#define ONNXC_TEST_UNIT_DNNLSLOT_H

#include "runtime/cpu/CpuRuntime.h"

#include <cstdint>
#include <cstring>

namespace onnxc::test {

struct Slot {
  int64_t cell = 0;
  int64_t descriptor[5] = {0, 0, 0, 1, 1};
  onnxc_unranked_memref ref{};
  Slot() {
    int64_t *p = &cell;
    std::memcpy(&descriptor[0], &p, sizeof p);
    std::memcpy(&descriptor[1], &p, sizeof p);
    ref = {1, descriptor};
  }
  Slot(const Slot &) = delete;
  Slot &operator=(const Slot &) = delete;
  onnxc_unranked_memref *memref() { return &ref; }
};

} // namespace onnxc::test

#endif // ONNXC_TEST_UNIT_DNNLSLOT_H
