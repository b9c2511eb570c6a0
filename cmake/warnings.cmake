# backsweep_configure_target(<target>): warnings, sanitizers and the namespaced alias
# shared by every backsweep target.
add_library(backsweep_build_flags INTERFACE)
target_compile_options(backsweep_build_flags INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic>"
  "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${BACKSWEEP_WERROR}>>:-Werror>")
if(BACKSWEEP_SANITIZE)
  # -Og -g1: sanitized template-heavy tests compile 2.5x faster than at -O1 (and -O1 6x
  # faster than -O2 -g) and run as fast as at -O1; the reports still name files and lines.
  target_compile_options(backsweep_build_flags INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Og -g1)
  # A test's own file (property BACKSWEEP_TEST_DRIVER) drops four checks that more than
  # double its compile time (85 s to 39 s for growth_monitor.test.cpp): its templates are
  # the engine's, which the libraries and the program compile with every check and the
  # program's tests run. ASan still reports every null dereference and bad access there.
  target_compile_options(backsweep_build_flags INTERFACE
    "$<$<BOOL:$<TARGET_PROPERTY:BACKSWEEP_TEST_DRIVER>>:-fno-sanitize=null,alignment,pointer-overflow,object-size>")
  target_link_options(backsweep_build_flags INTERFACE -fsanitize=address,undefined)
endif()
if(BACKSWEEP_FUZZ)
  # Coverage for libFuzzer in every library, and its memory checks.
  target_compile_options(backsweep_build_flags INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1 -g1)
  target_link_options(backsweep_build_flags INTERFACE -fsanitize=address,undefined)
endif()

function(backsweep_configure_target target)
  get_target_property(kind ${target} TYPE)
  if(kind STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:backsweep_build_flags>)
endfunction()

# backsweep_unity_build(<target> <files>): compiles the target's sources <files> at a time
# in one translation unit. Their time goes to parsing the same headers (a command's file
# spends ~7 s of its ~9 in the front end), which a batch parses once.
function(backsweep_unity_build target files)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${files})
endfunction()
