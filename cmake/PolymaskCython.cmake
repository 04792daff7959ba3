# polymask_add_cython_module(<name> <pyx> [CORE] [OPENMP] [DESTINATION <dir>])
#
# Transpile <pyx> to C++ with Cython, build it as a Python extension module
# and install it into the package.  CORE links the C++ core (and its include
# directory); OPENMP links OpenMP for modules that use prange themselves.
function(polymask_add_cython_module name pyx)
  cmake_parse_arguments(PARSE_ARGV 2 arg "CORE;OPENMP" "DESTINATION" "")
  if(NOT arg_DESTINATION)
    set(arg_DESTINATION polymask)
  endif()
  cython_transpile(${pyx} LANGUAGE CXX OUTPUT_VARIABLE generated_cpp)
  python_add_library(${name} MODULE WITH_SOABI "${generated_cpp}")
  polymask_use_old_glibc(${name})
  if(arg_CORE)
    target_link_libraries(${name} PRIVATE polymask_core)
    # Installed, the module finds libpolymask_core beside it in polymask/lib,
    # relative to its own folder, wherever the package is installed.
    file(RELATIVE_PATH core_dir "/${arg_DESTINATION}" "/polymask/lib")
    if(APPLE)
      set(origin "@loader_path")
    else()
      set(origin "$ORIGIN")
    endif()
    set_target_properties(${name} PROPERTIES INSTALL_RPATH "${origin}/${core_dir}")
  endif()
  if(arg_OPENMP AND OpenMP_CXX_FOUND)
    target_link_libraries(${name} PRIVATE OpenMP::OpenMP_CXX)
  endif()
  # NumPy's deprecated API is not used: extensions take buffers via memoryviews.
  target_compile_definitions(${name} PRIVATE NPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION)
  install(TARGETS ${name} DESTINATION ${arg_DESTINATION})
endfunction()
