//===- KernelTestUtils.h - Helpers of the per-ISA kernel tests --*- C++ -*-===//
//
// The kernel tests run every variant the CPU can execute, forced through the
// GEMM's ISA switch (onnxc_sgemm_force_isa), which the activation, NCHWc
// convolution and transformer row kernels follow too.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TEST_UNIT_KERNELTESTUTILS_H
#define ONNXC_TEST_UNIT_KERNELTESTUTILS_H

#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/kernels/Gemm.h"

#include <cstring>
#include <vector>

namespace onnxc::test {

/// The ISAs this machine runs, portable first: the parameters of a test
/// over the kernel variants.
inline std::vector<int> supportedIsas() {
  std::vector<int> isas;
  for (int isa :
       {ONNXC_SGEMM_ISA_PORTABLE, ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_AVX512})
    if (onnxc_sgemm_isa_supported(isa))
      isas.push_back(isa);
  return isas;
}

/// Points `ref` at a dense row-major memref descriptor of `data` with
/// `shape`, kept in `descriptor` (allocated, aligned, offset, sizes,
/// strides): how lowered code passes a tensor to a runtime entry point.
inline void describeDense(void *data, const std::vector<int64_t> &shape,
                          std::vector<int64_t> &descriptor,
                          onnxc_unranked_memref &ref) {
  descriptor.assign(3 + 2 * shape.size(), 0);
  std::memcpy(&descriptor[0], &data, sizeof data);
  std::memcpy(&descriptor[1], &data, sizeof data);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    descriptor[3 + d] = shape[d];
    descriptor[3 + shape.size() + d] = stride;
    stride *= shape[d];
  }
  ref.rank = static_cast<int64_t>(shape.size());
  ref.descriptor = descriptor.data();
}

} // namespace onnxc::test

#endif // ONNXC_TEST_UNIT_KERNELTESTUTILS_H
