// CPU twin of register/tilingdata_base.h (hicann/metadef inc/external/register/tilingdata_base.h),
// namespace optiling: the macro-defined tiling data classes.
// Packing (CANN's rule, reproduced): fields are laid out in declaration order; before each field the
// running size is padded up to a multiple of the field's element size (scalar/array) or of 8 (struct
// fields) with a uint8_t placeholder array named "<field>PH"; the class total is padded to 8.
// Field types: only int8_t..uint64_t and float (CANN's documented restriction; enforced at compile time).
// REGISTER_TILING_DATA_CLASS(OpType, Class) binds Class to the OpType (GET_TILING_DATA relies on it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace optiling {
template <typename T>
struct IsTilingFieldType
    : std::integral_constant<bool, std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                                       std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value ||
                                       std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                                       std::is_same<T, int64_t>::value || std::is_same<T, uint64_t>::value ||
                                       std::is_same<T, float>::value> {};

class FieldInfo {
public:
    FieldInfo(const char *dtype, const char *name) : dtype_(dtype), name_(name), classType_("0") {}
    FieldInfo(const char *dtype, const char *name, size_t arrSize)
        : dtype_(dtype), name_(name), arrSize_(arrSize), classType_("1") {}
    FieldInfo(const char *dtype, const char *name, const char *structType, size_t structSize)
        : dtype_(dtype), name_(name), structType_(structType), structSize_(structSize), classType_("2") {}
    const char *dtype_;
    const char *name_;
    size_t arrSize_ = 0;
    const char *structType_ = nullptr;
    size_t structSize_ = 0;
    const char *classType_;  // "0" scalar, "1" array (incl. placeholders), "2" struct
};

class StructSizeInfoBase {
public:
    static StructSizeInfoBase &GetInstance();
    void SetStructSize(const char *structType, size_t structSize);
    size_t GetStructSize(const char *structType);  // 0 (and a twin error) if unknown
private:
    std::map<std::string, size_t> sizes_;
};

class TilingDef {
public:
    TilingDef() = default;
    TilingDef(const TilingDef &) = delete;
    TilingDef &operator=(const TilingDef &) = delete;
    virtual ~TilingDef();
    void SaveToBuffer(void *pdata, size_t capacity);
    std::vector<FieldInfo> GetFieldInfo() const { return fieldInfo_; }
    const char *GetTilingClassName() const { return className_; }
    size_t GetDataSize() const { return dataSize_; }
    void SetDataPtr(void *dataPtr);
    void CheckAlignAndGenPlaceHolder(const char *name, size_t typeSize);

protected:
    void InitData();
    void RecordClassLayout();  // twin: remembers the field list per class name (for the twin opbuild)
    std::vector<FieldInfo> fieldInfo_;
    uint8_t *dataPtr_ = nullptr;
    size_t dataSize_ = 0;
    const char *className_ = nullptr;
    std::vector<std::pair<TilingDef *, size_t>> nested_;  // struct fields and their offsets
    bool externalData_ = false;
};

// Twin: the layout of every tiling class that has been constructed at least once.
struct TilingClassLayout { std::string name; size_t dataSize; std::vector<FieldInfo> fields; };
const std::map<std::string, TilingClassLayout> &GetTilingClassLayouts();

using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();
class CTilingDataClassFactory {
public:
    static CTilingDataClassFactory &GetInstance();
    void RegisterTilingData(const char *opType, TilingDataConstructor constructor);
    std::shared_ptr<TilingDef> CreateTilingDataInstance(const char *opType);
    std::vector<std::string> GetOpTypes() const;  // twin
private:
    std::map<std::string, TilingDataConstructor> constructors_;
};
}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                                                               \
    class class_name : public TilingDef {                                                               \
    public:                                                                                             \
        size_t FieldHandler(const char *dtype, const char *name, size_t typeSize, const char *namePh) { \
            CheckAlignAndGenPlaceHolder(namePh, typeSize);                                              \
            fieldInfo_.emplace_back(FieldInfo(dtype, name));                                            \
            size_t offset = dataSize_;                                                                  \
            dataSize_ += typeSize;                                                                      \
            return offset;                                                                              \
        }                                                                                               \
        size_t FieldHandler(const char *dtype, const char *name, size_t typeSize, size_t arrSize,       \
                            const char *namePh) {                                                       \
            CheckAlignAndGenPlaceHolder(namePh, typeSize);                                              \
            fieldInfo_.emplace_back(FieldInfo(dtype, name, arrSize));                                   \
            size_t offset = dataSize_;                                                                  \
            dataSize_ += typeSize * arrSize;                                                            \
            return offset;                                                                              \
        }                                                                                               \
        size_t FieldHandler(const char *dtype, const char *name, const char *structType,                \
                            size_t structSize, TilingDef *nested, const char *namePh) {                 \
            CheckAlignAndGenPlaceHolder(namePh, 8);                                                     \
            fieldInfo_.emplace_back(FieldInfo(dtype, name, structType, structSize));                    \
            size_t offset = dataSize_;                                                                  \
            dataSize_ += structSize;                                                                    \
            nested_.emplace_back(nested, offset);                                                       \
            return offset;                                                                              \
        }                                                                                               \
        class_name() {                                                                                  \
            className_ = #class_name;                                                                   \
            CheckAlignAndGenPlaceHolder(#class_name "PH", 8);                                           \
            StructSizeInfoBase::GetInstance().SetStructSize(#class_name, dataSize_);                    \
            RecordClassLayout();                                                                        \
            InitData();                                                                                 \
        }                                                                                               \
        explicit class_name(void *ptr) {                                                                \
            className_ = #class_name;                                                                   \
            CheckAlignAndGenPlaceHolder(#class_name "PH", 8);                                           \
            StructSizeInfoBase::GetInstance().SetStructSize(#class_name, dataSize_);                    \
            RecordClassLayout();                                                                        \
            if (ptr == nullptr) { return; }                                                             \
            SetDataPtr(ptr);                                                                            \
        }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                    \
public:                                                                                                 \
    static_assert(::optiling::IsTilingFieldType<data_type>::value,                                      \
                  "TILING_DATA_FIELD_DEF: only int8_t..uint64_t and float are supported");              \
    void set_##field_name(data_type field_name) {                                                       \
        field_name##_ = field_name;                                                                     \
        std::memcpy(dataPtr_ + field_name##_offset_, &field_name##_, sizeof(data_type));                \
    }                                                                                                   \
    data_type get_##field_name() { return field_name##_; }                                              \
                                                                                                        \
private:                                                                                                \
    data_type field_name##_ = 0;                                                                        \
    size_t field_name##_offset_ = FieldHandler(#data_type, #field_name, sizeof(data_type), #field_name "PH");

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                       \
public:                                                                                                 \
    static_assert(::optiling::IsTilingFieldType<arr_type>::value,                                       \
                  "TILING_DATA_FIELD_DEF_ARR: only int8_t..uint64_t and float are supported");          \
    void set_##field_name(arr_type *field_name) {                                                       \
        if (dataPtr_ + field_name##_offset_ == reinterpret_cast<uint8_t *>(field_name)) { return; }     \
        std::memcpy(dataPtr_ + field_name##_offset_, field_name, (arr_size) * sizeof(arr_type));        \
    }                                                                                                   \
    arr_type *get_##field_name() { return reinterpret_cast<arr_type *>(dataPtr_ + field_name##_offset_); } \
                                                                                                        \
private:                                                                                                \
    size_t field_name##_offset_ =                                                                       \
        FieldHandler(#arr_type, #field_name, sizeof(arr_type), (arr_size), #field_name "PH");

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                           \
public:                                                                                                 \
    struct_type field_name{nullptr};                                                                    \
                                                                                                        \
private:                                                                                                \
    size_t field_name##_offset_ = FieldHandler("struct", #field_name, #struct_type,                     \
        StructSizeInfoBase::GetInstance().GetStructSize(#struct_type), &field_name, #field_name "PH");

#define END_TILING_DATA_DEF \
    }                       \
    ;

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                 \
    namespace {                                                                                         \
    class op_type##class_name##Helper {                                                                 \
    public:                                                                                             \
        op_type##class_name##Helper() {                                                                 \
            CTilingDataClassFactory::GetInstance().RegisterTilingData(                                  \
                #op_type, op_type##class_name##Helper::CreateTilingDataInstance);                       \
        }                                                                                               \
        static std::shared_ptr<TilingDef> CreateTilingDataInstance() {                                  \
            return std::make_shared<class_name>();                                                      \
        }                                                                                               \
    };                                                                                                  \
    [[maybe_unused]] class_name g_##op_type##class_name##init;                                          \
    [[maybe_unused]] op_type##class_name##Helper g_tilingdata_##op_type##class_name##helper;            \
    }
