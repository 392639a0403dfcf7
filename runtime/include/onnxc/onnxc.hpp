//===- onnxc/onnxc.hpp - C++ wrapper over the onnxc C ABI -------*- C++ -*-===//
//
// Header-only RAII classes over onnxc/onnxc.h (C++17):
//
//   onnxc::Library lib("libmodel.so");        // onnxc_load / onnxc_unload
//   onnxc::Model model = lib.model();         // or onnxc::Model(entry())
//   std::vector<float> image(784);
//   auto outputs = model.run({onnxc::TensorView(image, {1, 1, 28, 28})});
//   onnxc::Span<const float> p = outputs[0].data<float>();
//
// Failures throw onnxc::Error, which carries the runtime's status code and
// message. Every throwing call has a non-throwing twin returning onnxc::Status
// (Library::open, Library::model(Model &), Model::open, Model::tryRun); under
// -fno-exceptions only those exist. Outputs are onnxc::Tensor: they own the
// buffer the runtime allocated and release it with the model's release_tensor.
// `run` may also write into caller-provided buffers (MutableTensorView),
// allocating nothing.
//
// A program that loads artifacts links libonnxc_runtime (onnxc::runtime); one
// that links an artifact directly needs nothing more than the artifact.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_ONNXC_HPP
#define ONNXC_ONNXC_HPP

#include "onnxc/onnxc.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Built with -fno-exceptions, only the Status-returning calls exist.
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define ONNXC_HAS_EXCEPTIONS 1
#else
#define ONNXC_HAS_EXCEPTIONS 0
#endif

namespace onnxc {

/// The outcome of a call: code() is an onnxc_status_code, message() the
/// runtime's message when it failed.
class Status {
public:
  Status() = default;
  Status(int code, std::string message)
      : code_(code), message_(std::move(message)) {}
  bool ok() const noexcept { return code_ == ONNXC_OK; }
  int code() const noexcept { return code_; }
  const std::string &message() const noexcept { return message_; }

private:
  int code_ = ONNXC_OK;
  std::string message_;
};

/// A failed onnxc call: code() is an onnxc_status_code, what() the runtime's
/// message.
class Error : public std::runtime_error {
public:
  Error(int code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

private:
  int code_;
};

#if ONNXC_HAS_EXCEPTIONS
namespace detail {
inline void check(const Status &status) {
  if (!status.ok())
    throw Error(status.code(), status.message());
}
} // namespace detail
#endif

/// A pointer and a length (std::span's subset this API needs; C++17).
template <typename T> class Span {
public:
  Span() = default;
  Span(T *data, std::size_t size) : data_(data), size_(size) {}
  T *data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T &operator[](std::size_t i) const noexcept { return data_[i]; }
  T *begin() const noexcept { return data_; }
  T *end() const noexcept { return data_ + size_; }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

/// The onnxc_dtype of a C++ element type.
template <typename T> struct DtypeOf;
#define ONNXC_DTYPE_OF(T, D)                                                   \
  template <> struct DtypeOf<T> { static constexpr onnxc_dtype value = D; };
ONNXC_DTYPE_OF(float, ONNXC_DTYPE_FLOAT)
ONNXC_DTYPE_OF(double, ONNXC_DTYPE_DOUBLE)
ONNXC_DTYPE_OF(int8_t, ONNXC_DTYPE_INT8)
ONNXC_DTYPE_OF(int16_t, ONNXC_DTYPE_INT16)
ONNXC_DTYPE_OF(int32_t, ONNXC_DTYPE_INT32)
ONNXC_DTYPE_OF(int64_t, ONNXC_DTYPE_INT64)
ONNXC_DTYPE_OF(uint8_t, ONNXC_DTYPE_UINT8)
ONNXC_DTYPE_OF(uint16_t, ONNXC_DTYPE_UINT16)
ONNXC_DTYPE_OF(uint32_t, ONNXC_DTYPE_UINT32)
ONNXC_DTYPE_OF(uint64_t, ONNXC_DTYPE_UINT64)
ONNXC_DTYPE_OF(bool, ONNXC_DTYPE_BOOL)
#undef ONNXC_DTYPE_OF

using Shape = std::vector<int64_t>;

/// An input: borrowed, row-major data of one dtype and shape.
class TensorView {
public:
  TensorView(const void *data, int32_t dtype, Shape shape)
      : data_(data), dtype_(dtype), shape_(std::move(shape)) {}
  template <typename T>
  TensorView(const T *data, Shape shape)
      : TensorView(data, DtypeOf<T>::value, std::move(shape)) {}
  template <typename T>
  TensorView(const std::vector<T> &data, Shape shape)
      : TensorView(data.data(), DtypeOf<T>::value, std::move(shape)) {}

  const void *data() const noexcept { return data_; }
  int32_t dtype() const noexcept { return dtype_; }
  const Shape &shape() const noexcept { return shape_; }

private:
  const void *data_;
  int32_t dtype_;
  Shape shape_;
};

/// An output buffer the caller owns; run() fills it and sets shape().
class MutableTensorView {
public:
  MutableTensorView(void *data, std::size_t sizeBytes)
      : data_(data), sizeBytes_(sizeBytes) {}
  template <typename T>
  MutableTensorView(std::vector<T> &data)
      : MutableTensorView(data.data(), data.size() * sizeof(T)) {}

  void *data() const noexcept { return data_; }
  std::size_t sizeBytes() const noexcept { return sizeBytes_; }
  /// The result's shape, after run().
  const Shape &shape() const noexcept { return shape_; }

private:
  friend class Model;
  void *data_;
  std::size_t sizeBytes_;
  Shape shape_;
};

/// An output the runtime allocated; frees it on destruction.
class Tensor {
public:
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  Tensor(Tensor &&other) noexcept
      : tensor_(other.tensor_), release_(other.release_) {
    other.release_ = nullptr;
  }
  Tensor &operator=(Tensor &&other) noexcept {
    if (this != &other) {
      reset();
      tensor_ = other.tensor_;
      release_ = other.release_;
      other.release_ = nullptr;
    }
    return *this;
  }
  ~Tensor() { reset(); }

  int32_t dtype() const noexcept { return tensor_.dtype; }
  Shape shape() const {
    return Shape(tensor_.shape, tensor_.shape + tensor_.rank);
  }
  std::size_t numElements() const noexcept {
    std::size_t n = 1;
    for (int32_t d = 0; d < tensor_.rank; ++d)
      n *= static_cast<std::size_t>(tensor_.shape[d]);
    return n;
  }
  std::size_t sizeBytes() const noexcept {
    return numElements() * onnxc_dtype_size(tensor_.dtype);
  }
  const void *rawData() const noexcept { return tensor_.data; }
  /// The elements as T; throws (without exceptions: returns an empty span)
  /// if T is not the tensor's dtype.
  template <typename T> Span<const T> data() const {
    if (DtypeOf<T>::value != tensor_.dtype)
#if !ONNXC_HAS_EXCEPTIONS
      return Span<const T>();
#else
      throw Error(ONNXC_INVALID_ARGUMENT,
                  std::string("tensor of dtype ") +
                      onnxc_dtype_name(tensor_.dtype) + " read as " +
                      onnxc_dtype_name(DtypeOf<T>::value));
#endif
    return Span<const T>(static_cast<const T *>(tensor_.data), numElements());
  }
  template <typename T> std::vector<T> toVector() const {
    Span<const T> s = data<T>();
    return std::vector<T>(s.begin(), s.end());
  }

private:
  friend class Model;
  Tensor(const onnxc_tensor &tensor, onnxc_release_tensor_fn release)
      : tensor_(tensor), release_(release) {}
  void reset() noexcept {
    if (release_)
      release_(&tensor_);
    release_ = nullptr;
  }

  onnxc_tensor tensor_;
  onnxc_release_tensor_fn release_;
};

/// What the model says about one input or output.
struct TensorInfo {
  std::string name;
  int32_t dtype;
  Shape dims; // -1 where only known at run time
  std::vector<std::string> dimParams;
};

/// A model: a view of an onnxc_model, which a Library or the program itself
/// (a linked artifact's entry point) keeps alive.
class Model {
public:
  /// An empty model (valid() is false) for open() to fill.
  Model() = default;
  /// Checks `model` (not null, this ABI version) and makes `out` view it.
  static Status open(const onnxc_model *model, Model &out) {
    if (!model)
      return Status(ONNXC_INVALID_ARGUMENT, "onnxc::Model: the model is null");
    if (model->abi_version != ONNXC_ABI_VERSION)
      return Status(ONNXC_LOAD_ERROR, "onnxc::Model: artifact ABI version " +
                                          std::to_string(model->abi_version) +
                                          ", this header needs " +
                                          std::to_string(ONNXC_ABI_VERSION));
    out.model_ = model;
    return Status();
  }
#if ONNXC_HAS_EXCEPTIONS
  explicit Model(const onnxc_model *model) {
    detail::check(open(model, *this));
  }
#endif

  bool valid() const noexcept { return model_ != nullptr; }
  const onnxc_model *get() const noexcept { return model_; }
  std::string name() const { return model_->name ? model_->name : ""; }
  std::vector<TensorInfo> inputs() const {
    return infos(model_->inputs, model_->num_inputs);
  }
  std::vector<TensorInfo> outputs() const {
    return infos(model_->outputs, model_->num_outputs);
  }

  /// Sets the threads the model's kernels use: >= 1, or 0 for one per core
  /// (the default). Shared by the models of one artifact.
  Status trySetNumThreads(int32_t numThreads) const {
    int code = model_->set_num_threads(numThreads);
    if (code != ONNXC_OK)
      return Status(code, "onnxc::Model: invalid thread count " +
                              std::to_string(numThreads));
    return Status();
  }
#if ONNXC_HAS_EXCEPTIONS
  void setNumThreads(int32_t numThreads) const {
    detail::check(trySetNumThreads(numThreads));
  }
#endif

  /// Runs on `inputs` (in the model's input order); the runtime allocates
  /// the outputs, which replace `outputs`' contents.
  Status tryRun(const std::vector<TensorView> &inputs,
                std::vector<Tensor> &outputs) const {
    outputs.clear();
    std::vector<onnxc_tensor> ins;
    Status status = toC(inputs, ins);
    std::vector<onnxc_tensor> outs(model_->num_outputs, onnxc_tensor());
    if (status.ok())
      status = call(ins, outs);
    if (!status.ok())
      return status;
    outputs.reserve(outs.size());
    for (const onnxc_tensor &t : outs)
      outputs.push_back(Tensor(t, model_->release_tensor));
    return status;
  }

  /// Runs on `inputs`, writing into the caller's `outputs` (one per model
  /// output, each large enough) and setting their shapes. Allocates no
  /// output memory.
  Status tryRun(const std::vector<TensorView> &inputs,
                std::vector<MutableTensorView> &outputs) const {
    std::vector<onnxc_tensor> ins;
    Status status = toC(inputs, ins);
    if (!status.ok())
      return status;
    std::vector<onnxc_tensor> outs(outputs.size(), onnxc_tensor());
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      outs[o].data = outputs[o].data_;
      outs[o].size_bytes = outputs[o].sizeBytes_;
    }
    status = call(ins, outs);
    if (status.ok())
      for (std::size_t o = 0; o < outputs.size(); ++o)
        outputs[o].shape_.assign(outs[o].shape, outs[o].shape + outs[o].rank);
    return status;
  }

#if ONNXC_HAS_EXCEPTIONS
  /// tryRun that throws onnxc::Error on failure.
  std::vector<Tensor> run(const std::vector<TensorView> &inputs) const {
    std::vector<Tensor> outputs;
    detail::check(tryRun(inputs, outputs));
    return outputs;
  }
  void run(const std::vector<TensorView> &inputs,
           std::vector<MutableTensorView> &outputs) const {
    detail::check(tryRun(inputs, outputs));
  }
#endif

private:
  static std::vector<TensorInfo> infos(const onnxc_tensor_info *info,
                                       int32_t count) {
    std::vector<TensorInfo> result;
    for (int32_t i = 0; i < count; ++i) {
      TensorInfo t{info[i].name, info[i].dtype, {}, {}};
      for (int32_t d = 0; d < info[i].rank; ++d) {
        t.dims.push_back(info[i].dims[d]);
        t.dimParams.push_back(info[i].dim_params ? info[i].dim_params[d] : "");
      }
      result.push_back(std::move(t));
    }
    return result;
  }

  static Status toC(const std::vector<TensorView> &views,
                    std::vector<onnxc_tensor> &tensors) {
    tensors.assign(views.size(), onnxc_tensor());
    for (std::size_t i = 0; i < views.size(); ++i) {
      const Shape &shape = views[i].shape();
      if (shape.size() > ONNXC_MAX_RANK)
        return Status(ONNXC_INVALID_ARGUMENT,
                      "input " + std::to_string(i) + ": rank " +
                          std::to_string(shape.size()) + " exceeds " +
                          std::to_string(ONNXC_MAX_RANK));
      tensors[i].data = const_cast<void *>(views[i].data());
      tensors[i].dtype = views[i].dtype();
      tensors[i].rank = static_cast<int32_t>(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d)
        tensors[i].shape[d] = shape[d];
    }
    return Status();
  }

  Status call(std::vector<onnxc_tensor> &ins,
              std::vector<onnxc_tensor> &outs) const {
    onnxc_error err;
    err.message[0] = 0;
    int code =
        model_->run(model_, ins.data(), static_cast<int32_t>(ins.size()),
                    outs.data(), static_cast<int32_t>(outs.size()), &err);
    return code == ONNXC_OK ? Status() : Status(code, err.message);
  }

  const onnxc_model *model_ = nullptr;
};

/// A loaded artifact (onnxc_load); unloads it on destruction. Models taken
/// from it are valid while it lives.
class Library {
public:
  /// An empty library for open() to fill.
  Library() = default;
  /// Loads the artifact at `path` into `out`.
  static Status open(const std::string &path, Library &out) {
    onnxc_error err;
    err.message[0] = 0;
    onnxc_library *library = nullptr;
    int code = onnxc_load(path.c_str(), &library, &err);
    if (code != ONNXC_OK)
      return Status(code, err.message);
    onnxc_unload(out.library_);
    out.library_ = library;
    return Status();
  }
#if ONNXC_HAS_EXCEPTIONS
  explicit Library(const std::string &path) {
    detail::check(open(path, *this));
  }
  Model model() const { return Model(onnxc_library_model(library_)); }
#endif
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;
  Library(Library &&other) noexcept
      : library_(std::exchange(other.library_, nullptr)) {}
  Library &operator=(Library &&other) noexcept {
    if (this != &other) {
      onnxc_unload(library_);
      library_ = std::exchange(other.library_, nullptr);
    }
    return *this;
  }
  ~Library() { onnxc_unload(library_); }

  /// The library's model, checked as Model::open does.
  Status model(Model &out) const {
    return Model::open(onnxc_library_model(library_), out);
  }

private:
  onnxc_library *library_ = nullptr;
};

} // namespace onnxc

#endif // ONNXC_ONNXC_HPP
