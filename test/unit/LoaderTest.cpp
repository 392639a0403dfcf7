//===- LoaderTest.cpp - onnxc_load on real and bogus artifacts ------------===//

#include "onnxc/onnxc.h"
#include "tools/onnxc/TensorFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string loadError(const char *path) {
  onnxc_library *lib = nullptr;
  onnxc_error err;
  int code = onnxc_load(path, &lib, &err);
  EXPECT_EQ(code, ONNXC_LOAD_ERROR);
  EXPECT_EQ(lib, nullptr);
  return err.message;
}

TEST(Loader, ReportsAMissingFile) {
  std::string message = loadError("/nonexistent/libmodel.so");
  EXPECT_EQ(message.rfind("/nonexistent/libmodel.so: ", 0), 0u) << message;
}

TEST(Loader, RefusesALibraryThatIsNotAnArtifact) {
  // The loader library itself is a shared library without the entry point.
  std::string path = ONNXC_TEST_RUNTIME_LIB;
  EXPECT_EQ(loadError(path.c_str()),
            path + ": not an onnxc artifact (no onnxc_model_entry symbol)");
}

/// Compiles the bundled example model, loads it, checks its metadata and
/// runs it on the bundled input against ONNX Runtime's output.
TEST(Loader, LoadsAndRunsTheExampleModel) {
  std::string dir = ::testing::TempDir();
  std::string artifact = dir + "/loader_test_tiny_cnn.so";
  std::string src = ONNXC_TEST_SOURCE_DIR;
  std::string command = std::string(ONNXC_TEST_ONNXC) + " compile " + src +
                        "/examples/models/tiny_cnn.onnx -o " + artifact;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  onnxc_library *lib = nullptr;
  onnxc_error err;
  ASSERT_EQ(onnxc_load(artifact.c_str(), &lib, &err), ONNXC_OK)
      << err.message;
  const onnxc_model *model = onnxc_library_model(lib);
  ASSERT_EQ(model->num_inputs, 1);
  ASSERT_EQ(model->num_outputs, 1);
  EXPECT_STREQ(model->name, "tiny_cnn");
  const onnxc_tensor_info &in = model->inputs[0];
  EXPECT_STREQ(in.name, "image");
  ASSERT_EQ(in.rank, 4);
  EXPECT_EQ(in.dims[0], -1);
  EXPECT_STREQ(in.dim_params[0], "batch");
  EXPECT_EQ(in.dims[3], 28);
  EXPECT_STREQ(model->outputs[0].name, "probabilities");

  onnxc::cli::HostTensor image, expected;
  std::string error;
  ASSERT_TRUE(onnxc::cli::readTensorFile(
      src + "/examples/models/tiny_cnn.input.npy", image, error))
      << error;
  ASSERT_TRUE(onnxc::cli::readTensorFile(
      src + "/examples/models/tiny_cnn.expected.npy", expected, error))
      << error;
  onnxc_tensor input = image.view();
  onnxc_tensor output{};
  ASSERT_EQ(model->run(model, &input, 1, &output, 1, &err), ONNXC_OK)
      << err.message;
  ASSERT_EQ(output.rank, 2);
  ASSERT_EQ(output.shape[1], 10);
  const float *got = static_cast<const float *>(output.data);
  const float *want = reinterpret_cast<const float *>(expected.bytes.data());
  for (int i = 0; i < 10; ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f * std::fabs(want[i]) + 1e-7f) << i;
  model->release_tensor(&output);
  onnxc_unload(lib);
}

/// Runs `model` (tiny_cnn) on `batch` images whose pixels derive from `seed`;
/// returns the probabilities, or an empty vector with `error` set.
std::vector<float> runTinyCnn(const onnxc_model *model, int batch, int seed,
                              std::string &error) {
  std::vector<float> pixels(static_cast<size_t>(batch) * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<float>((i * 7 + seed * 13) % 17) / 17.0f;
  onnxc_tensor input{};
  input.data = pixels.data();
  input.rank = 4;
  input.shape[0] = batch;
  input.shape[1] = 1;
  input.shape[2] = 28;
  input.shape[3] = 28;
  input.dtype = ONNXC_DTYPE_FLOAT;
  input.size_bytes = pixels.size() * sizeof(float);
  onnxc_tensor output{};
  onnxc_error err;
  if (model->run(model, &input, 1, &output, 1, &err) != ONNXC_OK) {
    error = err.message;
    return {};
  }
  const float *data = static_cast<const float *>(output.data);
  std::vector<float> result(data, data + batch * 10);
  model->release_tensor(&output);
  return result;
}

/// One loaded artifact run from many threads at once, with different batch
/// sizes and inputs per call: every result equals the serial run's, bit for
/// bit (the artifact keeps no state between calls). Built with
/// ThreadSanitizer by scripts/sanitize.sh.
TEST(Loader, ManyThreadsShareOneLoadedArtifact) {
  std::string artifact = ::testing::TempDir() + "/loader_test_threads.so";
  std::string command = std::string(ONNXC_TEST_ONNXC) + " compile " +
                        ONNXC_TEST_SOURCE_DIR +
                        "/examples/models/tiny_cnn.onnx -o " + artifact;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  onnxc_library *lib = nullptr;
  onnxc_error err;
  ASSERT_EQ(onnxc_load(artifact.c_str(), &lib, &err), ONNXC_OK)
      << err.message;
  const onnxc_model *model = onnxc_library_model(lib);

  constexpr int kThreads = 8, kRunsPerThread = 40, kSeeds = 16;
  std::vector<std::vector<float>> serial(kSeeds);
  std::string error;
  for (int seed = 0; seed < kSeeds; ++seed) {
    serial[seed] = runTinyCnn(model, 1 + seed % 4, seed, error);
    ASSERT_FALSE(serial[seed].empty()) << error;
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRunsPerThread; ++r) {
        int seed = (t * 5 + r) % kSeeds;
        std::vector<float> got =
            runTinyCnn(model, 1 + seed % 4, seed, errors[t]);
        if (got.size() != serial[seed].size() ||
            std::memcmp(got.data(), serial[seed].data(),
                        got.size() * sizeof(float)) != 0)
          ++mismatches[t];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(mismatches[t], 0) << "thread " << t << ": " << errors[t];
  onnxc_unload(lib);
}

/// runTinyCnn for a batch-1 artifact, through run_with_workspace with the
/// caller's `workspace` and output buffer.
std::vector<float> runTinyCnnWithWorkspace(const onnxc_model *model, int seed,
                                           void *workspace, size_t size,
                                           std::string &error) {
  std::vector<float> pixels(28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<float>((i * 7 + seed * 13) % 17) / 17.0f;
  onnxc_tensor input{};
  input.data = pixels.data();
  input.rank = 4;
  input.shape[0] = 1;
  input.shape[1] = 1;
  input.shape[2] = 28;
  input.shape[3] = 28;
  input.dtype = ONNXC_DTYPE_FLOAT;
  std::vector<float> result(10);
  onnxc_tensor output{};
  output.data = result.data();
  output.size_bytes = result.size() * sizeof(float);
  onnxc_error err;
  if (model->run_with_workspace(model, &input, 1, &output, 1, workspace, size,
                                &err) != ONNXC_OK) {
    error = err.message;
    return {};
  }
  return result;
}

/// With static shapes the intermediates live in the workspace: many threads
/// through `run` (pooled workspaces) and through run_with_workspace (one
/// workspace per thread) all get the serial results, and a workspace that is
/// too small or misaligned is refused.
TEST(Loader, ConcurrentRunsNeverShareAWorkspace) {
  std::string artifact = ::testing::TempDir() + "/loader_test_static.so";
  std::string command = std::string(ONNXC_TEST_ONNXC) + " compile " +
                        ONNXC_TEST_SOURCE_DIR +
                        "/examples/models/tiny_cnn.onnx --shape "
                        "image=1x1x28x28 -o " +
                        artifact;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  onnxc_library *lib = nullptr;
  onnxc_error err;
  ASSERT_EQ(onnxc_load(artifact.c_str(), &lib, &err), ONNXC_OK) << err.message;
  const onnxc_model *model = onnxc_library_model(lib);
  // The conv and pool buffers alone are over 25 KB.
  ASSERT_GT(model->workspace_size, 25000u);
  ASSERT_EQ(model->workspace_size % ONNXC_WORKSPACE_ALIGNMENT, 0u);

  constexpr int kThreads = 8, kRunsPerThread = 40, kSeeds = 16;
  std::vector<std::vector<float>> serial(kSeeds);
  std::string error;
  for (int seed = 0; seed < kSeeds; ++seed) {
    serial[seed] = runTinyCnn(model, 1, seed, error);
    ASSERT_FALSE(serial[seed].empty()) << error;
  }
  size_t size = model->workspace_size;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      void *workspace = std::aligned_alloc(ONNXC_WORKSPACE_ALIGNMENT, size);
      for (int r = 0; r < kRunsPerThread; ++r) {
        int seed = (t * 5 + r) % kSeeds;
        std::vector<float> got =
            t % 2 ? runTinyCnn(model, 1, seed, errors[t])
                  : runTinyCnnWithWorkspace(model, seed, workspace, size,
                                            errors[t]);
        if (got != serial[seed])
          ++mismatches[t];
      }
      std::free(workspace);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(mismatches[t], 0) << "thread " << t << ": " << errors[t];

  void *workspace = std::aligned_alloc(ONNXC_WORKSPACE_ALIGNMENT, size + 64);
  error.clear();
  EXPECT_TRUE(
      runTinyCnnWithWorkspace(model, 0, workspace, size - 64, error).empty());
  EXPECT_NE(error.find("the workspace holds " + std::to_string(size - 64) +
                       " bytes, the model needs " + std::to_string(size)),
            std::string::npos)
      << error;
  error.clear();
  EXPECT_TRUE(runTinyCnnWithWorkspace(
                  model, 0, static_cast<char *>(workspace) + 16, size, error)
                  .empty());
  EXPECT_NE(error.find("not aligned to 64 bytes"), std::string::npos) << error;
  std::free(workspace);
  onnxc_unload(lib);
}

} // namespace
