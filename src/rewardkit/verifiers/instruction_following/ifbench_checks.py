"""IFBench's out-of-distribution instructions (allenai/IFBench, Pyatkin et al., 2025): counting, ratios, words
and sentences. The formatting and fixed-task ones are in :mod:`.ifbench_format_checks`.

Words here are whitespace-separated tokens without their punctuation, as IFBench counts them; sentences follow
our rule (:mod:`.text`; IFBench uses NLTK's Punkt). Syllables are counted by syllapy and emoji told by the
emoji package, as IFBench does (both in the ``ifeval`` extra); stop words are the English list NLTK ships
(its words without an apostrophe: words here are runs of word characters). Not covered: ``words:start_verb`` (a
part-of-speech tagger): such a row is ``invalid_reference``.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping
from typing import Any

from rewardkit.verifiers.instruction_following.registry import INT, TEXT, check
from rewardkit.verifiers.instruction_following.text import WORD, count_words, needs, split_sentences

Args = Mapping[str, Any]
PUNCTUATION = string.punctuation
_NO_PUNCTUATION = str.maketrans("", "", PUNCTUATION)
CONJUNCTIONS = frozenset({"and", "but", "for", "nor", "or", "so", "yet"})
#: the names IFBench's count:person_names instruction lists for the model to choose from
PERSON_NAMES = (
    "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin "
    "Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria "
    "Elijah Layla Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella "
    "Jonathan"
).split()
PRONOUNS = frozenset(
    "i me we us you he him she her it they them my mine our ours your yours his hers its their theirs myself "
    "ourselves yourself yourselves himself herself itself themselves this that these those who whom whose which "
    "what whoever whomever whatever whichever anybody anyone anything everybody everyone everything nobody nothing "
    "somebody someone something each either neither both all some any none".split()
)
STOP_WORDS = frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves what which who whom this that these those am is are "
    "was were be been being have has had having do does did doing a an the and but if or because as until while "
    "of at by for with about against between into through during before after above below to from up down in out "
    "on off over under again further then once here there when where why how all any both each few more most "
    "other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y "
    "ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn".split()
)
PRIMES = frozenset({2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97})
CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def plain_words(text: str) -> list[str]:
    """Whitespace-separated words with every punctuation mark removed (empty ones dropped)."""
    return [w for w in text.translate(_NO_PUNCTUATION).split() if w]


def _bare(token: str) -> str:
    return token.strip(PUNCTUATION + " ")


# ------------------------------------------------------------------------------------------------ counts


@check("count:word_count_range", min_words=INT, max_words=INT)
def word_count_range(response: str, args: Args) -> bool:
    return int(args["min_words"]) <= count_words(response) <= int(args["max_words"])


@check("count:unique_word_count", N=INT)
def unique_word_count(response: str, args: Args) -> bool:
    return len({_bare(w) for w in response.lower().split()} - {""}) >= int(args["N"])


@check("count:conjunctions", small_n=INT)
def conjunctions(response: str, args: Args) -> bool:
    """At least ``small_n`` different coordinating conjunctions (and, but, for, nor, or, so, yet)."""
    used = {_bare(w).lower() for w in response.split()} & CONJUNCTIONS
    return len(used) >= int(args["small_n"])


@check("count:person_names", N=INT)
def person_names(response: str, args: Args) -> bool:
    return sum(1 for n in PERSON_NAMES if re.search(rf"\b{n}\b", response)) >= int(args["N"])


@check("count:numbers", N=INT)
def numbers(response: str, args: Args) -> bool:
    """Exactly N numbers (punctuation removed first: ``3.14`` and ``1,000`` are one number each)."""
    return len(re.findall(r"\d+", response.translate(_NO_PUNCTUATION))) == int(args["N"])


@check("count:pronouns", N=INT)
def pronouns(response: str, args: Args) -> bool:
    words = WORD.findall(response.replace("/", " ").lower())
    return sum(1 for w in words if w in PRONOUNS) >= int(args["N"])


@check("count:punctuation")
def punctuation_cover(response: str, args: Args) -> bool:
    """An interrobang (``?!``, ``!?`` or ``‽``) and, beside it, each of ``. , ! ? ; :``."""
    if not any(mark in response for mark in ("?!", "!?", "‽")):
        return False
    rest = response.replace("?!", "", 1)
    if rest == response:
        rest = response.replace("!?", "", 1)
    return set(".,!?;:") <= set(rest)


@check("count:keywords_multiple", keyword1=TEXT, keyword2=TEXT, keyword3=TEXT, keyword4=TEXT, keyword5=TEXT)
def keywords_multiple(response: str, args: Args) -> bool:
    """The five keywords 1, 2, 3, 5 and 7 times (case ignored, inside other words too)."""
    text = response.lower()
    wanted = zip((args[f"keyword{i}"] for i in range(1, 6)), (1, 2, 3, 5, 7), strict=True)
    return all(text.count(str(k).lower()) == n for k, n in wanted)


@check("count:words_japanese", N=INT)
def words_japanese(response: str, args: Args) -> bool:
    """Every N-th word (numbers aside) in Japanese script."""
    every = int(args["N"])
    if every < 1:
        return False
    for i, token in enumerate(response.split()):
        word = _bare(token)
        if (i + 1) % every == 0 and word and not word.isdigit() and not _JAPANESE.search(word):
            return False
    return True


# ------------------------------------------------------------------------------------------------ ratios


@check("ratio:stop_words", percentage=INT)
def stop_words(response: str, args: Args) -> bool:
    """Stop words at most ``percentage`` percent of the words."""
    words = [w.lower() for w in WORD.findall(response)]
    return bool(words) and 100 * sum(1 for w in words if w in STOP_WORDS) / len(words) <= int(args["percentage"])


def _endings(response: str) -> Counter[str]:
    """How many sentences end with each of ``.``, ``?``, ``!`` (closing quotes and brackets aside)."""
    ends = (s.rstrip("\"'”’)]") for s in split_sentences(response))
    return Counter(e[-1] for e in ends if e and e[-1] in ".?!")


@check("ratio:sentence_type")
def sentence_type(response: str, args: Args) -> bool:
    """Twice as many statements (``.``) as questions (``?``)."""
    ends = _endings(response)
    return ends["."] == 2 * ends["?"]


@check("ratio:sentence_balance")
def sentence_balance(response: str, args: Args) -> bool:
    ends = _endings(response)
    return ends["."] == ends["?"] == ends["!"]


@check("ratio:overlap", reference_text=TEXT, percentage=INT)
def overlap(response: str, args: Args) -> bool:
    """The share of the response's character trigrams found in the reference text, within 2 points."""
    grams = {response[i : i + 3] for i in range(len(response) - 2)}
    reference = str(args["reference_text"])
    if not grams:
        return False
    shared = len(grams & {reference[i : i + 3] for i in range(len(reference) - 2)}) / len(grams)
    return abs(shared * 100 - int(args["percentage"])) <= 2


@check("ratio:sentence_words")
def sentence_words(response: str, args: Args) -> bool:
    """Three sentences of the same number of characters."""
    sentences = [s.strip() for s in split_sentences(response)]
    return len(sentences) == 3 and len({len(s) for s in sentences}) == 1


# ------------------------------------------------------------------------------------------------- words


@check("words:alphabet")
def alphabet_loop(response: str, args: Args) -> bool:
    """Each word starts with the letter after the previous word's first letter (z loops to a)."""
    words = [w.lower() for w in plain_words(response)]
    if not words or words[0][0] not in string.ascii_lowercase:
        return False
    letter = words[0][0]
    for word in words[1:]:
        letter = chr((ord(letter) - ord("a") + 1) % 26 + ord("a"))
        if word[0] != letter:
            return False
    return True


@check("words:vowel")
def single_vowel_paragraph(response: str, args: Args) -> bool:
    """One paragraph (one line) using at most three different vowels."""
    text = response.strip().lower()
    return "\n" not in text and len(set(text) & set("aeiou")) <= 3


@check("words:consonants")
def consonant_clusters(response: str, args: Args) -> bool:
    words = response.lower().split()
    return all(any(a in CONSONANTS and b in CONSONANTS for a, b in zip(w, w[1:], strict=False)) for w in words)


@check("words:palindrome")
def palindromes(response: str, args: Args) -> bool:
    """At least ten words of five or more characters that read the same backwards."""
    return sum(1 for w in plain_words(response.lower()) if len(w) >= 5 and w == w[::-1]) >= 10


@check("words:prime_lengths")
def prime_lengths(response: str, args: Args) -> bool:
    return all(len(w) in PRIMES for w in plain_words(response))


@check("words:repeats", small_n=INT)
def limited_repeats(response: str, args: Args) -> bool:
    counts = Counter(plain_words(response.lower()))
    return all(n <= int(args["small_n"]) for n in counts.values())


@check("words:no_consecutive")
def no_consecutive_first_letter(response: str, args: Args) -> bool:
    firsts = [w[0] for w in plain_words(response.lower())]
    return all(a != b for a, b in zip(firsts, firsts[1:], strict=False))


@check("words:last_first")
def last_word_first_next(response: str, args: Args) -> bool:
    """Each sentence starts with the word the previous one ended with."""
    sentences = split_sentences(response)
    for before, after in zip(sentences, sentences[1:], strict=False):
        last, first = before.rstrip(PUNCTUATION + " ").split(), after.lstrip(PUNCTUATION + " ").split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


@check("words:paragraph_last_first")
def paragraph_last_first(response: str, args: Args) -> bool:
    """Each line (paragraph) ends with the word it starts with."""
    for line in response.split("\n"):
        words = line.strip().lower().strip(PUNCTUATION + " ").split()
        if words and words[0] != words[-1]:
            return False
    return True


@check("words:keywords_specific_position", keyword=TEXT, n=INT, m=INT)
def keywords_specific_position(response: str, args: Args) -> bool:
    sentences = split_sentences(response)
    n, m = int(args["n"]), int(args["m"])
    if not 1 <= n <= len(sentences):
        return False
    words = WORD.findall(sentences[n - 1])
    return 1 <= m <= len(words) and words[m - 1].lower() == str(args["keyword"]).strip().lower()


@check("words:words_position", keyword=TEXT)
def words_position(response: str, args: Args) -> bool:
    """The keyword is the second word and the second-to-last word."""
    words = [w.lower() for w in WORD.findall(response)]
    keyword = str(args["keyword"]).strip().lower()
    return len(words) >= 2 and words[1] == keyword and words[-2] == keyword


# --------------------------------------------------------------------------------------------- sentences


@check("sentence:keyword", word=TEXT, N=INT)
def keyword_in_sentence(response: str, args: Args) -> bool:
    sentences = split_sentences(response)
    n = int(args["N"])
    word = re.escape(str(args["word"]).strip())
    return 1 <= n <= len(sentences) and re.search(rf"\b{word}\b", sentences[n - 1], re.IGNORECASE) is not None


@check("sentence:increment", small_n=INT)
def incrementing_word_count(response: str, args: Args) -> bool:
    counts = [len(plain_words(s)) for s in split_sentences(response)]
    return bool(counts) and all(b == a + int(args["small_n"]) for a, b in zip(counts, counts[1:], strict=False))


def _alliteration(sentence: str) -> int:
    """Words in runs of neighbours sharing a first letter (a run of k words counts k)."""
    words = [w for w in (t.lstrip(PUNCTUATION + " ") for t in sentence.lower().split()) if w]
    score, in_run = 0, False
    for a, b in zip(words, words[1:], strict=False):
        if a[0] == b[0]:
            score += 1 if in_run else 2
            in_run = True
        else:
            in_run = False
    return score


@check("sentence:alliteration_increment")
def alliteration_increment(response: str, args: Args) -> bool:
    scores = [_alliteration(s) for s in split_sentences(response)]
    return all(b > a for a, b in zip([-1, *scores], scores, strict=False))


@check("words:odd_even_syllables")
def alternating_syllables(response: str, args: Args) -> bool:
    """Neighbouring words alternate between an odd and an even number of syllables."""
    syllapy = needs("syllapy")
    parities = [syllapy.count(w) % 2 for w in plain_words(response.lower())]
    return all(a != b for a, b in zip(parities, parities[1:], strict=False))


@check("format:emoji")
def emoji_per_sentence(response: str, args: Args) -> bool:
    """An emoji ends every sentence (or, the splitter having put it there, opens the next one)."""
    emoji = needs("emoji")
    sentences = [s.translate(_NO_PUNCTUATION).strip() for s in split_sentences(response)]

    def ends_with_emoji(text: str) -> bool:
        found = emoji.emoji_list(text)
        return bool(found) and found[-1]["match_end"] >= len(text.rstrip("\ufe0f\u200d"))

    def starts_with_emoji(text: str) -> bool:
        found = emoji.emoji_list(text)
        return bool(found) and found[0]["match_start"] == 0

    for i, sentence in enumerate(sentences):
        if not sentence:
            return False
        if not ends_with_emoji(sentence) and not (i + 1 < len(sentences) and starts_with_emoji(sentences[i + 1])):
            return False
    return bool(sentences)
