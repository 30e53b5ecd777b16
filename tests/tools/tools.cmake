# Developer tools built with the project (included from tests/tests.cmake).
# make_demo_trace writes the demo collection that README command (1) replays
# (packaging/run-main.sh) and tests/e2e/test_demo_trace.py checks.
add_executable(make_demo_trace
  ${CMAKE_CURRENT_LIST_DIR}/make_demo_trace.c
  ${CMAKE_CURRENT_LIST_DIR}/demo_events.c
  ${CMAKE_CURRENT_LIST_DIR}/demo_tables.c
  ${CMAKE_CURRENT_LIST_DIR}/demo_kernel.c
  ${CMAKE_CURRENT_LIST_DIR}/demo_clr.c)
target_compile_options(make_demo_trace PRIVATE ${ETWCAP_WARNINGS})
target_link_libraries(make_demo_trace PRIVATE etwcap_core)
if(WIN32)
  target_link_options(make_demo_trace PRIVATE -static -static-libgcc)
endif()
