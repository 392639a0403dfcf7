//===- RuntimeRunTest.cpp - onnxc_cpu_run against hand-built graphs -------===//
//
// The graphs here stand in for compiled ones: they read and write the same
// memref descriptors a compiled graph does, so these tests pin down the
// runtime's half of the ABI (validation, output hand-over, aliasing, threads)
// without the compiler.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// A rank-2 memref descriptor, as the compiled graph sees it.
struct Desc2 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

Desc2 allocLike(const Desc2 &in) {
  Desc2 out = in;
  size_t n = in.sizes[0] * in.sizes[1];
  out.allocated = out.aligned =
      static_cast<float *>(std::malloc(n * sizeof(float) + 1));
  out.offset = 0;
  out.strides[0] = in.sizes[1];
  out.strides[1] = 1;
  return out;
}

/// z = x + y, both [N, 3].
void addInvoke(void **inputs, void *results) {
  auto *x = static_cast<Desc2 *>(inputs[0]);
  auto *y = static_cast<Desc2 *>(inputs[1]);
  Desc2 z = allocLike(*x);
  for (int64_t i = 0; i < x->sizes[0] * x->sizes[1]; ++i)
    z.aligned[i] = x->aligned[i] + y->aligned[i];
  *static_cast<Desc2 *>(results) = z;
}

/// Returns its input as its output (what an Identity graph may do).
void aliasInvoke(void **inputs, void *results) {
  *static_cast<Desc2 *>(results) = *static_cast<Desc2 *>(inputs[0]);
}

/// Two outputs sharing one fresh buffer.
void sharedInvoke(void **inputs, void *results) {
  Desc2 z = allocLike(*static_cast<Desc2 *>(inputs[0]));
  for (int64_t i = 0; i < z.sizes[0] * z.sizes[1]; ++i)
    z.aligned[i] = static_cast<Desc2 *>(inputs[0])->aligned[i] * 2;
  static_cast<Desc2 *>(results)[0] = z;
  static_cast<Desc2 *>(results)[1] = z;
}

const int64_t kDims[2] = {-1, 3};
const char *const kParams[2] = {"N", ""};

struct FakeModel {
  onnxc_tensor_info inputs[2] = {
      {"x", kDims, kParams, ONNXC_DTYPE_FLOAT, 2},
      {"y", kDims, kParams, ONNXC_DTYPE_FLOAT, 2}};
  onnxc_tensor_info outputs[2] = {
      {"z", kDims, kParams, ONNXC_DTYPE_FLOAT, 2},
      {"w", kDims, kParams, ONNXC_DTYPE_FLOAT, 2}};
  onnxc_model model;

  FakeModel(int numInputs, int numOutputs,
            void (*invoke)(void **, void *)) {
    model = {ONNXC_ABI_VERSION, numInputs, numOutputs, 0, "fake", inputs,
             outputs, onnxc_cpu_run, onnxc_cpu_release_tensor, invoke,
             onnxc_cpu_set_num_threads};
  }
};

onnxc_tensor floatTensor(float *data, int64_t rows, int64_t cols = 3) {
  onnxc_tensor t{};
  t.data = data;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.rank = 2;
  t.dtype = ONNXC_DTYPE_FLOAT;
  return t;
}

TEST(RuntimeRun, AddsAndHandsOverTheOutput) {
  FakeModel fake(2, 1, addInvoke);
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y = {10, 20, 30, 40, 50, 60};
  onnxc_tensor in[2] = {floatTensor(x.data(), 2), floatTensor(y.data(), 2)};
  onnxc_tensor out{};
  onnxc_error err;
  ASSERT_EQ(onnxc_cpu_run(&fake.model, in, 2, &out, 1, &err), ONNXC_OK)
      << err.message;
  ASSERT_EQ(out.rank, 2);
  EXPECT_EQ(out.shape[0], 2);
  EXPECT_EQ(out.shape[1], 3);
  EXPECT_EQ(out.dtype, ONNXC_DTYPE_FLOAT);
  EXPECT_EQ(out.size_bytes, 6 * sizeof(float));
  const float *z = static_cast<const float *>(out.data);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(z[i], x[i] + y[i]);
  onnxc_cpu_release_tensor(&out);
  EXPECT_EQ(out.data, nullptr);
}

TEST(RuntimeRun, CopiesIntoACallerBuffer) {
  FakeModel fake(2, 1, addInvoke);
  std::vector<float> x = {1, 2, 3}, y = {1, 1, 1}, z(3, 0);
  onnxc_tensor in[2] = {floatTensor(x.data(), 1), floatTensor(y.data(), 1)};
  onnxc_tensor out{};
  out.data = z.data();
  out.size_bytes = z.size() * sizeof(float);
  onnxc_error err;
  ASSERT_EQ(onnxc_cpu_run(&fake.model, in, 2, &out, 1, &err), ONNXC_OK)
      << err.message;
  EXPECT_EQ(z, (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(out.owner, nullptr);
}

TEST(RuntimeRun, RejectsASmallCallerBuffer) {
  FakeModel fake(2, 1, addInvoke);
  std::vector<float> x(6, 1), y(6, 1), z(5, 0);
  onnxc_tensor in[2] = {floatTensor(x.data(), 2), floatTensor(y.data(), 2)};
  onnxc_tensor out{};
  out.data = z.data();
  out.size_bytes = z.size() * sizeof(float);
  onnxc_error err;
  EXPECT_EQ(onnxc_cpu_run(&fake.model, in, 2, &out, 1, &err),
            ONNXC_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message,
               "output 'z': the buffer holds 20 bytes, the result needs 24");
}

/// Runs the add model on `in` and returns the error message (empty on OK).
std::string runError(onnxc_tensor *in, int numInputs = 2) {
  FakeModel fake(2, 1, addInvoke);
  onnxc_tensor out{};
  onnxc_error err;
  int code = onnxc_cpu_run(&fake.model, in, numInputs, &out, 1, &err);
  if (code == ONNXC_OK) {
    onnxc_cpu_release_tensor(&out);
    return "";
  }
  EXPECT_EQ(code, ONNXC_INVALID_ARGUMENT);
  return err.message;
}

TEST(RuntimeRun, ValidatesInputs) {
  std::vector<float> x(12, 1), y(12, 1);
  onnxc_tensor in[2] = {floatTensor(x.data(), 2), floatTensor(y.data(), 2)};
  EXPECT_EQ(runError(in, 1), "run: 1 inputs given, the model takes 2");

  in[0].dtype = ONNXC_DTYPE_INT32;
  EXPECT_EQ(runError(in), "input 'x': dtype int32, the model takes float");
  in[0].dtype = ONNXC_DTYPE_FLOAT;

  in[1].rank = 3;
  EXPECT_EQ(runError(in), "input 'y': rank 3, the model takes rank 2");
  in[1].rank = 2;

  in[0].shape[1] = 4;
  EXPECT_EQ(runError(in), "input 'x': dim 1 is 4, the model takes 3");
  in[0].shape[1] = 3;

  in[1].shape[0] = 3;
  EXPECT_EQ(runError(in),
            "input 'y': dim 0 ('N') is 3, but input 'x' has 'N' = 2");
  in[1].shape[0] = 2;

  in[0].shape[0] = -2;
  EXPECT_EQ(runError(in), "input 'x': dim 0 is negative (-2)");
  in[0].shape[0] = 2;

  in[1].data = nullptr;
  EXPECT_EQ(runError(in), "input 'y': data is null");
  in[1].data = reinterpret_cast<char *>(y.data()) + 1;
  EXPECT_EQ(runError(in),
            "input 'y': data is not aligned to its 4-byte elements");
  in[1].data = y.data();

  in[0].shape[0] = in[1].shape[0] = INT64_MAX / 2;
  EXPECT_EQ(runError(in), "input 'x': the element count overflows");
  in[0].shape[0] = in[1].shape[0] = 2;

  EXPECT_EQ(runError(in), "");
}

TEST(RuntimeRun, CopiesAnOutputThatAliasesAnInput) {
  FakeModel fake(1, 1, aliasInvoke);
  std::vector<float> x = {1, 2, 3};
  onnxc_tensor in = floatTensor(x.data(), 1);
  onnxc_tensor out{};
  onnxc_error err;
  ASSERT_EQ(onnxc_cpu_run(&fake.model, &in, 1, &out, 1, &err), ONNXC_OK)
      << err.message;
  EXPECT_NE(out.data, x.data());
  EXPECT_EQ(std::memcmp(out.data, x.data(), 3 * sizeof(float)), 0);
  onnxc_cpu_release_tensor(&out); // must free the copy, not x
}

TEST(RuntimeRun, SharedResultBuffersGetOneOwnerEach) {
  FakeModel fake(1, 2, sharedInvoke);
  std::vector<float> x = {1, 2, 3};
  onnxc_tensor in = floatTensor(x.data(), 1);
  onnxc_tensor out[2] = {};
  onnxc_error err;
  ASSERT_EQ(onnxc_cpu_run(&fake.model, &in, 1, out, 2, &err), ONNXC_OK)
      << err.message;
  EXPECT_NE(out[0].owner, out[1].owner);
  for (onnxc_tensor &t : out) {
    const float *v = static_cast<const float *>(t.data);
    EXPECT_EQ(v[0], 2);
    EXPECT_EQ(v[2], 6);
    onnxc_cpu_release_tensor(&t);
  }
}

TEST(RuntimeRun, ManyThreadsAgreeWithSerialRuns) {
  FakeModel fake(2, 1, addInvoke);
  constexpr int kThreads = 8, kRuns = 200;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        int rows = 1 + (t + r) % 5;
        std::vector<float> x(rows * 3), y(rows * 3);
        for (int i = 0; i < rows * 3; ++i) {
          x[i] = t * 1000 + r + i;
          y[i] = i * 0.5f;
        }
        onnxc_tensor in[2] = {floatTensor(x.data(), rows),
                              floatTensor(y.data(), rows)};
        onnxc_tensor out{};
        onnxc_error err;
        if (onnxc_cpu_run(&fake.model, in, 2, &out, 1, &err) != ONNXC_OK) {
          ++failures[t];
          continue;
        }
        const float *z = static_cast<const float *>(out.data);
        for (int i = 0; i < rows * 3; ++i)
          failures[t] += z[i] != x[i] + y[i];
        onnxc_cpu_release_tensor(&out);
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int f : failures)
    EXPECT_EQ(f, 0);
}

/// The kernels' scratch pool: aligned blocks of the asked size, never one
/// block to two holders, reused after it is given back (large blocks too,
/// which are rounded up to huge pages), and safe to share between threads.
TEST(RuntimeScratch, BlocksAreAlignedDistinctAndReused) {
  for (size_t bytes : {size_t(1), size_t(1000), size_t(3) << 20}) {
    void *block1 = nullptr, *block2 = nullptr;
    char *p1 = static_cast<char *>(onnxc_rt_scratch_take(bytes, &block1));
    char *p2 = static_cast<char *>(onnxc_rt_scratch_take(bytes, &block2));
    ASSERT_NE(p1, nullptr);
    ASSERT_NE(p2, nullptr);
    EXPECT_NE(block1, block2);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p1) % ONNXC_WORKSPACE_ALIGNMENT, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p2) % ONNXC_WORKSPACE_ALIGNMENT, 0u);
    std::memset(p1, 1, bytes);
    std::memset(p2, 2, bytes);
    EXPECT_EQ(p1[bytes - 1], 1);
    onnxc_rt_scratch_give(block1);
    onnxc_rt_scratch_give(block2);
    // Both blocks are pooled now: taking the same size again reuses one.
    void *again = nullptr;
    char *reused = static_cast<char *>(onnxc_rt_scratch_take(bytes, &again));
    ASSERT_NE(reused, nullptr);
    EXPECT_TRUE(again == block1 || again == block2);
    // Still the memory written above: a block that had been freed and
    // mapped again would read as zeros.
    EXPECT_NE(reused[bytes - 1], 0);
    onnxc_rt_scratch_give(again);
  }
  onnxc_rt_scratch_give(nullptr);
}

/// Four threads that each take blocks (every third of `big` bytes, the
/// others of `small`), fill them with their own byte, yield, check the
/// bytes and give them back: a pool that handed one block to two holders
/// fails. `take(bytes, &handle)` returns the memory, `give(handle)` returns
/// it to the pool.
template <typename Take, typename Give>
void expectThreadsNeverShareABlock(size_t big, size_t small, int rounds,
                                   Take take, Give give) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < rounds; ++i) {
        size_t bytes = i % 3 == 0 ? big : small;
        void *handle = nullptr;
        auto *p = static_cast<unsigned char *>(take(bytes, &handle));
        if (!p) {
          ++failures[t];
          continue;
        }
        std::memset(p, t + 1, bytes);
        std::this_thread::yield();
        for (size_t j = 0; j < bytes; j += 512)
          failures[t] += p[j] != t + 1;
        give(handle);
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int f : failures)
    EXPECT_EQ(f, 0);
}

TEST(RuntimeScratch, ThreadsNeverShareABlock) {
  expectThreadsNeverShareABlock(size_t(2) << 20, 4096, 500,
                                onnxc_rt_scratch_take, onnxc_rt_scratch_give);
}

/// The graphs' heap buffers (BufferPool.c): aligned as asked, a freed big
/// block reused for the next request it fits (not for one under half its
/// size, nor at a stricter alignment than it has), small blocks not kept.
TEST(RuntimeBufferPool, ReusesFreedBlocksThatFit) {
  // A size no other test here frees, so the best fit is the block below.
  const size_t size = (size_t(3) << 20) + 12288;
  auto *big = static_cast<char *>(onnxc_rt_alloc(64, size));
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 64, 0u);
  std::memset(big, 7, size);
  onnxc_rt_free(big);
  // Under half the block: a new one (the pooled block stays for later).
  auto *small = static_cast<char *>(onnxc_rt_alloc(64, size / 4));
  ASSERT_NE(small, nullptr);
  EXPECT_NE(small, big);
  // A block that fits: the pooled one, with what was written still there
  // (memory given back to the kernel would read as zeros).
  auto *again = static_cast<char *>(onnxc_rt_alloc(64, size - 4096));
  EXPECT_EQ(again, big);
  EXPECT_EQ(again[size - 4097], 7);
  onnxc_rt_free(again);
  onnxc_rt_free(small);
  // A stricter alignment than the pooled blocks have is honoured.
  const size_t pageAligned = 1 << 16;
  auto *aligned = static_cast<char *>(onnxc_rt_alloc(pageAligned, size));
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % pageAligned, 0u);
  // Every block may still be released with free() (a caller given an
  // output buffer may do so).
  std::free(aligned);
  onnxc_rt_free(nullptr);
}

TEST(RuntimeBufferPool, ThreadsNeverShareABlock) {
  expectThreadsNeverShareABlock(
      size_t(1) << 20, size_t(96) << 10, 300,
      [](size_t bytes, void **handle) {
        return *handle = onnxc_rt_alloc(64, bytes);
      },
      onnxc_rt_free);
}

} // namespace
