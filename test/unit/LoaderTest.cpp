//===- LoaderTest.cpp - onnxc_load on real and bogus artifacts ------------===//

#include "onnxc/onnxc.h"
#include "tools/onnxc/TensorFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

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

} // namespace
