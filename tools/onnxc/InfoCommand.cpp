//===- InfoCommand.cpp - `onnxc info` -------------------------------------===//
//
// For a .onnx model: IR version, producer, opset imports, inputs and outputs
// (dtype, shape with symbolic dims), and the operator histogram (subgraphs
// included). For a compiled artifact: its inputs and outputs, and its
// workspace (the memory plan's size next to the sum of the buffers it holds).
//
//===----------------------------------------------------------------------===//

#include "tools/onnxc/Commands.h"

#include "onnx/onnx_pb.h"
#include "onnxc/onnxc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

namespace onnxc::cli {
namespace {

int fail(const std::string &message) {
  fmt::print(stderr, "onnxc: error: {}\n", message);
  return 1;
}

std::string dimsString(const onnx::TypeProto &type) {
  if (!type.has_tensor_type())
    return "(not a tensor)";
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  std::string s = onnxc_dtype_name(tensor.elem_type());
  if (!tensor.has_shape())
    return s + " (rank unknown)";
  s += " [";
  for (int d = 0; d < tensor.shape().dim_size(); ++d) {
    const auto &dim = tensor.shape().dim(d);
    s += d ? ", " : "";
    if (dim.has_dim_value())
      s += std::to_string(dim.dim_value());
    else if (dim.has_dim_param() && !dim.dim_param().empty())
      s += dim.dim_param();
    else
      s += "?";
  }
  return s + "]";
}

void countOps(const onnx::GraphProto &graph,
              std::map<std::string, int> &histogram) {
  for (const onnx::NodeProto &node : graph.node()) {
    std::string key = node.domain().empty() || node.domain() == "ai.onnx"
                          ? node.op_type()
                          : node.domain() + "." + node.op_type();
    ++histogram[key];
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        countOps(attr.g(), histogram);
      for (const onnx::GraphProto &g : attr.graphs())
        countOps(g, histogram);
    }
  }
}

int modelInfo(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return fail(path + ": cannot open the file");
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream raw(fd);
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT32_MAX);
    parsed = model.ParseFromCodedStream(&coded) &&
             coded.ConsumedEntireMessage();
  }
  close(fd);
  if (!parsed)
    return fail(path + ": not a valid ONNX model (protobuf parse failed)");

  const onnx::GraphProto &graph = model.graph();
  fmt::print("model: {}\n", path);
  fmt::print("graph: {}\n", graph.name());
  fmt::print("ir_version: {}\n", model.ir_version());
  if (!model.producer_name().empty())
    fmt::print("producer: {} {}\n", model.producer_name(),
               model.producer_version());
  fmt::print("opsets:");
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    fmt::print(" {}={}", opset.domain().empty() ? "ai.onnx" : opset.domain(),
               opset.version());
  fmt::print("\n");

  std::map<std::string, bool> initializers;
  for (const onnx::TensorProto &t : graph.initializer())
    initializers[t.name()] = true;
  fmt::print("inputs:\n");
  for (const onnx::ValueInfoProto &in : graph.input())
    if (!initializers.count(in.name()))
      fmt::print("  {}: {}\n", in.name(), dimsString(in.type()));
  fmt::print("outputs:\n");
  for (const onnx::ValueInfoProto &out : graph.output())
    fmt::print("  {}: {}\n", out.name(), dimsString(out.type()));
  fmt::print("initializers: {}\n", graph.initializer_size());

  std::map<std::string, int> histogram;
  countOps(graph, histogram);
  int total = 0;
  for (const auto &[op, count] : histogram)
    total += count;
  fmt::print("nodes: {}\n", total);
  for (const auto &[op, count] : histogram)
    fmt::print("  {:<24} {}\n", op, count);
  return 0;
}

void printInfos(const char *what, const onnxc_tensor_info *infos, int32_t n) {
  fmt::print("{}:\n", what);
  for (int32_t i = 0; i < n; ++i) {
    const onnxc_tensor_info &info = infos[i];
    std::string dims;
    for (int32_t d = 0; d < info.rank; ++d) {
      dims += d ? ", " : "";
      const char *param = info.dim_params ? info.dim_params[d] : nullptr;
      if (param && *param)
        dims += param;
      else if (info.dims[d] < 0)
        dims += "?";
      else
        dims += std::to_string(info.dims[d]);
    }
    fmt::print("  {}: {} [{}]\n", info.name, onnxc_dtype_name(info.dtype),
               dims);
  }
}

int artifactInfo(const std::string &path) {
  onnxc_library *lib = nullptr;
  onnxc_error err;
  if (onnxc_load_metadata(path.c_str(), &lib, &err) != ONNXC_OK)
    return fail(err.message);
  const onnxc_model *model = onnxc_library_model(lib);
  fmt::print("artifact: {}\n", path);
  fmt::print("graph: {}\n", model->name ? model->name : "");
  fmt::print("abi_version: {}\n", model->abi_version);
  printInfos("inputs", model->inputs, model->num_inputs);
  printInfos("outputs", model->outputs, model->num_outputs);
  fmt::print("workspace_size: {} bytes\n", model->workspace_size);
  if (model->batch_runs > 1)
    fmt::print("batch_split: {} runs of one image (the workspace is one "
               "image's)\n",
               model->batch_runs);
  else if (model->batch_runs < 0)
    fmt::print("batch_split: one run per image of the run-time dim 0 (the "
               "workspace is one image's)\n");
  // The sum of the planned buffers is not in the model struct; a shared
  // library exports it (still loaded: this only takes a reference).
  std::string openPath =
      path.find('/') == std::string::npos ? "./" + path : path;
  if (void *handle = dlopen(openPath.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    if (const auto *planned = static_cast<const uint64_t *>(
            dlsym(handle, ONNXC_PLANNED_BYTES_SYMBOL));
        planned && *planned > 0)
      fmt::print("planned_buffers: {} bytes (their sum; sharing saves "
                 "{:.1f}%)\n",
                 *planned,
                 100.0 * (1.0 - double(model->workspace_size) / *planned));
    // One line per partition: "<target>: <n> nodes (<op> <count>, ...)".
    if (const auto *partitions = static_cast<const char *const *>(
            dlsym(handle, ONNXC_PARTITIONS_SYMBOL));
        partitions && *partitions && **partitions) {
      std::string lines = *partitions;
      std::set<std::string> targets;
      fmt::print("partitions:\n");
      for (size_t begin = 0, end; begin < lines.size(); begin = end + 1) {
        end = lines.find('\n', begin);
        if (end == std::string::npos)
          end = lines.size();
        std::string line = lines.substr(begin, end - begin);
        targets.insert(line.substr(0, line.find(':')));
        fmt::print("  {}\n", line);
      }
      fmt::print("targets: {}\n", fmt::join(targets, ", "));
    }
    // "<output>\t<key type>\t<key>..." per sequence-of-maps output.
    if (const auto *maps = static_cast<const char *const *>(
            dlsym(handle, ONNXC_OUTPUT_MAPS_SYMBOL));
        maps && *maps) {
      std::string lines = *maps;
      for (size_t begin = 0, end; begin < lines.size(); begin = end + 1) {
        end = lines.find('\n', begin);
        if (end == std::string::npos)
          end = lines.size();
        std::string line = lines.substr(begin, end - begin);
        size_t name = line.find('\t'), type = line.find('\t', name + 1);
        if (name == std::string::npos || type == std::string::npos)
          continue;
        std::string keys = line.substr(type + 1);
        std::replace(keys.begin(), keys.end(), '\t', ' ');
        fmt::print("output '{}': a sequence of maps ({} keys: {}), carried "
                   "as its values [N, keys]\n",
                   line.substr(0, name), line.substr(name + 1, type - name - 1),
                   keys);
      }
    }
    dlclose(handle);
  }
  if (const onnxc_profile *profile = onnxc_library_profile(lib))
    fmt::print("profile: {} timed entries (compiled with --profile; `onnxc "
               "run --profile` prints them)\n",
               profile->num_entries);
  onnxc_unload(lib);
  return 0;
}

} // namespace

int runInfo(const InfoOptions &opts) {
  const std::string &path = opts.path;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0)
    return modelInfo(path);
  return artifactInfo(path);
}

} // namespace onnxc::cli
