//===- RunCommand.cpp - `onnxc run` ---------------------------------------===//
//
// Loads an artifact, reads each input from a .npy or TensorProto .pb file,
// runs the model (--repeat times), prints a summary of each output and, with
// --output-dir, writes each output as DIR/<output name>.npy. With --profile
// (an artifact compiled with --profile) it prints the time per node and per
// op type; --profile-json writes them for scripts (bench/profile.py).
//
//===----------------------------------------------------------------------===//

#include "tools/onnxc/Commands.h"
#include "tools/onnxc/TensorFiles.h"

#include "onnxc/onnxc.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <sys/stat.h>
#include <unistd.h>

namespace onnxc::cli {
namespace {

int fail(const std::string &message) {
  fmt::print(stderr, "onnxc: error: {}\n", message);
  return 1;
}

std::string shapeString(const int64_t *dims, int32_t rank) {
  std::string s = "[";
  for (int32_t d = 0; d < rank; ++d)
    s += (d ? ", " : "") + std::to_string(dims[d]);
  return s + "]";
}

/// Value of element `i` of `t` as a double, for the summary.
double elementAsDouble(const onnxc_tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.data);
  switch (t.dtype) {
  case ONNXC_DTYPE_FLOAT:
    return reinterpret_cast<const float *>(p)[i];
  case ONNXC_DTYPE_DOUBLE:
    return reinterpret_cast<const double *>(p)[i];
  case ONNXC_DTYPE_INT8:
    return reinterpret_cast<const int8_t *>(p)[i];
  case ONNXC_DTYPE_UINT8:
  case ONNXC_DTYPE_BOOL:
    return reinterpret_cast<const uint8_t *>(p)[i];
  case ONNXC_DTYPE_INT16:
    return reinterpret_cast<const int16_t *>(p)[i];
  case ONNXC_DTYPE_UINT16:
    return reinterpret_cast<const uint16_t *>(p)[i];
  case ONNXC_DTYPE_INT32:
    return reinterpret_cast<const int32_t *>(p)[i];
  case ONNXC_DTYPE_UINT32:
    return reinterpret_cast<const uint32_t *>(p)[i];
  case ONNXC_DTYPE_INT64:
    return static_cast<double>(reinterpret_cast<const int64_t *>(p)[i]);
  case ONNXC_DTYPE_UINT64:
    return static_cast<double>(reinterpret_cast<const uint64_t *>(p)[i]);
  default:
    return NAN; // float16/bfloat16: not summarized
  }
}

void printSummary(const char *name, const onnxc_tensor &t) {
  int64_t count = 1;
  for (int32_t d = 0; d < t.rank; ++d)
    count *= t.shape[d];
  fmt::print("{}: {} {}", name, onnxc_dtype_name(t.dtype),
             shapeString(t.shape, t.rank));
  if (count == 0 || t.dtype == ONNXC_DTYPE_FLOAT16 ||
      t.dtype == ONNXC_DTYPE_BFLOAT16) {
    fmt::print("\n");
    return;
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    double v = elementAsDouble(t, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  fmt::print(" min {:.6g} max {:.6g} mean {:.6g}\n  ", lo, hi, sum / count);
  int64_t shown = std::min<int64_t>(count, 10);
  for (int64_t i = 0; i < shown; ++i)
    fmt::print("{}{:.6g}", i ? " " : "", elementAsDouble(t, i));
  fmt::print("{}\n", count > shown ? " ..." : "");
}

/// A file name for output `name` inside the output folder: path separators
/// and other unsafe characters become '_', so a name never leaves the folder.
std::string outputFileName(const std::string &name) {
  std::string safe;
  for (char c : name)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
             c == '_' || c == '.')
                ? c
                : '_';
  if (safe.empty() || safe == "." || safe == "..")
    safe = "_" + safe;
  return safe + ".npy";
}

/// Prints the profile's entries, slowest first, then their sums per op
/// type; writes both to `jsonPath` when it is set. `runs` counted runs took
/// `wallNs` in all (measured around `run`, so it includes the copies of
/// inputs and outputs that no entry covers).
int reportProfile(const onnxc_profile &profile, int runs, int threads,
                  double wallNs, const std::string &jsonPath) {
  size_t n = profile.num_entries;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return profile.nanoseconds[a] > profile.nanoseconds[b];
  });
  double total = 0;
  std::map<std::string, std::pair<double, int>> byType;
  for (size_t e = 0; e < n; ++e) {
    total += profile.nanoseconds[e];
    auto &sum = byType[profile.op_types[e][0] ? profile.op_types[e] : "?"];
    sum.first += profile.nanoseconds[e];
    sum.second += 1;
  }
  auto ms = [&](double ns) { return ns / runs / 1e6; };
  auto pct = [&](double ns) { return total > 0 ? 100.0 * ns / total : 0.0; };
  fmt::print("profile: {} run{} on {} thread{}: {:.3f} ms per run, {:.3f} ms "
             "of it in the {} entries below\n",
             runs, runs == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
             ms(wallNs), ms(total), n);
  fmt::print("{:>10} {:>6}  {:<24} {}\n", "ms/run", "%", "op type", "nodes");
  for (size_t e : order)
    fmt::print("{:>10.3f} {:>6.1f}  {:<24} {}\n", ms(profile.nanoseconds[e]),
               pct(profile.nanoseconds[e]), profile.op_types[e],
               profile.nodes[e]);
  std::vector<std::pair<std::string, std::pair<double, int>>> types(
      byType.begin(), byType.end());
  std::stable_sort(types.begin(), types.end(), [](auto &a, auto &b) {
    return a.second.first > b.second.first;
  });
  fmt::print("by op type:\n{:>10} {:>6} {:>8}  {}\n", "ms/run", "%", "entries",
             "op type");
  for (auto &[type, sum] : types)
    fmt::print("{:>10.3f} {:>6.1f} {:>8}  {}\n", ms(sum.first), pct(sum.first),
               sum.second, type);

  if (jsonPath.empty())
    return 0;
  std::error_code ec;
  llvm::raw_fd_ostream os(jsonPath, ec);
  if (ec)
    return fail(jsonPath + ": cannot write the profile: " + ec.message());
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("runs", runs);
    json.attribute("threads", threads);
    json.attribute("wall_ns_per_run", wallNs / runs);
    json.attributeArray("entries", [&] {
      for (size_t e = 0; e < n; ++e)
        json.object([&] {
          json.attribute("nodes", profile.nodes[e]);
          json.attribute("op_types", profile.op_types[e]);
          json.attribute("ns_per_run", double(profile.nanoseconds[e]) / runs);
        });
    });
  });
  os << "\n";
  os.close();
  if (os.has_error()) {
    os.clear_error(); // else its destructor aborts the process
    return fail(jsonPath + ": cannot write the profile");
  }
  return 0;
}

} // namespace

int runRun(const RunOptions &opts) {
  onnxc_library *lib = nullptr;
  onnxc_error err;
  if (onnxc_load(opts.artifact.c_str(), &lib, &err) != ONNXC_OK)
    return fail(err.message);
  const onnxc_model *model = onnxc_library_model(lib);
  struct Unload {
    onnxc_library *lib;
    ~Unload() { onnxc_unload(lib); }
  } unload{lib};
  if (model->set_num_threads(opts.threads) != ONNXC_OK)
    return fail("--threads must be >= 0 (0: one per core), got " +
                std::to_string(opts.threads));
  if (opts.repeat < 1)
    return fail("--repeat must be >= 1, got " + std::to_string(opts.repeat));
  const onnxc_profile *profile = onnxc_library_profile(lib);
  bool wantProfile = opts.profile || !opts.profileJson.empty();
  if (wantProfile && !profile)
    return fail(opts.artifact + ": compiled without per-node timers; "
                                "compile it with `onnxc compile --profile`");

  // NAME=FILE, or FILE alone for a model with one input.
  std::map<std::string, HostTensor> given;
  for (const std::string &spec : opts.inputs) {
    size_t eq = spec.find('=');
    std::string name, path;
    if (eq == std::string::npos) {
      if (model->num_inputs != 1)
        return fail("--input '" + spec +
                    "': expected NAME=FILE (the model has " +
                    std::to_string(model->num_inputs) + " inputs)");
      name = model->inputs[0].name;
      path = spec;
    } else {
      name = spec.substr(0, eq);
      path = spec.substr(eq + 1);
    }
    const onnxc_tensor_info *info = nullptr;
    for (int32_t i = 0; i < model->num_inputs; ++i)
      if (name == model->inputs[i].name)
        info = &model->inputs[i];
    if (!info)
      return fail(opts.artifact + ": the model has no input '" + name + "'");
    std::string error;
    if (!readTensorFile(path, given[name], error) ||
        !resolveRawDtype(given[name], info->dtype, path, error))
      return fail(error);
  }

  std::vector<onnxc_tensor> inputs;
  for (int32_t i = 0; i < model->num_inputs; ++i) {
    auto it = given.find(model->inputs[i].name);
    if (it == given.end())
      return fail(opts.artifact + ": input '" +
                  std::string(model->inputs[i].name) +
                  "' is missing (give it with --input " +
                  model->inputs[i].name + "=FILE)");
    inputs.push_back(it->second.view());
  }
  // With --repeat, the first run is a warm-up that the profile leaves out
  // (it packs weights and touches fresh pages); the outputs are the last's.
  std::vector<onnxc_tensor> outputs;
  double wallNs = 0;
  for (int r = 0; r < opts.repeat; ++r) {
    for (onnxc_tensor &t : outputs)
      model->release_tensor(&t);
    outputs.assign(model->num_outputs, onnxc_tensor{});
    if (profile && r == 1)
      std::fill_n(profile->nanoseconds, profile->num_entries, 0);
    auto start = std::chrono::steady_clock::now();
    if (model->run(model, inputs.data(), model->num_inputs, outputs.data(),
                   model->num_outputs, &err) != ONNXC_OK)
      return fail(opts.artifact + ": " + err.message);
    if (r > 0 || opts.repeat == 1)
      wallNs += std::chrono::duration<double, std::nano>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  }
  if (wantProfile) {
    int threads = opts.threads;
    if (threads == 0)
      threads = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    int counted = opts.repeat == 1 ? 1 : opts.repeat - 1;
    if (int status =
            reportProfile(*profile, counted, threads, wallNs, opts.profileJson))
      return status;
  }

  int status = 0;
  if (!opts.outputDir.empty() && mkdir(opts.outputDir.c_str(), 0777) != 0 &&
      errno != EEXIST) {
    status = fail(opts.outputDir + ": cannot create the folder");
  }
  for (int32_t o = 0; o < model->num_outputs; ++o) {
    const onnxc_tensor &t = outputs[o];
    printSummary(model->outputs[o].name, t);
    if (status == 0 && !opts.outputDir.empty()) {
      std::string error;
      std::vector<int64_t> shape(t.shape, t.shape + t.rank);
      if (!writeNpy(opts.outputDir + "/" +
                        outputFileName(model->outputs[o].name),
                    t.dtype, shape, t.data, error))
        status = fail(error);
    }
    model->release_tensor(&outputs[o]);
  }
  return status;
}

} // namespace onnxc::cli
