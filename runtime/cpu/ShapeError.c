/*===- ShapeError.c - Run-time shape errors from compiled code ------------===*
 *
 * Compiled code checks the shapes it only learns at run time (broadcasting
 * of dynamic dims). When a check fails it calls onnxc_rt_shape_error, keeps
 * running in bounds on placeholder data, and returns normally; onnxc_cpu_run
 * then sees the recorded error and turns the run into ONNXC_INVALID_ARGUMENT.
 * runtime/cuda records its failed calls here too (ONNXC_RUNTIME_ERROR), and
 * a missing device (ONNXC_NO_DEVICE).
 *
 * The record is thread-local: a run calls the graph on the caller's thread,
 * and the thread pool only runs kernels and generated loop nests that make
 * no such calls (onnxc-parallelize-loops keeps a nest that may report one on
 * the caller's thread), so the record a graph writes is the one its run
 * reads. Only the first error of a run is kept.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"

#include <stdio.h>

typedef struct shape_error {
  const char *node; /* a string constant of the artifact */
  int32_t kind;
  int64_t a, b;
  int set;
} shape_error;

static _Thread_local shape_error current;
/* The library's words for its failing call (onnxc_rt_library_message). */
static _Thread_local const char *library_message;

void onnxc_rt_library_message(const char *text) { library_message = text; }

void onnxc_rt_shape_error(const char *node, int32_t kind, int64_t a,
                          int64_t b) {
  if (current.set)
    return;
  current.node = node;
  current.kind = kind;
  current.a = a;
  current.b = b;
  current.set = 1;
}

void onnxc_rt_clear_shape_error(void) {
  current.set = 0;
  library_message = NULL;
}

int onnxc_rt_shape_error_pending(void) { return current.set; }

int onnxc_rt_take_shape_error(char *message, size_t size) {
  if (!current.set)
    return 0;
  current.set = 0;
  const char *node = current.node ? current.node : "";
  int code = ONNXC_INVALID_ARGUMENT;
  switch (current.kind) {
  case ONNXC_SHAPE_ERROR_BROADCAST:
    snprintf(message, size,
             "node '%s': cannot broadcast dims of size %lld and %lld", node,
             (long long)current.a, (long long)current.b);
    break;
  case ONNXC_SHAPE_ERROR_INNER_DIMS:
    snprintf(message, size,
             "node '%s': the inner dims of the product differ (%lld vs %lld)",
             node, (long long)current.a, (long long)current.b);
    break;
  case ONNXC_SHAPE_ERROR_LIBRARY_CALL:
    if (library_message) {
      snprintf(message, size, "node '%s': %s", node, library_message);
      library_message = NULL;
      break;
    }
    snprintf(message, size,
             "node '%s': the target library refused or failed the call "
             "(status %lld; oneDNN's dnnl_status_t, or 100 and up for a "
             "shape its glue rejected)",
             node, (long long)current.a);
    break;
  case ONNXC_SHAPE_ERROR_DEVICE:
    /* b: the status's name, when the device runtime knew it. */
    if (current.b)
      snprintf(message, size, "cuda: %s failed: %s", node,
               (const char *)(intptr_t)current.b);
    else
      snprintf(message, size, "cuda: %s failed: status %lld", node,
               (long long)current.a);
    code = ONNXC_RUNTIME_ERROR;
    break;
  case ONNXC_SHAPE_ERROR_KERNEL:
    snprintf(message, size, "node '%s': %s", node,
             current.a == ONNXC_KERNEL_OUT_OF_MEMORY
                 ? "out of memory for the kernel's scratch buffers"
                 : "the kernel was called with operands whose shapes do not "
                   "fit together");
    code = current.a == ONNXC_KERNEL_OUT_OF_MEMORY ? ONNXC_OUT_OF_MEMORY
                                                   : ONNXC_INVALID_ARGUMENT;
    break;
  case ONNXC_SHAPE_ERROR_UNKNOWN_CATEGORY:
    snprintf(message, size,
             "node '%s': %lld input value(s) are none of its categories "
             "(zeros = 0)",
             node, (long long)current.a);
    break;
  case ONNXC_SHAPE_ERROR_NO_DEVICE:
    snprintf(message, size, "no CUDA device: %s", node);
    code = ONNXC_NO_DEVICE;
    break;
  default:
    snprintf(message, size,
             "node '%s': run-time shape check %d failed (%lld, %lld)", node,
             (int)current.kind, (long long)current.a, (long long)current.b);
    break;
  }
  return code;
}
