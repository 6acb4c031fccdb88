# Build-time helper of the fake CANN: appends MSG to LOG and creates each file of OUTPUTS
# ('|'-separated) as a small placeholder naming what would have been compiled.
# Usage: cmake -DLOG=<file> -DMSG=<text> -DOUTPUTS=<a|b> -P fake_record.cmake
file(APPEND "${LOG}" "${MSG}\n")
string(REPLACE "|" ";" _outputs "${OUTPUTS}")
foreach(_out IN LISTS _outputs)
  get_filename_component(_dir "${_out}" DIRECTORY)
  file(MAKE_DIRECTORY "${_dir}")
  file(WRITE "${_out}" "fake CANN placeholder: ${MSG}\n")
endforeach()
