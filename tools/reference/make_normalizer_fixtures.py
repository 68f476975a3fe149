"""Writes tests/fixtures/text/{normalizer_cases,wer_cases}.json from openai/whisper's normalisers
and jiwer.

Run from the repository root (needs ../shared/data for the real transcripts):
    PY=$(scripts/setup_reference.sh)
    $PY -m pip install jiwer        # once; the WER cases come from jiwer.process_words
    $PY tools/reference/make_normalizer_fixtures.py

normalizer_cases.json: for every input of a corpus (the Hi-Fi TTS transcripts, the long-form
reference text split into sentences, the multilingual test transcripts and crafted strings for
numbers, currencies, ordinals, contractions, titles, British spellings, symbols, diacritics,
brackets, hyphens, scripts and whitespace) the output of EnglishTextNormalizer() and of
BasicTextNormalizer() with each option; and EnglishNumberNormalizer() alone on number phrases.
wer_cases.json: sentence lists with deterministic random word edits, and jiwer's hits,
substitutions, deletions, insertions and wer, on raw and on English-normalised text.
"""

import json
import os
import random
import re

import jiwer
from whisper.normalizers import BasicTextNormalizer, EnglishTextNormalizer
from whisper.normalizers.english import EnglishNumberNormalizer

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "text")
AUDIO = os.path.join(ROOT, "..", "shared", "data", "audio")

NUMBER_PHRASES = [
    "one", "two hundred", "twenty one", "one hundred and one", "one thousand two hundred thirty four",
    "nineteen ninety nine", "nineteen sixties", "the nineteen sixties", "twenty first century",
    "the twenty fifth of december", "first", "second", "third", "fourth", "fifth", "eighth", "ninth",
    "nineth", "twelfth", "thirteenth", "twentieth", "thirtieth", "ninety ninth", "hundredth",
    "one hundredth", "two thousandth", "a millionth", "two millions", "hundreds", "thousands of people",
    "one oh one", "oh seven", "zero zero seven", "double oh seven", "triple five", "double five two",
    "double trouble", "point five", "three point one four", "zero point five", "point", "the point is",
    "minus five", "negative twenty", "plus or minus", "minus", "minus minus five", "five dollars",
    "twenty dollars and fifty cents", "a dollar", "one dollar", "dollars", "$20 million", "$5.50", "$0.50",
    "$1000000", "£100", "€20", "¢50", "fifty cents", "one pound", "five euros", "ten percent",
    "ten per cent", "fifty per day", "per cent", "percent", "100%", "5.5%", "two and a half",
    "two and a half million", "and a half", "a mile and a half", "one and a half hours",
    "three hundred and a half", "1960s", "21st", "the 3rd", "22nd", "4th", "2 nd", "10 s", "ones",
    "the ones", "one ones", "sixes", "two sixes", "twos and threes", "the 1 and only", "1s", "five decillion",
    "twelve hundred", "fifteen hundred dollars", "one million two hundred thousand", "a hundred",
    "hundred thousand", "one hundred thousand and five", "three thousand and twelve", "2 3", "3.0",
    "2.50", "007", "1.5 million", "1.25 hundred", "1.255 hundred", "0.001 thousand", "0 hundred",
    "0 hundredth", "192.168.0.1", "one point two point three", "5 point 3", "point 5", "one point $5",
    "twenty twenty", "twenty twenty one", "two thousand and twenty", "nineteen oh five", "eleven twelve",
    "one two three four", "ninety nine", "seventy sevens", "five hundredths", "three fifths",
    "eighty eight", "ten thousand", "ten thousands", "minus 5", "plus 3", "-5", "+5", "$", "$ 5",
    "the year two thousand", "2 thousand", "three million dollars", "at seven thirty", "one one",
    "one o one", "o", "oh no", "zero", "zeroth", "1st and 2nd", "$2 and ¢7", "$2 ¢70",
    "two dollars and seven cents", "zero dollars and fifty cents", "$0.5", "€0.07", "5 cents",
    "three pounds fifty", "version 2.0", "covid 19", "mp3", "4k", "abc123def", "a1b2", "10th", "100th",
    "1000000th", "thirty one", "sixty sixth", "twenty thirds", "two twenties", "forty fourths",
    "the twenties", "one hundred twenty", "one hundred and twenty first", "one thousand and one nights",
    "eleven hundred and eleven", "a hundred and one dalmatians", "nine eleven", "twenty four seven",
    "four oh four", "one double one", "zero double zero", "triple zero", "point zero one",
    "five point", "twelve point five percent", "minus twelve point five", "two point five million dollars",
    "1,000", "10.5 thousand dollars", "twenty one and a half", "hundred and", "and", "and five",
    "one and two", "thousand and one", "٣ apples", "١٢٣ and ٣.٥", "one point ٣", "５ things",
    "٣ hundred", "one two ٣", "$٣", "forty", "forty two million three hundred thousand and seven",
    "one hundred thousand million", "two thousand hundred", "ten hundredth", "a billionth of a second",
    "quadrillions", "three quintillionth", "sextillion septillion octillion nonillion",
    "99999999999999999999999 thousand", "123456789012345678901234567890 million",
    "12345678901234567890123 hundredth", "0.5 decillion", "nine hundred ninety nine decillion",
]

CRAFTED = NUMBER_PHRASES + [
    "Mr. Smith won't pay $20.50, uh, for the colour TV",
    "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
    # contractions
    "won't", "can't", "let's", "ain't", "y'all", "wanna", "gotta", "gonna", "i'ma", "imma", "woulda",
    "coulda", "shoulda", "ma'am", "he'd been there", "she's been there", "they'd gone home", "it's gone",
    "we'd done it", "he's got it", "isn't", "they're", "it's", "I'd", "we'll", "can't won't don't", "I'm",
    "we've", "o'clock", "rock 'n' roll", "the dog 's bone", "'tis", "James' book", "don 't", "it’s curly",
    "WON'T SHOUT", "I'M", "You'd've", "shan't", "needn't",
    # titles and abbreviations
    "Mr. Smith", "Mrs. Jones", "Dr. Who", "St. Louis", "Prof. X", "Capt. Hook", "Gov. Brown", "Gen. Lee",
    "Sen. Smith", "Rep. Jones", "Pres. Lincoln", "Rev. King", "Hon. member", "Asst. manager",
    "Assoc. professor", "Lt. Dan", "Col. Sanders", "John Jr.", "John Sr.", "Smith Esq.", "Ald. Brown",
    "Mr Mrs Dr", "mrs.", "21st street", "21 st street", "Main St.", "Mr.Smith", "Dr.No", "e.g. this",
    "U.S.A.", "a.b.c", "i.e.", "etc.",
    # fillers
    "uh, I think um yes", "hmm", "mm-hmm", "mhm", "mmm", "uh-huh", "umbrella", "yummy", "Um, uh, hmm.",
    # brackets and parentheses
    "[laughter] hello", "<unk> token", "(applause) thanks", "hello (world", "a [b c", "[a] b [c]",
    "x <y] z", "(nested (parens))", "()", "[]", "a (b) c (d e) f", "<b>bold</b>", "[MUSIC PLAYING]",
    "(", ")", "[", "]", "<>",
    # British spellings
    "colour", "favourite", "organise", "The Colour of Honour", "aeroplane", "theatre centre", "programme",
    "analyse", "cheque", "Colours", "organisations", "neighbour's", "travelling", "grey", "mum",
    # symbols, punctuation, diacritics
    "café", "naïve", "résumé", "Zürich", "œuvre", "Ærø", "straße", "Łódź", "þorn", "ÞORN", "Ðð đĐ ẞ",
    "smörgåsbord", "crème brûlée", "São Paulo", "ﬁ ligature", "x² + y²", "½ cup", "①", "™", "©2020",
    "hello—world", "hello–world", "“quoted”", "‘single’", "e-mail", "A&B", "#hashtag", "@user", "50°C",
    "π", "√2", "100 × 2", "a/b", "C++", "I ❤ NY", "emoji 😀", "...", "3.14", "end.", "Mr.", "the end. 5",
    "İstanbul", "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ", "Ǆ ǅ", "Ⅻ", "٣ apples", "١٢٣", "３ fullwidth ４", "²",
    "x\u0301", "a\u0308", "e\u0301\u0302", "ﬀ", "Ａｂｃ", "Привет, мир!", "Αθήνα", "日本語のテキスト。",
    "한국어 텍스트", "עברית", "العربية", "हिन्दी", "ก่อน", "👨‍👩‍👧 family", "🇺🇸 flag", "a_b", "snake_case",
    "$.50", "5.", ".5", "50%off", "%", "$", "¢", "£5.00", "€", "100 % sure", "5 $", "a.m. p.m.",
    "l'été", "naïveté's", "Ø", "ŒUVRE", "ł", "ǰ", "ﬆ", "ℌ", "℃", "…", "·", "¿Qué?", "¡Hola!",
    "«guillemets»", "„German“", "co-operate", "re-enter", "--", "- 5", "5-10", "1-800-555-1234",
    "twenty-one", "well-known", "twenty-first", "forty-two dollars",
    # whitespace
    "", " ", "tab\tseparated", "new\nline", "non\u00a0breaking", "  leading and trailing  ",
    "a\x1cb", "a\u2028b", "a\u3000b", "a\u200bb", "a\u00adb", "a\r\nb", "end\n",
]


def sentences(text):
    return [s.strip() for s in re.split(r"(?<=[.;!?])\s+", text) if s.strip()]


def corpus():
    texts = []
    with open(os.path.join(AUDIO, "hifitts-6097", "manifest.jsonl"), encoding="utf-8") as f:
        texts += [json.loads(line)["text_no_preprocessing"] for line in f if line.strip()]
    with open(os.path.join(AUDIO, "longform", "hifitts-dev-concat.txt"), encoding="utf-8") as f:
        texts += sentences(f.read())
    with open(os.path.join(AUDIO, "multilingual", "test_data.json"), encoding="utf-8") as f:
        tests = json.load(f)["tests"]["language_tests"]
    for t in tests:
        texts += [t["transcript"], t["transcript_with_punctuation"]]
    texts += CRAFTED
    unique = []
    for t in texts:
        if t not in unique:
            unique.append(t)
    return unique


def perturb(words, rng, vocabulary):
    out = []
    for w in words:
        r = rng.random()
        if r < 0.08:
            continue  # deletion
        if r < 0.16:
            out.append(rng.choice(vocabulary))  # substitution (or a lucky hit)
        else:
            out.append(w)
        if rng.random() < 0.06:
            out.append(rng.choice(vocabulary))  # insertion
    return " ".join(out)


def wer_case(references, hypotheses, normalization):
    normalizer = {"none": lambda s: s, "english": EnglishTextNormalizer(), "basic": BasicTextNormalizer()}[normalization]
    r = jiwer.process_words([normalizer(s) for s in references], [normalizer(s) for s in hypotheses])
    return {
        "normalization": normalization,
        "references": references,
        "hypotheses": hypotheses,
        "hits": r.hits,
        "substitutions": r.substitutions,
        "deletions": r.deletions,
        "insertions": r.insertions,
        "wer": r.wer,
    }


def wer_cases(texts):
    rng = random.Random(6097)
    english = [t for t in texts[:120] if t.strip()]
    vocabulary = sorted({w for t in english for w in t.split()})[:300] + ["the", "a", "uh", "twenty", "Mr."]
    cases = []
    # whole corpus as one list of pairs, and small lists that stress tie-breaking between alignments
    hyps = [perturb(t.split(), rng, vocabulary) for t in english]
    for normalization in ["none", "english", "basic"]:
        cases.append(wer_case(english, hyps, normalization))
    small_vocab = ["a", "b", "c", "a b", "b a"]
    for _ in range(150):
        n = rng.randint(1, 6)
        refs = [" ".join(rng.choice("abc") for _ in range(rng.randint(0, 12))) for _ in range(n)]
        refs = [r if r else rng.choice(small_vocab) for r in refs]
        hyps = [" ".join(rng.choice("abcd") for _ in range(rng.randint(0, 12))) for _ in range(n)]
        cases.append(wer_case(refs, hyps, "none"))
    # long single sentences (more than 64 words: rapidfuzz's multi-word bit matrices)
    for _ in range(10):
        ref = " ".join(rng.choice("abcde") for _ in range(rng.randint(60, 200)))
        hyp = " ".join(rng.choice("abcde") for _ in range(rng.randint(60, 200)))
        cases.append(wer_case([ref], [hyp], "none"))
    # edge cases: empty references and hypotheses, whitespace variants
    cases.append(wer_case([""], ["some words here"], "none"))
    cases.append(wer_case([""], [""], "none"))
    cases.append(wer_case(["a b c"], [""], "none"))
    cases.append(wer_case(["  a \t b  c "], ["a  b\tc"], "none"))
    cases.append(wer_case(["Mr. Smith won't pay $20.50"], ["mister smith will not pay 20.50 dollars"], "english"))
    cases.append(wer_case(["[noise]"], ["uh"], "english"))
    return cases


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    english = EnglishTextNormalizer()
    basic = BasicTextNormalizer()
    basic_diacritics = BasicTextNormalizer(remove_diacritics=True)
    basic_split = BasicTextNormalizer(remove_diacritics=True, split_letters=True)
    numbers = EnglishNumberNormalizer()
    texts = corpus()
    normalizer_cases = {
        "text": [
            {
                "input": t,
                "english": english(t),
                "basic": basic(t),
                "basic_remove_diacritics": basic_diacritics(t),
                "basic_remove_diacritics_split_letters": basic_split(t),
            }
            for t in texts
        ],
        "numbers": [{"input": t, "output": numbers(t)} for t in NUMBER_PHRASES],
    }
    with open(os.path.join(OUT_DIR, "normalizer_cases.json"), "w", encoding="utf-8") as f:
        json.dump(normalizer_cases, f, ensure_ascii=False, indent=0)
    cases = wer_cases(texts)
    with open(os.path.join(OUT_DIR, "wer_cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=0)
    print(f"{len(texts)} normaliser inputs, {len(NUMBER_PHRASES)} number phrases, {len(cases)} WER cases")


if __name__ == "__main__":
    main()
