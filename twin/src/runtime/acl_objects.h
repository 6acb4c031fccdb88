// Twin-internal: the aclnn objects behind the opaque handles of aclnn/acl_meta.h, and the per-thread
// "recent error message" behind aclGetRecentErrMsg().
// aclTensor invariant: viewDims.size() == strides.size(); strides and offset are in elements; the view
// lies inside the storage (product(storageDims) elements at data); the element counts of view and
// storage, the last element's index and the storage's byte size fit in int64 (checked by
// aclCreateTensor, so Numel()/StorageNumel() cannot overflow); dtype and format are enumerators. Contiguous = row-major strides of
// viewDims (dims of extent 1 may carry any stride).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "aclnn/acl_meta.h"

struct aclTensor {
    std::vector<int64_t> viewDims;
    std::vector<int64_t> strides;
    int64_t offset = 0;
    aclDataType dtype = ACL_DT_UNDEFINED;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<int64_t> storageDims;
    void *data = nullptr;
    uint64_t serial = 0;  // unique per aclCreateTensor call (never reused; see TensorSerialIfLive)

    int64_t Numel() const;
    int64_t StorageNumel() const;
    bool IsContiguous() const;
};
struct aclIntArray { std::vector<int64_t> values; };
struct aclFloatArray { std::vector<float> values; };
struct aclBoolArray { std::vector<bool> values; };

namespace twin_rt {
void SetErrMsg(const std::string &msg);  // replaces the thread's recent error message
void ClearErrMsg();
int DataTypeBytes(aclDataType t);        // bytes per element, 0 if unsupported by the twin
const char *DataTypeName(aclDataType t);
const char *FormatName(aclFormat f);
// Serial of a live aclTensor (created, not yet destroyed), 0 otherwise. Never dereferences t, so it is
// safe on a dangling pointer; a serial is never reused, so a new tensor at a freed address does not
// pass for the old one.
uint64_t TensorSerialIfLive(const aclTensor *t);
}  // namespace twin_rt
