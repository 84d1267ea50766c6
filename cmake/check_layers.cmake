# Include layering check (docs/architecture.md "What may include what"), run by ctest as
# LayeringTest.BridgeRoomsIncludeOnlyDownward:
#   cmake -DROOT=<source dir> -P cmake/check_layers.cmake
# It reads #include lines only (no compiler, no include paths), so it is fast and checks every file in the tree,
# built or not. It fails naming the file, the include and the rule it breaks.
#
# 1. The bridge's rooms (daemon/lib/<room>/): a room includes only itself and the rooms below it. bridge.hpp and
#    bridge.cpp at daemon/lib's top are the hub. Bridge headers are included by room path from daemon/lib
#    ("state/journal.hpp"), never by bare name.
# 2. Folder rules that show in the include text: common/ never includes server/, daemon/, cli/ or hooks/ headers,
#    spdlog or CLI11; hooks/ never includes libcurl, SQLite, spdlog or CLI11; cli/ never includes daemon/ or
#    server/ headers; testing/ (linked by the benchmarks too) never includes GoogleTest nor a header of server/,
#    daemon/, cli/, hooks/, tests/ or bench/.

cmake_policy(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()
set(LIB "${ROOT}/daemon/lib")

# Which rooms each room may include (besides itself). `hub` is bridge.hpp / bridge.cpp at daemon/lib's top. There
# are no exceptions: the flows below the hub reach it only through the services/ interfaces it implements.
set(ROOMS platform request state services delivery identity native hub ops start)
set(MAY_platform "")
set(MAY_request "")
set(MAY_state platform request)
set(MAY_services state platform request)
set(MAY_delivery services state platform request)
set(MAY_identity delivery services state platform request)
set(MAY_native delivery services state platform request)
set(MAY_hub native identity delivery services state platform request)
set(MAY_ops hub native identity delivery services state platform request)
set(MAY_start ops hub native identity delivery services state platform request)
set(FAILURES "")

# Reads the #include lines of FILE into OUT as a list of "q:name" (quoted) or "a:name" (angle brackets).
function(read_includes file out)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  set(result "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      list(APPEND result "q:${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*<([^>]+)>")
      list(APPEND result "a:${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

macro(fail file include rule)
  file(RELATIVE_PATH _rel "${ROOT}" "${file}")
  list(APPEND FAILURES "${_rel}: #include ${include} -- ${rule}")
endmacro()

# --- 1. The bridge's rooms -------------------------------------------------------------------------------------
set(room_dirs "")
foreach(room IN LISTS ROOMS)
  if(NOT room STREQUAL "hub" AND NOT IS_DIRECTORY "${LIB}/${room}")
    list(APPEND FAILURES "daemon/lib/${room}/: a declared room is missing (update cmake/check_layers.cmake)")
  endif()
endforeach()
file(GLOB lib_entries LIST_DIRECTORIES true RELATIVE "${LIB}" "${LIB}/*")
foreach(entry IN LISTS lib_entries)
  if(IS_DIRECTORY "${LIB}/${entry}")
    list(FIND ROOMS "${entry}" idx)
    if(idx EQUAL -1)
      list(APPEND FAILURES
        "daemon/lib/${entry}/: not a declared room: give it a row in docs/architecture.md and in cmake/check_layers.cmake")
    endif()
  elseif(NOT entry MATCHES "^bridge\\.(hpp|cpp)$")
    list(APPEND FAILURES "daemon/lib/${entry}: only bridge.hpp and bridge.cpp (the hub) live at daemon/lib's top: put it in a room")
  endif()
endforeach()

file(GLOB_RECURSE lib_files RELATIVE "${LIB}" "${LIB}/*.cpp" "${LIB}/*.hpp" "${LIB}/*.h")
foreach(rel IN LISTS lib_files)
  if(rel MATCHES "^([^/]+)/")
    set(room "${CMAKE_MATCH_1}")
  else()
    set(room "hub")
  endif()
  list(FIND ROOMS "${room}" idx)
  if(idx EQUAL -1)
    continue()  # reported above
  endif()
  get_filename_component(dir "${LIB}/${rel}" DIRECTORY)
  read_includes("${LIB}/${rel}" includes)
  foreach(inc IN LISTS includes)
    if(NOT inc MATCHES "^q:(.*)$")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    if(name STREQUAL "bridge.hpp")
      set(target "hub")
    else()
      set(target "")
      if(name MATCHES "^([^/]+)/")
        set(first "${CMAKE_MATCH_1}")
        if(IS_DIRECTORY "${LIB}/${first}" AND EXISTS "${LIB}/${name}")
          set(target "${first}")
        endif()
      endif()
    endif()
    if(target)
      # a bridge header named by room path
    elseif(EXISTS "${dir}/${name}" OR EXISTS "${LIB}/${name}")
      fail("${LIB}/${rel}" "\"${name}\"" "include bridge headers by room path from daemon/lib (e.g. \"state/journal.hpp\")")
      continue()
    else()
      continue()  # not a bridge header (common's agentworks/..., or a file of another tree)
    endif()
    if(target STREQUAL room)
      continue()
    endif()
    list(FIND MAY_${room} "${target}" allowed)
    if(NOT allowed EQUAL -1)
      continue()
    endif()
    if(MAY_${room} STREQUAL "")
      set(may "nothing else of the bridge")
    else()
      string(REPLACE ";" ", " may "${MAY_${room}}")
    endif()
    fail("${LIB}/${rel}" "\"${name}\""
      "room '${room}' may include only itself and: ${may}. '${target}' is not below it")
  endforeach()
endforeach()

# --- 2. Folder rules ---------------------------------------------------------------------------------------------
# True when NAME, included from a file in DIR, resolves under one of the folders in ARGN (absolute paths).
function(resolves_under dir name out)
  set(found "")
  foreach(base IN LISTS ARGN)
    foreach(cand "${dir}/${name}" "${base}/${name}")
      if(EXISTS "${cand}")
        get_filename_component(real "${cand}" REALPATH)
        foreach(b2 IN LISTS ARGN)
          get_filename_component(rb "${b2}" REALPATH)
          string(FIND "${real}" "${rb}/" pos)
          if(pos EQUAL 0)
            set(found "${b2}")
            break()
          endif()
        endforeach()
      endif()
      if(found)
        break()
      endif()
    endforeach()
    if(found)
      break()
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# check_folder(FOLDER OWN_BASES FORBIDDEN_BASES FORBIDDEN_LIBS RULE): each quoted include of a file under FOLDER that
# does not resolve in the folder's own include roots but does resolve in a forbidden folder fails, and so does
# an include whose name matches one of the forbidden library patterns ("label=regex").
function(check_folder folder own forbidden libs rule)
  file(GLOB_RECURSE files "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.h"
       "${ROOT}/${folder}/*.c")
  set(fails "")
  foreach(file IN LISTS files)
    file(RELATIVE_PATH rel "${ROOT}" "${file}")
    get_filename_component(dir "${file}" DIRECTORY)
    read_includes("${file}" includes)
    foreach(inc IN LISTS includes)
      string(SUBSTRING "${inc}" 2 -1 name)
      if(inc MATCHES "^q:")
        set(shown "\"${name}\"")
      else()
        set(shown "<${name}>")
      endif()
      foreach(lib IN LISTS libs)
        string(REGEX REPLACE "=.*$" "" label "${lib}")
        string(REGEX REPLACE "^[^=]*=" "" pattern "${lib}")
        if(name MATCHES "${pattern}")
          list(APPEND fails "${rel}: #include ${shown} -- ${rule} (${label})")
        endif()
      endforeach()
      if(inc MATCHES "^q:")
        resolves_under("${dir}" "${name}" mine ${own})
        if(NOT mine)
          resolves_under("${dir}" "${name}" theirs ${forbidden})
          if(theirs)
            file(RELATIVE_PATH theirs_rel "${ROOT}" "${theirs}")
            list(APPEND fails "${rel}: #include ${shown} -- ${rule} (it is a header of ${theirs_rel}/)")
          endif()
        endif()
      endif()
    endforeach()
  endforeach()
  set(FAILURES "${FAILURES};${fails}" PARENT_SCOPE)
endfunction()

check_folder(common "${ROOT}/common/include;${ROOT}/common/src"
  "${ROOT}/server;${ROOT}/daemon/lib;${ROOT}/daemon;${ROOT}/cli;${ROOT}/hooks/src;${ROOT}/hooks"
  "spdlog=^spdlog/;CLI11=^CLI/"
  "common/ never includes server/, daemon/, cli/ or hooks/ headers, spdlog or CLI11")
check_folder(hooks "${ROOT}/hooks/src;${ROOT}/hooks;${ROOT}/common/include"
  ""
  "libcurl=^curl/;SQLite=sqlite;spdlog=^spdlog/;CLI11=^CLI/"
  "hooks/ never includes libcurl, SQLite, spdlog or CLI11")
check_folder(cli "${ROOT}/cli;${ROOT}/common/include"
  "${ROOT}/daemon/lib;${ROOT}/daemon;${ROOT}/server"
  ""
  "cli/ never includes daemon/ or server/ headers (it talks to them over HTTP and the socket only)")

# testing/ is included from the source root ("testing/process.hpp"), so a header of another folder would be named
# by its path from there: the patterns catch those names, the bases a header found beside the includer.
check_folder(testing "${ROOT}/testing;${ROOT}/common/include"
  "${ROOT}/server;${ROOT}/daemon/lib;${ROOT}/daemon;${ROOT}/cli;${ROOT}/hooks/src;${ROOT}/hooks;${ROOT}/tests;${ROOT}/bench"
  "GoogleTest=^(gtest|gmock)/;another folder's header=^(server|daemon|cli|hooks|tests|bench)/"
  "testing/ never includes GoogleTest (the benchmarks link it) nor server/, daemon/, cli/, hooks/, tests/ or bench/ headers")

list(REMOVE_ITEM FAILURES "")
list(LENGTH FAILURES count)
if(count GREATER 0)
  string(REPLACE ";" "\n  " text "${FAILURES}")
  message(FATAL_ERROR "include layering: ${count} problem(s) (docs/architecture.md \"What may include what\"):\n  ${text}")
endif()
message(STATUS "include layering: daemon/lib rooms, common/, hooks/, cli/ and testing/ follow docs/architecture.md")
