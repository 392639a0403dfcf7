# Cross-compiling for 64-bit Arm Linux with Debian's gcc-aarch64-linux-gnu
# (headers and libraries in /usr/aarch64-linux-gnu, libc6-dev-arm64-cross).
# Used for the AArch64 runtime archive and by applications:
#   cmake -DCMAKE_TOOLCHAIN_FILE=<onnxc>/cmake/toolchains/aarch64-linux-gnu.cmake
# Programs built with it run here under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR,
# so ctest and add_custom_command run them through qemu).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/aarch64-linux-gnu)
