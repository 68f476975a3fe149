#include "tokenizer/languages.h"

#include <array>
#include <cctype>

namespace auris {
namespace {

constexpr std::array<Language, 100> kLanguages = {{
    {"en", "english"},
    {"zh", "chinese"},
    {"de", "german"},
    {"es", "spanish"},
    {"ru", "russian"},
    {"ko", "korean"},
    {"fr", "french"},
    {"ja", "japanese"},
    {"pt", "portuguese"},
    {"tr", "turkish"},
    {"pl", "polish"},
    {"ca", "catalan"},
    {"nl", "dutch"},
    {"ar", "arabic"},
    {"sv", "swedish"},
    {"it", "italian"},
    {"id", "indonesian"},
    {"hi", "hindi"},
    {"fi", "finnish"},
    {"vi", "vietnamese"},
    {"he", "hebrew"},
    {"uk", "ukrainian"},
    {"el", "greek"},
    {"ms", "malay"},
    {"cs", "czech"},
    {"ro", "romanian"},
    {"da", "danish"},
    {"hu", "hungarian"},
    {"ta", "tamil"},
    {"no", "norwegian"},
    {"th", "thai"},
    {"ur", "urdu"},
    {"hr", "croatian"},
    {"bg", "bulgarian"},
    {"lt", "lithuanian"},
    {"la", "latin"},
    {"mi", "maori"},
    {"ml", "malayalam"},
    {"cy", "welsh"},
    {"sk", "slovak"},
    {"te", "telugu"},
    {"fa", "persian"},
    {"lv", "latvian"},
    {"bn", "bengali"},
    {"sr", "serbian"},
    {"az", "azerbaijani"},
    {"sl", "slovenian"},
    {"kn", "kannada"},
    {"et", "estonian"},
    {"mk", "macedonian"},
    {"br", "breton"},
    {"eu", "basque"},
    {"is", "icelandic"},
    {"hy", "armenian"},
    {"ne", "nepali"},
    {"mn", "mongolian"},
    {"bs", "bosnian"},
    {"kk", "kazakh"},
    {"sq", "albanian"},
    {"sw", "swahili"},
    {"gl", "galician"},
    {"mr", "marathi"},
    {"pa", "punjabi"},
    {"si", "sinhala"},
    {"km", "khmer"},
    {"sn", "shona"},
    {"yo", "yoruba"},
    {"so", "somali"},
    {"af", "afrikaans"},
    {"oc", "occitan"},
    {"ka", "georgian"},
    {"be", "belarusian"},
    {"tg", "tajik"},
    {"sd", "sindhi"},
    {"gu", "gujarati"},
    {"am", "amharic"},
    {"yi", "yiddish"},
    {"lo", "lao"},
    {"uz", "uzbek"},
    {"fo", "faroese"},
    {"ht", "haitian creole"},
    {"ps", "pashto"},
    {"tk", "turkmen"},
    {"nn", "nynorsk"},
    {"mt", "maltese"},
    {"sa", "sanskrit"},
    {"lb", "luxembourgish"},
    {"my", "myanmar"},
    {"bo", "tibetan"},
    {"tl", "tagalog"},
    {"mg", "malagasy"},
    {"as", "assamese"},
    {"tt", "tatar"},
    {"haw", "hawaiian"},
    {"ln", "lingala"},
    {"ha", "hausa"},
    {"ba", "bashkir"},
    {"jw", "javanese"},
    {"su", "sundanese"},
    {"yue", "cantonese"},
}};

// TO_LANGUAGE_CODE's entries beyond the names themselves.
struct Alias {
  std::string_view name;
  std::string_view code;
};
constexpr std::array<Alias, 12> kAliases = {{
    {"burmese", "my"},
    {"valencian", "ca"},
    {"flemish", "nl"},
    {"haitian", "ht"},
    {"letzeburgesch", "lb"},
    {"pushto", "ps"},
    {"panjabi", "pa"},
    {"moldavian", "ro"},
    {"moldovan", "ro"},
    {"sinhalese", "si"},
    {"castilian", "es"},
    {"mandarin", "zh"},
}};

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::span<const Language> whisper_languages() { return kLanguages; }

std::optional<std::string> to_language_code(std::string_view code_or_name) {
  const std::string key = lowercase(code_or_name);
  for (const Language& l : kLanguages) {
    if (l.code == key || l.name == key) return std::string(l.code);
  }
  for (const Alias& a : kAliases) {
    if (a.name == key) return std::string(a.code);
  }
  return std::nullopt;
}

}  // namespace auris
