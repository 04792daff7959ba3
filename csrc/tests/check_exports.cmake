# check_exports.cmake -- the core library exports its public API and nothing else.
#
#   cmake -DNM=nm -DLIBRARY=libpolymask_core.so -P check_exports.cmake
#
# Lists the library's dynamic symbols (nm -D --defined-only, demangled) and
# fails on any that is not a name of the public headers (csrc/include/polymask/):
# no test hook (polymask::testing), no internal helper, no std:: template
# instantiated over the core's types, and no symbol that names
# polymask::detail or polymask::testing anywhere, a parameter type included
# (a private class nested in a public one, LabelIndex::Parts, inherits its
# visibility: POLYMASK_HIDDEN in export.hpp), and no private member of a public
# class that its inline code never calls (private_members below).  Symbols of
# the C/C++ runtime that the linker always defines (_init, _fini, ...) are not
# the core's and are ignored.
cmake_minimum_required(VERSION 3.21)

# The public API, once: what core.hpp, masks.hpp, rasterize.hpp, lines.hpp,
# coverage.hpp, points.hpp and rle.hpp mark POLYMASK_API.  Functions by name (any
# overload; a template at any of its instantiations), classes by name (their
# members, typeinfo and vtable: Interrupted's are caught across modules).
set(public_functions
  # core.hpp
  fill_per_pixel fill_scanline fill_scanline_spans crossed_rows resolve_threads
  hardware_threads thread_cap default_threads set_interrupt_check set_process_interrupt_check throw_if_interrupted
  pool_statistics reset_pool_learning build_info polygon_census
  # masks.hpp
  fill_masks mask_boxes fill_mask_crops
  # rasterize.hpp
  polygons_from_rings rasterize rasterize_touched
  # lines.hpp
  line_cells
  # coverage.hpp
  coverage coverage_crops fill_touched
  # points.hpp
  contains_points contains_grid which_polygon
  # rle.hpp
  rle_encode rle_decode rle_compress rle_decompress rle_merge rle_merge_many rle_intersection_area)
set(public_classes Polygon Interrupted PointIndex LabelIndex)

set(public_names "")
foreach(function IN LISTS public_functions)
  # "[void ]polymask::NAME[<T>][[abi:cxx11]](": a return type precedes a template's name.
  list(APPEND public_names "^(void )?polymask::${function}(<[a-z0-9 ]+>)?(\\[abi:[a-z0-9]+\\])?\\(")
endforeach()
foreach(class IN LISTS public_classes)
  list(APPEND public_names "^polymask::${class}::" "^(typeinfo|typeinfo name|vtable) for polymask::${class}$")
endforeach()
# Internal wherever they appear, even inside a public class's symbol.
set(internal_names "polymask::(detail|testing)::")
# Private members of public classes, called only inside the library: a public
# class exports its members unless they are marked POLYMASK_HIDDEN.
set(private_members "^polymask::Polygon::(build|storage_bytes)\\(")
# Defined by the toolchain in every shared object: not the core's.
set(runtime_names "^(_init|_fini|_edata|_end|__bss_start)$")

if(NOT NM OR NOT LIBRARY)
  message(FATAL_ERROR "usage: cmake -DNM=nm -DLIBRARY=libpolymask_core.so -P check_exports.cmake")
endif()
execute_process(COMMAND ${NM} -D --defined-only --demangle ${LIBRARY}
                OUTPUT_VARIABLE listing RESULT_VARIABLE failed ERROR_VARIABLE errors)
if(failed)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}: ${errors}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(count 0)
set(public 0)
set(unexpected "")
set(internal "")
foreach(line IN LISTS lines)
  # "ADDRESS TYPE NAME": the name is everything after the type letter.
  if(NOT line MATCHES "^[0-9a-fA-F]+ [A-Za-z] (.+)$")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  math(EXPR count "${count} + 1")
  if(name MATCHES "${runtime_names}")
    continue()
  endif()
  if(name MATCHES "${internal_names}" OR name MATCHES "${private_members}")
    string(APPEND internal "  ${name}\n")
    continue()
  endif()
  set(allowed FALSE)
  foreach(pattern IN LISTS public_names)
    if(name MATCHES "${pattern}")
      set(allowed TRUE)
      break()
    endif()
  endforeach()
  if(allowed)
    math(EXPR public "${public} + 1")
  else()
    string(APPEND unexpected "  ${name}\n")
  endif()
endforeach()
if(public EQUAL 0)
  message(FATAL_ERROR "no public symbol found in ${LIBRARY}: is it the core library?")
endif()
if(internal)
  message(FATAL_ERROR "${LIBRARY} exports symbols that name polymask::detail or polymask::testing, "
    "or private members (keep test hooks unexported, and mark a private class nested in a public one, "
    "or a private member, POLYMASK_HIDDEN, export.hpp):\n${internal}")
endif()
if(unexpected)
  message(FATAL_ERROR "${LIBRARY} exports symbols outside the public API "
    "(mark only the public headers' API POLYMASK_API, or add a new public name to "
    "check_exports.cmake):\n${unexpected}")
endif()
message(STATUS "${LIBRARY}: ${count} dynamic symbols, ${public} of them the public API, none internal")
