// CPU twin: exe_graph/runtime/runtime_tensor.h -> gert::Tensor (tensor.h).
#pragma once
#include "exe_graph/runtime/tensor.h"
