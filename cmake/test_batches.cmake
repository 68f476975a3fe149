# Test files compiled in batches: each batch one translation unit that includes up to batch_size test
# files, so GoogleTest's templates are instantiated once per batch, not once per file.
#
# This is CMake's UNITY_BUILD, written out because CMake before 3.32 includes the files by their
# absolute paths: a batch's text then differs from one clone to the next, and every new clone missed
# the compiler cache for every test file. These batches include them relative to the source root
# (which the target must have among its include directories), so every clone writes the same text.
#
# auris_test_batches(OUT_VAR BATCH_SIZE SOURCE...): sets OUT_VAR to the batch files written under
# the build tree, in the sources' order.
function(auris_test_batches out_var batch_size)
  set(batches)
  list(LENGTH ARGN total)
  set(first 0)
  while(first LESS total)
    set(content "// Written by cmake/test_batches.cmake.\n")
    math(EXPR end "${first} + ${batch_size}")
    if(end GREATER total)
      set(end ${total})
    endif()
    math(EXPR last "${end} - 1")
    foreach(i RANGE ${first} ${last})
      list(GET ARGN ${i} source)
      file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${source})
      string(APPEND content "#include \"${relative}\"\n")
    endforeach()
    list(LENGTH batches index)
    set(batch ${CMAKE_CURRENT_BINARY_DIR}/test_batches/batch_${index}.cc)
    # Rewritten only when its text changes, so that configuring again rebuilds nothing.
    file(CONFIGURE OUTPUT ${batch} CONTENT "${content}" @ONLY)
    list(APPEND batches ${batch})
    set(first ${end})
  endwhile()
  set(${out_var} ${batches} PARENT_SCOPE)
endfunction()
