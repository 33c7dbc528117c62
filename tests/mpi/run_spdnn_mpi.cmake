# ctest script (cmake -P): `mpirun -np 2 ringblas spdnn ... --gpus 2 --backend cpu` on the real
# 1024 x 120 network and 1200 images must exit 0, print PASS and as many categories as the truth
# file lists among the first 1200 images. Prints SKIP when the data is absent.
# -D: MPIEXEC, MPIEXEC_FLAGS (;-list), CLI, DATA (graphchallenge_dnn folder), IMAGES.
set(truth "${DATA}/neuron1024-l120-categories.tsv")
if(NOT EXISTS "${truth}" OR NOT EXISTS "${DATA}/sparse-images-1024_subset1200.mtx.gz")
  message("SKIP: Graph Challenge data not found under ${DATA}")
  return()
endif()
file(STRINGS "${truth}" ids)
set(expected 0)
foreach(id ${ids})
  string(STRIP "${id}" id)
  if(id MATCHES "^[0-9]+$" AND id LESS_EQUAL ${IMAGES})  # 1-based ids
    math(EXPR expected "${expected} + 1")
  endif()
endforeach()
if(expected EQUAL 0)
  message(FATAL_ERROR "no truth category <= ${IMAGES} in ${truth}")
endif()
execute_process(
  COMMAND ${MPIEXEC} ${MPIEXEC_FLAGS} -np 2 ${CLI} spdnn --neurons 1024 --layers 120 --data ${DATA}
          --backend cpu --images ${IMAGES} --gpus 2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun exited with ${rc}:\n${err}")
endif()
if(NOT out MATCHES "\nPASS \\(against ")
  message(FATAL_ERROR "no PASS line in the output")
endif()
if(NOT out MATCHES "\ncategories: ${expected} of ${IMAGES} images\n")
  message(FATAL_ERROR "expected 'categories: ${expected} of ${IMAGES} images'")
endif()
if(NOT out MATCHES "\nrank 1: [0-9]+ images")
  message(FATAL_ERROR "no per-rank line for rank 1: did mpirun start 2 ranks?")
endif()
