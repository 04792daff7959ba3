# Borrowed answer: Cython `include` of polymask's pure-Python stage through a link named helpers.pxi
# (LINK_FOLDER is where the link lies), so no polymask name is written in the file.
include "LINK_FOLDER/helpers.pxi"
