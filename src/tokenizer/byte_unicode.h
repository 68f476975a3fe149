// GPT-2's reversible byte <-> unicode mapping. CTranslate2 vocabulary files and Hugging Face
// vocab.json store each BPE token as printable unicode ("Ġthe" for " the"); the tokenizer works on
// raw bytes. These convert between the two.
#pragma once

#include <string>
#include <string_view>

namespace auris {

// "Ġthe" -> " the". Throws auris::Error if a character is outside the 256-symbol alphabet.
std::string gpt2_unicode_to_bytes(std::string_view token);
// " the" -> "Ġthe".
std::string bytes_to_gpt2_unicode(std::string_view bytes);

}  // namespace auris
