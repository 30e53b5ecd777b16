# Benchmark programs (release builds only: tests/bench/run_benchmarks.sh
# configures a tree with -DETWCAP_BENCH=ON and no sanitizers).
foreach(name make_trace bench_read bench_xca bench_replay)
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/tests/bench/${name}.c)
  target_link_libraries(${name} PRIVATE etwcap_core)
endforeach()
