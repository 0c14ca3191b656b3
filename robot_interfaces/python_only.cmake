# Included by each package here before rosidl_generate_interfaces(). With -DPYTHON_ONLY=ON (what
# `make setup` passes) only the generators rclpy needs run: C, the C typesupports (Fast DDS and
# introspection), Python and the type description (which carries the RIHS01 hashes). The four C++
# generators are skipped: nothing in this repo links C++ against these types, so compiling them would
# only lengthen `make setup`. The wire format and the type hashes do not depend on which typesupports exist.
option(PYTHON_ONLY "Generate only the C/Python interface code" OFF)
if(PYTHON_ONLY)
  list(FILTER AMENT_EXTENSIONS_rosidl_generate_idl_interfaces EXCLUDE REGEX "_cpp:")
endif()
