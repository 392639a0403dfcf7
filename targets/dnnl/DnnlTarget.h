//===- DnnlTarget.h - The dnnl (oneDNN) target ------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_DNNL_DNNLTARGET_H
#define ONNXC_TARGETS_DNNL_DNNLTARGET_H

namespace onnxc {
class Target;
namespace dnnl {
/// The dnnl target: convolutions, matrix products, pooling and softmax as
/// oneDNN primitives (runtime/dnnl), in host memory.
const Target &getDnnlTarget();
} // namespace dnnl
} // namespace onnxc

#endif
