# One place for the warning set; every target calls agentworks_warnings(target).
function(agentworks_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(AGENTWORKS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
