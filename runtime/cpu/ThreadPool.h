/*===- ThreadPool.h - The runtime's worker threads -------------------------===*
 *
 * One pool per artifact (the runtime is linked statically into each one):
 * persistent pthreads that sleep on a condition variable while idle. A
 * parallel region runs `num_tasks` calls of `fn` spread over the caller and
 * the workers. Only one region uses the workers at a time; a caller that finds
 * them busy (another thread's region, or a region nested in a task) runs its
 * whole region inline, so `run` may be called from many threads at once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef ONNXC_RUNTIME_CPU_THREADPOOL_H
#define ONNXC_RUNTIME_CPU_THREADPOOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One task of a region. `worker` is in [0, the region's thread count): tasks
 * that run on the same worker never overlap, so it can index per-thread
 * scratch buffers. */
typedef void (*onnxc_parallel_fn)(void *context, size_t task, int worker);

/* Runs fn(context, t, worker) for every t in [0, num_tasks) on at most
 * min(max_threads, onnxc_num_threads()) threads (max_threads <= 0: no cap)
 * and returns when all are done. */
void onnxc_parallel_for(size_t num_tasks, int max_threads, onnxc_parallel_fn fn,
                        void *context);

/* The threads a region may use (>= 1). */
int onnxc_num_threads(void);
/* Sets it: n >= 1, or 0 for the default (the number of online cores).
 * Returns 0, or -1 for a negative n. Safe at any time; a region already
 * running keeps its count. */
int onnxc_set_num_threads(int32_t n);
/* The number of online cores (>= 1). */
int onnxc_default_num_threads(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONNXC_RUNTIME_CPU_THREADPOOL_H */
