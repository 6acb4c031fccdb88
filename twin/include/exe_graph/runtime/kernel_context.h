// CPU twin: exe_graph/runtime/kernel_context.h is folded into extended_kernel_context.h.
#pragma once
#include "exe_graph/runtime/extended_kernel_context.h"
