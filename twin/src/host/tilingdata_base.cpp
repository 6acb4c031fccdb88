// Bodies of register/tilingdata_base.h (packing rules documented there).
#include <cstdio>
#include "host_errors.h"
#include "register/tilingdata_base.h"

namespace twin_host {
namespace {
thread_local std::string g_hostError;
}
void ReportHostError(const std::string &msg) {
    std::fprintf(stderr, "[twin host] %s\n", msg.c_str());
    if (g_hostError.empty()) { g_hostError = msg; }
}
std::string TakeHostError() {
    std::string e;
    e.swap(g_hostError);
    return e;
}
}  // namespace twin_host

namespace optiling {
namespace {
std::map<std::string, TilingClassLayout> &Layouts() {
    static std::map<std::string, TilingClassLayout> m;
    return m;
}
}  // namespace

const std::map<std::string, TilingClassLayout> &GetTilingClassLayouts() { return Layouts(); }

StructSizeInfoBase &StructSizeInfoBase::GetInstance() {
    static StructSizeInfoBase instance;
    return instance;
}
void StructSizeInfoBase::SetStructSize(const char *structType, size_t structSize) {
    sizes_.emplace(structType, structSize);
}
size_t StructSizeInfoBase::GetStructSize(const char *structType) {
    auto it = sizes_.find(structType);
    if (it == sizes_.end()) {
        twin_host::ReportHostError(std::string("TILING_DATA_FIELD_DEF_STRUCT: struct type '") + structType +
                                   "' is not a BEGIN_TILING_DATA_DEF class");
        return 0;
    }
    return it->second;
}

TilingDef::~TilingDef() {
    if (!externalData_) { delete[] dataPtr_; }
    dataPtr_ = nullptr;
}

void TilingDef::CheckAlignAndGenPlaceHolder(const char *name, size_t typeSize) {
    if (typeSize == 0 || dataSize_ % typeSize == 0) { return; }
    const size_t pad = typeSize - dataSize_ % typeSize;
    fieldInfo_.emplace_back(FieldInfo("uint8_t", name, pad));
    dataSize_ += pad;
}

void TilingDef::InitData() {
    dataPtr_ = new uint8_t[dataSize_ == 0 ? 1 : dataSize_]();
    externalData_ = false;
    for (auto &n : nested_) { n.first->SetDataPtr(dataPtr_ + n.second); }
}

void TilingDef::SetDataPtr(void *dataPtr) {
    if (!externalData_) { delete[] dataPtr_; }
    externalData_ = true;
    dataPtr_ = static_cast<uint8_t *>(dataPtr);
    for (auto &n : nested_) { n.first->SetDataPtr(dataPtr_ + n.second); }
}

void TilingDef::SaveToBuffer(void *pdata, size_t capacity) {
    if (externalData_) { return; }  // the data already lives in the caller's buffer (CANN: "had been saved")
    if (pdata == nullptr || capacity < dataSize_) {
        twin_host::ReportHostError(std::string("TilingDef::SaveToBuffer(") + (className_ ? className_ : "?") +
                                   "): buffer capacity " + std::to_string(capacity) + " < tiling data size " +
                                   std::to_string(dataSize_));
        return;
    }
    std::memcpy(pdata, dataPtr_, dataSize_);
}

void TilingDef::RecordClassLayout() {
    auto &m = Layouts();
    if (className_ == nullptr || m.count(className_) != 0) { return; }
    m[className_] = TilingClassLayout{className_, dataSize_, fieldInfo_};
}

CTilingDataClassFactory &CTilingDataClassFactory::GetInstance() {
    static CTilingDataClassFactory f;
    return f;
}
void CTilingDataClassFactory::RegisterTilingData(const char *opType, TilingDataConstructor constructor) {
    constructors_.emplace(opType, constructor);
}
std::shared_ptr<TilingDef> CTilingDataClassFactory::CreateTilingDataInstance(const char *opType) {
    auto it = constructors_.find(opType);
    return it == constructors_.end() ? nullptr : it->second();
}
std::vector<std::string> CTilingDataClassFactory::GetOpTypes() const {
    std::vector<std::string> v;
    for (const auto &kv : constructors_) { v.push_back(kv.first); }
    return v;
}
}  // namespace optiling
