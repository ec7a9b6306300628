# Test helpers shared by every tests/ subdirectory.
#
# fy_add_unit_test(NAME SOURCES a.c b.c [LIBS x y])
#   A plain executable run without a launcher. It may link the internal
#   object libraries (e.g. fy_mq) it tests.
# fy_add_mpi_test(NAME SOURCES a.c NP 1 2 4 [ENV A=B ...] [ARGS ...])
#   An MPI program built against Ferry's libmpi, run as one CTest test per
#   process count under Ferry's mpiexec: test names are NAME.npN. At the
#   largest process count it also runs once per asynchronous progress mode
#   (NAME.npN.<mode>, FERRY_PROGRESS=<mode>), so every mode passes the suite.
#   MODES m1 m2 ...: only these modes (MODES with no value: none of them);
#   for large groups of tests whose progress paths other tests already cover.
# fy_scaled_timeout(VAR SECONDS): SECONDS * FY_TIMEOUT_SCALE (sanitizer builds).
set(FY_PROGRESS_MODES none thread interrupt pef)
function(fy_scaled_timeout var secs)
  math(EXPR t "${secs} * ${FY_TIMEOUT_SCALE}")
  set(${var} ${t} PARENT_SCOPE)
endfunction()
function(fy_add_unit_test name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES} ${FY_TEST_EXTRA_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src
                             ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  target_link_libraries(${name} PRIVATE ${A_LIBS} Threads::Threads rt m)
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES TIMEOUT 300 LABELS unit)
endfunction()

function(fy_add_mpi_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;NP;ENV;ARGS;MODES" ${ARGN})
  set(modes ${FY_PROGRESS_MODES})
  if("MODES" IN_LIST ARGN)
    set(modes ${A_MODES})
  endif()
  if(TARGET ${name})
    # A second call for the same program adds runs; a target of that name
    # from elsewhere (a benchmark, an example) would silently be run instead.
    get_target_property(dir ${name} SOURCE_DIR)
    if(NOT dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
      message(FATAL_ERROR "test ${name}: a target of that name already exists in ${dir}")
    endif()
  else()
    add_executable(${name} ${A_SOURCES} ${FY_TEST_EXTRA_SOURCES})
    target_link_libraries(${name} PRIVATE ferry m)
    math(EXPR wd "120 * ${FY_TIMEOUT_SCALE}")
    target_compile_definitions(${name} PRIVATE _GNU_SOURCE FYTEST_DEFAULT_TIMEOUT=${wd})
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  fy_scaled_timeout(A_TIMEOUT ${A_TIMEOUT})
  set(maxnp 0)
  foreach(np ${A_NP})
    add_test(NAME mpi.${name}.np${np}
             COMMAND $<TARGET_FILE:mpiexec> -n ${np} $<TARGET_FILE:${name}> ${A_ARGS})
    set_tests_properties(mpi.${name}.np${np} PROPERTIES TIMEOUT ${A_TIMEOUT}
                         LABELS mpi ENVIRONMENT "${A_ENV}")
    if(np GREATER maxnp)
      set(maxnp ${np})
    endif()
  endforeach()
  foreach(mode ${modes})
    add_test(NAME mpi.${name}.np${maxnp}.${mode}
             COMMAND $<TARGET_FILE:mpiexec> -n ${maxnp} $<TARGET_FILE:${name}> ${A_ARGS})
    set_tests_properties(mpi.${name}.np${maxnp}.${mode} PROPERTIES TIMEOUT ${A_TIMEOUT}
                         LABELS "mpi;progress" ENVIRONMENT "${A_ENV};FERRY_PROGRESS=${mode}")
  endforeach()
endfunction()
