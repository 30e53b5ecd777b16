# Test registration for both trees.  Every tests/unit/test_<unit>.c becomes an
# executable and a ctest test named native.test_<unit> or wine.test_<unit>.
# Tests read the real samples from ETWCAP_SAMPLES and skip when it is absent.

get_filename_component(shared_abs "${ETWCAP_SHARED_DIR}" ABSOLUTE)
if(WIN32)
  # Wine maps the Unix root to drive Z:.
  set(samples_env "ETWCAP_SAMPLES=Z:${shared_abs}/samples")
  set(test_tmp_env "ETWCAP_TEST_TMP=Z:${CMAKE_CURRENT_BINARY_DIR}/test-tmp")
else()
  set(samples_env "ETWCAP_SAMPLES=${shared_abs}/samples")
  set(test_tmp_env "ETWCAP_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/test-tmp;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tests/lsan.supp")
endif()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/test-tmp)

# Fakes of the OS seams and test helpers, shared by the unit tests.
set(FAKE_SOURCES
  tests/fakes/event_fingerprint.c
  tests/fakes/fake_advapi32_win32.c
  tests/fakes/fake_consumer.c
  tests/fakes/fake_container_host.c
  tests/fakes/fake_computecore_win32.c
  tests/fakes/fake_consumer_win32.c
  tests/fakes/fake_controller.c
  tests/fakes/fake_eventwrite_win32.c
  tests/fakes/fake_volumes_win32.c
  tests/fakes/fake_netsh.c
  tests/fakes/fake_registry.c
  tests/fakes/fake_reportevent_win32.c
  tests/fakes/fake_session_events.c
  tests/fakes/fake_thread_times_win32.c
  tests/fakes/fault_io.c
  tests/fakes/log_capture.c
  tests/fakes/plan_of.c
  tests/fakes/run_command.c
  tests/fakes/test_dir_posix.c
  tests/fakes/test_dir_win32.c
  tests/fakes/test_support.c)
if(WIN32)
  list(FILTER FAKE_SOURCES EXCLUDE REGEX "_posix\\.c$")
else()
  list(FILTER FAKE_SOURCES EXCLUDE REGEX "_win32\\.c$")
endif()
add_library(etwcap_testlib STATIC ${FAKE_SOURCES})
target_compile_options(etwcap_testlib PRIVATE ${ETWCAP_WARNINGS})
target_link_libraries(etwcap_testlib PUBLIC etwcap_core)
if(WIN32)
  target_include_directories(etwcap_testlib PUBLIC ${CMOCKA_INCLUDE_DIR})
  target_link_libraries(etwcap_testlib PUBLIC ${CMOCKA_LIBRARY})
else()
  target_link_libraries(etwcap_testlib PUBLIC PkgConfig::CMOCKA)
endif()

if(WIN32 AND CMAKE_CROSSCOMPILING)
  find_program(WINE64_EXECUTABLE NAMES wine64 wine PATHS /usr/lib/wine REQUIRED)
  find_program(WINESERVER_EXECUTABLE NAMES wineserver PATHS /usr/lib/wine REQUIRED)
  set(WINE_PREFIX ${CMAKE_CURRENT_BINARY_DIR}/wineprefix)
  # Wine maps non-ASCII Windows names to Unix ones through the locale's
  # charset: with no LANG (a fresh machine, env -i) it falls back to ASCII and
  # the tests' non-ASCII paths fail.  C.UTF-8 is built into Debian's libc.
  set(WINE_ENV WINEPREFIX=${WINE_PREFIX} WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml=
      LC_ALL=C.UTF-8)
  set(CMAKE_CROSSCOMPILING_EMULATOR sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/tools/wine_run.sh
      /usr/bin/env ${WINE_ENV} ${WINE64_EXECUTABLE})
  # Wine's first process starts services that inherit the test's output pipe and
  # make ctest wait for ever (docs/building.md §4.2): start them here, detached.
  add_test(NAME wine.start COMMAND sh -c
    "'${WINESERVER_EXECUTABLE}' -p </dev/null >/dev/null 2>&1; '${WINE64_EXECUTABLE}' wineboot </dev/null >/dev/null 2>&1; true")
  add_test(NAME wine.stop COMMAND sh -c "'${WINESERVER_EXECUTABLE}' -k; true")
  set_tests_properties(wine.start wine.stop PROPERTIES ENVIRONMENT "${WINE_ENV}")
  set_tests_properties(wine.start PROPERTIES FIXTURES_SETUP wine)
  set_tests_properties(wine.stop PROPERTIES FIXTURES_CLEANUP wine)
  string(REPLACE ";" " " WINE_COMMAND "/usr/bin/env ${WINE_ENV} ${WINE64_EXECUTABLE}")
endif()

# Registers a test; under Wine it joins the fixture.  Extra args: ctest LABELS.
function(etwcap_add_test name)
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "${samples_env};${test_tmp_env}"
    TIMEOUT 600
    SKIP_RETURN_CODE 77)
  if(ARGN)
    set_tests_properties(${name} PROPERTIES LABELS "${ARGN}")
  endif()
  if(WIN32 AND CMAKE_CROSSCOMPILING)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED wine)
  endif()
endfunction()

file(GLOB UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  # A unit test of Win32 code (test_*_win32.c) runs only in the Windows build.
  if(name MATCHES "_win32$" AND NOT WIN32)
    continue()
  endif()
  add_executable(${name} ${src})
  target_compile_options(${name} PRIVATE ${ETWCAP_WARNINGS})
  target_link_libraries(${name} PRIVATE etwcap_testlib)
  if(WIN32)
    target_link_options(${name} PRIVATE -static -static-libgcc)
  endif()
  add_test(NAME ${TEST_PREFIX}${name} COMMAND ${name})
  etwcap_add_test(${TEST_PREFIX}${name})
endforeach()
# The /EventLog test reads etwcap.exe's message table from its own copy.
if(WIN32)
  target_sources(test_operator_log_win32 PRIVATE ${ETWCAP_MESSAGES_RC})
endif()

# End-to-end tests: the real etwcap binary (under Wine for the Windows build).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
if(WIN32 AND CMAKE_CROSSCOMPILING)
  set(etwcap_runner "${WINE_COMMAND} $<TARGET_FILE:etwcap>")
else()
  set(etwcap_runner "$<TARGET_FILE:etwcap>")
endif()
file(GLOB E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/e2e/test_*.py)
foreach(src ${E2E_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME ${TEST_PREFIX}e2e.${name}
           COMMAND ${Python3_EXECUTABLE} ${src} --etwcap "${etwcap_runner}"
                   --target ${ETWCAP_TARGET})
  # test_*_long.py: multi-GB or minutes-long, left out of the README's test
  # command (ctest -LE long) and run one at a time.
  if(name MATCHES "_long$")
    etwcap_add_test(${TEST_PREFIX}e2e.${name} long)
    set_tests_properties(${TEST_PREFIX}e2e.${name} PROPERTIES RUN_SERIAL ON TIMEOUT 3600)
  else()
    etwcap_add_test(${TEST_PREFIX}e2e.${name})
  endif()
endforeach()
# Both write, read back and delete the Application log's etwcap source
# in the one registry of the Wine prefix; run together, one deletes the key
# while the other reads it.
if(WIN32 AND CMAKE_CROSSCOMPILING)
  set_tests_properties(${TEST_PREFIX}test_registry_win32 ${TEST_PREFIX}e2e.test_schedule
                       PROPERTIES RESOURCE_LOCK wine-eventlog-source)
endif()

if(NOT WIN32)
  add_test(NAME native.layers
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_layers.py
                   ${CMAKE_CURRENT_SOURCE_DIR})
  etwcap_add_test(native.layers)
  add_test(NAME native.readme_exit_codes
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_exit_codes.py
                   ${CMAKE_CURRENT_SOURCE_DIR})
  etwcap_add_test(native.readme_exit_codes)
endif()

if(WIN32 AND CMAKE_CROSSCOMPILING)
  add_test(NAME wine.static_imports
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_imports.py
                   $<TARGET_FILE:etwcap>
                   ${CMAKE_CURRENT_SOURCE_DIR}/packaging/imports-allowed.txt)
  etwcap_add_test(wine.static_imports)
  add_test(NAME wine.hardening
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_hardening.py
                   $<TARGET_FILE:etwcap> ${CORE_SOURCES} src/main.c)
  etwcap_add_test(wine.hardening)
  add_test(NAME wine.installer
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/installer_test.sh
                   ${CMAKE_CURRENT_BINARY_DIR} ${WINE64_EXECUTABLE} ${WINE_PREFIX})
  etwcap_add_test(wine.installer)
  set_tests_properties(wine.installer PROPERTIES RUN_SERIAL ON)
endif()

# Test fixtures built with the cross compilers (PE images for the PE reader).
include(tests/pe/pe_fixtures.cmake OPTIONAL)

# The demo collection generator: README command (1) replays what it writes,
# and e2e.test_demo_trace checks it (the tool's path reaches the test here).
include(tests/tools/tools.cmake)
set_property(TEST ${TEST_PREFIX}e2e.test_demo_trace APPEND PROPERTY ENVIRONMENT
             "ETWCAP_DEMO_TOOL=$<$<BOOL:${WIN32}>:Z:>$<TARGET_FILE:make_demo_trace>")
