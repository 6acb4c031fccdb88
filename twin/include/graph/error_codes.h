// CPU twin: graph/error_codes.h (same content as graph/ge_error_codes.h in the twin).
#pragma once
#include "graph/ge_error_codes.h"
