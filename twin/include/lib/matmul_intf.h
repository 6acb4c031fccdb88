// Twin of CANN's lib/matmul_intf.h: Matmul high-level API (see twin/kernel/matmul.h for the model).
#pragma once
#include "kernel_operator.h"
#include "twin/kernel/matmul.h"
