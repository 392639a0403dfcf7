/*===- CpuFeatures.h - x86-64 features the kernels dispatch on ------------===*
 *
 * CPUID and XGETBV directly, not __builtin_cpu_supports: that one needs
 * libgcc's __cpu_model, and artifacts link only libc and libm. A feature
 * counts only when the OS also saves its registers (XCR0). Read once per
 * process by the GEMMs' dispatch.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_KERNELS_CPUFEATURES_H
#define ONNXC_RUNTIME_CPU_KERNELS_CPUFEATURES_H

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>

enum {
  ONNXC_X86_AVX2_FMA = 1,
  ONNXC_X86_AVX512 = 2,      /* AVX-512 F and VL */
  ONNXC_X86_AVX512_VNNI = 4, /* also AVX-512 F, VL and BW */
};

static inline int onnxc_x86_features_uncached(void) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return 0;
  int fma = (ecx >> 12) & 1, osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
  if (!osxsave || !avx)
    return 0;
  unsigned xcr0_lo, xcr0_hi;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6)
    return 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return 0;
  int features = 0;
  if (fma && ((ebx >> 5) & 1))
    features |= ONNXC_X86_AVX2_FMA;
  int avx512f = (ebx >> 16) & 1, avx512bw = (ebx >> 30) & 1,
      avx512vl = (ebx >> 31) & 1, vnni = (ecx >> 11) & 1;
  if (avx512f && avx512vl && (xcr0_lo & 0xE0) == 0xE0) {
    features |= ONNXC_X86_AVX512;
    if (avx512bw && vnni)
      features |= ONNXC_X86_AVX512_VNNI;
  }
  return features;
}

/* The features, read once per translation unit that asks. */
static inline int onnxc_x86_features(void) {
  static int cached = -1; /* __atomic builtins take a plain int */
  int features = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (features < 0) {
    features = onnxc_x86_features_uncached();
    __atomic_store_n(&cached, features, __ATOMIC_RELAXED);
  }
  return features;
}
#endif

#endif /* ONNXC_RUNTIME_CPU_KERNELS_CPUFEATURES_H */
