/*===- Run.c - Run a compiled graph through the C ABI ---------------------===*
 *
 * `onnxc_cpu_run` is what every CPU artifact's `onnxc_model.run` points at. It
 * checks the caller's tensors against the model's metadata (dtype, rank,
 * static dims, symbolic dims that must agree), builds the MLIR memref
 * descriptors the compiled graph takes, calls it, and hands the results over:
 * copied into caller-provided buffers, or given to the caller as they are
 * (freed later with `onnxc_cpu_release_tensor`).
 *
 * The compiled graph (`graph_invoke`) takes one pointer per input descriptor
 * and one pointer to the results, which are the output descriptors laid out
 * one after the other. A rank-r descriptor is r-independent in layout:
 *   { void *allocated; void *aligned; int64_t offset;
 *     int64_t sizes[r]; int64_t strides[r]; }
 * When the model has a workspace (`workspace_size` > 0), a last pointer
 * follows the inputs': the workspace's descriptor {ws, ws, 0, size, 1}. The
 * graph returns heap buffers it owns (onnxc_rt_alloc, BufferPool.c) or
 * views of the workspace (returned buffers of static size are planned
 * there); the deallocation pipeline guarantees that a returned buffer is
 * never a view of an input or a constant. Workspace results are copied
 * out, never handed over or freed.
 *
 * `onnxc_cpu_run` takes its workspace from a small lock-free pool shared by
 * all models (a slot is emptied while a run uses its block, so two runs never
 * share one) and allocates a new block only when no pooled block is free and
 * large enough. `onnxc_cpu_run_with_workspace` uses the caller's and, with
 * caller output buffers, calls no allocator unless the graph itself still
 * allocates (dynamic dims) or the descriptors outgrow the stack.
 *
 * A model compiled for one image of its batch (`batch_runs` N > 1, or -1
 * for each call's dim 0: onnxc compile's batch split) is called once per
 * image, on views of the inputs' slices, each result copied into its slice
 * of the outputs.
 *
 * Nothing else is kept between calls: run is reentrant.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"
#include "ThreadPool.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Descriptor words kept on the stack; larger graphs use the heap. */
#define STACK_WORDS 1024

typedef struct memref_header {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} memref_header;

static int fail(onnxc_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
  }
  return code;
}

static size_t descriptor_words(int32_t rank) { return 3 + 2 * (size_t)rank; }

/* The element count of `shape`, or -1 if it overflows. */
static int64_t element_count(const int64_t *shape, int32_t rank) {
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] != 0 && count > INT64_MAX / shape[d])
      return -1;
    count *= shape[d];
  }
  return count;
}

/* Checks input `i` against the model; binds its symbolic dims in `bound`
 * (one slot per (input, dim); the first input that names a symbol wins). */
static int check_input(const onnxc_model *model, const onnxc_tensor *inputs,
                       int32_t i, onnxc_error *err) {
  const onnxc_tensor_info *info = &model->inputs[i];
  const onnxc_tensor *t = &inputs[i];
  if (t->dtype != info->dtype)
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "input '%s': dtype %s, the model takes %s", info->name,
                onnxc_dtype_name(t->dtype), onnxc_dtype_name(info->dtype));
  if (t->rank != info->rank)
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "input '%s': rank %d, the model takes rank %d", info->name,
                t->rank, info->rank);
  for (int32_t d = 0; d < t->rank; ++d) {
    if (t->shape[d] < 0)
      return fail(err, ONNXC_INVALID_ARGUMENT,
                  "input '%s': dim %d is negative (%lld)", info->name, d,
                  (long long)t->shape[d]);
    if (info->dims[d] >= 0 && t->shape[d] != info->dims[d])
      return fail(err, ONNXC_INVALID_ARGUMENT,
                  "input '%s': dim %d is %lld, the model takes %lld",
                  info->name, d, (long long)t->shape[d],
                  (long long)info->dims[d]);
    const char *symbol = info->dim_params ? info->dim_params[d] : NULL;
    if (!symbol || !*symbol)
      continue;
    /* The same symbol seen earlier (in this or an earlier input) must have
     * the same value. */
    for (int32_t j = 0; j <= i; ++j) {
      const onnxc_tensor_info *other = &model->inputs[j];
      int32_t end = j == i ? d : other->rank;
      for (int32_t e = 0; e < end; ++e) {
        const char *s = other->dim_params ? other->dim_params[e] : NULL;
        if (s && strcmp(s, symbol) == 0 && inputs[j].shape[e] != t->shape[d])
          return fail(err, ONNXC_INVALID_ARGUMENT,
                      "input '%s': dim %d ('%s') is %lld, but input '%s' "
                      "has '%s' = %lld",
                      info->name, d, symbol, (long long)t->shape[d],
                      other->name, symbol, (long long)inputs[j].shape[e]);
      }
    }
  }
  int64_t count = element_count(t->shape, t->rank);
  size_t elem = onnxc_dtype_size(t->dtype);
  if (count < 0 || (elem && (uint64_t)count > SIZE_MAX / elem))
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "input '%s': the element count overflows", info->name);
  if (count > 0 && !t->data)
    return fail(err, ONNXC_INVALID_ARGUMENT, "input '%s': data is null",
                info->name);
  if (elem && ((uintptr_t)t->data % elem) != 0)
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "input '%s': data is not aligned to its %zu-byte elements",
                info->name, elem);
  return ONNXC_OK;
}

static void write_descriptor(int64_t *words, const onnxc_tensor *t) {
  memref_header *h = (memref_header *)words;
  h->allocated = t->data;
  h->aligned = t->data;
  h->offset = 0;
  int64_t stride = 1;
  for (int32_t d = t->rank - 1; d >= 0; --d) {
    h->sizes_and_strides[d] = t->shape[d];
    h->sizes_and_strides[t->rank + d] = stride;
    stride *= t->shape[d] > 0 ? t->shape[d] : 1;
  }
}

/* Whether `ptr` was handed to an earlier output, is an input's buffer or is
 * the workspace: then output `o` must get a copy, not the buffer itself, and
 * the buffer is not ours to free. */
static int is_taken(void *ptr, const onnxc_tensor *inputs, int32_t num_inputs,
                    const onnxc_tensor *outputs, int32_t o, void *workspace) {
  if (workspace && ptr == workspace)
    return 1;
  for (int32_t i = 0; i < num_inputs; ++i)
    if (inputs[i].data == ptr)
      return 1;
  for (int32_t j = 0; j < o; ++j)
    if (outputs[j].owner == ptr)
      return 1;
  return 0;
}

/* Checks the call's arguments against the model (before any workspace is
 * taken). */
static int check_call(const onnxc_model *model, const onnxc_tensor *inputs,
                      int32_t num_inputs, onnxc_tensor *outputs,
                      int32_t num_outputs, onnxc_error *err) {
  if (err)
    err->message[0] = 0;
  if (!model)
    return fail(err, ONNXC_INVALID_ARGUMENT, "run: model is null");
  if (num_inputs != model->num_inputs)
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "run: %d inputs given, the model takes %d", num_inputs,
                model->num_inputs);
  if (num_outputs != model->num_outputs)
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "run: %d outputs given, the model has %d", num_outputs,
                model->num_outputs);
  if ((num_inputs > 0 && !inputs) || (num_outputs > 0 && !outputs))
    return fail(err, ONNXC_INVALID_ARGUMENT,
                "run: the inputs or outputs array is null");
  for (int32_t i = 0; i < num_inputs; ++i) {
    int code = check_input(model, inputs, i, err);
    if (code != ONNXC_OK)
      return code;
  }
  return ONNXC_OK;
}

/* Runs a checked call with `workspace` (model->workspace_size bytes). */
static int run_graph(const onnxc_model *model, const onnxc_tensor *inputs,
                     int32_t num_inputs, onnxc_tensor *outputs,
                     int32_t num_outputs, void *workspace, onnxc_error *err) {
  size_t words = 0;
  for (int32_t i = 0; i < num_inputs; ++i)
    words += descriptor_words(inputs[i].rank);
  size_t input_words = words;
  for (int32_t o = 0; o < num_outputs; ++o)
    words += descriptor_words(model->outputs[o].rank);
  size_t pointer_words = (size_t)num_inputs + 1;
  int64_t stack_words[STACK_WORDS];
  void *stack_pointers[64];
  int64_t *block = words <= STACK_WORDS ? stack_words
                                        : malloc(words * sizeof(int64_t));
  void **input_ptrs = pointer_words <= 64
                          ? stack_pointers
                          : malloc(pointer_words * sizeof(void *));
  if (!block || !input_ptrs) {
    if (block != stack_words)
      free(block);
    if (input_ptrs != stack_pointers)
      free(input_ptrs);
    return fail(err, ONNXC_OUT_OF_MEMORY, "run: out of memory");
  }

  size_t at = 0;
  for (int32_t i = 0; i < num_inputs; ++i) {
    write_descriptor(block + at, &inputs[i]);
    input_ptrs[i] = block + at;
    at += descriptor_words(inputs[i].rank);
  }
  int64_t workspace_descriptor[5] = {(int64_t)(intptr_t)workspace,
                                     (int64_t)(intptr_t)workspace, 0,
                                     (int64_t)model->workspace_size, 1};
  if (model->workspace_size > 0)
    input_ptrs[num_inputs] = workspace_descriptor;
  int64_t *results = block + input_words;
  memset(results, 0, (words - input_words) * sizeof(int64_t));
  onnxc_rt_clear_shape_error();
  model->graph_invoke(input_ptrs, results);

  /* A failed run-time shape check (ShapeError.c) fails the run; its results
   * are then placeholders, freed below. A device runtime's error fails it
   * with its own code (ONNXC_RUNTIME_ERROR, ONNXC_NO_DEVICE). */
  int code = ONNXC_OK;
  char shape_message[sizeof err->message];
  int shape_code =
      onnxc_rt_take_shape_error(shape_message, sizeof shape_message);
  if (shape_code != ONNXC_OK)
    code = fail(err, shape_code, "%s", shape_message);

  /* Hand every result over, even after a failure, so none leaks. */
  at = 0;
  for (int32_t o = 0; o < num_outputs; ++o) {
    const onnxc_tensor_info *info = &model->outputs[o];
    memref_header *h = (memref_header *)(results + at);
    at += descriptor_words(info->rank);
    onnxc_tensor *out = &outputs[o];
    size_t elem = onnxc_dtype_size(info->dtype);
    int64_t count = element_count(h->sizes_and_strides, info->rank);
    size_t bytes = (size_t)count * elem;
    const char *data = (const char *)h->aligned + h->offset * (int64_t)elem;
    int take =
        code == ONNXC_OK && !out->data &&
        !is_taken(h->allocated, inputs, num_inputs, outputs, o, workspace);
    if (code == ONNXC_OK) {
      if (out->data && out->size_bytes < bytes) {
        code = fail(err, ONNXC_INVALID_ARGUMENT,
                    "output '%s': the buffer holds %zu bytes, the result "
                    "needs %zu",
                    info->name, out->size_bytes, bytes);
      } else if (out->data) {
        if (bytes)
          memcpy(out->data, data, bytes);
      } else if (take) {
        out->data = (void *)data;
        out->owner = h->allocated;
        out->size_bytes = bytes;
      } else {
        void *copy = onnxc_rt_alloc(64, bytes ? bytes : 1);
        if (!copy) {
          code = fail(err, ONNXC_OUT_OF_MEMORY,
                      "output '%s': out of memory (%zu bytes)", info->name,
                      bytes);
        } else {
          if (bytes)
            memcpy(copy, data, bytes);
          out->data = copy;
          out->owner = copy;
          out->size_bytes = bytes;
        }
      }
      if (code == ONNXC_OK) {
        out->rank = info->rank;
        out->dtype = info->dtype;
        for (int32_t d = 0; d < info->rank; ++d)
          out->shape[d] = h->sizes_and_strides[d];
      }
    }
    if (!take &&
        !is_taken(h->allocated, inputs, num_inputs, outputs, o, workspace)) {
      /* A buffer of ours that no output keeps. Two results may share one
       * buffer: free it only at its last use. */
      int used_later = 0;
      size_t later = at;
      for (int32_t p = o + 1; p < num_outputs; ++p) {
        memref_header *hp = (memref_header *)(results + later);
        used_later |= hp->allocated == h->allocated;
        later += descriptor_words(model->outputs[p].rank);
      }
      if (!used_later)
        onnxc_rt_free(h->allocated);
    }
  }
  if (code != ONNXC_OK)
    for (int32_t o = 0; o < num_outputs; ++o)
      if (outputs[o].owner) {
        onnxc_rt_free(outputs[o].owner);
        outputs[o].owner = NULL;
        outputs[o].data = NULL;
      }

  if (block != stack_words)
    free(block);
  if (input_ptrs != stack_pointers)
    free(input_ptrs);
  return code;
}

/* Block pools: each slot holds a free block or NULL. A block starts with
 * its capacity; the usable memory follows at ONNXC_WORKSPACE_ALIGNMENT. One
 * pool keeps run workspaces, the other kernels' scratch (packed GEMM
 * panels), so a kernel never takes the block a run is about to want.
 *
 * Why pool at all: the first touch of fresh memory costs a page fault per
 * 4 KiB page, which dominates a first run (a 1.5 MiB packed panel is 384
 * faults, a ResNet-50 workspace thousands). A pooled block faults once per
 * process. Blocks of LARGE_BLOCK or more are also rounded up to and aligned
 * on HUGE_PAGE and offered to transparent huge pages (Linux's madvise mode):
 * one fault per 2 MiB instead of 512, when the kernel has a huge page. */
#define POOL_SLOTS 8
#define HUGE_PAGE ((size_t)2 << 20)
#define LARGE_BLOCK ((size_t)1 << 20)
static _Atomic(void *) workspace_pool[POOL_SLOTS];
static _Atomic(void *) scratch_pool[POOL_SLOTS];

static void *new_block(uint64_t size) {
  if (size > SIZE_MAX - HUGE_PAGE - ONNXC_WORKSPACE_ALIGNMENT)
    return NULL;
  size_t bytes = (size_t)size + ONNXC_WORKSPACE_ALIGNMENT;
  size_t alignment = ONNXC_WORKSPACE_ALIGNMENT;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= LARGE_BLOCK) {
    bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    alignment = HUGE_PAGE;
  }
#endif
  void *block = NULL;
  if (posix_memalign(&block, alignment, bytes) != 0)
    return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  /* Advice only: without huge pages the block still works. */
  if (alignment == HUGE_PAGE)
    (void)madvise(block, bytes, MADV_HUGEPAGE);
#endif
  *(uint64_t *)block = bytes - ONNXC_WORKSPACE_ALIGNMENT;
  return block;
}

static void *take_block(_Atomic(void *) *pool, uint64_t size) {
  for (int i = 0; i < POOL_SLOTS; ++i) {
    void *block = atomic_exchange(&pool[i], NULL);
    if (!block)
      continue;
    if (*(uint64_t *)block >= size)
      return block;
    /* Too small for this request: give it back for a smaller one. */
    void *empty = NULL;
    if (!atomic_compare_exchange_strong(&pool[i], &empty, block))
      free(block);
  }
  return new_block(size);
}

static void give_block(_Atomic(void *) *pool, void *block) {
  for (int i = 0; i < POOL_SLOTS; ++i) {
    void *empty = NULL;
    if (atomic_compare_exchange_strong(&pool[i], &empty, block))
      return;
  }
  free(block);
}

void *onnxc_rt_scratch_take(size_t bytes, void **block) {
  *block = take_block(scratch_pool, bytes);
  return *block ? (char *)*block + ONNXC_WORKSPACE_ALIGNMENT : NULL;
}

void onnxc_rt_scratch_give(void *block) {
  if (block)
    give_block(scratch_pool, block);
}

/* A workspace for one run of `model` from the pool: *block to give back
 * (NULL when the model needs none) and *workspace, its usable memory. */
static int take_workspace(const onnxc_model *model, void **block,
                          void **workspace, onnxc_error *err) {
  *block = *workspace = NULL;
  if (model->workspace_size == 0)
    return ONNXC_OK;
  *block = take_block(workspace_pool, model->workspace_size);
  if (!*block)
    return fail(err, ONNXC_OUT_OF_MEMORY,
                "run: out of memory (a workspace of %llu bytes)",
                (unsigned long long)model->workspace_size);
  *workspace = (char *)*block + ONNXC_WORKSPACE_ALIGNMENT;
  return ONNXC_OK;
}

static void give_workspace(void *block) {
  if (block)
    give_block(workspace_pool, block);
}

/* A graph compiled for one image of the batch (model->batch_runs = N > 1,
 * or -1 for the call's batch, the inputs' dim 0; the other dims are those
 * of the metadata) runs once per image, on views of each input's slice and
 * into each output's slice. The outputs are allocated whole first (or are
 * the caller's buffers, checked to hold the batch), so that each image's
 * result is copied where it belongs. */
typedef struct image_work {
  const onnxc_model *model;
  const onnxc_tensor *inputs;
  onnxc_tensor *outputs;
  int32_t num_inputs, num_outputs;
  int64_t runs; /* the batch */
  /* The first failure of a parallel run, and its message. */
  _Atomic int code;
  onnxc_error *err;
} image_work;

/* The bytes of one image of `info`, a tensor of a split batch: its dims
 * after dim 0, all static. */
static size_t image_bytes(const onnxc_tensor_info *info) {
  return (size_t)element_count(info->dims + 1, info->rank - 1) *
         onnxc_dtype_size(info->dtype);
}

/* Image `r` of `w`'s batch with `workspace` (the model's size, or NULL). */
static int run_image(const image_work *w, int64_t r, void *workspace,
                     onnxc_error *err) {
  enum { STACK_TENSORS = 32 };
  const onnxc_model *model = w->model;
  onnxc_tensor stack_tensors[STACK_TENSORS];
  size_t count = (size_t)w->num_inputs + (size_t)w->num_outputs;
  onnxc_tensor *views = count <= STACK_TENSORS
                            ? stack_tensors
                            : malloc(count * sizeof(onnxc_tensor));
  if (!views)
    return fail(err, ONNXC_OUT_OF_MEMORY, "run: out of memory");
  onnxc_tensor *slices = views + w->num_inputs;
  for (int32_t i = 0; i < w->num_inputs; ++i) {
    const onnxc_tensor *in = &w->inputs[i];
    size_t image = image_bytes(&model->inputs[i]);
    views[i] = *in;
    views[i].data = (char *)in->data + (size_t)r * image;
    views[i].shape[0] = 1;
  }
  for (int32_t o = 0; o < w->num_outputs; ++o) {
    size_t image = image_bytes(&model->outputs[o]);
    memset(&slices[o], 0, sizeof slices[o]);
    slices[o].data = (char *)w->outputs[o].data + (size_t)r * image;
    slices[o].size_bytes = image;
  }
  int code = run_graph(model, views, w->num_inputs, slices, w->num_outputs,
                       workspace, err);
  if (views != stack_tensors)
    free(views);
  return code;
}

/* One image of a parallel run, with a workspace of its own from the pool
 * (its kernels run on this thread: a region nested in a task is inline). */
static void image_task(void *context, size_t task, int worker) {
  (void)worker;
  image_work *w = context;
  if (atomic_load(&w->code) != ONNXC_OK)
    return;
  onnxc_error local;
  void *block, *workspace;
  int code = take_workspace(w->model, &block, &workspace, &local);
  if (code == ONNXC_OK)
    code = run_image(w, (int64_t)task, workspace, &local);
  give_workspace(block);
  int expected = ONNXC_OK;
  if (code != ONNXC_OK &&
      atomic_compare_exchange_strong(&w->code, &expected, code) && w->err)
    *w->err = local;
}

/* Whether the images of a batch run side by side, one thread each (kernels
 * single-threaded), rather than one after another on all threads: when
 * every thread gets as many images, or several. Each then works in its own
 * core's cache. */
static int images_side_by_side(int64_t runs) {
  int64_t threads = onnxc_num_threads();
  return threads > 1 && runs >= threads &&
         (runs % threads == 0 || runs >= 4 * threads);
}

/* With `pooled`, workspaces come from the pool and the images may run side
 * by side; else they run one after another in `workspace` (the caller's,
 * or NULL when the model needs none). */
static int run_per_image(const onnxc_model *model, const onnxc_tensor *inputs,
                         int32_t num_inputs, onnxc_tensor *outputs,
                         int32_t num_outputs, void *workspace, int pooled,
                         onnxc_error *err) {
  int code = ONNXC_OK;
  /* A run-time batch is input 0's dim 0. check_call held the other inputs
   * to it (the compiler splits only inputs that name dim 0 with one
   * symbol) and every other dim to the metadata's. */
  int64_t runs = model->batch_runs > 0 ? model->batch_runs : inputs[0].shape[0];
  for (int32_t o = 0; o < num_outputs && code == ONNXC_OK; ++o) {
    const onnxc_tensor_info *info = &model->outputs[o];
    size_t image = image_bytes(info);
    if (image > 0 && (uint64_t)runs > SIZE_MAX / image) {
      code = fail(err, ONNXC_INVALID_ARGUMENT,
                  "output '%s': %lld images overflow its size", info->name,
                  (long long)runs);
      break;
    }
    size_t bytes = (size_t)runs * image;
    onnxc_tensor *out = &outputs[o];
    if (out->data && out->size_bytes < bytes) {
      code = fail(err, ONNXC_INVALID_ARGUMENT,
                  "output '%s': the buffer holds %zu bytes, the result "
                  "needs %zu",
                  info->name, out->size_bytes, bytes);
    } else if (!out->data) {
      out->owner = out->data = onnxc_rt_alloc(64, bytes ? bytes : 1);
      out->size_bytes = bytes;
      if (!out->data)
        code =
            fail(err, ONNXC_OUT_OF_MEMORY,
                 "output '%s': out of memory (%zu bytes)", info->name, bytes);
    }
  }
  image_work w = {model,       inputs, outputs,  num_inputs,
                  num_outputs, runs,   ONNXC_OK, err};
  if (code == ONNXC_OK && pooled && images_side_by_side(runs)) {
    onnxc_parallel_for((size_t)runs, 0, image_task, &w);
    code = atomic_load(&w.code);
  } else {
    void *block = NULL;
    if (code == ONNXC_OK && pooled)
      code = take_workspace(model, &block, &workspace, err);
    for (int64_t r = 0; r < runs && code == ONNXC_OK; ++r)
      code = run_image(&w, r, workspace, err);
    give_workspace(block);
  }
  for (int32_t o = 0; o < num_outputs; ++o) {
    onnxc_tensor *out = &outputs[o];
    if (code != ONNXC_OK) {
      if (out->owner) {
        onnxc_rt_free(out->owner);
        out->owner = out->data = NULL;
        out->size_bytes = 0;
      }
      continue;
    }
    const onnxc_tensor_info *info = &model->outputs[o];
    out->rank = info->rank;
    out->dtype = info->dtype;
    out->shape[0] = runs;
    for (int32_t d = 1; d < info->rank; ++d)
      out->shape[d] = info->dims[d];
  }
  return code;
}

int onnxc_cpu_run(const onnxc_model *model, const onnxc_tensor *inputs,
                  int32_t num_inputs, onnxc_tensor *outputs,
                  int32_t num_outputs, onnxc_error *err) {
  int code = check_call(model, inputs, num_inputs, outputs, num_outputs, err);
  if (code != ONNXC_OK)
    return code;
  if (model->batch_runs != 0)
    return run_per_image(model, inputs, num_inputs, outputs, num_outputs, NULL,
                         /*pooled=*/1, err);
  void *block, *workspace;
  code = take_workspace(model, &block, &workspace, err);
  if (code == ONNXC_OK)
    code = run_graph(model, inputs, num_inputs, outputs, num_outputs, workspace,
                     err);
  give_workspace(block);
  return code;
}

int onnxc_cpu_run_with_workspace(const onnxc_model *model,
                                 const onnxc_tensor *inputs, int32_t num_inputs,
                                 onnxc_tensor *outputs, int32_t num_outputs,
                                 void *workspace, size_t workspace_size,
                                 onnxc_error *err) {
  int code = check_call(model, inputs, num_inputs, outputs, num_outputs, err);
  if (code != ONNXC_OK)
    return code;
  if (model->workspace_size > 0) {
    if (!workspace)
      return fail(err, ONNXC_INVALID_ARGUMENT,
                  "run_with_workspace: the workspace is null, the model "
                  "needs %llu bytes",
                  (unsigned long long)model->workspace_size);
    if ((uint64_t)workspace_size < model->workspace_size)
      return fail(err, ONNXC_INVALID_ARGUMENT,
                  "run_with_workspace: the workspace holds %zu bytes, the "
                  "model needs %llu",
                  workspace_size, (unsigned long long)model->workspace_size);
    if ((uintptr_t)workspace % ONNXC_WORKSPACE_ALIGNMENT != 0)
      return fail(err, ONNXC_INVALID_ARGUMENT,
                  "run_with_workspace: the workspace is not aligned to %d "
                  "bytes",
                  ONNXC_WORKSPACE_ALIGNMENT);
  }
  workspace = model->workspace_size > 0 ? workspace : NULL;
  if (model->batch_runs != 0)
    return run_per_image(model, inputs, num_inputs, outputs, num_outputs,
                         workspace, /*pooled=*/0, err);
  return run_graph(model, inputs, num_inputs, outputs, num_outputs, workspace,
                   err);
}

void onnxc_cpu_release_tensor(onnxc_tensor *tensor) {
  if (!tensor)
    return;
  onnxc_rt_free(tensor->owner);
  tensor->owner = NULL;
  tensor->data = NULL;
  tensor->size_bytes = 0;
}
