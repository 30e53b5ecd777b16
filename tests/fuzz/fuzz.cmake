# libFuzzer targets: every tests/fuzz/fuzz_<name>.c (it defines
# LLVMFuzzerTestOneInput) is built with clang in the fuzz tree that the
# superbuild drives, and registered twice: fuzz.<name> (a short run, in the
# default test set) and fuzz-long.<name> (10 minutes under ASan, label `long`;
# ETWCAP_FUZZ_SECONDS in the environment shortens it to try it).  Every run
# lets inputs grow to 1 MiB without libFuzzer's length control (run_fuzz.sh).
# Seeds: tests/fuzz/corpus/<name>/, and the real samples for targets that
# read traces (the samples folder is only read, never written).  The long run
# merges what reached new code back into tests/fuzz/corpus/<name>/, so a
# campaign spanning sessions keeps its corpus (commit it).
set(FUZZ_SHORT_SECONDS 15 CACHE STRING "Length of each short fuzz run in ctest")
set(FUZZ_LONG_SECONDS 600 CACHE STRING "Length of each long fuzz run")
# A target's own per-input limit (run_fuzz.sh --timeout; 120 s otherwise), for
# targets whose work is bounded by the input's size: one input running longer
# is a finding.  fuzz_tracelogging: the old walk took about 0.7 s per event in
# a release build on crafted metadata, several seconds under the sanitizers.
set(FUZZ_TIMEOUT_fuzz_tracelogging 10)

set(FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer -g -O1)
add_library(etwcap_core_fuzz STATIC ${CORE_SOURCES})
target_include_directories(etwcap_core_fuzz PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(etwcap_core_fuzz PUBLIC ETWCAP_VERSION="${PROJECT_VERSION}"
                           ETWCAP_TARGET="${ETWCAP_TARGET}" ${PCRE2_DEFINES}
                           _FILE_OFFSET_BITS=64)
target_compile_options(etwcap_core_fuzz PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                       -fno-omit-frame-pointer -g -O1 ${ETWCAP_WARNINGS})
target_link_libraries(etwcap_core_fuzz PUBLIC PkgConfig::MINIZIP PkgConfig::PCRE2
                      PkgConfig::LIBDEFLATE ZLIB::ZLIB Threads::Threads m)

get_filename_component(fuzz_samples "${ETWCAP_SHARED_DIR}/samples" ABSOLUTE)
file(GLOB FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(src ${FUZZ_TARGETS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  set(timeout "")
  if(DEFINED FUZZ_TIMEOUT_${name})
    set(timeout --timeout ${FUZZ_TIMEOUT_${name}})
  endif()
  target_compile_options(${name} PRIVATE ${FUZZ_FLAGS} ${ETWCAP_WARNINGS})
  target_link_options(${name} PRIVATE ${FUZZ_FLAGS})
  target_link_libraries(${name} PRIVATE etwcap_core_fuzz)
  foreach(kind short long)
    if(kind STREQUAL "short")
      set(test_name fuzz.${name})
      set(seconds ${FUZZ_SHORT_SECONDS})
      set(keep "")
    else()
      set(test_name fuzz-long.${name})
      set(seconds ${FUZZ_LONG_SECONDS})
      set(keep --keep)
    endif()
    add_test(NAME ${test_name}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/run_fuzz.sh
                     $<TARGET_FILE:${name}> ${seconds}
                     ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/${name} ${timeout} ${keep}
                     ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/corpus/${name} ${fuzz_samples})
    set_tests_properties(${test_name} PROPERTIES TIMEOUT 900)
    if(kind STREQUAL "long")
      set_tests_properties(${test_name} PROPERTIES LABELS long RUN_SERIAL ON)
    endif()
  endforeach()
endforeach()
