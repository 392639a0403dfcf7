//===- CudaRuntimeTest.cpp - runtime/cuda without a GPU -------------------===//
//
// The CUDA runtime on a machine without a usable driver (ONNXC_CUDA_DRIVER
// names a file that does not exist, set before the first call): every call
// must return without crashing, allocations and loads give NULL, and the
// error record says "no CUDA device", which onnxc_cpu_run turns into
// ONNXC_NO_DEVICE. Also the allocator's bucket sizes and the messages of
// the two device error kinds. The GPU side is CudaGpuTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cpu/CpuRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {

// Before main, so before any call loads the driver.
const bool kDriverMissing =
    setenv("ONNXC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1) == 0;

/// The recorded error (and clears it): its status code and message.
std::pair<int, std::string> takeError() {
  char message[512] = "";
  int code = onnxc_rt_take_shape_error(message, sizeof message);
  return {code, message};
}

constexpr uint64_t kMiB = uint64_t(1) << 20;

TEST(CudaBuckets, SmallSizesRoundUpTo256Bytes) {
  EXPECT_EQ(onnxc_cuda_bucket_size(0), 256u);
  EXPECT_EQ(onnxc_cuda_bucket_size(1), 256u);
  EXPECT_EQ(onnxc_cuda_bucket_size(256), 256u);
  EXPECT_EQ(onnxc_cuda_bucket_size(257), 512u);
  EXPECT_EQ(onnxc_cuda_bucket_size(1000), 1024u);
  EXPECT_EQ(onnxc_cuda_bucket_size(kMiB - 1), kMiB);
  EXPECT_EQ(onnxc_cuda_bucket_size(kMiB), kMiB);
}

TEST(CudaBuckets, LargeSizesTakeQuarterSteps) {
  EXPECT_EQ(onnxc_cuda_bucket_size(kMiB + 1), kMiB + kMiB / 4);
  EXPECT_EQ(onnxc_cuda_bucket_size(kMiB + kMiB / 4), kMiB + kMiB / 4);
  EXPECT_EQ(onnxc_cuda_bucket_size(kMiB + kMiB / 4 + 1), kMiB + kMiB / 2);
  EXPECT_EQ(onnxc_cuda_bucket_size(2 * kMiB - 1), 2 * kMiB);
  EXPECT_EQ(onnxc_cuda_bucket_size(2 * kMiB), 2 * kMiB);
  EXPECT_EQ(onnxc_cuda_bucket_size(2 * kMiB + 1), 2 * kMiB + kMiB / 2);
  EXPECT_EQ(onnxc_cuda_bucket_size(3 * kMiB), 3 * kMiB);
  EXPECT_EQ(onnxc_cuda_bucket_size(100 * kMiB), 112 * kMiB);
  EXPECT_EQ(onnxc_cuda_bucket_size(uint64_t(1) << 63), uint64_t(1) << 63);
  EXPECT_EQ(onnxc_cuda_bucket_size((uint64_t(1) << 63) + 1), 0u);
  EXPECT_EQ(onnxc_cuda_bucket_size(~uint64_t(0)), 0u);
}

TEST(CudaBuckets, CoverTheRequestWithAtMostAQuarterToSpare) {
  std::mt19937_64 rng(7);
  uint64_t previous = 0, previousBucket = 0;
  for (int i = 0; i < 100000; ++i) {
    uint64_t bytes = rng() >> (2 + rng() % 60); // below 2^62
    uint64_t bucket = onnxc_cuda_bucket_size(bytes);
    ASSERT_GE(bucket, bytes);
    ASSERT_EQ(bucket % 256, 0u) << bytes;
    if (bytes > kMiB)
      ASSERT_LE(bucket - bytes, bytes / 4) << bytes;
    else
      ASSERT_LT(bucket - bytes, 256u + (bytes == 0 ? 1 : 0)) << bytes;
    // Idempotent: a bucket size is its own bucket.
    ASSERT_EQ(onnxc_cuda_bucket_size(bucket), bucket) << bytes;
    if (bytes >= previous)
      ASSERT_GE(bucket, previousBucket) << bytes;
    previous = bytes;
    previousBucket = bucket;
  }
}

TEST(CudaErrorRecord, DeviceErrorsNameTheCallAndTheStatus) {
  ASSERT_FALSE(onnxc_rt_shape_error_pending());
  onnxc_rt_shape_error("cuLaunchKernel", ONNXC_SHAPE_ERROR_DEVICE, 1,
                       (int64_t)(intptr_t) "CUDA_ERROR_INVALID_VALUE");
  EXPECT_TRUE(onnxc_rt_shape_error_pending());
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_RUNTIME_ERROR);
  EXPECT_EQ(message, "cuda: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE");
  EXPECT_FALSE(onnxc_rt_shape_error_pending());

  onnxc_rt_shape_error("cuMemAlloc", ONNXC_SHAPE_ERROR_DEVICE, 2, 0);
  std::tie(code, message) = takeError();
  EXPECT_EQ(code, ONNXC_RUNTIME_ERROR);
  EXPECT_EQ(message, "cuda: cuMemAlloc failed: status 2");

  onnxc_rt_shape_error("driver gone", ONNXC_SHAPE_ERROR_NO_DEVICE, 0, 0);
  std::tie(code, message) = takeError();
  EXPECT_EQ(code, ONNXC_NO_DEVICE);
  EXPECT_EQ(message, "no CUDA device: driver gone");

  // The shape kinds keep their code.
  onnxc_rt_shape_error("n", ONNXC_SHAPE_ERROR_BROADCAST, 2, 3);
  EXPECT_EQ(takeError().first, ONNXC_INVALID_ARGUMENT);
  EXPECT_EQ(takeError().first, 0);
}

TEST(CudaNoDriver, LoadsAndAllocationsGiveNullAndRecordNoDevice) {
  ASSERT_TRUE(kDriverMissing);
  int blob = 0;
  EXPECT_EQ(mgpuModuleLoad(&blob, sizeof blob), nullptr);
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_NO_DEVICE);
  EXPECT_EQ(message.rfind("no CUDA device", 0), 0u) << message;
  // dlerror's text names the library that is missing.
  EXPECT_NE(message.find("/nonexistent/libcuda.so.1"), std::string::npos)
      << message;

  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  std::tie(code, message) = takeError();
  EXPECT_EQ(code, ONNXC_NO_DEVICE);
  EXPECT_EQ(message.rfind("no CUDA device", 0), 0u) << message;

  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, true), nullptr);
  EXPECT_EQ(mgpuModuleLoadJIT(&blob, 2), nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(onnxc_cuda_constant(&blob, sizeof blob), nullptr);
  EXPECT_EQ(takeError().first, ONNXC_NO_DEVICE);
}

TEST(CudaNoDriver, TheDeviceCheckRefusesWithTheReasonAndRecordsNothing) {
  ASSERT_TRUE(kDriverMissing);
  char message[512] = "";
  EXPECT_EQ(onnxc_device_check(message, sizeof message), ONNXC_NO_DEVICE);
  EXPECT_EQ(std::string(message).rfind("no CUDA device: ", 0), 0u) << message;
  EXPECT_NE(std::string(message).find("/nonexistent/libcuda.so.1"),
            std::string::npos)
      << message;
  EXPECT_EQ(takeError().first, 0); // a load check is not a run's error
  // A message buffer is optional.
  EXPECT_EQ(onnxc_device_check(nullptr, 0), ONNXC_NO_DEVICE);
}

// The call bracket frees what a partition call allocated; without a device
// there is nothing, and it must not crash or record anything.
TEST(CudaNoDriver, CallBracketWithoutDeviceIsHarmless) {
  onnxc_cuda_begin(0);
  onnxc_cuda_end();
  EXPECT_EQ(takeError().first, 0);
}

TEST(CudaNoDriver, TheFirstErrorOfARunIsKept) {
  onnxc_rt_shape_error("first", ONNXC_SHAPE_ERROR_BROADCAST, 2, 3);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_INVALID_ARGUMENT);
  EXPECT_NE(message.find("'first'"), std::string::npos) << message;
}

TEST(CudaNoDriver, MatMulFailsAndRecords) {
  float data[6] = {};
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } a = {data, data, 0, {2, 3}, {3, 1}}, b = {data, data, 0, {3, 2}, {2, 1}},
    c = {data, data, 0, {2, 2}, {2, 1}};
  EXPECT_NE(onnxc_cuda_matmul_f32(2, &a, 2, &b, 2, &c, 0, 0, 1.0f), 0);
  auto [code, message] = takeError();
  EXPECT_EQ(code, ONNXC_NO_DEVICE);
  EXPECT_EQ(message.rfind("no CUDA device", 0), 0u) << message;
  // Null descriptors, in a failed run: refused without reading them.
  EXPECT_NE(
      onnxc_cuda_matmul_f32(2, nullptr, 2, nullptr, 2, nullptr, 0, 0, 1.0f), 0);
  EXPECT_NE(takeError().first, 0);
}

TEST(CudaNoDriver, EveryOtherCallIsAHarmlessNoOp) {
  // A null function: its load failed (and said so), nothing more to say.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_FALSE(onnxc_rt_shape_error_pending());
  mgpuModuleUnload(nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "kernel"), nullptr);
  mgpuMemFree(nullptr, nullptr);
  int local = 0;
  mgpuMemFree(&local, nullptr); // not a block of ours: ignored
  mgpuMemcpy(nullptr, nullptr, 0, nullptr);
  mgpuMemset32(nullptr, 0, 0, nullptr);
  mgpuMemset16(nullptr, 0, 0, nullptr);
  mgpuStreamDestroy(nullptr);
  mgpuStreamSynchronize(nullptr);
  void *event = mgpuEventCreate();
  EXPECT_NE(event, nullptr);
  mgpuEventRecord(event, nullptr);
  mgpuStreamWaitEvent(nullptr, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuSetDefaultDevice(0);
  EXPECT_FALSE(onnxc_rt_shape_error_pending());
  // With sizes, the copies and fills need the device: recorded, skipped.
  float host[4] = {};
  mgpuMemcpy(host, host, sizeof host, nullptr);
  mgpuMemset32(host, 0, 4, nullptr);
  mgpuMemset16(host, 0, 4, nullptr);
  EXPECT_EQ(takeError().first, ONNXC_NO_DEVICE);
}

TEST(CudaNoDriver, OtherThreadsSeeNoDeviceToo) {
  int code = 0;
  std::thread([&] {
    EXPECT_EQ(mgpuMemAlloc(16, nullptr, false), nullptr);
    code = takeError().first;
  }).join();
  EXPECT_EQ(code, ONNXC_NO_DEVICE);
  EXPECT_FALSE(onnxc_rt_shape_error_pending());
}

/// What the host code of a CUDA partition does, on a [1, 4] input: upload,
/// launch, download into the result, free.
struct Desc2 {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

void partitionInvoke(void **inputs, void *results) {
  auto *x = static_cast<Desc2 *>(inputs[0]);
  Desc2 y = *x;
  y.allocated = y.aligned = static_cast<float *>(std::calloc(4, sizeof(float)));
  y.offset = 0;
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(4 * sizeof(float), stream, false);
  mgpuMemcpy(device, x->aligned, 4 * sizeof(float), stream);
  static const char blob[] = "not a module";
  void *module = mgpuModuleLoad(const_cast<char *>(blob), sizeof blob);
  void *function = mgpuModuleGetFunction(module, "kernel");
  void *params[] = {&device};
  mgpuLaunchKernel(function, 1, 1, 1, 4, 1, 1, 0, stream, params, nullptr, 1);
  mgpuModuleUnload(module);
  mgpuMemcpy(y.aligned, device, 4 * sizeof(float), stream);
  mgpuMemFree(device, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  *static_cast<Desc2 *>(results) = y;
}

TEST(CudaNoDriver, ARunFailsWithNoDevice) {
  const int64_t dims[2] = {1, 4};
  const char *const params[2] = {"", ""};
  onnxc_tensor_info info[1] = {{"x", dims, params, ONNXC_DTYPE_FLOAT, 2}};
  onnxc_tensor_info outInfo[1] = {{"y", dims, params, ONNXC_DTYPE_FLOAT, 2}};
  onnxc_model model{};
  model.abi_version = ONNXC_ABI_VERSION;
  model.num_inputs = model.num_outputs = 1;
  model.name = "cuda";
  model.inputs = info;
  model.outputs = outInfo;
  model.run = onnxc_cpu_run;
  model.release_tensor = onnxc_cpu_release_tensor;
  model.graph_invoke = partitionInvoke;
  model.set_num_threads = onnxc_cpu_set_num_threads;
  float x[4] = {1, 2, 3, 4};
  onnxc_tensor in{};
  in.data = x;
  in.shape[0] = 1;
  in.shape[1] = 4;
  in.rank = 2;
  in.dtype = ONNXC_DTYPE_FLOAT;
  onnxc_tensor out{};
  onnxc_error err;
  EXPECT_EQ(onnxc_cpu_run(&model, &in, 1, &out, 1, &err), ONNXC_NO_DEVICE);
  EXPECT_EQ(std::string(err.message).rfind("no CUDA device: ", 0), 0u)
      << err.message;
  EXPECT_EQ(out.data, nullptr);
  EXPECT_FALSE(onnxc_rt_shape_error_pending());
}

} // namespace
