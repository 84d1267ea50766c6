# Debian's hardening, as `dpkg-buildflags` gives a package built with hardening=+all: the stack protector and
# stack-clash protection, libc calls fortified where the optimizer sees the sizes (not at -O0, where glibc warns),
# control-flow protection on x86-64, and a relocation table made read-only and bound at start (relro, now; PIE is
# GCC's default on Debian). The sanitizer and fuzz builds keep only their own instrumentation: fortified calls
# bypass ASan's interceptors.
option(AGENTWORKS_HARDENING "Build with Debian's hardening flags (off for sanitizer builds)" ON)
if(AGENTWORKS_HARDENING AND NOT AGENTWORKS_FUZZ AND NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
  add_compile_options(-fstack-protector-strong -fstack-clash-protection)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    add_compile_options(-fcf-protection)
  endif()
  add_compile_definitions($<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
  add_link_options(-Wl,-z,relro -Wl,-z,now)
endif()
