// The translation unit that compiles the precompiled MLIR headers
// (cmake/PrecompiledMlirHeaders.cmake); it has no code of its own.
