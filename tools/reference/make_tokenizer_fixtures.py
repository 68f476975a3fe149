"""Writes tests/fixtures/tokenizer/*.json from the real openai/whisper tokenizer.

Run from the repository root:
    PY=$(scripts/setup_reference.sh) && $PY tools/reference/make_tokenizer_fixtures.py

One file per tokenizer the Whisper models use: gpt2 with 99 languages (English-only models),
multilingual with 99 (tiny..large-v2) and with 100 languages (large-v3, which adds "yue"). Each
holds: every special token's text and id, the named special ids, language tokens and codes,
encodings of a multilingual corpus, sot sequences, non_speech_tokens, and decode /
decode_with_timestamps of token sequences (some splitting multi-byte UTF-8 characters, some random,
some with special and timestamp tokens). The C++ tests compare everything exactly.
"""

import json
import os
import random

from whisper.tokenizer import LANGUAGES, TO_LANGUAGE_CODE, get_tokenizer

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "tokenizer")

CORPUS = [
    "",
    " ",
    "Hello world",
    " Hello world",
    "  Hello  world  ",
    "hello",
    "HELLO WORLD!!!",
    "I'm sure you'll see they're right, it's what we've said and I'd agree.",
    "Don't SHOUT'S 'quoted' O'Neil's rock'n'roll",
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
    "The year 2024 had 365 days; pi is 3.14159 and 1,000,000 is a million.",
    "12345678901234567890",
    "Call 555-0123 at 10:30am (or 11:45pm).",
    "Price: $19.99, 50% off! #deal @shop",
    "a\nb",
    "line one\nline two\n\nline four\n",
    "tabs\tand\t\ttabs",
    "trailing spaces   ",
    "   leading spaces",
    "\r\nwindows\r\nnewlines\r\n",
    "multiple     spaces between     words",
    "\n\n\n",
    "x  \n  y",
    "...!?;:--—–",
    "\"quoted\" and (parenthesised) [bracketed] {braced} <angled>",
    "C++ and C# are languages; so is F#.",
    "https://example.com/path?query=1&other=two#frag",
    "snake_case_identifier and camelCaseIdentifier",
    "♪ La la la ♪ ♪♪ ♫ ♬",
    "[MUSIC] (SPEAKING FOREIGN LANGUAGE) - Hey there,",
    "Hola, ¿cómo estás? Estoy muy bien, gracias. ¡Qué día tan bonito!",
    "El niño comió piñas y jalapeños en la montaña.",
    "Grüße aus München! Die Straße ist schön, Äpfel und Öl über alles.",
    "Ich möchte gerne ein Stück Käsekuchen, bitte.",
    "Ça va? Très bien, merci. L'été dernier, j'étais à Paris où il faisait chaud.",
    "Français: œuvre, cœur, naïve, Noël, garçon, hôtel, forêt.",
    "Português: não, coração, ação, você.",
    "Polski: zażółć gęślą jaźń.",
    "こんにちは、世界！今日はいい天気ですね。",
    "日本語のテキストとカタカナ、ひらがな、漢字。",
    "你好，世界！我们今天去公园散步吧。",
    "中文标点符号：“引号”、《书名号》。",
    "안녕하세요, 세계! 오늘 날씨가 좋네요.",
    "Привет, мир! Как дела? Всё хорошо.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "مرحبا بالعالم! كيف حالك اليوم؟",
    "नमस्ते दुनिया! आप कैसे हैं?",
    "שלום עולם",
    "Γειά σου Κόσμε! Ελληνικά.",
    "ภาษาไทย สวัสดีครับ",
    "Emoji: 😀😃😄 👍🏽 👨‍👩‍👧‍👦 🇺🇸 ❤️",
    "😀",
    "Mixed: English, español, 日本語, русский, and 한국어 in one line 123.",
    "Numbers in scripts: ٣٤٥ १२३ ④⑤ Ⅻ ½",
    "Non-breaking\u00a0space and ideographic\u3000space and next\u0085line",
    "Zero\u200bwidth and soft\u00adhyphen and bom\ufeffhere",
    "Combining: e\u0301 a\u0300 n\u0303",
    "  \t \n mixed whitespace \t\n",
    "'s 't 're 've 'm 'll 'd",
    "''''''",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "<|endoftext|",
    # Which code points count as whitespace (\s) shows only next to punctuation.
    "wow!\u0085\u0085!x",
    "x!\u00a0\u00a0!y",
    "end.\u3000\u3000next",
    "p.\u2028\u2029q",
    "a.\u000b\u000cb",
    "a.\u001c\u001fb",
    "m.\u180e\u180en",
    "z.\u200b\u200bz",
    "\u2000\u2001.\u205f\u202f.",
]
# "x  <c>." splits as "x", "  ", "<c>", "." if <c> is whitespace and as "x", " ", " <c>." if not.
CORPUS += [
    f"x  {chr(c)}."
    for c in [0x0B, 0x0C, 0x1C, 0x1F, 0x85, 0xA0, 0x1680, 0x180E, 0x2000, 0x200A, 0x200B, 0x2028,
              0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF]
]

SOT_REQUESTS = [
    (None, None),
    ("en", "transcribe"),
    ("en", "translate"),
    ("es", "transcribe"),
    ("Spanish", "translate"),
    ("castilian", "transcribe"),
    ("JA", "transcribe"),
    ("zh", "translate"),
    ("mandarin", None),
    ("burmese", "transcribe"),
    ("haw", "transcribe"),
    ("su", "translate"),
    (None, "translate"),
]


def tokenizer_fixture(multilingual: bool, num_languages: int, rng: random.Random) -> dict:
    tok = get_tokenizer(multilingual, num_languages=num_languages)
    enc = tok.encoding
    specials = dict(sorted(enc._special_tokens.items(), key=lambda kv: kv[1]))

    encodings = [{"text": text, "ids": tok.encode(text)} for text in CORPUS]

    sot_sequences = []
    for language, task in SOT_REQUESTS:
        if not multilingual and language is not None:
            continue
        if language is not None and num_languages < 100 and TO_LANGUAGE_CODE.get(
            language.lower(), language.lower()
        ) not in list(LANGUAGES)[:num_languages]:
            continue
        t = get_tokenizer(multilingual, num_languages=num_languages, language=language, task=task)
        sot_sequences.append({"language": language, "task": task, "ids": list(t.sot_sequence)})
    if multilingual and num_languages == 100:
        t = get_tokenizer(True, num_languages=100, language="yue", task="transcribe")
        sot_sequences.append({"language": "yue", "task": "transcribe", "ids": list(t.sot_sequence)})
        t = get_tokenizer(True, num_languages=100, language="Cantonese", task="transcribe")
        sot_sequences.append(
            {"language": "Cantonese", "task": "transcribe", "ids": list(t.sot_sequence)}
        )

    # Token sequences to decode: whole corpus encodings, every prefix of multi-byte texts (these
    # cut characters in half), random regular tokens (often invalid UTF-8), and mixes with special
    # and timestamp tokens.
    sequences = []
    for text in ["こんにちは、世界！", "😀👍🏽", "Grüße", "नमस्ते", "♪♫"]:
        ids = tok.encode(text)
        for n in range(1, len(ids) + 1):
            sequences.append(ids[:n])
        for n in range(1, len(ids)):
            sequences.append(ids[n:])
    for item in encodings[::4]:
        sequences.append(item["ids"])
    n_regular = tok.eot
    for _ in range(40):
        sequences.append([rng.randrange(n_regular) for _ in range(rng.randint(1, 8))])
    ts = tok.timestamp_begin
    sequences.append(list(tok.sot_sequence) + [ts] + tok.encode(" Hello there.") + [ts + 57, tok.eot])
    sequences.append([ts, ts + 1, ts + 1500, tok.no_timestamps, tok.no_speech, tok.sot_prev, tok.sot_lm])
    sequences.append([tok.sot_prev] + tok.encode(" previous text") + [tok.sot, tok.transcribe, ts + 50])
    sequences.append(tok.encode("é")[:1] + [ts + 3] + tok.encode("é")[1:])
    sequences.append(sorted(tok.all_language_tokens)[:5] + [tok.translate, tok.transcribe])
    sequences.append([ts + rng.randrange(1501) for _ in range(6)])

    decodes = [
        {
            "tokens": list(s),
            "text": tok.decode(list(s)),
            "text_with_timestamps": tok.decode_with_timestamps(list(s)),
        }
        for s in sequences
    ]

    return {
        "encoding": enc.name,
        "multilingual": multilingual,
        "num_languages": num_languages,
        "n_vocab": enc.n_vocab,
        "special_tokens": specials,
        "named": {
            "eot": tok.eot,
            "sot": tok.sot,
            "translate": tok.translate,
            "transcribe": tok.transcribe,
            "sot_lm": tok.sot_lm,
            "sot_prev": tok.sot_prev,
            "no_speech": tok.no_speech,
            "no_timestamps": tok.no_timestamps,
            "timestamp_begin": tok.timestamp_begin,
        },
        # openai builds these from a set, so their order is arbitrary: stored sorted by id.
        "all_language_tokens": sorted(tok.all_language_tokens),
        "all_language_codes": [
            tok.decode([t]).strip("<|>") for t in sorted(tok.all_language_tokens)
        ],
        "encode": encodings,
        "sot_sequences": sot_sequences,
        "non_speech_tokens": list(tok.non_speech_tokens),
        "decode": decodes,
    }


UTF8_CASES = [
    "", "41", "c3a9", "c3", "c341", "a9", "80bf", "c0af", "c1bf", "c280", "dfbf", "e0a080", "e08080",
    "e09f80", "e0a0", "e0a041", "ed9fbf", "eda080", "edbfbf", "eebfbf", "efbfbd", "f0908080", "f08f8080",
    "f09f98", "f09f9841", "f09f9880", "f48fbfbf", "f4908080", "f5808080", "f8", "fe", "ff",
    "e282ac", "e282", "e2", "e228a1", "f0", "f09f", "41c3c3a9", "e3818be3", "e3818be381",
    "ffe3818b", "c3a9c3", "eda0bdedb880",
]


def write_utf8_fixture() -> None:
    """bytes.decode("utf-8", errors="replace"), which tiktoken's decode applies to joined tokens."""
    cases = [
        {"bytes_hex": h, "text": bytes.fromhex(h).decode("utf-8", errors="replace")}
        for h in UTF8_CASES
    ]
    path = os.path.join(OUT_DIR, "utf8_replace.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=True, indent=1)
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main() -> None:
    os.makedirs(OUT_DIR, exist_ok=True)
    rng = random.Random(1234)
    for name, multilingual, num_languages in [
        ("gpt2_99", False, 99),
        ("multilingual_99", True, 99),
        ("multilingual_100", True, 100),
    ]:
        data = tokenizer_fixture(multilingual, num_languages, rng)
        path = os.path.join(OUT_DIR, f"{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=True, indent=None, separators=(",", ":"))
            f.write("\n")
        print(f"wrote {path} ({os.path.getsize(path)} bytes)")

    languages = {
        "languages": [[code, name] for code, name in LANGUAGES.items()],
        "to_language_code": TO_LANGUAGE_CODE,
    }
    write_utf8_fixture()

    path = os.path.join(OUT_DIR, "languages.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(languages, f, ensure_ascii=True, indent=1)
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
