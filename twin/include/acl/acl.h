/* CPU twin of acl/acl.h: the twin only provides acl_base.h content. */
#ifndef TWIN_ACL_ACL_H_
#define TWIN_ACL_ACL_H_
#include "acl/acl_base.h"
#endif
