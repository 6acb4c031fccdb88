// Owner / mode check of a library before dlopen — see library_trust.h for the rule.
#include "library_trust.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace ascend_dcn {
namespace {

[[noreturn]] void Refuse(const std::string &path, const std::string &rule)
{
    throw std::runtime_error("untrusted library '" + path + "': " + rule);
}

void RequireSafeOwnerAndMode(const std::string &given, const std::string &checked, const char *what)
{
    struct stat st {};
    if (stat(checked.c_str(), &st) != 0) {
        Refuse(given, std::string("cannot stat its ") + what + " '" + checked + "'");
    }
    const uid_t self = geteuid();
    if (st.st_uid != self && st.st_uid != 0) {
        Refuse(given, std::string("its ") + what + " '" + checked + "' is owned by uid " +
                          std::to_string(st.st_uid) + ", not by the current user (uid " + std::to_string(self) +
                          ") or root");
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        Refuse(given, std::string("its ") + what + " '" + checked +
                          "' is writable by group or others (mode must not include g+w or o+w)");
    }
}

}  // namespace

std::string RequireTrustedLibrary(const std::string &path)
{
    if (path.empty() || path[0] != '/') {
        Refuse(path, "the path must be absolute");
    }
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved) == nullptr) {
        Refuse(path, "the file does not exist or cannot be resolved");
    }
    const std::string real(resolved);
    struct stat st {};
    if (stat(real.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        Refuse(path, "it is not a regular file");
    }
    RequireSafeOwnerAndMode(path, real, "file");
    const std::string::size_type slash = real.find_last_of('/');
    const std::string dir = slash == 0 ? std::string("/") : real.substr(0, slash);
    RequireSafeOwnerAndMode(path, dir, "directory");
    return real;
}

}  // namespace ascend_dcn
