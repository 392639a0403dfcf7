//===- CudaGpuTest.cpp - runtime/cuda on a GPU, or on the fake driver -----===//
//
// The CUDA runtime against a device: a PTX kernel loaded, cached and
// launched through the mgpu calls, copies in every direction, fills, the
// caching allocator, the weights' device copies, cuBLAS products (every
// transpose, batch broadcasting, the folded and looped batch paths) against
// a loop, errors recorded instead of aborting, and threads.
//
// Built twice. onnxc-cuda-gpu-tests takes the real driver and skips every
// test where none can be used (no libcuda.so.1, as on CI; the cuBLAS tests
// also where no libcublas is found). onnxc-cuda-fake-tests
// (ONNXC_TEST_FAKE_CUDA) takes test/unit/cuda_fake instead, a driver and
// cuBLAS on host memory that check how they are called, and so runs
// everywhere.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cuda/CudaRuntime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

/// The recorded error (and clears it): its status code and message.
std::pair<int, std::string> takeError() {
  char message[512] = "";
  int code = onnxc_rt_take_shape_error(message, sizeof message);
  return {code, message};
}

#ifdef ONNXC_TEST_FAKE_CUDA
// Before main, so before any call loads the driver.
const bool kFake = setenv("ONNXC_CUDA_DRIVER", ONNXC_TEST_FAKE_CUDA, 1) == 0 &&
                   setenv("ONNXC_CUDA_CUBLAS", ONNXC_TEST_FAKE_CUDA, 1) == 0;
#define SKIP_OR_FAIL(message) FAIL() << "the fake driver failed: " << message
#else
#define SKIP_OR_FAIL(message) GTEST_SKIP() << message
#endif

/// Skips the test without a usable device (fails on the fake one).
#define REQUIRE_DEVICE()                                                       \
  do {                                                                         \
    if (!mgpuStreamCreate()) {                                                 \
      auto error = takeError();                                                \
      SKIP_OR_FAIL(error.second);                                              \
    }                                                                          \
  } while (0)

// p[i] *= s for i < n.
const char kScalePtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry scale(.param .u64 p, .param .f32 s, .param .u32 n) {
  .reg .pred %done;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.f32 %f1, [s];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %done, %r5, %r1;
  @%done bra END;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  mul.f32 %f2, %f2, %f1;
  st.global.f32 [%rd4], %f2;
END:
  ret;
}
)";

void *scaleFunction() {
  void *module =
      mgpuModuleLoad(const_cast<char *>(kScalePtx), sizeof kScalePtx);
  void *function = mgpuModuleGetFunction(module, "scale");
  mgpuModuleUnload(module);
  return function;
}

void launchScale(void *function, void *data, float s, uint32_t n) {
  void *args[] = {&data, &s, &n};
  mgpuLaunchKernel(function, (n + 127) / 128, 1, 1, 128, 1, 1, 0,
                   mgpuStreamCreate(), args, nullptr, 3);
}

TEST(CudaGpu, ModulesAndFunctionsAreCached) {
  REQUIRE_DEVICE();
  void *m1 = mgpuModuleLoad(const_cast<char *>(kScalePtx), sizeof kScalePtx);
  void *m2 = mgpuModuleLoad(const_cast<char *>(kScalePtx), sizeof kScalePtx);
  ASSERT_NE(m1, nullptr) << takeError().second;
  EXPECT_EQ(m1, m2);
  mgpuModuleUnload(m1);
  void *f1 = mgpuModuleGetFunction(m1, "scale");
  EXPECT_NE(f1, nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(m2, "scale"), f1);
  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(kScalePtx), 3), m1);
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

TEST(CudaGpu, LaunchesCopiesAndFills) {
  REQUIRE_DEVICE();
  void *scale = scaleFunction();
  ASSERT_NE(scale, nullptr) << takeError().second;
  const uint32_t n = 1000;
  std::vector<float> host(n), back(n, -1);
  for (uint32_t i = 0; i < n; ++i)
    host[i] = float(i);
  void *stream = mgpuStreamCreate();
  float *d = static_cast<float *>(mgpuMemAlloc(n * 4, stream, false));
  float *e = static_cast<float *>(mgpuMemAlloc(n * 4, stream, false));
  ASSERT_NE(d, nullptr);
  ASSERT_NE(e, nullptr);
  mgpuMemcpy(d, host.data(), n * 4, stream);
  launchScale(scale, d, 2.0f, n);
  mgpuMemcpy(e, d, n * 4, stream); // device to device
  launchScale(scale, e, 0.5f, n / 2);
  // A zero grid: skipped, no error.
  mgpuLaunchKernel(scale, 0, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr, 3);
  mgpuMemcpy(back.data(), e, n * 4, stream);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(back[i], i < n / 2 ? float(i) : 2.0f * i) << i;
  mgpuMemset32(d, 0x3f800000u, n, stream); // 1.0f
  mgpuMemset16(e, 0x4000, 2 * n, stream);  // 2.0f as two halves
  mgpuMemcpy(back.data(), d, n * 4, stream);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[n - 1], 1.0f);
  mgpuMemcpy(back.data(), e, n * 4, stream);
  uint32_t bits;
  std::memcpy(&bits, &back[7], 4);
  EXPECT_EQ(bits, 0x40004000u);
  mgpuMemFree(d, stream);
  mgpuMemFree(e, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

TEST(CudaGpu, TheAllocatorReusesBlocks) {
  REQUIRE_DEVICE();
  void *a = mgpuMemAlloc(5000, nullptr, false);
  ASSERT_NE(a, nullptr);
  mgpuMemFree(a, nullptr);
  // Same bucket (5120 bytes): the same block again.
  void *b = mgpuMemAlloc(5100, nullptr, false);
  EXPECT_EQ(a, b);
  void *z1 = mgpuMemAlloc(0, nullptr, false);
  void *z2 = mgpuMemAlloc(0, nullptr, false);
  EXPECT_NE(z1, nullptr);
  EXPECT_NE(z2, nullptr);
  EXPECT_NE(z1, z2);
  // A block freed while its stream is busy comes back to this thread.
  void *scale = scaleFunction();
  launchScale(scale, b, 1.0f, 1000);
  mgpuMemFree(b, nullptr);
  EXPECT_EQ(mgpuMemAlloc(5000, nullptr, false), b);
  mgpuMemFree(b, nullptr);
  mgpuMemFree(z1, nullptr);
  mgpuMemFree(z2, nullptr);
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

TEST(CudaGpu, HostSharedMemoryIsReadableAfterSynchronize) {
  REQUIRE_DEVICE();
  float *p = static_cast<float *>(mgpuMemAlloc(256, nullptr, true));
  ASSERT_NE(p, nullptr) << takeError().second;
  mgpuMemset32(p, 0x40400000u, 64, nullptr); // 3.0f
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(p[63], 3.0f);
  mgpuMemFree(p, nullptr);
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

TEST(CudaGpu, ConstantsAreUploadedOnce) {
  REQUIRE_DEVICE();
  static const float weights[5] = {1, 2, 3, 4, 5};
  void *d1 = onnxc_cuda_constant(weights, sizeof weights);
  ASSERT_NE(d1, nullptr) << takeError().second;
  void *d2 = onnxc_cuda_constant(weights, sizeof weights);
  EXPECT_EQ(d1, d2);
  EXPECT_NE(onnxc_cuda_constant(weights, 8), d1); // another size
  EXPECT_NE(onnxc_cuda_constant(weights, 0), nullptr);
  float back[5] = {};
  mgpuMemcpy(back, d1, sizeof back, nullptr);
  EXPECT_EQ(std::vector<float>(back, back + 5),
            std::vector<float>(weights, weights + 5));
  std::atomic<void *> seen[4];
  std::vector<std::thread> threads;
  static const float more[3] = {7, 8, 9};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { seen[i] = onnxc_cuda_constant(more, 12); });
  for (auto &t : threads)
    t.join();
  for (int i = 1; i < 4; ++i)
    EXPECT_EQ(seen[i].load(), seen[0].load());
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

TEST(CudaGpu, AFailedCallIsRecordedAndSkipsTheRestOfTheRun) {
  REQUIRE_DEVICE();
  void *scale = scaleFunction();
  void *d = mgpuMemAlloc(64, nullptr, false);
  uint32_t n = 16;
  float s = 1.0f;
  void *args[] = {&d, &s, &n};
  // 2048 threads a block: more than any device takes.
  mgpuLaunchKernel(scale, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr, 3);
  EXPECT_TRUE(onnxc_rt_shape_error_pending());
  // Skipped while the error is pending.
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_RUNTIME_ERROR);
  EXPECT_EQ(message.rfind("cuda: cuLaunchKernel failed: CUDA_ERROR_", 0), 0u)
      << message;
  // The next run works again.
  void *e = mgpuMemAlloc(64, nullptr, false);
  EXPECT_NE(e, nullptr);
  mgpuMemFree(d, nullptr);
  mgpuMemFree(e, nullptr);
  // A module that is not one.
  static const char junk[] = "not a module";
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(junk), sizeof junk), nullptr);
  std::tie(code, message) = takeError();
  EXPECT_EQ(code, ONNXC_RUNTIME_ERROR);
  EXPECT_EQ(message.rfind("cuda: cuModuleLoadData failed: CUDA_ERROR_", 0), 0u)
      << message;
}

TEST(CudaGpu, ThreadsRunSideBySide) {
  REQUIRE_DEVICE();
  void *scale = scaleFunction();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const uint32_t n = 4096 + 64 * t;
      std::vector<float> host(n), back(n);
      for (int round = 0; round < 50; ++round) {
        for (uint32_t i = 0; i < n; ++i)
          host[i] = float(i + round + t);
        void *d = mgpuMemAlloc(n * 4, nullptr, false);
        mgpuMemcpy(d, host.data(), n * 4, nullptr);
        launchScale(scale, d, 3.0f, n);
        mgpuMemcpy(back.data(), d, n * 4, nullptr);
        mgpuMemFree(d, nullptr);
        for (uint32_t i = 0; i < n; ++i)
          if (back[i] != 3.0f * host[i]) {
            ++failures;
            break;
          }
      }
      if (onnxc_rt_shape_error_pending()) {
        ADD_FAILURE() << takeError().second;
        ++failures;
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

#ifdef ONNXC_TEST_UNLOAD_PROBE
// An artifact pins itself once it loaded the driver: a thread that used it
// exits after it was unloaded, and the runtime's per-thread destructor runs
// (a crash if the code were gone).
TEST(CudaFake, AThreadMayExitAfterItsArtifactIsUnloaded) {
  void *library = dlopen(ONNXC_TEST_UNLOAD_PROBE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto use = reinterpret_cast<int (*)()>(dlsym(library, "onnxc_probe_use_gpu"));
  ASSERT_NE(use, nullptr);
  std::mutex mutex;
  std::condition_variable changed;
  bool used = false, unloaded = false;
  int allocated = 0;
  std::thread thread([&] {
    allocated = use();
    std::unique_lock<std::mutex> lock(mutex);
    used = true;
    changed.notify_all();
    changed.wait(lock, [&] { return unloaded; });
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return used; });
  }
  dlclose(library);
  {
    std::lock_guard<std::mutex> lock(mutex);
    unloaded = true;
  }
  changed.notify_all();
  thread.join();
  EXPECT_EQ(allocated, 1);
}
#endif

/*===- cuBLAS -------------------------------------------------------------===*/

/// A dense row-major tensor on the device, with its ranked descriptor.
struct DeviceTensor {
  std::vector<int64_t> shape;
  std::vector<float> host;
  float *device = nullptr;
  std::vector<int64_t>
      descriptor; // {allocated, aligned, offset, sizes, strides}

  DeviceTensor(std::vector<int64_t> s, unsigned seed) : shape(std::move(s)) {
    size_t count = 1;
    for (int64_t d : shape)
      count *= size_t(d);
    host.resize(count);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float &x : host)
      x = dist(rng);
    device = static_cast<float *>(mgpuMemAlloc(count * 4, nullptr, false));
    mgpuMemcpy(device, host.data(), count * 4, nullptr);
    descriptor = {int64_t(intptr_t(device)), int64_t(intptr_t(device)), 0};
    for (int64_t d : shape)
      descriptor.push_back(d);
    int64_t stride = 1;
    std::vector<int64_t> strides(shape.size());
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= shape[i];
    }
    descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  }
  ~DeviceTensor() { mgpuMemFree(device, nullptr); }
  int64_t rank() const { return int64_t(shape.size()); }
  void *desc() { return descriptor.data(); }
  std::vector<float> download() {
    std::vector<float> out(host.size());
    mgpuMemcpy(out.data(), device, out.size() * 4, nullptr);
    return out;
  }
};

/// numpy's matmul with the last two dims of A / B transposed when asked.
std::vector<float> reference(const DeviceTensor &a, const DeviceTensor &b,
                             const std::vector<int64_t> &cShape, bool ta,
                             bool tb, float alpha) {
  int r = int(cShape.size());
  int64_t m = cShape[r - 2], n = cShape[r - 1];
  int64_t k = ta ? a.shape[a.shape.size() - 2] : a.shape.back();
  size_t batch = 1;
  for (int i = 0; i < r - 2; ++i)
    batch *= size_t(cShape[i]);
  std::vector<float> c(batch * m * n);
  for (size_t p = 0; p < batch; ++p) {
    // Batch index -> A's and B's matrix index, broadcasting.
    size_t rest = p, ia = 0, ib = 0, sa = 1, sb = 1;
    for (int i = r - 3; i >= 0; --i) {
      size_t idx = rest % cShape[i];
      rest /= cShape[i];
      int da = i - (r - int(a.shape.size())),
          db = i - (r - int(b.shape.size()));
      int64_t ad = da >= 0 ? a.shape[da] : 1, bd = db >= 0 ? b.shape[db] : 1;
      ia += (ad == 1 ? 0 : idx) * sa;
      ib += (bd == 1 ? 0 : idx) * sb;
      sa *= size_t(ad);
      sb *= size_t(bd);
    }
    const float *A = a.host.data() + ia * m * k;
    const float *B = b.host.data() + ib * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += double(ta ? A[q * m + i] : A[i * k + q]) *
                 (tb ? B[j * k + q] : B[q * n + j]);
        c[p * m * n + i * n + j] = alpha * float(sum);
      }
  }
  return c;
}

void checkProduct(std::vector<int64_t> aShape, std::vector<int64_t> bShape,
                  std::vector<int64_t> cShape, bool ta, bool tb,
                  float alpha = 1.0f) {
  DeviceTensor a(aShape, 1), b(bShape, 2), c(cShape, 3);
  int32_t status = onnxc_cuda_matmul_f32(a.rank(), a.desc(), b.rank(), b.desc(),
                                         c.rank(), c.desc(), ta, tb, alpha);
  ASSERT_EQ(status, 0) << takeError().second;
  std::vector<float> got = c.download(),
                     want = reference(a, b, cShape, ta, tb, alpha);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i]))) << i;
  EXPECT_FALSE(onnxc_rt_shape_error_pending()) << takeError().second;
}

#define REQUIRE_CUBLAS()                                                       \
  do {                                                                         \
    REQUIRE_DEVICE();                                                          \
    DeviceTensor a({1, 1}, 1), b({1, 1}, 2), c({1, 1}, 3);                     \
    if (onnxc_cuda_matmul_f32(2, a.desc(), 2, b.desc(), 2, c.desc(), 0, 0,     \
                              1.0f) != 0) {                                    \
      auto error = takeError();                                                \
      SKIP_OR_FAIL(error.second);                                              \
    }                                                                          \
  } while (0)

TEST(CudaBlas, TwoDimensionalProducts) {
  REQUIRE_CUBLAS();
  checkProduct({5, 7}, {7, 3}, {5, 3}, false, false);
  checkProduct({7, 5}, {7, 3}, {5, 3}, true, false);
  checkProduct({5, 7}, {3, 7}, {5, 3}, false, true);
  checkProduct({7, 5}, {3, 7}, {5, 3}, true, true, 0.5f);
  checkProduct({1, 64}, {64, 33}, {1, 33}, false, false);
  checkProduct({130, 70}, {70, 90}, {130, 90}, false, false, -2.0f);
}

TEST(CudaBlas, BatchesBroadcast) {
  REQUIRE_CUBLAS();
  checkProduct({4, 5, 7}, {4, 7, 3}, {4, 5, 3}, false, false); // strided
  checkProduct({4, 5, 7}, {7, 3}, {4, 5, 3}, false, false);    // folded
  checkProduct({4, 7, 5}, {7, 3}, {4, 5, 3}, true, false);     // B stays
  checkProduct({5, 7}, {4, 7, 3}, {4, 5, 3}, false, false);    // A stays
  checkProduct({2, 1, 5, 7}, {1, 3, 7, 4}, {2, 3, 5, 4}, false, false);
  checkProduct({2, 3, 5, 7}, {3, 4, 7}, {2, 3, 5, 4}, false, true);
  checkProduct({3, 1, 2, 5, 7}, {1, 4, 2, 7, 4}, {3, 4, 2, 5, 4}, false, false);
  checkProduct({1, 1, 5, 7}, {7, 2}, {1, 1, 5, 2}, false, false);
}

TEST(CudaBlas, EmptyProducts) {
  REQUIRE_CUBLAS();
  checkProduct({3, 0}, {0, 4}, {3, 4}, false, false); // K = 0: zeros
  checkProduct({0, 5}, {5, 4}, {0, 4}, false, false);
  checkProduct({0, 3, 5}, {5, 4}, {0, 3, 4}, false, false);
}

TEST(CudaBlas, ShapesThatDisagreeAreRecorded) {
  REQUIRE_CUBLAS();
  DeviceTensor a({5, 7}, 1), b({6, 3}, 2), c({5, 3}, 3);
  EXPECT_NE(
      onnxc_cuda_matmul_f32(2, a.desc(), 2, b.desc(), 2, c.desc(), 0, 0, 1.0f),
      0);
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_INVALID_ARGUMENT);
  EXPECT_NE(message.find("inner dims"), std::string::npos) << message;

  DeviceTensor a3({2, 5, 7}, 1), b3({3, 7, 3}, 2), c3({3, 5, 3}, 3);
  EXPECT_NE(onnxc_cuda_matmul_f32(3, a3.desc(), 3, b3.desc(), 3, c3.desc(), 0,
                                  0, 1.0f),
            0);
  EXPECT_EQ(takeError().first, ONNXC_INVALID_ARGUMENT);

  // A strided (not dense) operand.
  DeviceTensor d({5, 7}, 1);
  d.descriptor[5] = 8;
  EXPECT_NE(
      onnxc_cuda_matmul_f32(2, d.desc(), 2, b.desc(), 2, c.desc(), 0, 0, 1.0f),
      0);
  std::tie(code, message) = takeError();
  EXPECT_EQ(code, ONNXC_RUNTIME_ERROR);
  EXPECT_NE(message.find("malformed memref"), std::string::npos) << message;
}

TEST(CudaBlas, ThreadsHaveTheirOwnHandles) {
  REQUIRE_CUBLAS();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int round = 0; round < 10; ++round)
        checkProduct({3, 16 + t, 9}, {9, 5}, {3, 16 + t, 5}, false, false);
    });
  for (auto &t : threads)
    t.join();
}

} // namespace
