//===- CudaTarget.h - The cuda target ---------------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CUDA_CUDATARGET_H
#define ONNXC_TARGETS_CUDA_CUDATARGET_H

#include "targets/Target.h"

namespace onnxc::cuda {

const Target &getCudaTarget();

} // namespace onnxc::cuda

#endif // ONNXC_TARGETS_CUDA_CUDATARGET_H
