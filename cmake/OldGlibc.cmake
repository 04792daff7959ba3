# POLYMASK_OLD_GLIBC: shared objects that load on glibc 2.28 and newer (manylinux_2_28),
# built with this machine's compiler and glibc, whatever their versions.
#
# GCC's libstdc++ is linked into each shared object (-static-libstdc++), so no
# GLIBCXX_3.4.x newer than the user's is needed, and kept inside it
# (--exclude-libs): each module's copy stays private.  libgcc_s stays shared, so
# one unwinder serves every module and a C++ exception thrown in the core is
# caught in the module that called it.  csrc/compat/old_glibc.c then binds the
# glibc symbols newer than 2.28 to older versions or replaces them; scripts/wheel.sh
# checks the result with auditwheel.
#
#   polymask_use_old_glibc(<target>)   links a shared object this way (no-op when OFF)
if(POLYMASK_OLD_GLIBC)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
     OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "POLYMASK_OLD_GLIBC needs GCC on x86-64 Linux; got ${CMAKE_CXX_COMPILER_ID} "
      "on ${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}")
  endif()
  enable_language(C)
  add_library(polymask_old_glibc OBJECT ${PROJECT_SOURCE_DIR}/csrc/compat/old_glibc.c)
  set_target_properties(polymask_old_glibc PROPERTIES POSITION_INDEPENDENT_CODE ON)
endif()

function(polymask_use_old_glibc target)
  if(NOT POLYMASK_OLD_GLIBC)
    return()
  endif()
  target_link_libraries(${target} PRIVATE polymask_old_glibc)
  # libpthread.so.0 by name: glibc before 2.34 defines the pthread functions the
  # shim binds to there (on newer glibc it is an empty placeholder).
  target_link_options(${target} PRIVATE -static-libstdc++ "LINKER:--exclude-libs,ALL"
    "LINKER:--push-state,--no-as-needed" "-l:libpthread.so.0" "LINKER:--pop-state")
endfunction()
