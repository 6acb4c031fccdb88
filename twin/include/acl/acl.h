/* CPU twin of acl/acl.h: includes the twin's acl_base.h and acl_rt.h. */
#ifndef TWIN_ACL_ACL_H_
#define TWIN_ACL_ACL_H_
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#endif
