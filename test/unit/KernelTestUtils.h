//===- KernelTestUtils.h - Helpers of the per-ISA kernel tests --*- C++ -*-===//
//
// The kernel tests run every variant the CPU can execute, forced through the
// GEMM's ISA switch (onnxc_sgemm_force_isa), which the activation, NCHWc
// convolution and transformer row kernels follow too.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TEST_UNIT_KERNELTESTUTILS_H
#define ONNXC_TEST_UNIT_KERNELTESTUTILS_H

#include "runtime/cpu/kernels/Gemm.h"

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

} // namespace onnxc::test

#endif // ONNXC_TEST_UNIT_KERNELTESTUTILS_H
