// CPU twin of register/op_def_factory.h: OpType -> OpDef factory, filled by OP_ADD at static-init time.
#pragma once
#include <string>
#include <vector>
#include "register/op_def.h"

namespace ops {
using OpDefCreator = OpDef (*)(const char *);
class OpDefFactory {
public:
    // Returns 0; registering the same OpType twice is recorded and reported by the twin opbuild/runtime.
    static int OpDefRegister(const char *name, OpDefCreator creator);
    static std::vector<ge::AscendString> &GetAllOp();
    static OpDef OpDefCreate(const char *name);
    static bool Exists(const char *name);
};
}  // namespace ops
