# Drives the mingw-w64 cross build of etwcap.exe from the native tree, and makes
# the top-level ctest run its tests too (they are named wine.*).
include(ExternalProject)

set(ETWCAP_MINGW_PREFIX ${CMAKE_BINARY_DIR}/mingw-deps CACHE PATH
    "Static Windows libraries built from Debian sources (build-mingw-deps.sh)")
set(ETWCAP_WINDOWS_BINARY_DIR ${CMAKE_BINARY_DIR}/windows)

add_custom_target(mingw_deps
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/packaging/build-mingw-deps.sh ${ETWCAP_MINGW_PREFIX}
  COMMENT "Windows dependencies (cached in ${ETWCAP_MINGW_PREFIX})"
  VERBATIM)

ExternalProject_Add(windows
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}
  BINARY_DIR ${ETWCAP_WINDOWS_BINARY_DIR}
  CMAKE_ARGS
    -DCMAKE_TOOLCHAIN_FILE=${CMAKE_CURRENT_SOURCE_DIR}/packaging/mingw-w64-x86_64.cmake
    -DETWCAP_MINGW_PREFIX=${ETWCAP_MINGW_PREFIX}
    -DCMAKE_BUILD_TYPE=Release
    -DETWCAP_SUPERBUILD=OFF
    -DETWCAP_SHARED_DIR=${ETWCAP_SHARED_DIR}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  USES_TERMINAL_BUILD ON
  DEPENDS mingw_deps)

# The fuzz tree: clang with libFuzzer, only the fuzz targets.
find_program(CLANG_EXECUTABLE NAMES clang-14 clang)
if(CLANG_EXECUTABLE)
  set(ETWCAP_FUZZ_BINARY_DIR ${CMAKE_BINARY_DIR}/fuzz)
  ExternalProject_Add(fuzz
    SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}
    BINARY_DIR ${ETWCAP_FUZZ_BINARY_DIR}
    CMAKE_ARGS
      -DCMAKE_C_COMPILER=${CLANG_EXECUTABLE}
      -DCMAKE_BUILD_TYPE=RelWithDebInfo
      -DETWCAP_FUZZ=ON
      -DETWCAP_SHARED_DIR=${ETWCAP_SHARED_DIR}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)
else()
  message(WARNING "clang not found: the fuzz targets are not built (packaging/install-deps.sh installs it)")
endif()

# ctest reads this file after the native tests: it adds the Windows and fuzz
# trees' CTestTestfiles, so one ctest lists and runs every set.
file(WRITE ${CMAKE_BINARY_DIR}/subtree-tests.cmake
     "foreach(tree \"${ETWCAP_WINDOWS_BINARY_DIR}\" \"${ETWCAP_FUZZ_BINARY_DIR}\")\n"
     "  if(tree AND EXISTS \"\${tree}/CTestTestfile.cmake\")\n"
     "    subdirs(\"\${tree}\")\n"
     "  endif()\n"
     "endforeach()\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_BINARY_DIR}/subtree-tests.cmake)
