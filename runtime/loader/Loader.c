/*===- Loader.c - Open compiled artifacts with dlopen ---------------------===*/

#ifndef _GNU_SOURCE /* the build may define it already */
#define _GNU_SOURCE
#endif
#include "onnxc/onnxc.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct onnxc_library {
  void *handle;
  const onnxc_model *model;
  const onnxc_profile *profile; /* NULL without --profile */
};

static int fail(onnxc_error *err, int code, const char *fmt, const char *a,
                const char *b) {
  if (err)
    snprintf(err->message, sizeof err->message, fmt, a, b);
  return code;
}

/* The ELF machine this loader is built for. */
#if defined(__x86_64__)
#define ONNXC_HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define ONNXC_HOST_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define ONNXC_HOST_MACHINE EM_RISCV
#endif

/* Whether `path` is an ELF file for another machine (a cross-compiled
 * artifact), which dlopen reports only as a file it cannot open. */
static const char *foreign_machine(const char *path) {
#ifdef ONNXC_HOST_MACHINE
  unsigned char header[20];
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t n = fread(header, 1, sizeof header, f);
  fclose(f);
  if (n != sizeof header || memcmp(header, ELFMAG, SELFMAG) != 0 ||
      header[EI_DATA] != ELFDATA2LSB)
    return NULL;
  unsigned machine = header[18] | (unsigned)header[19] << 8;
  if (machine == ONNXC_HOST_MACHINE)
    return NULL;
  return machine == EM_AARCH64 ? "AArch64"
         : machine == EM_RISCV ? "RISC-V"
         : machine == EM_X86_64 ? "x86-64"
                                : "another machine";
#else
  (void)path;
  return NULL;
#endif
}

static int load(const char *path, onnxc_library **library, onnxc_error *err,
                int check_devices) {
  if (!path || !library)
    return fail(err, ONNXC_INVALID_ARGUMENT, "%s%s",
                "onnxc_load: path and library must not be null", "");
  *library = NULL;
  /* dlopen searches the library path for a bare file name; a user who names
   * a file means that file. */
  char local[4096];
  const char *open_path = path;
  if (!strchr(path, '/')) {
    if (snprintf(local, sizeof local, "./%s", path) >= (int)sizeof local)
      return fail(err, ONNXC_LOAD_ERROR, "%s: %s", path, "path too long");
    open_path = local;
  }
  void *handle = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    const char *machine = foreign_machine(open_path);
    if (machine)
      return fail(err, ONNXC_LOAD_ERROR,
                  "%s: an artifact for %s, not this machine (run it there, "
                  "or under qemu-user)",
                  path, machine);
    return fail(err, ONNXC_LOAD_ERROR, "%s: %s", path,
                why ? why : "cannot be opened");
  }
  onnxc_model_entry_fn entry =
      (onnxc_model_entry_fn)dlsym(handle, ONNXC_MODEL_ENTRY_SYMBOL);
  if (!entry) {
    dlclose(handle);
    return fail(err, ONNXC_LOAD_ERROR, "%s: %s", path,
                "not an onnxc artifact (no onnxc_model_entry symbol)");
  }
  const onnxc_model *model = entry();
  if (!model || model->abi_version != ONNXC_ABI_VERSION) {
    char why[64];
    snprintf(why, sizeof why, "artifact ABI version %u, this runtime needs %u",
             model ? model->abi_version : 0u, (unsigned)ONNXC_ABI_VERSION);
    dlclose(handle);
    return fail(err, ONNXC_LOAD_ERROR, "%s: %s", path, why);
  }
  typedef int (*device_check_fn)(char *, size_t);
  device_check_fn check =
      (device_check_fn)dlsym(handle, ONNXC_DEVICE_CHECK_SYMBOL);
  if (check && check_devices) {
    char why[512];
    int status = check(why, sizeof why);
    if (status != ONNXC_OK) {
      dlclose(handle);
      return fail(err, (onnxc_status_code)status, "%s: %s", path, why);
    }
  }
  onnxc_library *lib = malloc(sizeof *lib);
  if (!lib) {
    dlclose(handle);
    return fail(err, ONNXC_OUT_OF_MEMORY, "%s: %s", path, "out of memory");
  }
  lib->handle = handle;
  lib->model = model;
  lib->profile = (const onnxc_profile *)dlsym(handle, ONNXC_PROFILE_SYMBOL);
  if (lib->profile && lib->profile->version != ONNXC_PROFILE_VERSION)
    lib->profile = NULL; /* a layout this loader does not know */
  *library = lib;
  return ONNXC_OK;
}

int onnxc_load(const char *path, onnxc_library **library, onnxc_error *err) {
  return load(path, library, err, 1);
}

int onnxc_load_metadata(const char *path, onnxc_library **library,
                        onnxc_error *err) {
  return load(path, library, err, 0);
}

const onnxc_model *onnxc_library_model(const onnxc_library *library) {
  return library ? library->model : NULL;
}

const onnxc_profile *onnxc_library_profile(const onnxc_library *library) {
  return library ? library->profile : NULL;
}

void onnxc_unload(onnxc_library *library) {
  if (!library)
    return;
  dlclose(library->handle);
  free(library);
}
