# Finds OpenBLAS's cblas (the cpu executor's gemm, include/ringblas/nn.hpp) and defines the
# interface target ringblas_openblas. Debian installs it behind /etc/alternatives; a prefix
# unpacked with dpkg -x (offline GPU host: OPENBLAS_ROOT, scripts/gpu_host_build.sh) has no
# alternatives links, so the openblas-pthread/ directories are searched first.
if(TARGET ringblas_openblas)
  return()
endif()
set(_rb_ob_hints ${OPENBLAS_ROOT} $ENV{OPENBLAS_ROOT})
set(_rb_ob_arch ${CMAKE_LIBRARY_ARCHITECTURE})
if(NOT _rb_ob_arch)
  set(_rb_ob_arch x86_64-linux-gnu)
endif()
find_path(RINGBLAS_CBLAS_INCLUDE_DIR cblas.h
  HINTS ${_rb_ob_hints} /usr
  PATH_SUFFIXES include/${_rb_ob_arch}/openblas-pthread usr/include/${_rb_ob_arch}/openblas-pthread
                include/openblas usr/include/openblas include usr/include
  NO_DEFAULT_PATH)
find_library(RINGBLAS_OPENBLAS_LIBRARY NAMES openblas
  HINTS ${_rb_ob_hints} /usr
  PATH_SUFFIXES lib/${_rb_ob_arch}/openblas-pthread usr/lib/${_rb_ob_arch}/openblas-pthread
                lib/${_rb_ob_arch} usr/lib/${_rb_ob_arch} lib lib64
  NO_DEFAULT_PATH)
if(NOT RINGBLAS_CBLAS_INCLUDE_DIR OR NOT RINGBLAS_OPENBLAS_LIBRARY)
  message(FATAL_ERROR "OpenBLAS (cblas.h and libopenblas) not found. Install libopenblas-dev "
                      "(apt-get install libopenblas-dev) or set OPENBLAS_ROOT to its prefix "
                      "(scripts/fetch_offline_deps.sh prepares one for offline hosts).")
endif()
add_library(ringblas_openblas INTERFACE)
target_include_directories(ringblas_openblas INTERFACE ${RINGBLAS_CBLAS_INCLUDE_DIR})
target_link_libraries(ringblas_openblas INTERFACE ${RINGBLAS_OPENBLAS_LIBRARY})
if(PROJECT_NAME STREQUAL "ringblas")
  install(TARGETS ringblas_openblas EXPORT ringblasTargets)
endif()
message(STATUS "ringblas: OpenBLAS ${RINGBLAS_OPENBLAS_LIBRARY} (cblas.h in ${RINGBLAS_CBLAS_INCLUDE_DIR})")
