/*===- CudaMap.c - The caches' hash map -----------------------------------===*
 *
 * Open addressing with linear probing, keyed by two words (a pointer and a
 * pointer or size), kept at most half full. Entries are never removed: the
 * caches live as long as the process.
 *
 *===----------------------------------------------------------------------===*/

#include "CudaInternal.h"

#include <stdlib.h>

static size_t slot_of(uintptr_t k0, uintptr_t k1, size_t capacity) {
  uint64_t h = (uint64_t)k0 * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)k1 + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
  h ^= h >> 29;
  return (size_t)h & (capacity - 1);
}

void *onnxc_cuda_map_find(const onnxc_cuda_map *map, uintptr_t k0,
                          uintptr_t k1) {
  if (!map->capacity)
    return NULL;
  for (size_t i = slot_of(k0, k1, map->capacity);;
       i = (i + 1) & (map->capacity - 1)) {
    const onnxc_cuda_map_entry *e = &map->entries[i];
    if (!e->value)
      return NULL;
    if (e->key[0] == k0 && e->key[1] == k1)
      return e->value;
  }
}

static void place(onnxc_cuda_map_entry *entries, size_t capacity, uintptr_t k0,
                  uintptr_t k1, void *value) {
  size_t i = slot_of(k0, k1, capacity);
  while (entries[i].value)
    i = (i + 1) & (capacity - 1);
  entries[i].key[0] = k0;
  entries[i].key[1] = k1;
  entries[i].value = value;
}

int onnxc_cuda_map_insert(onnxc_cuda_map *map, uintptr_t k0, uintptr_t k1,
                          void *value) {
  if (2 * (map->count + 1) > map->capacity) {
    size_t capacity = map->capacity ? 2 * map->capacity : 64;
    onnxc_cuda_map_entry *entries = calloc(capacity, sizeof *entries);
    if (!entries)
      return 0;
    for (size_t i = 0; i < map->capacity; ++i)
      if (map->entries[i].value)
        place(entries, capacity, map->entries[i].key[0], map->entries[i].key[1],
              map->entries[i].value);
    free(map->entries);
    map->entries = entries;
    map->capacity = capacity;
  }
  place(map->entries, map->capacity, k0, k1, value);
  ++map->count;
  return 1;
}
