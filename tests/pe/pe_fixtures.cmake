# PE fixtures for the PE reader and image identity tests: small images built
# here with the mingw-w64 cross tools (both build trees run on the Linux
# host, so both can make them), plus `objdump -p` of each, which the tests
# read as an independent description of the same file.  The tests find them
# through ETWCAP_PE_FIXTURES and Wine's own PE DLLs through
# ETWCAP_WINE_PE_DLLS; they skip when either is absent.
#
# SOURCE_DATE_EPOCH sets the PE TimeDateStamp ld writes, so each fixture has a
# known one.  tests/unit/test_pe_image.c and test_image_identity.c expect
# these stamps and the values in fixture_version.rc: change them together.

find_program(ETWCAP_PE_GCC64 x86_64-w64-mingw32-gcc)
find_program(ETWCAP_PE_GCC32 i686-w64-mingw32-gcc)
find_program(ETWCAP_PE_WINDRES64 x86_64-w64-mingw32-windres)
find_program(ETWCAP_PE_WINDRES32 i686-w64-mingw32-windres)
find_program(ETWCAP_PE_OBJDUMP64 x86_64-w64-mingw32-objdump)
find_program(ETWCAP_PE_OBJDUMP32 i686-w64-mingw32-objdump)

set(pe_src ${CMAKE_CURRENT_SOURCE_DIR}/tests/pe)
set(pe_dir ${CMAKE_CURRENT_BINARY_DIR}/pe-fixtures)
set(pe_outputs "")

# etwcap_pe_fixture(NAME BITS EPOCH SOURCE RESOURCE LDFLAGS...)
function(etwcap_pe_fixture name bits epoch source resource)
  set(gcc ${ETWCAP_PE_GCC${bits}})
  set(objdump ${ETWCAP_PE_OBJDUMP${bits}})
  set(inputs ${pe_src}/${source})
  set(deps ${pe_src}/${source})
  if(resource)
    set(res_obj ${pe_dir}/${name}.res.o)
    add_custom_command(OUTPUT ${res_obj}
      COMMAND ${ETWCAP_PE_WINDRES${bits}} -O coff -i ${pe_src}/${resource} -o ${res_obj}
      DEPENDS ${pe_src}/${resource} VERBATIM)
    list(APPEND inputs ${res_obj})
    list(APPEND deps ${res_obj})
  endif()
  add_custom_command(OUTPUT ${pe_dir}/${name} ${pe_dir}/${name}.objdump.txt
    COMMAND ${CMAKE_COMMAND} -E env SOURCE_DATE_EPOCH=${epoch}
            ${gcc} -O1 -o ${pe_dir}/${name} ${inputs} ${ARGN}
    COMMAND sh -c "'${objdump}' -p '${pe_dir}/${name}' > '${pe_dir}/${name}.objdump.txt'"
    DEPENDS ${deps}
    WORKING_DIRECTORY ${pe_dir}
    VERBATIM)
  set(pe_outputs ${pe_outputs} ${pe_dir}/${name} PARENT_SCOPE)
endfunction()

if(ETWCAP_PE_GCC64 AND ETWCAP_PE_GCC32 AND ETWCAP_PE_WINDRES64 AND ETWCAP_PE_WINDRES32
   AND ETWCAP_PE_OBJDUMP64 AND ETWCAP_PE_OBJDUMP32)
  file(MAKE_DIRECTORY ${pe_dir})
  # --build-id: a CodeView RSDS entry with an empty PDB path.
  etwcap_pe_fixture(pe64_buildid.exe 64 1234567890 fixture_main.c "" -Wl,--build-id)
  # --pdb=NAME: an RSDS entry naming the PDB ld writes next to the image.
  etwcap_pe_fixture(pe64_pdb.dll 64 1300000000 fixture_dll.c "" -shared
                    -Wl,--pdb=etwcap_fixture64.pdb)
  etwcap_pe_fixture(pe64_version.dll 64 1400000000 fixture_dll.c fixture_version.rc -shared
                    -Wl,--build-id)
  etwcap_pe_fixture(pe32_buildid.exe 32 1500000000 fixture_main.c "" -Wl,--build-id)
  etwcap_pe_fixture(pe32_version.dll 32 1600000000 fixture_dll.c fixture_version.rc -shared
                    -Wl,--pdb=etwcap_fixture32.pdb)
  # A stand-in for a .NET native image: its RSDS record names a .ni.pdb.
  etwcap_pe_fixture(mscorlib.ni.dll 64 1700000000 fixture_dll.c "" -shared
                    -Wl,--pdb=mscorlib.ni.pdb)
  add_custom_target(etwcap_pe_fixtures ALL DEPENDS ${pe_outputs})

  if(WIN32)
    set(pe_env "ETWCAP_PE_FIXTURES=Z:${pe_dir}")
  else()
    set(pe_env "ETWCAP_PE_FIXTURES=${pe_dir}")
  endif()
  foreach(t test_pe_image test_image_identity test_ngen_pdb test_container_images)
    if(TARGET ${t})
      add_dependencies(${t} etwcap_pe_fixtures)
      set_property(TEST ${TEST_PREFIX}${t} APPEND PROPERTY ENVIRONMENT "${pe_env}")
    endif()
  endforeach()
  if(TEST ${TEST_PREFIX}e2e.test_ngen_pdbs)
    set_property(TEST ${TEST_PREFIX}e2e.test_ngen_pdbs APPEND PROPERTY ENVIRONMENT
                 "ETWCAP_PE_FIXTURES=${pe_dir}")
  endif()
else()
  message(STATUS "PE fixtures: mingw-w64 cross tools not found; the PE tests will skip")
endif()

set(wine_pe_dlls /usr/lib/x86_64-linux-gnu/wine/x86_64-windows)
if(EXISTS ${wine_pe_dlls})
  foreach(t test_pe_image test_image_identity)
    if(TARGET ${t})
      if(WIN32)
        set_property(TEST ${TEST_PREFIX}${t} APPEND PROPERTY ENVIRONMENT
                     "ETWCAP_WINE_PE_DLLS=Z:${wine_pe_dlls}")
      else()
        set_property(TEST ${TEST_PREFIX}${t} APPEND PROPERTY ENVIRONMENT
                     "ETWCAP_WINE_PE_DLLS=${wine_pe_dlls}")
      endif()
    endif()
  endforeach()
endif()
