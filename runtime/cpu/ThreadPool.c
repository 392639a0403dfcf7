/*===- ThreadPool.c - The runtime's worker threads -------------------------===*
 *
 * Workers are created by set_num_threads(n > 1), else lazily (by the first
 * region that wants them). Between regions a worker first polls for a new
 * one for a short while (SPIN_NS), then sleeps on `work_ready`, so an idle
 * pool costs no CPU, while the back-to-back regions of one run (a model's
 * loops and kernels, often tens of microseconds each) do not each wake a
 * sleeping thread: on a VM that wakes a halted vCPU, and mobilenet_v2 at 2
 * threads after an idle pause ran no faster than at 1. The caller likewise
 * polls briefly before sleeping on `work_done`. A region is
 * published under `state_lock` with a new generation number; each worker
 * copies the region under the lock and counts itself in `active`. A new
 * region is published only once `active` is back to zero, so a worker that
 * wakes late can never take a task of a region it did not copy.
 * `region_lock` (try-locked) gives the workers to one caller at a time;
 * everyone else runs inline.
 *
 * Tasks are dealt out statically first: participant p owns the contiguous
 * range [p * N / P, (p + 1) * N / P) and takes its tasks from the front;
 * one that runs out steals from the back of the others' ranges. Consecutive
 * regions split their data the same way (a layer's output rows, the next
 * layer's input rows), so each core mostly reads what it wrote itself, from
 * its own L2. With one shared counter neighbouring tasks alternated between
 * the cores: mobilenet_v2's depthwise layers at batch 1 took 2.5 M cycles
 * a run on 2 threads against 1.7 M on one (1.75 M with the ranges). A
 * late or preempted worker costs nothing either: its range is stolen.
 *
 *===----------------------------------------------------------------------===*/

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#endif
#include "ThreadPool.h"
#include "CpuRuntime.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

enum { MAX_THREADS = 256 };
/* How long a worker polls for the next region, and the caller for the
 * workers to finish, before sleeping: long enough to bridge the gap between
 * two regions of one run, short enough that an idle pool sleeps at once on
 * a human scale. A poller yields the CPU every few microseconds: a woken
 * worker is often placed on the caller's CPU (on a VM the scheduler avoids
 * waking onto a halted vCPU), and a poll that never yields there starved
 * the caller for the whole poll (seen: 350 us regions of 100 us work). */
enum { SPIN_NS = 200 * 1000 };

typedef struct region {
  onnxc_parallel_fn fn;
  void *context;
  size_t first_task; /* task indices are first_task + [0, count) */
  int participants;  /* the caller (worker 0) plus workers 1..participants-1 */
} region;

/* The tasks a participant has left, [begin, end) relative to first_task,
 * packed as begin | end << 32 so that the owner (taking from the front) and
 * thieves (from the back) update it with one compare-and-swap. One cache
 * line each: the owner's updates must not slow the others' down. */
typedef struct task_range {
  _Alignas(64) _Atomic uint64_t packed;
} task_range;
/* At most this many tasks per published region (the packed halves). */
#define MAX_REGION_TASKS ((size_t)UINT32_MAX)

static pthread_mutex_t region_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t work_done = PTHREAD_COND_INITIALIZER;
/* Guarded by state_lock. */
static pthread_t workers[MAX_THREADS];
static int num_workers;   /* started, not counting callers */
static atomic_int active; /* workers inside the current region */
static int sleeping;      /* workers waiting on work_ready */
/* Written under state_lock; read without it only to poll. */
static atomic_uint_fast64_t generation;
static region current;
static int shutting_down;
/* Reset under state_lock while no worker is active; then atomic only. */
static task_range ranges[MAX_THREADS];
/* The setting: 0 = default. */
static atomic_int requested_threads;
/* Set while this thread runs tasks of a region: nested regions run inline. */
static _Thread_local int in_region;

/* sysconf reads /sys on every call; generated loops ask before each nest. */
static atomic_int default_threads;

int onnxc_default_num_threads(void) {
  int cached = atomic_load_explicit(&default_threads, memory_order_relaxed);
  if (cached > 0)
    return cached;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int count = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
  atomic_store_explicit(&default_threads, count, memory_order_relaxed);
  return count;
}

int onnxc_num_threads(void) {
  int n = atomic_load_explicit(&requested_threads, memory_order_relaxed);
  return n > 0 ? n : onnxc_default_num_threads();
}

static void start_workers(int wanted);

int onnxc_set_num_threads(int32_t n) {
  if (n < 0)
    return -1;
  atomic_store(&requested_threads, n > MAX_THREADS ? MAX_THREADS : n);
  /* Start the workers now, not in a run: creating a thread allocates its
   * storage, and a run with a caller workspace must not allocate. */
  if (n > 1) {
    pthread_mutex_lock(&state_lock);
    start_workers(n - 1);
    pthread_mutex_unlock(&state_lock);
  }
  return 0;
}

int onnxc_cpu_set_num_threads(int32_t num_threads) {
  return onnxc_set_num_threads(num_threads) == 0 ? ONNXC_OK
                                                 : ONNXC_INVALID_ARGUMENT;
}

/* Takes the next task from the front of `r` (owner) or its back (thief);
 * returns 0 when the range is empty. */
static int take_task(task_range *r, int from_back, uint32_t *task) {
  uint64_t old = atomic_load_explicit(&r->packed, memory_order_relaxed);
  for (;;) {
    uint32_t begin = (uint32_t)old, end = (uint32_t)(old >> 32);
    if (begin >= end)
      return 0;
    uint64_t updated = from_back ? (uint64_t)(end - 1) << 32 | begin
                                 : (uint64_t)end << 32 | (begin + 1);
    if (atomic_compare_exchange_weak_explicit(&r->packed, &old, updated,
                                              memory_order_relaxed,
                                              memory_order_relaxed)) {
      *task = from_back ? end - 1 : begin;
      return 1;
    }
  }
}

/* Participant `worker`'s own range, then the others' (next one first). */
static void run_tasks(const region *r, int worker) {
  in_region = 1;
  for (int i = 0; i < r->participants; ++i) {
    int owner = (worker + i) % r->participants;
    uint32_t task;
    while (take_task(&ranges[owner], i != 0, &task))
      r->fn(r->context, r->first_task + task, worker);
  }
  in_region = 0;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Polls until `generation` differs from `seen`, or SPIN_NS pass. */
static void spin_while_generation(uint64_t seen) {
  uint64_t start = now_ns();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (atomic_load_explicit(&generation, memory_order_relaxed) != seen)
        return;
      CPU_RELAX();
    }
    if (now_ns() - start > SPIN_NS)
      return;
    sched_yield();
  }
}

/* Polls until no worker is inside a region, or SPIN_NS pass. */
static void spin_while_active(void) {
  uint64_t start = now_ns();
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (atomic_load_explicit(&active, memory_order_relaxed) == 0)
        return;
      CPU_RELAX();
    }
    if (now_ns() - start > SPIN_NS)
      return;
    sched_yield();
  }
}

static void *worker_main(void *arg) {
  int index = (int)(intptr_t)arg;
  pthread_mutex_lock(&state_lock);
  uint64_t seen = generation;
  for (;;) {
    if (generation == seen && !shutting_down) {
      /* The poll only shortens the wait: the region is still read under
       * the lock below. */
      pthread_mutex_unlock(&state_lock);
      spin_while_generation(seen);
      pthread_mutex_lock(&state_lock);
    }
    while (generation == seen && !shutting_down) {
      ++sleeping;
      pthread_cond_wait(&work_ready, &state_lock);
      --sleeping;
    }
    if (shutting_down)
      break;
    seen = generation;
    if (index >= current.participants)
      continue;
    region r = current;
    ++active;
    pthread_mutex_unlock(&state_lock);
    run_tasks(&r, index);
    pthread_mutex_lock(&state_lock);
    if (--active == 0)
      pthread_cond_broadcast(&work_done);
  }
  pthread_mutex_unlock(&state_lock);
  return NULL;
}

#if defined(__linux__)
/* The CPUs the process may use, read when the first worker starts. */
static cpu_set_t allowed_cpus;
static int allowed_count;
/* The caller's CPU that the workers' masks leave out, or -1. */
static int excluded_cpu = -1;

/* Before sleeping workers are woken: keeps them off the caller's CPU. On a
 * VM the scheduler often woke a worker onto the caller's busy vCPU rather
 * than the halted idle one, and there it waited, often for milliseconds,
 * until the caller was done: mlp at batch 1, run after a 50 ms pause, got
 * its worker within 50 us in 1 to 7 of 120 regions, 55 to 75 with the
 * masks (a loaded machine; on a quiet one the worker joins 15 to 20 us
 * after the wake). The masks change only when the caller has moved, so
 * the regions of a run make no system call for this. Holds state_lock. */
static void keep_sleepers_off_caller_cpu(int helpers) {
  if (allowed_count < 2)
    return;
  if (helpers >= allowed_count) {
    /* More helpers than other CPUs: the kernel places them. */
    if (excluded_cpu >= 0)
      for (int i = 0; i < num_workers; ++i)
        pthread_setaffinity_np(workers[i], sizeof allowed_cpus, &allowed_cpus);
    excluded_cpu = -1;
    return;
  }
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu == excluded_cpu || !CPU_ISSET(cpu, &allowed_cpus))
    return;
  cpu_set_t others = allowed_cpus;
  CPU_CLR(cpu, &others);
  for (int i = 0; i < num_workers; ++i)
    pthread_setaffinity_np(workers[i], sizeof others, &others);
  excluded_cpu = cpu;
}
#endif

/* Starts workers until there are `wanted` (or creation fails). Holds
 * state_lock. */
static void start_workers(int wanted) {
#if defined(__linux__)
  if (num_workers == 0 && num_workers < wanted &&
      sched_getaffinity(0, sizeof allowed_cpus, &allowed_cpus) == 0)
    allowed_count = CPU_COUNT(&allowed_cpus);
#endif
  while (num_workers < wanted && num_workers < MAX_THREADS - 1 &&
         !shutting_down) {
    /* Worker i has index i + 1: the caller is worker 0. */
    if (pthread_create(&workers[num_workers], NULL, worker_main,
                       (void *)(intptr_t)(num_workers + 1)) != 0)
      break;
    ++num_workers;
#if defined(__linux__)
    excluded_cpu = -1; /* the new worker has its creator's mask */
#endif
  }
}

/* Runs tasks [first, first + count) of fn on `threads` (> 1) threads if the
 * workers are free, else inline; count <= MAX_REGION_TASKS. */
static void run_region(size_t first, size_t count, int threads,
                       onnxc_parallel_fn fn, void *context) {
  if (in_region || pthread_mutex_trylock(&region_lock) != 0) {
    for (size_t task = first; task < first + count; ++task)
      fn(context, task, 0);
    return;
  }

  pthread_mutex_lock(&state_lock);
  start_workers(threads - 1);
  region r = {fn, context, first,
              num_workers + 1 < threads ? num_workers + 1 : threads};
  /* A worker that woke late for the previous region may still be leaving. */
  while (active > 0)
    pthread_cond_wait(&work_done, &state_lock);
  current = r;
  for (int p = 0; p < r.participants; ++p) {
    uint64_t begin = count * (size_t)p / (size_t)r.participants;
    uint64_t end = count * (size_t)(p + 1) / (size_t)r.participants;
    atomic_store_explicit(&ranges[p].packed, end << 32 | begin,
                          memory_order_relaxed);
  }
  ++generation;
  /* Polling workers see the new generation; only sleepers need the wake. */
  if (sleeping > 0) {
#if defined(__linux__)
    keep_sleepers_off_caller_cpu(r.participants - 1);
#endif
    pthread_cond_broadcast(&work_ready);
  }
  pthread_mutex_unlock(&state_lock);

  run_tasks(&r, 0);
  spin_while_active();

  pthread_mutex_lock(&state_lock);
  while (active > 0)
    pthread_cond_wait(&work_done, &state_lock);
  pthread_mutex_unlock(&state_lock);
  pthread_mutex_unlock(&region_lock);
}

void onnxc_parallel_for(size_t num_tasks, int max_threads, onnxc_parallel_fn fn,
                        void *context) {
  if (num_tasks == 0)
    return;
  int threads = onnxc_num_threads();
  if (max_threads > 0 && max_threads < threads)
    threads = max_threads;
  if ((size_t)threads > num_tasks)
    threads = (int)num_tasks;
  if (threads <= 1) {
    for (size_t task = 0; task < num_tasks; ++task)
      fn(context, task, 0);
    return;
  }
  for (size_t first = 0; first < num_tasks; first += MAX_REGION_TASKS) {
    size_t count = num_tasks - first;
    run_region(first, count < MAX_REGION_TASKS ? count : MAX_REGION_TASKS,
               threads, fn, context);
  }
}

/* An artifact may be dlclose'd: its workers must not outlive its code. */
__attribute__((destructor)) static void stop_workers(void) {
  pthread_mutex_lock(&state_lock);
  shutting_down = 1;
  pthread_cond_broadcast(&work_ready);
  int count = num_workers;
  pthread_mutex_unlock(&state_lock);
  for (int i = 0; i < count; ++i)
    pthread_join(workers[i], NULL);
}
