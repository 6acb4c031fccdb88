// Which shared libraries the loader may dlopen (issue 18, "a loader that trusts only what is safe").
//
// A library is trusted when, after resolving symlinks (realpath):
//   * the path given was absolute;
//   * the file is a regular file owned by the current effective user or by root, and neither
//     group- nor other-writable;
//   * the directory holding it satisfies the same owner and mode rule.
// This is the rule torch_npu's op-plugin applies to custom operator libraries. The resolved path is
// what the caller must dlopen, so a symlink swapped after the check cannot redirect the load.
#ifndef ASCEND_DCN_LIBRARY_TRUST_H
#define ASCEND_DCN_LIBRARY_TRUST_H

#include <string>

namespace ascend_dcn {

// Returns the resolved (real) path of a trusted library. Throws std::runtime_error
// "untrusted library '<path>': <rule>" naming the offending path and the rule it breaks.
std::string RequireTrustedLibrary(const std::string &path);

}  // namespace ascend_dcn

#endif  // ASCEND_DCN_LIBRARY_TRUST_H
