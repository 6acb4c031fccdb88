// Naming rules of CANN's opbuild (cann-conventions §2.3/§2.4, ASC-GUIDE 附录/命名转换规则对照表.md):
//   OpType -> snake: '_' before an upper-case letter whose previous char is lower-case or a digit,
//                    then lower-case everything (DeformableConv2dBackward -> deformable_conv2d_backward).
//   param snake_case -> lowerCamelCase (grad_input -> gradInput).
#pragma once
#include <cctype>
#include <string>

namespace twin_opbuild {
inline std::string OpTypeToSnake(const std::string &op) {
    std::string out;
    for (size_t i = 0; i < op.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(op[i]);
        if (i > 0 && std::isupper(c)) {
            const unsigned char p = static_cast<unsigned char>(op[i - 1]);
            if (std::islower(p) || std::isdigit(p)) { out += '_'; }
        }
        out += static_cast<char>(std::tolower(c));
    }
    return out;
}
inline std::string SnakeToLowerCamel(const std::string &s) {
    std::string out;
    bool up = false;
    for (char c : s) {
        if (c == '_') { up = !out.empty(); continue; }
        out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        up = false;
    }
    return out;
}
inline std::string Upper(const std::string &s) {
    std::string out;
    for (char c : s) { out += static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }
    return out;
}
}  // namespace twin_opbuild
