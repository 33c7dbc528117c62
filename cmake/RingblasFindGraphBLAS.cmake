# Finds SuiteSparse:GraphBLAS and defines the interface target ringblas_graphblas.
# Order: a CMake config package; else Debian's FindGraphBLAS.cmake; else by path under
# GRAPHBLAS_ROOT (e.g. a prefix unpacked from .debs with dpkg -x on an offline GPU host).
if(TARGET ringblas_graphblas OR TARGET ringblas_graphblas_imported OR TARGET GRAPHBLAS::GRAPHBLAS)
  return()
endif()
set(_rb_gb_target "")
find_package(GraphBLAS CONFIG QUIET)
if(GraphBLAS_FOUND AND TARGET SuiteSparse::GraphBLAS)
  set(_rb_gb_target SuiteSparse::GraphBLAS)
elseif(NOT DEFINED GRAPHBLAS_ROOT AND NOT DEFINED ENV{GRAPHBLAS_ROOT})
  set(_rb_save_module_path ${CMAKE_MODULE_PATH})
  list(APPEND CMAKE_MODULE_PATH /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/SuiteSparse
       /usr/local/lib/cmake/SuiteSparse)
  find_package(GraphBLAS MODULE QUIET)
  set(CMAKE_MODULE_PATH ${_rb_save_module_path})
  if(GRAPHBLAS_FOUND AND TARGET GRAPHBLAS::GRAPHBLAS)
    set(_rb_gb_target GRAPHBLAS::GRAPHBLAS)
  endif()
endif()
if(NOT _rb_gb_target)
  set(_rb_hints ${GRAPHBLAS_ROOT} $ENV{GRAPHBLAS_ROOT})
  find_path(RINGBLAS_GRAPHBLAS_INCLUDE_DIR GraphBLAS.h HINTS ${_rb_hints}
            PATH_SUFFIXES include usr/include suitesparse include/suitesparse)
  find_library(RINGBLAS_GRAPHBLAS_LIBRARY NAMES graphblas libgraphblas.so.7 HINTS ${_rb_hints}
               PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE} lib/x86_64-linux-gnu
                             usr/lib/x86_64-linux-gnu)
  if(NOT RINGBLAS_GRAPHBLAS_INCLUDE_DIR OR NOT RINGBLAS_GRAPHBLAS_LIBRARY)
    message(FATAL_ERROR "SuiteSparse:GraphBLAS not found. Install libgraphblas-dev "
                        "(apt-get install libgraphblas-dev) or set GRAPHBLAS_ROOT to its prefix "
                        "(scripts/fetch_offline_deps.sh prepares one for offline hosts).")
  endif()
  add_library(ringblas_graphblas_imported UNKNOWN IMPORTED)
  set_target_properties(ringblas_graphblas_imported PROPERTIES
    IMPORTED_LOCATION ${RINGBLAS_GRAPHBLAS_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${RINGBLAS_GRAPHBLAS_INCLUDE_DIR})
  set(_rb_gb_target ringblas_graphblas_imported)
endif()
if(PROJECT_NAME STREQUAL "ringblas")
  add_library(ringblas_graphblas INTERFACE)
  target_link_libraries(ringblas_graphblas INTERFACE ${_rb_gb_target})
  install(TARGETS ringblas_graphblas EXPORT ringblasTargets)
endif()
message(STATUS "ringblas: SuiteSparse:GraphBLAS via ${_rb_gb_target}")
