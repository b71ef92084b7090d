"""The MCQ verifier's accept/reject rules, as tables of realistic model outputs."""

from __future__ import annotations

import random

import pytest

import rewardkit as rk
from rewardkit._errors import VerifierError
from rewardkit.verifiers.multiple_choice.verifier import INVALID_OPTION, OPTION_MISMATCH, MCQConfig, MCQVerifier

CAPITALS = ["Paris", "London", "Berlin", "Madrid"]  # A B C D; the UK's capital is B
PLANETS = ["Venus", "Mars", "Jupiter", "Saturn", "Mercury"]
SUMS = ["3", "4", "5", "22"]

# (name, completion, reference, options, expected correct, expected status)
ACCEPT = [
    ("parenthesised", "(B)", "B", CAPITALS, True, "ok"),
    ("answer_colon", "Answer: B", "B", CAPITALS, True, "ok"),
    ("lowercase_alone", "b", "B", CAPITALS, True, "ok"),
    ("lowercase_in_statement", "So the answer is (b).", "B", CAPITALS, True, "ok"),
    ("boxed", r"The capital of the UK is London, so the answer is $\boxed{B}$.", "B", CAPITALS, True, "ok"),
    ("boxed_text", r"$\boxed{\text{B}}$", "B", CAPITALS, True, "ok"),
    ("boxed_textbf_paren", r"Final answer: \boxed{\textbf{(B)}}", "B", CAPITALS, True, "ok"),
    ("fbox", r"\fbox{B}", "B", CAPITALS, True, "ok"),
    ("markdown_bold", "London is the capital of the United Kingdom.\n\n**B**", "B", CAPITALS, True, "ok"),
    ("bold_statement", "**Answer: (B) London**", "B", CAPITALS, True, "ok"),
    ("answer_tags", "<reasoning>London is the UK capital.</reasoning>\n<answer>B</answer>", "B", CAPITALS, True, "ok"),
    ("answer_tags_multiline", "<answer>\nB\n</answer>", "B", CAPITALS, True, "ok"),
    ("answer_tag_truncated", "The UK capital is London.\n<answer>B", "B", CAPITALS, True, "ok"),
    ("letter_with_text", "B) London", "B", CAPITALS, True, "ok"),
    ("letter_dot_text", "Answer: B. London", "B", CAPITALS, True, "ok"),
    ("option_word", "Option B", "B", CAPITALS, True, "ok"),
    ("square_brackets", "[B]", "B", CAPITALS, True, "ok"),
    ("markdown_heading", "### Answer\nB", "B", CAPITALS, True, "ok"),
    ("suffix_statement", "B is the correct answer.", "B", CAPITALS, True, "ok"),
    ("option_is_correct", "Option B is correct.", "B", CAPITALS, True, "ok"),
    ("json_answer_key", '{"reasoning": "London is the UK capital", "answer": "B"}', "B", CAPITALS, True, "ok"),
    ("subject_with_text_is_correct", "(B) London is the correct answer.", "B", CAPITALS, True, "ok"),
    (
        "subject_is_the_answer",
        "Paris is in France and Berlin in Germany. So B is the answer.",
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    ("option_text_is_correct", "London is the correct answer", "B", CAPITALS, True, "ok"),
    ("subject_after_discussion", "I think A is wrong while B is the correct answer", "B", CAPITALS, True, "ok"),
    ("caveat_then_best", "Statement A is correct, but B is the best answer.", "B", CAPITALS, True, "ok"),
    (
        "option_text_without_article",
        "The largest ocean is the Pacific. The answer is Pacific Ocean",
        "B",
        ["The Atlantic Ocean", "The Pacific Ocean"],
        True,
        "ok",
    ),
    ("most_appropriate", "Based on the analysis, option B is the most appropriate.", "B", CAPITALS, True, "ok"),
    ("text_in_parentheses", "The answer is B (London).", "B", CAPITALS, True, "ok"),
    ("irregular_spacing", "The correct answer  is\n\n(B)", "B", CAPITALS, True, "ok"),
    ("go_with", "Mars is called the Red Planet because of iron oxide. I'll go with B.", "B", PLANETS, True, "ok"),
    (
        "minerva_format",
        "Final Answer: The final answer is $\\boxed{B}$. I hope it is correct.",
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    (
        "final_stated_wins_over_reasoning",
        (
            "Let's check each option.\nA) Paris - capital of France, not the UK.\nC) Berlin - Germany.\n"
            "D) Madrid - Spain.\nTherefore the answer is B."
        ),
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    ("explanation_after_answer", "The answer is B.\nA is wrong, C is wrong, D is wrong.", "B", CAPITALS, True, "ok"),
    (
        "revised_with_wait",
        "The answer is A. Wait, actually London is the UK capital, so the answer is B.",
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    (
        "revised_box_draft",
        (
            "I first thought \\boxed{A}. Let me double-check the geography of Europe carefully and reconsider.\n"
            "\\boxed{B}"
        ),
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    ("both_discussed_then_chosen", "Both A and C are plausible, but the answer is C.", "C", CAPITALS, True, "ok"),
    ("option_text_alone", "The answer is London", "B", CAPITALS, True, "ok"),
    ("option_text_last_line", "The capital of the United Kingdom is\n\nLondon", "B", CAPITALS, True, "ok"),
    ("option_text_in_tags", "<answer>Mars</answer>", "B", PLANETS, True, "ok"),
    ("numeric_option_text", "2 + 2 = 4, so the answer is 4", "B", SUMS, True, "ok"),
    ("pronoun_i_not_a_letter", "Answer: I think it's B", "B", CAPITALS, True, "ok"),
    ("later_letters_are_reasons", "The answer is B, so A is wrong", "B", CAPITALS, True, "ok"),
    ("attached_text_agrees_other_rejected", "The answer is (B) London, not (A) Paris.", "B", CAPITALS, True, "ok"),
    (
        "think_block_ignored",
        "<think>Maybe the answer is A... no, London.</think>The answer is B",
        "B",
        CAPITALS,
        True,
        "ok",
    ),
    ("no_options_given", "After weighing the choices, the answer is (C).", "C", None, True, "ok"),
    ("fifth_option_valid", "Mercury is closest to the Sun. Answer: E", "E", PLANETS, True, "ok"),
    ("reference_as_index", "Answer: B", 1, CAPITALS, True, "ok"),
    ("reference_as_option_text", "Answer: B", "London", CAPITALS, True, "ok"),
    ("reference_parenthesised", "Answer: B", "(B)", CAPITALS, True, "ok"),
    ("rejected_as_a_trap", "The answer is B. Maybe A is a trap.", "B", CAPITALS, True, "ok"),
    ("rejected_as_tempting", "The answer is B. Maybe A is tempting, but it fails.", "B", CAPITALS, True, "ok"),
    ("rejected_as_red_herring", "Answer: B. Or maybe A is a red herring.", "B", CAPITALS, True, "ok"),
    ("rejected_as_misleading", "The answer is B. Perhaps A is misleading here.", "B", CAPITALS, True, "ok"),
]

REJECT = [
    ("wrong_letter", "The answer is A.", "B", CAPITALS, False, "ok"),
    ("wrong_option_text", "The answer is Paris", "B", CAPITALS, False, "ok"),
    ("hedge_or", "The answer is A or C.", "A", CAPITALS, False, "hedged"),
    ("hedge_either_or", "The answer is either A or C.", "C", CAPITALS, False, "hedged"),
    ("hedge_lowercase_or", "the answer is a or c", "A", CAPITALS, False, "hedged"),
    ("hedge_list", "Answer: A, B, C, D", "B", CAPITALS, False, "hedged"),
    ("hedge_maybe_right", "The answer is B. Maybe A is right.", "B", CAPITALS, False, "hedged"),
    (
        "hedge_trap_word_elsewhere",
        "The answer is B. Or maybe A is correct; B is a trap.",
        "B",
        CAPITALS,
        False,
        "hedged",
    ),
    ("hedge_slash", "Answer: B/C", "B", CAPITALS, False, "hedged"),
    ("hedge_run_of_letters", "Answer: ABCD", "B", CAPITALS, False, "hedged"),
    ("hedge_boxed_run", r"\boxed{ABCD}", "B", CAPITALS, False, "hedged"),
    ("hedge_two_boxes", r"The answer is \boxed{A} \boxed{B}", "B", CAPITALS, False, "hedged"),
    ("hedge_box_or_box", r"\boxed{A} or \boxed{B}", "B", CAPITALS, False, "hedged"),
    ("hedge_box_then_final_box", "The answer is \\boxed{B}.\n\nFinal: \\boxed{C}", "B", CAPITALS, False, "hedged"),
    ("hedge_two_answer_lines", "Answer: B\nAnswer: C", "B", CAPITALS, False, "hedged"),
    ("hedge_option_texts", "The answer is London or Paris", "B", CAPITALS, False, "hedged"),
    ("letter_outside_options", "Answer: E", "B", CAPITALS, False, INVALID_OPTION),
    ("letter_outside_default_letters", "Answer: K", "B", None, False, INVALID_OPTION),
    ("attached_text_names_other_option", "Answer: B) Paris", "B", CAPITALS, False, OPTION_MISMATCH),
    ("attached_text_names_gold_wrong_letter", "Answer: (C) London", "B", CAPITALS, False, OPTION_MISMATCH),
    ("subject_text_names_other_option", "(A) London is the correct answer.", "A", CAPITALS, False, OPTION_MISMATCH),
    ("parenthesised_text_names_other_option", "The answer is B (Paris).", "B", CAPITALS, False, OPTION_MISMATCH),
    ("pronoun_subject_is_no_answer", "This is the correct answer.", "B", CAPITALS, False, "no_answer"),
    ("no_answer_at_all", "I am not sure which city it is.", "B", CAPITALS, False, "no_answer"),
    ("empty", "", "B", CAPITALS, False, "no_answer"),
    ("only_analysis_lines", "A) Paris - incorrect\nB) London - correct", "B", CAPITALS, False, "no_answer"),
    ("answer_only_inside_unfinished_reasoning", "<think>the answer is B</think>", "B", CAPITALS, False, "no_answer"),
    ("reference_not_an_option", "Answer: B", "F", CAPITALS, False, "invalid_reference"),
    ("reference_index_out_of_range", "Answer: B", 4, CAPITALS, False, "invalid_reference"),
    ("reference_several_letters", "Answer: A", "AC", CAPITALS, False, "invalid_reference"),
    ("reference_of_wrong_type", "Answer: B", None, CAPITALS, False, "invalid_reference"),
]


def _check(completion, reference, options, correct, status):
    context = {} if options is None else {"options": options}
    verdict = MCQVerifier().verify(completion, reference, **context)
    assert (verdict.correct, verdict.status) == (correct, status), verdict
    assert verdict.score == (1.0 if correct else 0.0)
    return verdict


@pytest.mark.parametrize("name, completion, reference, options, correct, status", ACCEPT, ids=[r[0] for r in ACCEPT])
def test_accepts(name, completion, reference, options, correct, status):
    verdict = _check(completion, reference, options, correct, status)
    assert verdict.extracted == verdict.details["gold"]


@pytest.mark.parametrize("name, completion, reference, options, correct, status", REJECT, ids=[r[0] for r in REJECT])
def test_rejects(name, completion, reference, options, correct, status):
    _check(completion, reference, options, correct, status)


def test_hedged_verdict_lists_every_letter():
    verdict = MCQVerifier().verify("Answer: A, B, C, D", "B", options=CAPITALS)
    assert verdict.extracted == "A,B,C,D"
    assert verdict.details["letters"] == ["A", "B", "C", "D"]


def test_mismatch_names_the_option_the_text_belongs_to():
    verdict = MCQVerifier().verify("Answer: B) Paris", "B", options=CAPITALS)
    assert verdict.details["attached_text_names"] == "A"


def test_registered_as_mcq_and_accepts_chat_completions_and_extra_columns():
    with rk.get_verifier("mcq") as verifier:
        chat = [{"role": "user", "content": "Answer: A"}, {"role": "assistant", "content": "Answer: (B)"}]
        verdict = verifier.verify(chat, "B", options=CAPITALS, question="Capital of the UK?", split="test")
    assert isinstance(verifier, MCQVerifier)
    assert verdict.correct and verdict.extracted == "B"


def test_choices_alias_and_mapping_options():
    verifier = MCQVerifier()
    assert verifier.verify("The answer is London", "B", choices=CAPITALS).correct
    assert verifier.verify("The answer is London", "B", options={"A": "Paris", "B": "London"}).correct


def test_batch_matches_single_verdicts():
    rows = ACCEPT + REJECT
    verifier = MCQVerifier()
    contexts = [None if r[3] is None else {"options": r[3]} for r in rows]
    batch = verifier.verify_batch([r[1] for r in rows], [r[2] for r in rows], contexts)
    assert batch == [verifier.verify(r[1], r[2], **(c or {})) for r, c in zip(rows, contexts, strict=False)]


def test_batch_reuses_an_option_list_only_for_samples_that_read_it_the_same_way():
    """verify_batch reads each shared option list once; labels, a mutated list, ARC dicts, bad options and
    missing contexts must still give exactly the per-sample verdicts."""
    verifier = MCQVerifier()
    shared = ["Paris", "London", "Berlin", "Madrid"]
    arc = {"text": ["Paris", "London", "Berlin"], "label": ["1", "2", "3"]}
    cases = [
        ("The answer is (B)", "B", {"options": shared}),
        ("The answer is 2", "B", {"options": shared, "labels": ["1", "2", "3", "4"]}),
        ("The answer is 2", "B", {"options": shared}),
        ("The answer is London", 1, {"options": shared}),
        ("Answer: 2", "2", {"options": arc}),
        ("Answer: 2", "2", {"options": arc, "labels": ["A", "B", "C"]}),
        ("Answer: E", "A", None),
        ("Answer: (B)", "B", {"choices": shared}),
        ("Answer: B", "B", {"options": 7}),
        ("Answer: Madrid", "D", {"options": shared}),
    ]
    completions, references, contexts = zip(*cases, strict=False)

    def one_by_one() -> list:
        out = []
        for c, r, x in cases:
            try:
                out.append(verifier.verify(c, r, **(x or {})))
            except Exception as exc:  # noqa: BLE001 - compared with the batch's behaviour below
                out.append(type(exc))
        return out

    expected = one_by_one()
    assert expected[8] is VerifierError  # a bad option list is the caller's error, not a verdict
    with pytest.raises(VerifierError):
        verifier.verify_batch(completions, references, contexts)
    good = [i for i in range(len(cases)) if i != 8]
    batch = verifier.verify_batch(
        [completions[i] for i in good], [references[i] for i in good], [contexts[i] for i in good]
    )
    assert batch == [expected[i] for i in good]
    assert [v.correct for v in batch] == [True, True, False, True, True, True, False, True, True]
    shared[3] = "Lisbon"  # the same list object, changed between batches: read again
    again = verifier.verify_batch(["Answer: Lisbon"], ["D"], [{"options": shared}])
    assert again[0].correct


def test_constructor_params_change_behaviour():
    assert MCQVerifier(lowercase=False).verify("b", "B", options=CAPITALS).status == "no_answer"
    no_text = MCQVerifier(match_option_text=False)
    assert no_text.verify("The answer is London", "B", options=CAPITALS).status == "no_answer"
    assert MCQVerifier(max_options=4).verify("Answer: E", "B").status == INVALID_OPTION
    assert MCQVerifier(letters="PQRS").verify("Answer: Q", "Q").correct


def test_only_the_capped_tail_is_read():
    verifier = MCQVerifier(max_chars=200)
    completion = "Answer: B\n" + "Reflecting on the map of Europe. " * 20
    assert verifier.verify(completion, "B", options=CAPITALS).status == "no_answer"
    assert MCQVerifier().verify(completion, "B", options=CAPITALS).correct


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("letters", "abc", "upper-case"),
        ("letters", "AAB", "must not repeat"),
        ("max_options", 1, "max_options"),
        ("max_chars", 5, "max_chars"),
    ],
)
def test_bad_config_names_the_field(field, value, message):
    with pytest.raises(rk.ConfigError, match=message):
        MCQVerifier(**{field: value})
    with pytest.raises(rk.ConfigError, match=field):
        MCQConfig(**{field: value})


def test_bad_options_are_a_usage_error():
    with pytest.raises(rk.VerifierError, match="options must be a list"):
        MCQVerifier().verify("Answer: B", "B", options="Paris, London")
    with pytest.raises(rk.VerifierError, match="27 options"):
        MCQVerifier().verify("Answer: B", "B", options=[str(i) for i in range(27)])


ADVERSARIAL = {  # name: (completion, expected status); each is at least 200 KB
    "answer_is_repeated": ("the answer is " * 15_000, "no_answer"),
    "open_boxes": ("\\boxed{" * 30_000, "no_answer"),
    "open_answer_tags": ("<answer>" * 25_000, "no_answer"),
    "letters_and_connectors": ("A or " * 40_000, "no_answer"),
    "open_parens": ("(" * 200_000, "no_answer"),
    "one_long_word": ("A" * 200_000, "no_answer"),
    "pronoun_runs": ("I think " * 25_000, "no_answer"),
    "many_closed_boxes": ("\\boxed{A} " * 20_000, "ok"),
    "long_list_line": ("Answer: " + "A, " * 70_000, "no_answer"),
    "suffix_statements": ("Paris or London or B is the correct answer " * 5_000, "hedged"),
    "subjects_without_sentences": ("word " * 40_000 + "is the answer", "no_answer"),
    "nested_braces": ("\\boxed{\\text{" + "{" * 100_000 + "B" + "}" * 100_000, "no_answer"),
}


@pytest.mark.timeout(20)  # a catastrophic backtrack takes minutes on these inputs; linear work, milliseconds
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_200kb_completion_finishes(name):
    completion, status = ADVERSARIAL[name]
    assert len(completion) >= 200_000
    verdict = MCQVerifier().verify(completion, "A", options=CAPITALS)
    assert verdict.status == status
    assert verdict.correct == (status == "ok")


FUZZ_TOKENS = [
    "Answer:",
    "The answer is",
    "\\boxed{",
    "\\text{",
    "}",
    "{",
    "A",
    "B",
    "C",
    "E",
    "b",
    "I",
    "or",
    "and",
    ",",
    "<answer>",
    "</answer>",
    "<think>",
    "</think>",
    "(",
    ")",
    "[",
    "]",
    "**",
    "$",
    "London",
    "Paris",
    "\n",
    "is the correct answer",
    "Wait, actually",
    "Option",
    "ABCD",
    "I think",
    ".",
    " ",
    "é",
    "İ",
    "\\",
    '"',
]


@pytest.mark.parametrize("seed", range(4))
def test_random_token_soup_never_crashes_and_keeps_invariants(seed):
    rng = random.Random(seed)
    verifier = MCQVerifier()
    known = {"ok", "hedged", "no_answer", INVALID_OPTION, OPTION_MISMATCH}
    for _ in range(300):
        completion = " ".join(rng.choice(FUZZ_TOKENS) for _ in range(rng.randint(0, 40)))
        gold = rng.choice("ABCD")
        verdict = verifier.verify(completion, gold, options=CAPITALS)
        assert verdict.status in known, (completion, verdict)
        if verdict.correct:
            assert verdict.status == "ok" and verdict.extracted == gold and verdict.score == 1.0
        else:
            assert verdict.score == 0.0
        if verdict.status == "hedged":
            assert len(verdict.details["letters"]) > 1


def test_numpy_integer_reference_is_an_index():
    np = pytest.importorskip("numpy")
    assert MCQVerifier().verify("Answer: B", np.int64(1), options=CAPITALS).correct


@pytest.mark.slow
@pytest.mark.timeout(120)  # linear work: about a second each on a loaded 2-core machine
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_megabyte_completion_with_the_cap_lifted(name):
    completion, status = ADVERSARIAL[name]
    completion *= 5
    assert len(completion) >= 1_000_000
    verdict = MCQVerifier(max_chars=len(completion)).verify(completion, "A", options=CAPITALS)
    assert verdict.status == ("ok" if name == "long_list_line" else status)  # its fifth "Answer: A, A, ..." is A


def test_looping_completion_is_read_once_per_distinct_span(monkeypatch):
    """A repetition loop ("the answer is the answer is ...") costs one read per distinct span."""
    from rewardkit.verifiers.multiple_choice import extract as mcq_extract

    calls = []
    original = mcq_extract.ChoiceReader.read
    monkeypatch.setattr(
        mcq_extract.ChoiceReader, "read", lambda self, *a, **k: calls.append(a) or original(self, *a, **k)
    )
    assert MCQVerifier().verify("the answer is " * 1400, "A", options=CAPITALS).status == "no_answer"
    assert 0 < len(calls) < 40


MMLU_CHOICES = ["Paris", "London", "Berlin", "Madrid"]
ARC_DIGITS = {
    "text": ["dry palms", "wet palms", "palms covered with oil", "palms covered with lotion"],
    "label": ["1", "2", "3", "4"],
}
ARC_LETTERS = {"text": ARC_DIGITS["text"], "label": ["A", "B", "C", "D"]}
NUMERIC_DIGITS = {"text": ["3", "4", "5", "22"], "label": ["1", "2", "3", "4"]}

# (name, completion, reference, choices, expected correct, expected status, expected extracted)
DATASET_FORMATS = [
    ("mmlu_index", "Answer: B", 1, MMLU_CHOICES, True, "ok", "B"),
    ("mmlu_index_zero", "The answer is Paris", 0, MMLU_CHOICES, True, "ok", "A"),
    ("mmlu_index_wrong", "Answer: C", 1, MMLU_CHOICES, False, "ok", "C"),
    ("mmlu_index_out_of_range", "Answer: B", 4, MMLU_CHOICES, False, "invalid_reference", None),
    ("arc_letter_labels", "Answer: C", "C", ARC_LETTERS, True, "ok", "C"),
    ("arc_letter_labels_text", "The answer is dry palms", "A", ARC_LETTERS, True, "ok", "A"),
    ("arc_digit_label", "The answer is 1", "1", ARC_DIGITS, True, "ok", "A"),
    ("arc_digit_parenthesised", "Answer: (3)", "3", ARC_DIGITS, True, "ok", "C"),
    ("arc_digit_final_line", "Dry hands make the most friction.\n\n1", "1", ARC_DIGITS, True, "ok", "A"),
    ("arc_digit_option_word", "Option 2 is correct.", "2", ARC_DIGITS, True, "ok", "B"),
    ("arc_digit_with_text", "Answer: 1) dry palms", "1", ARC_DIGITS, True, "ok", "A"),
    ("arc_digit_text_only", "The answer is dry palms", "1", ARC_DIGITS, True, "ok", "A"),
    ("arc_digit_letter_answer", "Answer: A", "1", ARC_DIGITS, True, "ok", "A"),
    ("arc_digit_wrong", "The answer is 2", "1", ARC_DIGITS, False, "ok", "B"),
    ("arc_digit_hedge", "Answer: 1 or 2", "1", ARC_DIGITS, False, "hedged", "A,B"),
    ("arc_digit_contradicting_text", "Answer: 2) dry palms", "1", ARC_DIGITS, False, "option_mismatch", "B"),
    ("arc_digit_out_of_range", "Answer: 7", "1", ARC_DIGITS, False, "invalid_option", "G"),
    ("arc_decimal_is_not_a_label", "The answer is 1.5", "1", ARC_DIGITS, False, "no_answer", None),
    ("arc_ordinal_is_not_a_label", "The answer is 1st", "1", ARC_DIGITS, False, "no_answer", None),
    ("arc_digit_reference_out_of_range", "Answer: 1", "5", ARC_DIGITS, False, "invalid_reference", None),
    ("digits_without_labels_are_not_labels", "The answer is 1", 0, MMLU_CHOICES, False, "no_answer", None),
    ("number_that_is_label_and_other_text", "The answer is 4", "2", NUMERIC_DIGITS, False, "option_mismatch", "D"),
    ("number_text_longer_than_a_label", "The answer is 22", "4", NUMERIC_DIGITS, True, "ok", "D"),
    (
        "number_label_that_is_its_own_text",
        "Answer: 3",
        "3",
        {"text": ["1", "2", "3"], "label": ["1", "2", "3"]},
        True,
        "ok",
        "C",
    ),
]


@pytest.mark.parametrize(
    "name, completion, reference, choices, correct, status, extracted",
    DATASET_FORMATS,
    ids=[r[0] for r in DATASET_FORMATS],
)
def test_mmlu_and_arc_formats(name, completion, reference, choices, correct, status, extracted):
    verdict = MCQVerifier().verify(completion, reference, choices=choices)
    assert (verdict.correct, verdict.status, verdict.extracted) == (correct, status, extracted)


def test_digit_labels_are_reported_in_details():
    verdict = MCQVerifier().verify("Answer: 1 or 3", "3", choices=ARC_DIGITS)
    assert verdict.details["labels"] == ["1", "3"] and verdict.details["gold_label"] == "3"
    assert "labels" not in MCQVerifier().verify("Answer: B", 1, choices=MMLU_CHOICES).details


def test_labels_context_for_a_plain_list_and_numpy_choices():
    np = pytest.importorskip("numpy")
    verifier = MCQVerifier()
    assert verifier.verify("Answer: 2", "2", options=MMLU_CHOICES, labels=["1", "2", "3", "4"]).correct
    assert verifier.verify("Answer: B", np.int64(1), choices=np.array(MMLU_CHOICES)).correct
    arc = {"text": np.array(ARC_DIGITS["text"]), "label": np.array(ARC_DIGITS["label"])}
    assert verifier.verify("Answer: 2", "2", choices=arc).correct


@pytest.mark.parametrize("labels", [["A", "C", "D", "E"], ["0", "1", "2", "3"], ["1", "2"], "1234"])
def test_labels_out_of_order_are_a_usage_error(labels):
    with pytest.raises(rk.VerifierError, match="option labels must be A, B, C, D or 1, 2, 3, 4"):
        MCQVerifier().verify("Answer: B", "B", choices={"text": MMLU_CHOICES, "label": labels})


@pytest.mark.parametrize("seed", range(3))
def test_lowercase_twin_patterns_match_where_the_originals_do(seed):
    """The fast path reads lower-cased ASCII text with case-sensitive twins of two case-insensitive patterns."""
    from rewardkit.verifiers.multiple_choice import extract as mcq_extract

    rng = random.Random(seed)
    words = [
        "The",
        "ANSWER",
        "answer",
        "Is",
        "is",
        "I",
        "i'll",
        "Choose",
        "go",
        "WITH",
        "Final",
        "option",
        ":",
        "correct",
        "MOST",
        "Likely",
        "would",
        "Be",
        "seems",
        "to",
        "B",
        "myanswer",
        "-",
        "=",
        "\n",
        "  ",
    ]
    for _ in range(400):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 30)))
        for original, twin in (
            (mcq_extract._STATEMENT, mcq_extract._STATEMENT_LOWER),
            (mcq_extract._SUFFIX, mcq_extract._SUFFIX_LOWER),
        ):
            assert [m.span() for m in original.finditer(text)] == [m.span() for m in twin.finditer(text.lower())]


# An answer followed by an alternative, or several letters in a row, is a hedge wherever it is written;
# a letter after the answer that starts a reason, or that a negation rules out, is not an alternative.
HEDGES_AFTER_AN_ANSWER = [
    ("tag_or_maybe", "<answer>B. Or maybe C.</answer>"),
    ("tag_space_separated", "<answer>B C</answer>"),
    ("tag_all_letters", "<answer>A B C D</answer>"),
    ("tag_lines", "<answer>\nB\nD\n</answer>"),
    ("statement_all_letters", "Answer: A B C D"),
    ("statement_two_letters", "The answer is B C"),
    ("statement_full_stops", "Answer: B. C. D."),
    ("statement_letters_on_lines", "Answer: B\nC\nD"),
    ("statement_possibly", "Answer: B possibly D"),
    ("statement_wait", "The answer is B. Wait, C."),
    ("statement_actually", "The answer is B. Hmm, actually D."),
    ("statement_no", "Final answer: B. No, C."),
    ("statement_could_also_be", "The answer is B but it could also be C"),
    ("statement_parenthesised_or", "The answer is B (or C)"),
    ("statement_maybe_text", "The answer is B; maybe Paris"),
    ("statement_alternatively_text", "The answer is B. Alternatively, Madrid."),
    ("statement_also_works", "The answer is B. C could also work."),
    ("statement_next_line_also", "Answer: B.\nI think D is also plausible"),
    ("statement_either", "The correct option is B, or either D"),
    ("statement_or_else", "Answer: B or else D"),
    ("statement_though_might", "Answer: B, though it might be C"),
    ("statement_run_then_or", "Answer: B C, or D."),
    ("box_then_or", r"\boxed{B} or C"),
    ("box_then_or_maybe_text", r"\boxed{B}, or maybe Berlin"),
    ("box_letters", r"\boxed{B D}"),
    ("box_then_letter", "\\boxed{B}\n\nD"),
    ("tag_then_or", "<answer>B</answer> or C"),
    ("tag_then_perhaps_option_text", "<answer>B) London</answer>\nPerhaps Berlin."),
    ("subject_then_alternative", "B is the correct answer, or possibly A."),
    ("last_line_letters", "London is the UK's capital.\n\nB D"),
    ("lowercase_alternative", "the answer is b. or maybe c."),
    ("arc_labels", "Answer: 2 3"),
]

STILL_ONE_ANSWER = [
    ("reason_after_full_stop", "The answer is B. A is the capital of France."),
    ("wait_then_reason", "The answer is B. Wait, A is wrong."),
    ("alternative_ruled_out", "The answer is B. Maybe C, but it is not a capital of the UK."),
    ("also_wrong", "The answer is B. C is also wrong."),
    ("letters_that_start_reasons", "Answer: B - London. C and D are wrong."),
    ("not_other", "The answer is B, not A."),
    ("negation_with_text", "The answer is (B) London. Paris is in France."),
    ("double_check_same_letter", "Answer: B. Actually, let me double check: yes, B."),
    ("same_letter_alternative", "<answer>B. Or maybe London.</answer>"),
    ("either_way", "The answer is B, either way."),
    ("box_then_reason", "\\boxed{B}\n\nC is Berlin, which is in Germany."),
    ("tag_then_reason", "<answer>B</answer>\nA: Paris is in France"),
    ("minerva_tail", "Final Answer: The final answer is $\\boxed{B}$. I hope it is correct."),
    ("no_other_option", "Answer: B. No other option fits."),
    ("revised_to_a_new_statement", "The answer is C. Wait, no, the answer is B."),
    ("explanation_line", "Answer: B\n\nExplanation: A is Paris"),
]


@pytest.mark.parametrize("name, completion", HEDGES_AFTER_AN_ANSWER, ids=[r[0] for r in HEDGES_AFTER_AN_ANSWER])
def test_an_answer_with_an_alternative_is_hedged(name, completion):
    choices = ARC_DIGITS if name == "arc_labels" else CAPITALS
    gold = "2" if name == "arc_labels" else "B"
    verdict = MCQVerifier().verify(completion, gold, choices=choices)
    assert (verdict.status, verdict.score) == ("hedged", 0.0), verdict
    assert "B" in verdict.details["letters"] and len(verdict.details["letters"]) > 1


@pytest.mark.parametrize("name, completion", STILL_ONE_ANSWER, ids=[r[0] for r in STILL_ONE_ANSWER])
def test_reasons_and_negated_letters_after_an_answer_are_not_alternatives(name, completion):
    _check(completion, "B", CAPITALS, True, "ok")


@pytest.mark.parametrize("seed", range(3))
def test_no_hedge_template_credits_any_letter(seed):
    """Every way of writing the gold with another option after it earns nothing, whichever letter is gold."""
    rng = random.Random(seed)
    templates = [
        "<answer>{a}. Or maybe {b}.</answer>",
        "<answer>{a} {b}</answer>",
        "Answer: {a} {b}",
        "The answer is {a}. Wait, {b}.",
        r"\boxed{{{a}}} or {b}",
        "Answer: {a}\n{b}",
        "The answer is {a}, possibly {b}",
        "Final answer: {a}. Actually {b}.",
        "{a} {b}",
    ]
    verifier = MCQVerifier()
    for _ in range(60):
        gold, other = rng.sample("ABCD", 2)
        template = rng.choice(templates)
        for a, b in ((gold, other), (other, gold)):
            verdict = verifier.verify(template.format(a=a, b=b), gold, options=CAPITALS)
            assert verdict.status == "hedged" and verdict.score == 0.0, (template, a, b, verdict)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("unit", ["B. Or maybe C. ", "A B ", "B, or maybe C is also ", "B C, or D. Wait, "])
def test_long_runs_of_alternatives_stay_linear(unit):
    completion = "Answer: " + unit * (200_000 // len(unit))
    verdict = MCQVerifier(max_chars=len(completion)).verify(completion, "B", options=CAPITALS)
    assert verdict.score == 0.0
