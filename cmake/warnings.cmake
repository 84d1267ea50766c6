# One place for the warning set; every target calls agentworks_warnings(target).
function(agentworks_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  # GCC 12 at -O3 (the release preset) reports -Wrestrict on std::string concatenation that cannot overlap: a
  # known false positive of that compiler's inlining, off there only; the test presets (-O2, -O0) keep it fatal.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13 AND
     CMAKE_BUILD_TYPE STREQUAL "Release")
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(AGENTWORKS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
