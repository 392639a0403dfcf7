# Cross-compiling for 64-bit RISC-V Linux (RV64GC) with Debian's gcc-riscv64-linux-gnu
# (headers and libraries in /usr/riscv64-linux-gnu, libc6-dev-riscv64-cross).
# Used for the RISC-V runtime archive and by applications:
#   cmake -DCMAKE_TOOLCHAIN_FILE=<onnxc>/cmake/toolchains/riscv64-linux-gnu.cmake
# Programs built with it run here under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR,
# so ctest and add_custom_command run them through qemu).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(CMAKE_C_COMPILER riscv64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER riscv64-linux-gnu-g++)
set(CMAKE_C_COMPILER_TARGET riscv64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/riscv64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-riscv64;-L;/usr/riscv64-linux-gnu)
