// openai/whisper's language table: LANGUAGES (code, English name) in its exact order, which fixes
// the language tokens' ids (<|en|> = sot + 1, ...), and TO_LANGUAGE_CODE's extra name aliases.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace auris {

struct Language {
  std::string_view code;  // "en"
  std::string_view name;  // "english"
};

// All 100 languages in openai's order; a model with num_languages = 99 uses the first 99 (no "yue").
std::span<const Language> whisper_languages();

// Code for a code ("en"), name ("English") or alias ("castilian"), case-insensitive, as
// openai get_tokenizer resolves it; nullopt if unknown.
std::optional<std::string> to_language_code(std::string_view code_or_name);

}  // namespace auris
