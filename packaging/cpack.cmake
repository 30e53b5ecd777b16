# Release packages of etwcap.exe: a zip and a 64-bit NSIS installer.
# CPack's stock NSIS template builds a 32-bit installer, which neither suits a
# 64-bit tool nor runs under 64-bit-only Wine (docs/building.md §5); our copy
# of the template is CMake's own, read from this CMake's installation at
# configure time with `Target amd64-unicode` added after its byte-order mark,
# and the install root is $PROGRAMFILES64.
set(CPACK_PACKAGE_NAME etwcap)
set(CPACK_PACKAGE_VENDOR "etwcap")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Event Tracing for Windows collector with PerfView's command line")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY etwcap)
set(CPACK_SYSTEM_NAME win64)
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_CURRENT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR ZIP NSIS)
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_NSIS_MODIFY_PATH OFF)
set(CPACK_NSIS_DISPLAY_NAME "etwcap ${PROJECT_VERSION}")
set(stock_template ${CMAKE_ROOT}/Modules/Internal/CPack/NSIS.template.in)
if(NOT EXISTS ${stock_template})
  message(FATAL_ERROR "CMake's NSIS template is not at ${stock_template}")
endif()
file(READ ${stock_template} template_text)
string(ASCII 239 187 191 bom)
string(FIND "${template_text}" "${bom}" bom_at)
if(bom_at EQUAL 0)
  string(SUBSTRING "${template_text}" 3 -1 template_text)
endif()
# The BOM must stay first: makensis reads it to choose UTF-8.
file(WRITE ${CMAKE_BINARY_DIR}/nsis-template/NSIS.template.in
     "${bom}Target amd64-unicode\n${template_text}")
list(PREPEND CMAKE_MODULE_PATH ${CMAKE_BINARY_DIR}/nsis-template)
include(CPack)
