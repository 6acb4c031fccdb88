// CPU twin of register/op_def_registry.h. OP_ADD(OpType) registers a factory that builds the OpDef
// subclass; only CANN's "neither OP_PROTO_LIB nor OP_TILING_LIB" form is needed by the twin.
#pragma once
#include "register/op_def.h"
#include "register/op_def_factory.h"

#define OP_ADD(opType, ...)                                                                        \
    [[maybe_unused]] static int g_##opType##_added = ::ops::OpDefFactory::OpDefRegister(                            \
        #opType, [](const char *name) -> ::ops::OpDef { return opType(name); })
