//===- Commands.h - The subcommands of the onnxc CLI ------------*- C++ -*-===//
//
// main.cpp parses the command line (CLI11) into these option structs and calls
// one function per subcommand. Each returns the process exit code: 0 on
// success, non-zero after printing one line `onnxc: error: ...` to stderr that
// names the file, node, input or output at fault.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TOOLS_ONNXC_COMMANDS_H
#define ONNXC_TOOLS_ONNXC_COMMANDS_H

#include <string>
#include <vector>

namespace onnxc::cli {

struct CompileOptions {
  std::string model;
  std::string output;       // -o; derived from the model name when empty
  int optLevel = 2;         // -O0..-O3 (kDefaultOptLevel)
  bool printPassStats = false;
  bool noBatchSplit = false;
  bool profile = false;     // --profile: time each node of every run
  std::string emit = "lib"; // onnx | mlir | llvm | obj | lib
  std::vector<std::string> shapes; // NAME=1x3x224x224
  std::string mtriple;
  std::string mcpu;
  std::string header; // --header: the generated C header
  std::string name;   // --name: the entry point's and header's prefix
  std::string targets; // --targets dnnl,cpu: priority order, cpu implied last
  std::string cudaArch = "sm_90"; // --cuda-arch: the cuda target's GPU
  std::string gpuMath = "fp32";   // --gpu-math fp32|tf32
  bool quiet = false;             // --quiet: no status line on a terminal
  bool printPartitions = false;
  std::string partitionGraph; // --partition-graph FILE.dot
};

struct OptimizeOptions {
  std::string model;
  std::string output; // -o, required; never the model itself
  int optLevel = 2;
  bool printPassStats = false;
  std::vector<std::string> shapes;
};

struct RunOptions {
  std::string artifact;
  std::vector<std::string> inputs; // NAME=FILE (.npy or TensorProto .pb)
  std::string outputDir;           // writes DIR/<output name>.npy when set
  int threads = 0;                 // kernel threads; 0: one per core
  int repeat = 1;                  // --repeat: runs of the same inputs
  bool profile = false;            // --profile: print the per-node times
  std::string profileJson;         // --profile-json: write them as JSON
};

struct InfoOptions {
  std::string path; // a .onnx model or a compiled artifact
};

int runCompile(const CompileOptions &opts);
int runOptimize(const OptimizeOptions &opts);
int runRun(const RunOptions &opts);
int runInfo(const InfoOptions &opts);
/// `onnxc targets`: the targets built into this compiler.
int runTargets();
/// `onnxc quantize ARGS...`: forwarded to the Python quantizer
/// (QuantizeCommand.cpp).
int runQuantize(const std::vector<std::string> &args);

} // namespace onnxc::cli

#endif // ONNXC_TOOLS_ONNXC_COMMANDS_H
