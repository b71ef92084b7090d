"""The ifeval verifier: each instruction id, strict and loose, all and fraction, think blocks, row layouts,
bad rows."""

from __future__ import annotations

import json

import pytest
from ifbench_cases import IFBENCH_CASES
from ifeval_cases import EXTENDED_CASES, FUNC_NAME_CASES, OWN_CASES, REFERENCE_CASES

import rewardkit as rk
from rewardkit.verifiers.instruction_following import IFEvalVerifier
from rewardkit.verifiers.instruction_following.registry import CHECKS
from rewardkit.verifiers.instruction_following.text import count_sentences, split_sentences

pytest.importorskip("langdetect", reason="the ifeval extra (langdetect) is not installed")

IFEVAL_IDS = {
    "keywords:existence", "keywords:frequency", "keywords:forbidden_words", "keywords:letter_frequency",
    "language:response_language", "length_constraints:number_sentences", "length_constraints:number_paragraphs",
    "length_constraints:number_words", "length_constraints:nth_paragraph_first_word",
    "detectable_content:number_placeholders", "detectable_content:postscript",
    "detectable_format:number_bullet_lists", "detectable_format:constrained_response",
    "detectable_format:number_highlighted_sections", "detectable_format:multiple_sections",
    "detectable_format:json_format", "detectable_format:title", "combination:two_responses",
    "combination:repeat_prompt", "startend:end_checker", "startend:quotation", "change_case:capital_word_frequency",
    "change_case:english_capital", "change_case:english_lowercase", "punctuation:no_comma",
}  # fmt: skip


ALL_CASES = REFERENCE_CASES + OWN_CASES + EXTENDED_CASES + FUNC_NAME_CASES + IFBENCH_CASES


def strict() -> IFEvalVerifier:
    return IFEvalVerifier()


@pytest.mark.parametrize(
    ("instruction", "kwargs", "response", "followed"),
    [case[1:] for case in ALL_CASES],
    ids=[case[0] for case in ALL_CASES],
)
def test_each_instruction_is_checked_as_ifeval_defines_it(instruction, kwargs, response, followed):
    verdict = strict().verify(response, [instruction], kwargs=[kwargs])
    assert verdict.status == "ok", verdict
    assert verdict.details["instructions"] == [{"id": instruction, "followed": followed}]
    assert verdict.correct is followed and verdict.score == float(followed)


def test_every_known_id_has_a_passing_and_a_failing_case():
    assert IFEVAL_IDS <= set(CHECKS)
    assert len(CHECKS) == 136  # IFEval's 25, open-instruct's 29 IFEvalG and 25 func_name, IFBench's 57
    for instruction in CHECKS:
        outcomes = {followed for _, i, _, _, followed in ALL_CASES if i == instruction}
        assert outcomes == {True, False}, instruction


def test_loose_mode_forgives_a_preamble_line_markdown_stars_and_a_sign_off():
    preamble = "Sure, here is my answer:\n<<my title>>\nevery word here is lower case.\nHope this helps!"
    ids = ["change_case:english_lowercase", "detectable_format:title"]
    assert strict().verify(preamble, ids).details["followed"] == 1  # the title passes, the case does not
    loose = IFEvalVerifier(mode="loose").verify(preamble, ids)
    assert loose.correct and loose.details["mode"] == "loose"
    starred = '"**Bold** and quoted"'
    stars_matter = ["keywords:existence"]
    assert not strict().verify(starred, stars_matter, kwargs=[{"keywords": ["bold and"]}]).correct
    assert IFEvalVerifier(mode="loose").verify(starred, stars_matter, kwargs=[{"keywords": ["bold and"]}]).correct


def test_loose_mode_still_fails_what_no_reading_satisfies():
    verdict = IFEvalVerifier(mode="loose").verify("Hello, world", ["punctuation:no_comma"])
    assert verdict.status == "ok" and not verdict.correct


def test_all_gives_credit_only_when_every_instruction_is_followed_and_fraction_gives_the_share():
    ids = ["punctuation:no_comma", "keywords:existence", "startend:quotation", "detectable_format:title"]
    kwargs = [{}, {"keywords": ["river"]}, {}, {}]
    response = "The river runs, and runs"
    all_ = IFEvalVerifier(aggregate="all").verify(response, ids, kwargs=kwargs)
    fraction = IFEvalVerifier(aggregate="fraction").verify(response, ids, kwargs=kwargs)
    assert all_.score == 0.0 and not all_.correct
    assert fraction.score == 0.25 and not fraction.correct and fraction.extracted == "1/4 followed"
    whole = IFEvalVerifier(aggregate="fraction").verify("<<T>> the river", ids[1:2] + ids[3:], kwargs=[kwargs[1], {}])
    assert whole.score == 1.0 and whole.correct


def test_the_reasoning_block_is_not_judged_and_an_unclosed_one_is_no_answer():
    ids, kwargs = ["punctuation:no_comma"], [{}]
    closed = strict().verify("<think>first, then, finally</think>No commas here.", ids, kwargs=kwargs)
    assert closed.correct
    template_opened = strict().verify("a, b, c</think>No commas here.", ids, kwargs=kwargs)
    assert template_opened.correct  # the chat template opened the block in the prompt
    unclosed = strict().verify("<think>No commas here and still thinking", ids, kwargs=kwargs)
    assert unclosed.status == "no_answer" and unclosed.score == 0.0 and unclosed.details["reason"] == "unclosed <think>"
    kept = IFEvalVerifier(strip_think=False).verify("<think>a, b</think>ok", ids, kwargs=kwargs)
    assert not kept.correct


def test_an_empty_answer_is_no_answer_not_a_pass_of_negative_instructions():
    verdict = strict().verify("<think>done</think>   ", ["punctuation:no_comma"])
    assert verdict.status == "no_answer" and not verdict.correct


def test_chat_message_completions_are_read_as_their_assistant_text():
    messages = [{"role": "assistant", "content": "<<Hi>> there"}]
    assert strict().verify(messages, ["detectable_format:title"]).correct


def test_google_ifeval_rows_drop_the_none_arguments_of_other_instructions():
    row_kwargs = [
        {"num_highlights": None, "relation": None, "num_words": 3, "keywords": None, "prompt_to_repeat": None},
        {"num_highlights": None, "relation": None, "num_words": None, "keywords": None, "prompt_to_repeat": None},
    ]
    # google/IFEval stores "relation" for number_words; here it is None on purpose, so the row is incomplete
    verdict = strict().verify(
        "one two three", ["length_constraints:number_words", "punctuation:no_comma"], kwargs=row_kwargs
    )
    assert verdict.status == "invalid_reference" and "needs" in verdict.details["reason"]
    row_kwargs[0]["relation"] = "at least"
    verdict = strict().verify(
        "one two three", ["length_constraints:number_words", "punctuation:no_comma"], kwargs=row_kwargs
    )
    assert verdict.correct


def test_open_instruct_ground_truth_json_and_lists_of_it():
    one = json.dumps({"instruction_id": ["keywords:existence"], "kwargs": [{"keywords": ["tea"]}]})
    assert strict().verify("I like tea.", one).correct
    several = json.dumps(
        [
            {"instruction_id": ["keywords:existence"], "kwargs": [{"keywords": ["tea"]}]},
            {"instruction_id": ["punctuation:no_comma"], "kwargs": [None]},
        ]
    )
    verdict = strict().verify("I like tea, truly.", several)
    assert [i["followed"] for i in verdict.details["instructions"]] == [True, False]
    as_mapping = {"instruction_id_list": "detectable_format:title", "kwargs": {}}
    assert strict().verify("<<x>>", as_mapping).correct


def test_open_instruct_func_name_rows_carry_their_arguments_beside_the_name():
    truth = json.dumps({"func_name": "validate_word_constraint", "N": 3, "quantifier": "at least", "end_phrase": None})
    assert strict().verify("one two three", truth).details["instructions"] == [
        {"id": "func_name:validate_word_constraint", "followed": True}
    ]
    assert not strict().verify("one two", truth).correct
    unknown = strict().verify("x", json.dumps({"func_name": "validate_telepathy"}))
    assert unknown.status == "invalid_reference" and "func_name:validate_telepathy" in unknown.details["reason"]
    needs = strict().verify("x", json.dumps({"func_name": "validate_word_constraint", "N": 3, "quantifier": "lots"}))
    assert needs.status == "invalid_reference" and "'at least', 'at most', 'around'" in needs.details["reason"]
    prompt = strict().verify("Say hi. Hi!", json.dumps({"func_name": "validate_repeat_prompt"}), prompt="Say hi.")
    assert prompt.correct  # original_prompt from the row's prompt


def test_repeat_prompt_falls_back_to_the_rows_prompt():
    verdict = strict().verify("Say hi. Hi!", ["combination:repeat_prompt"], prompt="Say hi.")
    assert verdict.correct
    assert strict().verify("Hi!", ["combination:repeat_prompt"], prompt="Say hi.").status == "ok"


@pytest.mark.parametrize(
    ("reference", "kwargs", "reason"),
    [
        (["keywords:telepathy"], None, "unknown instruction id 'keywords:telepathy'"),
        (["keywords:existence"], [{}], "keywords:existence needs keywords"),
        (["keywords:frequency"], [{"keyword": "a", "frequency": "many", "relation": "at least"}], "whole number"),
        (["keywords:frequency"], [{"keyword": "a", "frequency": 2, "relation": "exactly"}], "must be one of"),
        (["keywords:letter_frequency"], [{"letter": "ab", "let_frequency": 1, "let_relation": "at least"}], "single"),
        (["punctuation:no_comma", "startend:quotation"], [{}], "one mapping per instruction id"),
        ("{not json", None, "not valid JSON"),
        ({"kwargs": []}, None, "has no instruction_id_list"),
        ([], None, "names no instruction ids"),
        (42, None, "must be a list of instruction ids"),
        (["punctuation:no_comma"], ["not a mapping"], "must be a mapping"),
    ],
    ids=lambda v: str(v)[:40],
)
def test_a_bad_row_is_an_invalid_reference_with_a_reason_never_a_crash(reference, kwargs, reason):
    verdict = strict().verify("Any answer.", reference, kwargs=kwargs)
    assert verdict.status == "invalid_reference" and verdict.is_infrastructure_failure
    assert reason in verdict.details["reason"]


def test_numbers_stored_as_floats_or_text_are_read():
    kwargs = [{"num_words": 2.0, "relation": "at least"}]
    assert strict().verify("two words", ["length_constraints:number_words"], kwargs=kwargs).correct
    kwargs = [{"num_words": "3", "relation": "at least"}]
    assert not strict().verify("two words", ["length_constraints:number_words"], kwargs=kwargs).correct
    kwargs = [{"num_words": "2.0", "relation": "at least"}]
    assert strict().verify("two words", ["length_constraints:number_words"], kwargs=kwargs).correct
    one_item = [{"last_word": ["now"]}]  # open-instruct keeps some words as one-item lists
    assert strict().verify("Go now. Come back now!", ["last_word:last_word_sent"], kwargs=one_item).correct


def test_a_batch_with_bad_rows_judges_the_good_ones():
    verdicts = strict().verify_batch(
        ["No commas", "a, b", "x"], [["punctuation:no_comma"], ["punctuation:no_comma"], ["bogus:id"]]
    )
    assert [v.status for v in verdicts] == ["ok", "ok", "invalid_reference"]
    assert [v.correct for v in verdicts] == [True, False, False]


def test_bad_settings_are_config_errors_naming_the_choices():
    with pytest.raises(rk.ConfigError, match="mode must be one of strict, loose"):
        IFEvalVerifier(mode="lenient")
    with pytest.raises(rk.ConfigError, match="aggregate must be one of all, fraction"):
        rk.get_verifier("ifeval", aggregate="mean")


def test_the_sentence_rule():
    assert split_sentences("Hi there. How are you? Fine!") == ["Hi there.", "How are you?", "Fine!"]
    assert count_sentences('He said "stop." Then left.') == 2
    assert count_sentences("See e.g. the appendix, etc. for more.") == 1
    assert count_sentences("J. R. R. Tolkien wrote it.") == 1
    assert count_sentences("It costs 3.50 dollars. Cheap") == 2
    assert count_sentences("") == 0


def test_a_check_whose_library_is_missing_is_an_error_with_the_install_hint(monkeypatch):
    from rewardkit.verifiers.instruction_following.registry import Check
    from rewardkit.verifiers.instruction_following.text import needs

    monkeypatch.setitem(CHECKS, "test:needs_absent", Check("test:needs_absent", lambda r, a: needs("rk_absent_mod")))
    verdict = strict().verify("Any answer.", ["test:needs_absent"])
    assert verdict.status == "error" and verdict.is_infrastructure_failure
    assert "rewardkit[ifeval]" in verdict.details["error"]


def test_a_long_answer_with_many_sentences_is_judged_in_linear_time():
    import time

    answer = "1. Item one. Mr. Smith went on. " * 3000  # ~100k characters, ~12k periods
    started = time.perf_counter()
    verdict = IFEvalVerifier(mode="loose").verify(
        answer, ["length_constraints:number_sentences"], kwargs=[{"num_sentences": 5000, "relation": "at least"}]
    )
    assert verdict.correct and time.perf_counter() - started < 5.0


def test_unclosed_brackets_titles_and_tags_on_one_long_line_are_judged_quickly():
    import time

    answer = "[ << <i> the quick brown " * 20_000  # ~500k characters of openers that never close
    ids = ["detectable_content:number_placeholders", "detectable_format:title", "func_name:validate_title"]
    ids += ["format:thesis", "copy:repeat_phrase"]
    kwargs = [{"num_placeholders": 1}, {}, {}, {}, {"phrase": "the quick brown fox", "small_n": 1}]
    started = time.perf_counter()
    verdict = IFEvalVerifier(max_chars=1_000_000).verify(answer, ids, kwargs=kwargs)
    assert verdict.status == "ok" and verdict.details["followed"] == 0
    assert time.perf_counter() - started < 5.0


ODD_ANSWERS = [
    ".",
    "!!! ??? ...",
    "\n\n\n***\n\n******\n",
    "<<>> [] ** <i></i> \"\" ''",
    "ÄÖÜ ß 港 🌅 \u200d\ufe0f",
    "1.\n2.\n3.",
    "word",
    "a" * 5000,
    "- \n* \n-\n*",
    '{"json": [1, 2, {"deep": null}]}',
]


@pytest.mark.parametrize("answer", ODD_ANSWERS, ids=range(len(ODD_ANSWERS)))
def test_no_check_fails_with_an_error_on_odd_answers(answer):
    kwargs_of = {case[1]: case[2] for case in ALL_CASES}
    verifier = IFEvalVerifier(mode="loose", aggregate="fraction")
    for instruction, kwargs in kwargs_of.items():
        verdict = verifier.verify(answer, [instruction], kwargs=[kwargs], prompt="A prompt.")
        assert verdict.status == "ok", (instruction, verdict)


def test_without_langdetect_a_language_row_is_an_error_naming_the_extra(monkeypatch):
    import sys

    from rewardkit.verifiers.instruction_following import text

    monkeypatch.setattr(text, "_factory", None)
    monkeypatch.setitem(sys.modules, "langdetect", None)  # an import of it now fails
    monkeypatch.setitem(sys.modules, "langdetect.detector_factory", None)
    verdict = strict().verify("Bonjour.", ["language:response_language"], kwargs=[{"language": "fr"}])
    assert verdict.status == "error" and "rewardkit[ifeval]" in verdict.details["error"]
    assert strict().verify("No commas", ["punctuation:no_comma"]).correct  # other rows are judged
