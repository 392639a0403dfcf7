/*===- Quantize.c - Dynamic quantization: threads and dispatch ------------===*/

#include "Quantize.h"
#include "../ThreadPool.h"
#include "Gemm.h"
#include "QuantizeKernels.h"

#include <math.h>

enum { CHUNK = 16384, MAX_CHUNKS = 4096 };

static const onnxc_quantize_rows *rows_for_cpu(void) {
  switch (onnxc_sgemm_current_isa()) {
#if ONNXC_HAVE_X86_KERNELS
  case ONNXC_SGEMM_ISA_AVX512:
    return &onnxc_quantize_rows_avx512;
  case ONNXC_SGEMM_ISA_AVX2:
    return &onnxc_quantize_rows_avx2;
#endif
  default:
    return &onnxc_quantize_rows_portable;
  }
}

typedef struct quantize_job {
  const onnxc_quantize_rows *rows;
  const float *x;
  uint8_t *y;
  size_t count, chunk;
  float scale, zero_point;
  float min[MAX_CHUNKS], max[MAX_CHUNKS];
} quantize_job;

static size_t chunk_length(const quantize_job *job, size_t task) {
  size_t begin = task * job->chunk;
  return job->count - begin < job->chunk ? job->count - begin : job->chunk;
}

static void range_task(void *context, size_t task, int worker) {
  (void)worker;
  quantize_job *job = context;
  job->rows->range(job->x + task * job->chunk, chunk_length(job, task),
                   &job->min[task], &job->max[task]);
}

static void values_task(void *context, size_t task, int worker) {
  (void)worker;
  quantize_job *job = context;
  job->rows->quantize(job->x + task * job->chunk, chunk_length(job, task),
                      job->scale, job->zero_point, job->y + task * job->chunk);
}

/* Scale and zero point from the range, as ONNX defines them. */
static void parameters(float mn, float mx, float *scale, float *zero_point) {
  float s = (mx == mn ? 1.0f : mx - mn) / 255.0f;
  float z = -(mn / s);
  z = z > 0.0f ? z : 0.0f;
  z = z < 255.0f ? z : 255.0f;
  *scale = s;
  *zero_point = nearbyintf(z); /* default rounding: half to even */
}

void onnxc_dynamic_quantize_u8(const float *x, size_t count, uint8_t *y,
                               float *scale, uint8_t *zero_point) {
  quantize_job job;
  job.rows = rows_for_cpu();
  job.x = x;
  job.y = y;
  job.count = count;
  job.chunk = CHUNK;
  while ((count + job.chunk - 1) / job.chunk > MAX_CHUNKS)
    job.chunk *= 2;
  size_t chunks = count ? (count + job.chunk - 1) / job.chunk : 0;
  onnxc_parallel_for(chunks, 0, range_task, &job);
  float mn = 0.0f, mx = 0.0f;
  for (size_t c = 0; c < chunks; ++c) {
    mn = job.min[c] < mn ? job.min[c] : mn;
    mx = job.max[c] > mx ? job.max[c] : mx;
  }
  parameters(mn, mx, &job.scale, &job.zero_point);
  onnxc_parallel_for(chunks, 0, values_task, &job);
  *scale = job.scale;
  *zero_point = (uint8_t)job.zero_point;
}

void onnxc_dynamic_quantize_u8_reference(const float *x, size_t count,
                                         uint8_t *y, float *scale,
                                         uint8_t *zero_point) {
  float mn = 0.0f, mx = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    if (x[i] < mn)
      mn = x[i];
    if (x[i] > mx)
      mx = x[i];
  }
  float s, z;
  parameters(mn, mx, &s, &z);
  for (size_t i = 0; i < count; ++i) {
    float q = nearbyintf(x[i] / s) + z;
    y[i] = isnan(q) || q <= 0.0f ? 0 : q >= 255.0f ? 255 : (uint8_t)q;
  }
  *scale = s;
  *zero_point = (uint8_t)z;
}
