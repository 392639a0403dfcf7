/*===- CpuRuntime.h - The functions a CPU artifact's model points at ------===*
 *
 * Private to onnxc: compiled artifacts reference these by name (see
 * compiler/emit/ModelEntry.cpp); the unit tests call them directly.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_CPURUNTIME_H
#define ONNXC_RUNTIME_CPU_CPURUNTIME_H

#include "onnxc/onnxc.h"

#ifdef __cplusplus
extern "C" {
#endif

int onnxc_cpu_run(const onnxc_model *model, const onnxc_tensor *inputs,
                  int32_t num_inputs, onnxc_tensor *outputs,
                  int32_t num_outputs, onnxc_error *err);
void onnxc_cpu_release_tensor(onnxc_tensor *tensor);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_CPURUNTIME_H */
