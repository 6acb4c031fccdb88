/* CPU twin of aclnn/opdev/op_errno.h: aclnn status codes (doc "aclnn返回码"). CANN's generated aclnn
 * code defines the few it needs itself; callers usually guard their own copies with #ifndef. */
#ifndef TWIN_ACLNN_OPDEV_OP_ERRNO_H_
#define TWIN_ACLNN_OPDEV_OP_ERRNO_H_

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103

#endif /* TWIN_ACLNN_OPDEV_OP_ERRNO_H_ */
