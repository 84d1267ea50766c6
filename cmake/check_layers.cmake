# Include layering check (docs/architecture.md "What may include what"), run by ctest as
# LayeringTest.RoomsIncludeOnlyDownward:
#   cmake -DROOT=<source dir> -P cmake/check_layers.cmake
# It reads #include lines only (no compiler, no include paths), so it is fast and checks every file in the tree,
# built or not. It fails naming the file, the include and the rule it breaks.
#
# 1. The rooms of the bridge (daemon/lib/<room>/) and of the server (server/<room>/): a room includes only itself
#    and the rooms below it. bridge.hpp and bridge.cpp at daemon/lib's top are the bridge's hub; clock.* and
#    limits.hpp at server/'s top are the server's ground, and server/main.cpp wires every room. Headers are
#    included by room path ("state/journal.hpp", "store/store.hpp"), never by bare name.
# 2. Folder rules that show in the include text: common/ never includes server/, daemon/, cli/ or hooks/ headers,
#    spdlog or CLI11; functions/ (the execution library) never includes server/, daemon/, cli/ or hooks/ headers and
#    its rooms include only downward like a program's; hooks/ never includes libcurl, SQLite, spdlog or CLI11; cli/ never includes daemon/ or
#    server/ headers; testing/ (linked by the benchmarks too) never includes GoogleTest nor a header of server/,
#    daemon/, cli/, hooks/, tests/ or bench/.

cmake_policy(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()

# Which rooms each room may include (besides itself), per program. The daemon's `hub` is bridge.hpp / bridge.cpp at
# daemon/lib's top; the server's `ground` is clock.* and limits.hpp at server/'s top (main.cpp there is the program
# and may include any room). There are no exceptions: the flows below the daemon's hub reach it only through the
# services/ interfaces it implements, and the server's handlers reach the hub only through request/presence.hpp.
set(DAEMON_ROOMS platform request state services delivery identity native serving hub ops start)
set(DAEMON_MAY_platform "")
set(DAEMON_MAY_request "")
set(DAEMON_MAY_state platform request)
set(DAEMON_MAY_services state platform request)
set(DAEMON_MAY_delivery services state platform request)
set(DAEMON_MAY_identity delivery services state platform request)
set(DAEMON_MAY_native delivery services state platform request)
set(DAEMON_MAY_serving platform)
set(DAEMON_MAY_hub serving native identity delivery services state platform request)
set(DAEMON_MAY_ops hub serving native identity delivery services state platform request)
set(DAEMON_MAY_start ops hub serving native identity delivery services state platform request)

# The server, from the top: start -> replicas -> http -> (api, runner) -> (request, crews) -> store -> ground;
# wakeups (the scheduler's tick) sits beside http, below start.
set(SERVER_ROOMS ground store crews request runner conversations api http wakeups replicas start)
set(SERVER_MAY_ground "")
set(SERVER_MAY_store ground)
set(SERVER_MAY_crews store ground)
set(SERVER_MAY_request store ground)
set(SERVER_MAY_runner crews request store ground)
set(SERVER_MAY_conversations runner crews request store ground)
set(SERVER_MAY_api crews request store ground)
set(SERVER_MAY_http api runner crews request store ground)
set(SERVER_MAY_wakeups request store ground)
set(SERVER_MAY_replicas http api runner crews request store ground)
set(SERVER_MAY_start replicas wakeups http api conversations runner crews request store ground)
# The function execution library (functions/), below the server and, later, the bridge that host it:
# declaration -> (process, agent) -> call. keeper/ is its own program (the execution keeper) and includes nothing
# of the library.
set(FUNCTIONS_ROOMS declaration process agent call keeper)
set(FUNCTIONS_MAY_declaration "")
set(FUNCTIONS_MAY_process "")
set(FUNCTIONS_MAY_agent process declaration)
set(FUNCTIONS_MAY_call agent process declaration)
set(FUNCTIONS_MAY_keeper "")
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

# --- 1. Rooms ----------------------------------------------------------------------------------------------------
# check_rooms(PREFIX LIB TOP_ROOM TOP_FILES PROGRAM_FILES): every folder under LIB is a room of ${PREFIX}_ROOMS; the
# files at LIB's top matching TOP_FILES form the pseudo-room TOP_ROOM, those matching PROGRAM_FILES (the program's
# main) may include any room. Headers are included by room path from LIB ("state/journal.hpp"), or by bare name for
# the top room's files; a room includes only itself and the rooms in ${PREFIX}_MAY_<room>.
function(check_rooms prefix lib top_room top_files program_files)
  file(RELATIVE_PATH shown_lib "${ROOT}" "${lib}")
  set(fails "")
  foreach(room IN LISTS ${prefix}_ROOMS)
    if(NOT room STREQUAL top_room AND NOT IS_DIRECTORY "${lib}/${room}")
      list(APPEND fails "${shown_lib}/${room}/: a declared room is missing (update cmake/check_layers.cmake)")
    endif()
  endforeach()
  file(GLOB entries LIST_DIRECTORIES true RELATIVE "${lib}" "${lib}/*")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY "${lib}/${entry}")
      list(FIND ${prefix}_ROOMS "${entry}" idx)
      if(idx EQUAL -1 OR entry STREQUAL top_room)
        list(APPEND fails
          "${shown_lib}/${entry}/: not a declared room: give it a row in docs/architecture.md and in cmake/check_layers.cmake")
      endif()
    elseif(entry MATCHES "\\.(cpp|hpp|h)$" AND NOT entry MATCHES "${top_files}" AND NOT entry MATCHES "${program_files}")
      list(APPEND fails "${shown_lib}/${entry}: only the ${top_room}'s files live at ${shown_lib}'s top: put it in a room")
    endif()
  endforeach()

  file(GLOB_RECURSE files RELATIVE "${lib}" "${lib}/*.cpp" "${lib}/*.hpp" "${lib}/*.h")
  foreach(rel IN LISTS files)
    if(rel MATCHES "^([^/]+)/")
      set(room "${CMAKE_MATCH_1}")
    elseif(rel MATCHES "${program_files}")
      continue()  # the program's main wires every room
    else()
      set(room "${top_room}")
    endif()
    list(FIND ${prefix}_ROOMS "${room}" idx)
    if(idx EQUAL -1)
      continue()  # reported above
    endif()
    get_filename_component(dir "${lib}/${rel}" DIRECTORY)
    read_includes("${lib}/${rel}" includes)
    foreach(inc IN LISTS includes)
      if(NOT inc MATCHES "^q:(.*)$")
        continue()
      endif()
      set(name "${CMAKE_MATCH_1}")
      set(target "")
      if(name MATCHES "^([^/]+)/")
        set(first "${CMAKE_MATCH_1}")
        if(IS_DIRECTORY "${lib}/${first}" AND EXISTS "${lib}/${name}")
          set(target "${first}")
        endif()
      elseif(name MATCHES "${top_files}" AND EXISTS "${lib}/${name}")
        set(target "${top_room}")
      endif()
      if(target)
        # a header of this program named by room path
      elseif(EXISTS "${dir}/${name}" OR EXISTS "${lib}/${name}")
        list(APPEND fails "${shown_lib}/${rel}: #include \"${name}\" -- include the program's headers by room path from ${shown_lib} (e.g. \"store/store.hpp\")")
        continue()
      else()
        continue()  # not a header of this program (common's agentworks/..., or a file of another tree)
      endif()
      if(target STREQUAL room)
        continue()
      endif()
      list(FIND ${prefix}_MAY_${room} "${target}" allowed)
      if(NOT allowed EQUAL -1)
        continue()
      endif()
      if("${${prefix}_MAY_${room}}" STREQUAL "")
        set(may "nothing else of ${shown_lib}")
      else()
        string(REPLACE ";" ", " may "${${prefix}_MAY_${room}}")
      endif()
      list(APPEND fails "${shown_lib}/${rel}: #include \"${name}\" -- room '${room}' may include only itself and: ${may}. '${target}' is not below it")
    endforeach()
  endforeach()
  set(FAILURES "${FAILURES};${fails}" PARENT_SCOPE)
endfunction()

check_rooms(DAEMON "${ROOT}/daemon/lib" hub "^bridge\\.(hpp|cpp)$" "^$")
check_rooms(SERVER "${ROOT}/server" ground "^(clock\\.(hpp|cpp)|limits\\.hpp)$" "^main\\.cpp$")
check_rooms(FUNCTIONS "${ROOT}/functions" none "^$" "^$")

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
check_folder(functions "${ROOT}/functions;${ROOT}/common/include"
  "${ROOT}/server;${ROOT}/daemon/lib;${ROOT}/daemon;${ROOT}/cli;${ROOT}/hooks/src;${ROOT}/hooks"
  ""
  "functions/ never includes server/, daemon/, cli/ or hooks/ headers (its hosts tell it what it needs)")
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
message(STATUS "include layering: the bridge's, the server's and functions/' rooms, common/, hooks/, cli/ and testing/ follow docs/architecture.md")
