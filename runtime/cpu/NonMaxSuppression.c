/*===- NonMaxSuppression.c - ONNX NonMaxSuppression for CPU artifacts -----===*
 *
 * The lowering of onnx.NonMaxSuppression (targets/cpu/lowering/Detection.cpp)
 * calls this through MLIR's C interface: memref arguments arrive as pointers
 * to their descriptors. The caller allocates `selected` with room for every
 * box of every (batch, class) pair that can be kept, and slices the result
 * to the returned count.
 *
 *   int64_t _mlir_ciface_onnxc_rt_nms(
 *       onnxc_memref3 *boxes,      [batches, boxes, 4], dense row-major
 *       onnxc_memref3 *scores,     [batches, classes, boxes], dense row-major
 *       int64_t max_per_class,   <= 0 keeps nothing
 *       float iou_threshold,
 *       float score_threshold,   only used when has_score_threshold
 *       int32_t has_score_threshold,
 *       int64_t center_point_box, 0: [y1, x1, y2, x2]; 1: [xc, yc, w, h]
 *       onnxc_memref2 *selected)   [capacity, 3] rows (batch, class, box)
 *   returns the number of rows written (never more than the capacity).
 *
 * Semantics follow the ONNX operator: per (batch, class), candidates whose
 * score is above the threshold are visited by descending score (ties: lower
 * box index first); a candidate is kept unless its IoU with a box already
 * kept for that class exceeds iou_threshold; at most max_per_class are kept.
 *
 *===----------------------------------------------------------------------===*/

#include "CpuRuntime.h"

#include <stdint.h>
#include <stdlib.h>

/* A box as min/max corners, whichever way round the input gives them. */
typedef struct corners {
  float x_min, x_max, y_min, y_max;
} corners;

static corners box_corners(const float *box, int64_t center_point_box) {
  corners c;
  if (center_point_box) {
    float half_w = box[2] / 2, half_h = box[3] / 2;
    c.x_min = box[0] - half_w;
    c.x_max = box[0] + half_w;
    c.y_min = box[1] - half_h;
    c.y_max = box[1] + half_h;
    return c;
  }
  c.y_min = box[0] < box[2] ? box[0] : box[2];
  c.y_max = box[0] < box[2] ? box[2] : box[0];
  c.x_min = box[1] < box[3] ? box[1] : box[3];
  c.x_max = box[1] < box[3] ? box[3] : box[1];
  return c;
}

/* Whether IoU(a, b) > threshold; degenerate boxes never suppress. */
static int suppresses(corners a, corners b, float threshold) {
  float ix_min = a.x_min > b.x_min ? a.x_min : b.x_min;
  float ix_max = a.x_max < b.x_max ? a.x_max : b.x_max;
  if (ix_max <= ix_min)
    return 0;
  float iy_min = a.y_min > b.y_min ? a.y_min : b.y_min;
  float iy_max = a.y_max < b.y_max ? a.y_max : b.y_max;
  if (iy_max <= iy_min)
    return 0;
  float intersection = (ix_max - ix_min) * (iy_max - iy_min);
  float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  float union_area = area_a + area_b - intersection;
  if (intersection <= 0 || area_a <= 0 || area_b <= 0 || union_area <= 0)
    return 0;
  return intersection / union_area > threshold;
}

typedef struct candidate {
  float score;
  int64_t box;
} candidate;

/* Descending score (NaN last), then ascending box index: a total order, as
 * qsort is not stable. */
static int by_score(const void *lhs, const void *rhs) {
  const candidate *a = lhs, *b = rhs;
  int a_nan = a->score != a->score, b_nan = b->score != b->score;
  if (a_nan != b_nan)
    return a_nan - b_nan;
  if (!a_nan && a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return (a->box > b->box) - (a->box < b->box);
}

int64_t _mlir_ciface_onnxc_rt_nms(onnxc_memref3 *boxes, onnxc_memref3 *scores,
                                  int64_t max_per_class, float iou_threshold,
                                  float score_threshold,
                                  int32_t has_score_threshold,
                                  int64_t center_point_box,
                                  onnxc_memref2 *selected) {
  int64_t batches = boxes->sizes[0], num_boxes = boxes->sizes[1];
  int64_t classes = scores->sizes[1];
  int64_t capacity = selected->sizes[0];
  /* Shapes that disagree (the lowering checks static ones) keep nothing
   * rather than read out of bounds. */
  if (max_per_class <= 0 || num_boxes == 0 || boxes->sizes[2] != 4 ||
      scores->sizes[0] != batches || scores->sizes[2] != num_boxes)
    return 0;

  candidate *order = malloc((size_t)num_boxes * sizeof(candidate));
  corners *kept = malloc((size_t)num_boxes * sizeof(corners));
  if (!order || !kept) {
    free(order);
    free(kept);
    return 0;
  }
  int64_t *out = (int64_t *)selected->aligned + selected->offset;
  int64_t written = 0;
  for (int64_t b = 0; b < batches; ++b) {
    const float *batch_boxes =
        (const float *)boxes->aligned + boxes->offset + b * num_boxes * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const float *class_scores = (const float *)scores->aligned +
                                  scores->offset +
                                  (b * classes + c) * num_boxes;
      int64_t candidates = 0;
      for (int64_t i = 0; i < num_boxes; ++i)
        if (!has_score_threshold || class_scores[i] > score_threshold) {
          order[candidates].score = class_scores[i];
          order[candidates].box = i;
          ++candidates;
        }
      qsort(order, (size_t)candidates, sizeof(candidate), by_score);

      int64_t num_kept = 0;
      for (int64_t k = 0; k < candidates && num_kept < max_per_class; ++k) {
        corners box =
            box_corners(batch_boxes + order[k].box * 4, center_point_box);
        int keep = 1;
        for (int64_t j = 0; j < num_kept && keep; ++j)
          keep = !suppresses(box, kept[j], iou_threshold);
        if (!keep)
          continue;
        kept[num_kept++] = box;
        if (written < capacity) {
          out[written * 3 + 0] = b;
          out[written * 3 + 1] = c;
          out[written * 3 + 2] = order[k].box;
          ++written;
        }
      }
    }
  }
  free(order);
  free(kept);
  return written;
}
