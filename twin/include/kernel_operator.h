// Twin of CANN's kernel_operator.h: the AscendC kernel API (namespace AscendC) on a CPU.
// Every API runs on a virtual AI core started by twin::Launch (twin/launch.h) and enforces the
// hardware rules listed in twin/README.md; a violation stops the launch with "API, core, rule".
// GET_TILING_DATA and DTYPE_* are generated per operator (twin host side / opbuild), not here.
#pragma once
#include <cstdint>
#include "twin/kernel/kernel_types.h"
#include "twin/kernel/core_context.h"
#include "twin/kernel/tensor.h"
#include "twin/kernel/pipe.h"
#include "twin/kernel/data_copy.h"
#include "twin/kernel/vec_engine.h"
#include "twin/kernel/vec_ops.h"
#include "twin/kernel/cast.h"
#include "twin/kernel/cmp_select.h"
#include "twin/kernel/reduce_gather.h"
#include "twin/kernel/brcb.h"
#include "twin/kernel/transpose.h"
#include "twin/kernel/scalar.h"
#include "twin/kernel/sync_sys.h"
#include "twin/kernel/cross_core.h"

// `if ASCEND_IS_AIC { ... }` — parenthesised run-time tests, as in CANN's CPU debug mode.
#define ASCEND_IS_AIC (::twin::kernel::IsAic())
#define ASCEND_IS_AIV (!::twin::kernel::IsAic())
#define ASCEND_IS_NOT_AIC (!::twin::kernel::IsAic())
#define ASCEND_IS_NOT_AIV (::twin::kernel::IsAic())

// Statement inside the kernel body; the twin checks it against the launched kernel type.
#define KERNEL_TASK_TYPE_DEFAULT(value) ::twin::kernel::DeclareKernelType(static_cast<int>(value))
#define KERNEL_TASK_TYPE(key, value) \
    do { if (::twin::kernel::CurrentTilingKey() == static_cast<uint64_t>(key)) ::twin::kernel::DeclareKernelType(static_cast<int>(value)); } while (0)

#define TILING_KEY_IS(k) (::twin::kernel::CurrentTilingKey() == static_cast<uint64_t>(k))
