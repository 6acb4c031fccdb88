/* CPU twin of aclnn/aclnn_base.h: the aclnn object types (acl_meta.h) + aclnnInit/aclnnFinalize.
 * The ACLNN_* status codes are in aclnn/opdev/op_errno.h (as in CANN 9.x), not here, so callers that
 * define their own ACLNN_* constants do not collide with macros. */
#ifndef TWIN_ACLNN_ACLNN_BASE_H_
#define TWIN_ACLNN_ACLNN_BASE_H_
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize();
#ifdef __cplusplus
}
#endif
#endif /* TWIN_ACLNN_ACLNN_BASE_H_ */
