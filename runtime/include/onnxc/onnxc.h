/*===- onnxc/onnxc.h - The public C ABI of onnxc artifacts ----------------===*
 *
 * Every artifact onnxc builds (a shared library, or an object file for static
 * linking) exports one function, `onnxc_model_entry`, that returns a versioned
 * `onnxc_model`: the model's input/output metadata and the function pointers
 * that run it. Any tool can dlopen any artifact (see onnxc_load below).
 *
 * Threading: `run` is reentrant. Weights are read-only and every call gets its
 * own workspace (the intermediate buffers), so many threads may run one model
 * at once.
 *
 * Memory: the compiler plans every intermediate buffer of static size into
 * one workspace of `workspace_size` bytes. `run` takes a workspace from a
 * small pool (allocating one when the pool is empty); `run_with_workspace`
 * uses the caller's. With a caller workspace and caller output buffers, a
 * model without dynamic dims runs without calling the allocator.
 *
 * Errors: every call returns an onnxc_status_code; when `err` is non-null it
 * also receives a one-line message naming the input, output or node at fault.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_ONNXC_H
#define ONNXC_ONNXC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structs below. */
#define ONNXC_ABI_VERSION 2

/* The largest tensor rank the ABI carries. */
#define ONNXC_MAX_RANK 16

/* The alignment, in bytes, a caller's workspace must have (see
 * run_with_workspace). */
#define ONNXC_WORKSPACE_ALIGNMENT 64

/* The symbol every artifact exports. */
#define ONNXC_MODEL_ENTRY_SYMBOL "onnxc_model_entry"

/* A shared library also exports this `const uint64_t`: the sum of the sizes
 * of the buffers planned into the workspace (what they would take allocated
 * one by one), for `onnxc info`. */
#define ONNXC_PLANNED_BYTES_SYMBOL "onnxc_workspace_planned_bytes"

/* A shared library also exports this `const char *const`: its partitions,
 * one line each ("<target>: <n> nodes (<op> <count>, ...)"), for
 * `onnxc info`. */
#define ONNXC_PARTITIONS_SYMBOL "onnxc_partitions"

/* A shared library whose model has outputs that are sequences of maps with
 * the same keys (an ONNX ai.onnx.ml ZipMap, as classifier converters write)
 * also exports this `const char *const`. Such an output is carried as its
 * values: a [N, K] tensor whose row n holds map n's values in key order.
 * The text has one line per such output, tab-separated: the output's name,
 * the key type ("int64" or "string"), then the K keys. */
#define ONNXC_OUTPUT_MAPS_SYMBOL "onnxc_output_maps"

/* An artifact compiled with `onnxc compile --profile` also exports an
 * `onnxc_profile` under this name (a shared library, or an object file
 * without --name); onnxc_library_profile finds it. */
#define ONNXC_PROFILE_SYMBOL "onnxc_profile"
#define ONNXC_PROFILE_VERSION 1

/* A shared library with device partitions also exports
 * `int onnxc_device_check(char *message, size_t size)`: ONNXC_OK when its
 * device is usable, else ONNXC_NO_DEVICE with a one-line reason in
 * `message`. onnxc_load calls it, so such an artifact fails to load (not at
 * its first run) where there is no device; one loaded by other means fails
 * its runs with the same status. */
#define ONNXC_DEVICE_CHECK_SYMBOL "onnxc_device_check"

typedef enum onnxc_status_code {
  ONNXC_OK = 0,
  ONNXC_INVALID_ARGUMENT = 1, /* a tensor's dtype, rank, shape or pointer */
  ONNXC_OUT_OF_MEMORY = 2,
  ONNXC_LOAD_ERROR = 3, /* an artifact could not be opened or is not onnxc's */
  ONNXC_RUNTIME_ERROR = 4, /* a failure inside the model's code, or a failed
                            * CUDA call of its device partitions */
  /* The model has device (CUDA) partitions and no usable device: no driver
   * (libcuda.so.1), cuInit failed, or no device ONNXC_CUDA_DEVICE. Artifacts
   * without device partitions never return it. */
  ONNXC_NO_DEVICE = 5
} onnxc_status_code;

/* Element types, numbered as ONNX's TensorProto.DataType.
 *
 * Memory layout: every element takes onnxc_dtype_size() bytes. The float8
 * types are one byte each, in their own encodings. The 4-bit and 2-bit
 * integers are NOT packed: each element takes one whole byte, the value in its
 * low 4 (2) bits two's complement (INT4/INT2) or unsigned (UINT4/UINT2), the
 * upper bits zero (the layout of ml_dtypes' int4/uint4 numpy arrays; ONNX's
 * raw_data packs two int4 a byte). FLOAT4E2M1 and FLOAT8E8M0 are numbered for
 * completeness; no artifact uses them yet (size 0). */
typedef enum onnxc_dtype {
  ONNXC_DTYPE_UNDEFINED = 0,
  ONNXC_DTYPE_FLOAT = 1,
  ONNXC_DTYPE_UINT8 = 2,
  ONNXC_DTYPE_INT8 = 3,
  ONNXC_DTYPE_UINT16 = 4,
  ONNXC_DTYPE_INT16 = 5,
  ONNXC_DTYPE_INT32 = 6,
  ONNXC_DTYPE_INT64 = 7,
  ONNXC_DTYPE_STRING = 8,
  ONNXC_DTYPE_BOOL = 9,
  ONNXC_DTYPE_FLOAT16 = 10,
  ONNXC_DTYPE_DOUBLE = 11,
  ONNXC_DTYPE_UINT32 = 12,
  ONNXC_DTYPE_UINT64 = 13,
  ONNXC_DTYPE_BFLOAT16 = 16,
  ONNXC_DTYPE_FLOAT8E4M3FN = 17,
  ONNXC_DTYPE_FLOAT8E4M3FNUZ = 18,
  ONNXC_DTYPE_FLOAT8E5M2 = 19,
  ONNXC_DTYPE_FLOAT8E5M2FNUZ = 20,
  ONNXC_DTYPE_UINT4 = 21,
  ONNXC_DTYPE_INT4 = 22,
  ONNXC_DTYPE_FLOAT4E2M1 = 23,
  ONNXC_DTYPE_FLOAT8E8M0 = 24,
  ONNXC_DTYPE_UINT2 = 25,
  ONNXC_DTYPE_INT2 = 26
} onnxc_dtype;

/* The message buffer of a failed call. */
typedef struct onnxc_error {
  char message[512];
} onnxc_error;

/* Static description of one model input or output. */
typedef struct onnxc_tensor_info {
  const char *name;
  /* `rank` entries; -1 where the dimension is only known at run time. */
  const int64_t *dims;
  /* `rank` entries: the symbolic name of a dynamic dimension ("" if none).
   * Inputs that name the same symbol must agree at run time. */
  const char *const *dim_params;
  int32_t dtype; /* onnxc_dtype */
  int32_t rank;
} onnxc_tensor_info;

/* A dense, row-major tensor passed to or returned from `run`. */
typedef struct onnxc_tensor {
  void *data;
  int64_t shape[ONNXC_MAX_RANK];
  int32_t rank;
  int32_t dtype; /* onnxc_dtype */
  /* For an output: the capacity of `data` in bytes when the caller provides
   * the buffer. When `data` is NULL, `run` allocates the buffer, sets
   * `data`, `shape`, `rank`, `dtype`, `size_bytes` and `owner`, and the caller
   * frees it with the model's `release_tensor`. Unused for inputs. */
  size_t size_bytes;
  void *owner;
} onnxc_tensor;

typedef struct onnxc_model onnxc_model;

typedef int (*onnxc_run_fn)(const onnxc_model *model,
                            const onnxc_tensor *inputs, int32_t num_inputs,
                            onnxc_tensor *outputs, int32_t num_outputs,
                            onnxc_error *err);
typedef void (*onnxc_release_tensor_fn)(onnxc_tensor *tensor);
/* `run` with the caller's workspace: at least the model's `workspace_size`
 * bytes, aligned to ONNXC_WORKSPACE_ALIGNMENT (may be NULL when
 * workspace_size is 0). A run owns its workspace until it returns: runs at
 * the same time need different workspaces. ONNXC_INVALID_ARGUMENT when it is
 * too small, misaligned or null. */
typedef int (*onnxc_run_workspace_fn)(const onnxc_model *model,
                                      const onnxc_tensor *inputs,
                                      int32_t num_inputs, onnxc_tensor *outputs,
                                      int32_t num_outputs, void *workspace,
                                      size_t workspace_size, onnxc_error *err);

/* What `onnxc_model_entry` returns. Fields after the first two are valid only
 * when `abi_version == ONNXC_ABI_VERSION`. */
struct onnxc_model {
  uint32_t abi_version;
  int32_t num_inputs;
  int32_t num_outputs;
  /* Private to the runtime: 0, or N > 1 when graph_invoke computes one
   * image of the batch N that `inputs` and `outputs` lead with, and `run`
   * calls it once per image (onnxc compile's batch split); -1 likewise for
   * the batch of each call, the inputs' dynamic dim 0. */
  int32_t batch_runs;
  const char *name; /* the ONNX graph name */
  const onnxc_tensor_info *inputs;
  const onnxc_tensor_info *outputs;
  /* Runs the model: `inputs` in the order of `inputs` above, `outputs` in the
   * order of `outputs` (see onnxc_tensor for who allocates). */
  onnxc_run_fn run;
  onnxc_release_tensor_fn release_tensor;
  /* Private to the runtime: the compiled graph, called with one pointer per
   * input memref descriptor (then, when workspace_size > 0, one to the
   * workspace's 1-D i8 descriptor) and a pointer to the result descriptors. */
  void (*graph_invoke)(void **input_descriptors, void *result_descriptors);
  /* ABI 2 */
  /* Sets the threads the model's kernels and big generated loops may use:
   * n >= 1, or 0 for the default, the number of online cores. Returns
   * ONNXC_OK, or ONNXC_INVALID_ARGUMENT for n < 0. Applies to every later
   * `run` of every model in the same artifact; concurrent runs share the
   * workers (a run that finds them busy computes on its own thread). n > 1
   * starts the workers here; otherwise the first run that wants them does,
   * and that run allocates their thread storage. */
  int (*set_num_threads)(int32_t num_threads);
  /* The bytes of workspace one run needs (a multiple of
   * ONNXC_WORKSPACE_ALIGNMENT; 0 when nothing is planned). */
  uint64_t workspace_size;
  onnxc_run_workspace_fn run_with_workspace;
};

typedef const onnxc_model *(*onnxc_model_entry_fn)(void);

/* The per-node times of an artifact compiled with --profile. The compiled
 * graph is cut where the code of one node (or of the nodes fused into one)
 * ends and the next begins; each piece is an entry, and every run adds the
 * wall time of its piece to the entry's counter. Runs on several threads at
 * once all add to the same counters (atomically). Time a node spends in the
 * thread pool's workers counts once, as the caller waits for it. */
typedef struct onnxc_profile {
  uint32_t version; /* ONNXC_PROFILE_VERSION */
  int32_t num_entries;
  /* Per entry: the ONNX node names its code came from, joined by ", ". */
  const char *const *nodes;
  /* Per entry: their op types ("Conv", "FusedMatMul"...) joined by "+";
   * "" when unknown. */
  const char *const *op_types;
  /* Per entry: nanoseconds summed over every run since the artifact was
   * loaded. The caller may set them to 0 between runs. */
  uint64_t *nanoseconds;
} onnxc_profile;

/* ---- Loading artifacts (libonnxc_runtime) ------------------------------- */

typedef struct onnxc_library onnxc_library;

/* Opens a compiled model library and checks its ABI version, and that the
 * devices of its device partitions are usable (ONNXC_NO_DEVICE if not). */
int onnxc_load(const char *path, onnxc_library **library, onnxc_error *err);
/* The same without the device check, for tools that only read the model's
 * metadata (`onnxc info`); running a model so opened on a machine without
 * its device fails each run with ONNXC_NO_DEVICE. */
int onnxc_load_metadata(const char *path, onnxc_library **library,
                        onnxc_error *err);
/* The model of a loaded library; valid until onnxc_unload. */
const onnxc_model *onnxc_library_model(const onnxc_library *library);
void onnxc_unload(onnxc_library *library);
/* The per-node times of a loaded library, or NULL when it was compiled
 * without --profile. Valid until onnxc_unload. */
const onnxc_profile *onnxc_library_profile(const onnxc_library *library);

/* Size in bytes of one element of `dtype`, or 0 if it has no fixed size. */
size_t onnxc_dtype_size(int32_t dtype);
/* The ONNX name of `dtype` ("float", "int64", ...). */
const char *onnxc_dtype_name(int32_t dtype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_ONNXC_H */
