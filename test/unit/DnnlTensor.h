//===- DnnlTensor.h - Typed tensors as memrefs for the glue tests -*- C++
//-*-===//
//
// A dense row-major tensor of any element type and the unranked memref
// descriptor the dnnl glue reads; unit dims get an odd stride (7777) the
// glue must not read. Shared by the int8 glue tests.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TEST_UNIT_DNNLTENSOR_H
#define ONNXC_TEST_UNIT_DNNLTENSOR_H

#include "runtime/cpu/CpuRuntime.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace onnxc::test {

inline int64_t volume(const std::vector<int64_t> &shape) {
  int64_t v = 1;
  for (int64_t s : shape)
    v *= s;
  return v;
}

/// A dense row-major tensor of T and its unranked memref. Unit dims get an
/// odd stride: the glue must not read it.
template <typename T> struct Tensor {
  std::vector<int64_t> shape;
  std::vector<T> data;
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref{};

  Tensor() = default;
  Tensor(std::vector<int64_t> s, std::vector<T> values)
      : shape(std::move(s)), data(std::move(values)) {}

  onnxc_unranked_memref *memref() {
    size_t rank = shape.size();
    T *p = data.data();
    descriptor.assign(3 + 2 * rank, 0);
    std::memcpy(&descriptor[0], &p, sizeof p);
    std::memcpy(&descriptor[1], &p, sizeof p);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + rank + d] = shape[d] == 1 ? 7777 : stride;
      stride *= shape[d];
    }
    ref = {(int64_t)rank, descriptor.data()};
    return &ref;
  }
};

/// Uniform integers in [lo, hi].
template <typename T>
Tensor<T> randomTensor(std::vector<int64_t> shape, std::mt19937 &rng, int lo,
                       int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v((size_t)volume(shape));
  for (T &x : v)
    x = (T)dist(rng);
  return Tensor<T>(std::move(shape), std::move(v));
}

} // namespace onnxc::test

#endif // ONNXC_TEST_UNIT_DNNLTENSOR_H
