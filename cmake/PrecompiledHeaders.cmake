# Precompiled headers (docs/testing.md, "How the build and the tests are kept short").
#
# Almost every file of the libraries includes Eigen/Core (through
# core/inertia.h and core/rotation.h), and the command line's files
# nlohmann/json. Parsing Eigen/Core with <vector> and <string> costs GCC
# about 2 s of CPU per file, nlohmann/json 3.3 s; loading a precompiled
# header of them takes about 0.6 s. Building one costs about 5 s, so it
# pays in a target of several files that include them, and is kept to these
# few headers: a larger one (the whole standard library we use) loads more
# slowly than core/'s small files compile. Measured on the engine's files:
# 18 % less CPU (engine), 6.5 % (rigid). The tests have none: their files'
# time goes into optimising the test bodies, and one header of GoogleTest,
# Eigen and nlohmann/json (160 MB) took as long to load as to parse.
#
# The headers are force-included first into every file of the target; a
# file still includes what it uses (the build without them,
# -DSUITSIM_PCH=OFF, checks that). Nothing of ours is in them: a change to
# our headers never rebuilds one. A file compiles to the same functions,
# instruction for instruction, with or without (GCC may place them in
# another order; docs/testing.md says how that was checked).

# suitsim_precompile_libraries(TARGET... [JSON TARGET...]): one precompiled
# header per target, Eigen/Core with <vector> and <string>; nlohmann/json
# too for the targets after JSON, most of whose files include it.
function(suitsim_precompile_libraries)
  if(NOT SUITSIM_PCH)
    return()
  endif()
  cmake_parse_arguments(P "" "" "JSON" ${ARGN})
  foreach(target IN LISTS P_UNPARSED_ARGUMENTS P_JSON)
    if(TARGET ${target})
      target_precompile_headers(${target} PRIVATE <Eigen/Core> <vector> <string>)
    endif()
  endforeach()
  foreach(target IN LISTS P_JSON)
    if(TARGET ${target})
      target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp>)
    endif()
  endforeach()
endfunction()
