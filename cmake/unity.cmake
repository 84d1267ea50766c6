# Unity batches for clean builds (the default and asan presets, so CI's two compiles): several source files of a
# target compile as one, so the heavy headers are parsed once per batch instead of once per file; a clean default
# build took 2.7 times as long without them (decision 0007). The `debug` preset stays one file per translation
# unit: it proves that every file includes what it uses, and an edit there recompiles one file.
#
# A target joins only when its files keep their file-local names apart: two files of one batch defining the same
# function in an anonymous namespace do not compile together, so such names stay unique within a target.
function(agentworks_unity_build)
  if(NOT AGENTWORKS_UNITY)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
  endforeach()
endfunction()
