"""How reasoning models end their answers: ``(name, reference, completion, expected)`` rows.

Written for rewardkit in the style of R1-like completions (a think block, then a summary; or plain chain of
thought), one row per behaviour, named by what it shows. ``expected`` is whether the completion earns the
reference: a self-check, a restatement or a second method that lands on the committed answer keeps it; a
change of answer, a second final answer, an alternative or a retraction does not (for either value).
Used by tests/verifiers/math_answer/test_math_endings.py and benchmarks/bench_math_endings.py (which also runs
math-verify on the same rows).
"""

from __future__ import annotations

THINK = "<think>\nLet me set up the problem and work through it carefully.\n</think>\n\n"

# -- a check after the committed answer keeps its credit -----------------------------------------------------
SELF_CHECKS = [
    (
        "a check with other numbers that confirms",
        "42",
        "So there are \\boxed{42} chairs.\n\nWait, let me verify: 42 / 6 = 7, which matches the 7 rows.",
        True,
    ),
    ("a check ending with a tick", "42", THINK + "The hall holds $\\boxed{42}$ chairs.\n\nCheck: 6 x 7 = 42 ✓", True),
    (
        "a check that recounts another quantity",
        "42",
        "There are \\boxed{42} chairs. To double-check, 42 chairs in rows of 6 gives 7 rows, as stated.",
        True,
    ),
    (
        "a substitution check of a root",
        "3",
        THINK + "So $x = \\boxed{3}$.\n\nVerification: $2(3) + 1 = 7$, which is the right-hand side. ✓",
        True,
    ),
    (
        "a substitution check ending on zero",
        "3",
        "Therefore $\\boxed{x=3}$. To verify, substitute back: $3^2 - 2\\cdot 3 - 3 = 0$.",
        True,
    ),
    (
        "a sanity check ending on an unrelated number",
        "5",
        "The answer is $\\boxed{5}$. Sanity check: $5^2 = 25$ and $25 - 20 = 5$, good.",
        True,
    ),
    (
        "a wait that only verifies",
        "42",
        "\\boxed{42}\n\nWait, is that right? Six rows of seven gives 42. Yes.",
        True,
    ),
    (
        "a worry about double counting that is dismissed",
        "42",
        "\\boxed{42}\n\nWait, I should make sure I did not double-count: each chair sits in exactly one row, "
        "so 42 is correct.",
        True,
    ),
    (
        "a hold on that recounts to the same value",
        "120",
        "There are $\\boxed{120}$ orderings. Hold on, let me recount: $5! = 5 \\cdot 4 \\cdot 3 \\cdot 2 = 120$. Yes.",
        True,
    ),
    (
        "an actually that only confirms",
        "3",
        "So the root is $\\boxed{3}$. Actually, let me confirm: the discriminant is 0, so there is exactly one "
        "root, $x = 3$.",
        True,
    ),
    (
        "a check of a fraction",
        "\\frac{1}{4}",
        "The probability is $\\boxed{\\frac{1}{4}}$. Check: $\\frac12 \\cdot \\frac12 = \\frac14$.",
        True,
    ),
    (
        "a check that ends on a factor",
        "9",
        "\\boxed{9}. Hmm, let me verify that 9 satisfies the condition: $9 = 3^2$ and 3 is prime, so yes.",
        True,
    ),
    (
        "a gsm8k answer then a check",
        "72",
        "Natalia sold 48 + 24 = 72 clips.\n#### 72\nCheck: 48 / 2 = 24 for May, and 48 + 24 = 72.",
        True,
    ),
    (
        "an answer tag then a check",
        "36",
        "<think>3 boxes of 12</think><answer>36</answer>\nTo double check: 3 boxes x 12 eggs = 36 eggs.",
        True,
    ),
    (
        "a summary after the think block, then a check",
        "17",
        "<think>10 + 7 ... maybe 16? No: 10 + 7 = 17.</think>\n\n**Answer: 17**\n\nCheck: 17 - 7 = 10 ✓",
        True,
    ),
    (
        "a verification paragraph with several numbers",
        "84",
        THINK + "The perimeter is $\\boxed{84}$ cm.\n\n**Verification.** The sides are 21, 28 and 35; "
        "$21^2 + 28^2 = 441 + 784 = 1225 = 35^2$, so the triangle is right-angled as given, and "
        "$21 + 28 + 35 = 84$.",
        True,
    ),
    (
        "a check whose arithmetic ends elsewhere",
        "15",
        "So she has $\\boxed{15}$ marbles. Let me check: $15 + 9 = 24$ and $24 / 3 = 8$, which is what "
        "the problem says each friend got.",
        True,
    ),
    (
        "a plain-prose answer then a check (no box)",
        "7",
        "So there are 7 rows. Check: 7 x 6 = 42.",
        True,
    ),
    (
        "a plain-prose answer then a verification line (no box)",
        "18",
        "Therefore she has 18 dollars left.\nVerification: 25 - 7 = 18, and 7 = 3 + 4.",
        True,
    ),
    (
        "a plain-prose answer then a tick line (no box)",
        "7",
        "Thus each row has 7 chairs.\n7 x 6 = 42 ✓",
        True,
    ),
    (
        "a check in Chinese",
        "42",
        "答案是42。验证：6×7=42，正确。",
        True,
    ),
    (
        "a hmm that re-derives the rows",
        "42",
        "The total is $\\boxed{42}$.\n\nHmm, let me make sure: 42 chairs split into rows of 6 is 7 rows.",
        True,
    ),
    (
        "an actually that re-verifies another way",
        "42",
        "\\boxed{42}\n\nActually, let me verify with division: 42 / 7 = 6 chairs per row, as given.",
        True,
    ),
    (
        "a but wait that recomputes a part",
        "90",
        THINK + "She drives $\\boxed{90}$ miles.\n\nBut wait, the speed was 45 mph for 2 hours: 45 x 2 = 90. Right.",
        True,
    ),
    (
        "a no wait that keeps the answer",
        "36",
        "\\boxed{36}. No wait, let me re-check the multiplication: 4 x 9 = 36. Good.",
        True,
    ),
    (
        "an oh wait that checks units",
        "150",
        "The answer is $\\boxed{150}$ cm. Oh wait, the question asks in cm, and 1.5 m = 150 cm, so that's fine.",
        True,
    ),
    (
        "a redo that lands on the same value",
        "64",
        "$\\boxed{64}$. Let me redo the computation to be sure: $4^3 = 16 \\cdot 4 = 64$. Same.",
        True,
    ),
    (
        "a wait that checks a constraint with a smaller number",
        "24",
        "So $n = \\boxed{24}$. Wait, does 24 leave remainder 4 when divided by 5? $24 = 4 \\cdot 5 + 4$, yes.",
        True,
    ),
    (
        "a hmm that checks the remainder",
        "23",
        "\\boxed{23}\n\nHmm, check: 23 mod 4 = 3 and 23 mod 5 = 3. Both conditions hold.",
        True,
    ),
    (
        "a wait that checks the other root is invalid",
        "4",
        "Thus $x = \\boxed{4}$.\n\nWait, what about $x = -1$? Then $\\log(x)$ is undefined, so only 4 works.",
        True,
    ),
    (
        "an actually on the probability complement",
        "\\frac{5}{6}",
        "$\\boxed{\\frac{5}{6}}$. Actually, double-checking with the complement: $1 - \\frac16 = \\frac56$.",
        True,
    ),
    (
        "a check of an average",
        "85",
        "Her average is $\\boxed{85}$. Let me double-check: $80 + 90 + 85 = 255$ and $255 / 3 = 85$.",
        True,
    ),
    (
        "a check ending with the count of items",
        "60",
        "There are $\\boxed{60}$ students. Wait, let me verify: 60 / 4 = 15 per group and 4 groups, matches.",
        True,
    ),
    (
        "a closing remark after the answer",
        "30",
        "So the train takes $\\boxed{30}$ minutes. I hope this helps! Let me know if you have questions about step 2.",
        True,
    ),
    (
        "a summary, then a check in a new paragraph with a different last number",
        "56",
        THINK + "**Answer:** $\\boxed{56}$\n\n**Check:** $C(8,3) = \\frac{8 \\cdot 7 \\cdot 6}{6} = 56$, "
        "and the 3 chosen leave 5.",
        True,
    ),
    (
        "a check with a wrong value rejected inside it",
        "12",
        "\\boxed{12}. Let me double check: if I had counted the corner twice I would get 13, but the corner "
        "belongs to one side only, so 12 stands.",
        True,
    ),
]

# -- restating the committed answer, also rounded -----------------------------------------------------------
RESTATEMENTS = [
    ("a rounded percent restatement", "\\frac{7}{15}", "\\boxed{7/15}, or about 46.7%", True),
    ("a decimal restatement", "\\frac{1}{4}", "The chance is $\\boxed{\\frac14}$, i.e. 0.25.", True),
    ("an approximate decimal of a fraction", "\\frac{1}{3}", "$\\boxed{\\frac{1}{3}}$, approximately $0.333$.", True),
    ("an approximate decimal of a surd", "2\\sqrt{2}", "The side is $\\boxed{2\\sqrt{2}} \\approx 2.83$.", True),
    ("a restatement in words", "\\frac{1}{2}", "\\boxed{0.5}, that is, one half of the cake.", True),
    ("a restatement as a fraction", "0.25", "\\boxed{0.25}, which is $\\frac{1}{4}$.", True),
    ("a percent restated as a fraction", "25\\%", "\\boxed{25\\%}, one quarter of the class.", True),
    ("an equation restating the value", "42", "\\boxed{42}, since $6 \\cdot 7 = 42$.", True),
    ("a restatement as a product", "12", "\\boxed{12}, which is $3 \\times 4$.", True),
    ("the same value boxed twice", "12", "So the answer is $\\boxed{12}$.\n\n**Final Answer**\n\\boxed{12}", True),
    ("the same value as a statement after the box", "12", "\\boxed{12}\n\nThe answer is 12.", True),
    (
        "an equal form boxed again",
        "\\frac{1}{2}",
        "$\\boxed{\\frac12}$ ... so the final answer is $\\boxed{0.5}$.",
        True,
    ),
    (
        "a second method landing on the same value",
        "\\frac{7}{10}",
        "$P = \\boxed{\\frac{7}{10}}$.\n\nAlternatively, using the complement: $1 - \\frac{3}{10} = \\frac{7}{10}$, "
        "the same answer.",
        True,
    ),
    (
        "a second method written as an equation chain",
        "12",
        "The answer is $\\boxed{12}$. Another way: $12 = 3 \\times 4$, consistent with the above.",
        True,
    ),
    (
        "both methods agree",
        "42",
        "The answer is 42. Let me verify by another approach: 7 x 6 = 42. Both methods give 42.",
        True,
    ),
]

# -- a wrong value named only to reject it --------------------------------------------------------------------
REJECTED_VALUES = [
    (
        "a wrong value that would be wrong",
        "12",
        "\\boxed{12}. Note that 15 would be wrong, since it counts the corner twice.",
        True,
    ),
    ("a wrong value that it is not", "12", "\\boxed{12}. It is not 15, because the corner is shared.", True),
    ("a parenthetical rejection", "12", "\\boxed{12} (not 15, which double-counts the corner)", True),
    ("a naive count rejected", "10", "\\boxed{10}. (A naive count gives 12, but that counts both ends twice.)", True),
    ("rather than a wrong value", "12", "The answer is 12, rather than 15.", True),
    ("instead of a first guess", "12", "The answer is 12, instead of the 15 we guessed first.", True),
    ("an excluded root", "3", "So $\\boxed{x = 3}$; the root $x = -1$ is extraneous and is rejected.", True),
    ("a discarded negative root", "5", "Since a length is positive, $\\boxed{5}$ (the root $-5$ is discarded).", True),
]

# -- the answer changes: neither value earns credit in weaker form, the later box is the answer ---------------
CHANGES = [
    (
        "a later box after a retraction: the later box",
        "14",
        "\\boxed{12}. Wait, that's wrong — it is \\boxed{14}.",
        True,
    ),
    (
        "a later box after a retraction: not the first",
        "12",
        "\\boxed{12}. Wait, that's wrong — it is \\boxed{14}.",
        False,
    ),
    ("a correction in prose after a box: the box", "12", "\\boxed{12} Hmm, I made a mistake; it should be 14.", False),
    (
        "a correction in prose after a box: the prose",
        "14",
        "\\boxed{12} Hmm, I made a mistake; it should be 14.",
        False,
    ),
    (
        "a however with a new total: the first",
        "42",
        "The answer is 42. However, I double-counted the four corners, so the real total is 38.",
        False,
    ),
    (
        "a however with a new total: the second",
        "38",
        "The answer is 42. However, I double-counted the four corners, so the real total is 38.",
        False,
    ),
    (
        "on reflection with a new count",
        "42",
        "\\boxed{42}. On reflection, the corners were counted twice; the correct count is 38.",
        False,
    ),
    ("a retraction with no new value", "42", "\\boxed{42}. However, I double-counted the corners.", False),
    ("a retraction: that does not work", "12", "\\boxed{12}. But that doesn't satisfy the second condition.", False),
    ("an error noticed, no value", "12", "The answer is 12. Hmm, I think I made an error in step 2.", False),
    ("wait no with a new value", "42", "\\boxed{42}. Wait, no — 6 x 8 = 48, so it is 48.", False),
    ("i think it should be", "42", "\\boxed{42}. Wait, I think it should be 48.", False),
    ("misread the problem", "42", "Answer: 42\nActually I misread: the rows have 8 chairs, giving 56.", False),
    (
        "redo that lands elsewhere",
        "12",
        "The answer is 12. Hmm, let me redo this: with repetition it is 4 x 4 = 16.",
        False,
    ),
    ("an actually later box: the later box", "15", "\\boxed{12}\n\nActually, \\boxed{15}.", True),
    ("an actually later box: the first", "12", "\\boxed{12}\n\nActually, \\boxed{15}.", False),
    (
        "a later answer statement is the answer",
        "21",
        "So there are 42 handshakes counted twice. But the question asks for pairs, so the answer is 21.",
        True,
    ),
    (
        "a think block that changes its mind, summary after",
        "17",
        "<think>I get 16. Wait, that's wrong: 10 + 7 = 17.</think>\n\nThe answer is $\\boxed{17}$.",
        True,
    ),
]

# -- an alternative after (or beside) the answer: a hedge ---------------------------------------------------
ALTERNATIVES = [
    ("but it could also be", "12", "\\boxed{12}. Hmm, but it could also be 8.", False),
    ("but it could also be: the alternative", "8", "\\boxed{12}. Hmm, but it could also be 8.", False),
    ("unless, in which case", "40", "The answer is 40, unless the tables are round, in which case it is 60.", False),
    (
        "unless, in which case: the alternative",
        "60",
        "The answer is 40, unless the tables are round, in which case it is 60.",
        False,
    ),
    ("a parenthetical alternative", "2", "The answer is $2$ (or $3$, if the balls are distinct).", False),
    (
        "a parenthetical alternative: the alternative",
        "3",
        "The answer is $2$ (or $3$, if the balls are distinct).",
        False,
    ),
    ("a boxed parenthetical alternative", "2", "\\boxed{2} (or \\boxed{3} if the balls are distinct)", False),
    ("or maybe after a box", "12", "\\boxed{12}. Or maybe 16, if repetition is allowed.", False),
    ("alternatively a bare value", "12", "\\boxed{12}. Alternatively, 16.", False),
    ("possibly with a condition", "42", "\\boxed{42}; possibly 48 if the teacher's chair counts.", False),
    ("maybe it is", "42", "\\boxed{42}. Hmm, maybe it's 48.", False),
    ("another root also works", "3", "\\boxed{x=3}. But $x = -3$ also works.", False),
    ("also a solution", "3", "$\\boxed{3}$. Note that $x=-3$ is also a solution.", False),
    ("also possible", "5", "\\boxed{5}. Though 6 is also possible if we include zero.", False),
    ("a second answer without a cue", "12", "\\boxed{12}, or 16 with repetition.", False),
    (
        "an alternative final answer in parentheses",
        "12",
        "**Final Answer:** $\\boxed{12}$\n\n(Alternatively, if repetition is allowed, $\\boxed{16}$.)",
        False,
    ),
    (
        "an alternative final answer in parentheses: the later box",
        "16",
        "**Final Answer:** $\\boxed{12}$\n\n(Alternatively, if repetition is allowed, $\\boxed{16}$.)",
        False,
    ),
    (
        "two final answers",
        "16",
        "The final answer is $\\boxed{12}$.\n\nFinal answer: $\\boxed{16}$",
        False,
    ),
]

# -- case analyses: the later branch is not the answer ----------------------------------------------------------
CASES = [
    (
        "two branches in prose: the later",
        "3",
        "If the balls are distinct there are 6 ways; if they are identical there are 3.",
        False,
    ),
    (
        "two branches in prose: the earlier",
        "6",
        "If the balls are distinct there are 6 ways; if they are identical there are 3.",
        False,
    ),
    (
        "two boxed branches: the later",
        "3",
        "\\boxed{6} if the balls are distinct, and \\boxed{3} if they are identical.",
        False,
    ),
    (
        "two boxed branches with otherwise",
        "10",
        "If order matters the answer is $\\boxed{20}$; otherwise it is $\\boxed{10}$.",
        False,
    ),
    (
        "a case analysis before one conclusion",
        "3",
        "Case 1: $x \\ge 0$ gives $x = 3$. Case 2: $x < 0$ gives $x = -3$, which is rejected since $x$ must be "
        "positive. So $\\boxed{3}$.",
        True,
    ),
    ("one stated assumption", "6", "If we take the balls to be distinct, the answer is $\\boxed{6}$.", True),
]

# -- checks whose last number happens to equal the reference ----------------------------------------------------
COINCIDENCES = [
    ("a boxed wrong answer, check ends on the reference", "6", "\\boxed{7}. Check: 7 - 1 = 6.", False),
    ("a prose wrong answer, check ends on the reference", "6", "So there are 7 apples. Check: 7 - 1 = 6 ✓", False),
    (
        "a wrong answer whose check reveals the reference",
        "7",
        "So there are 8 rows. Check: 8 x 6 = 48, but there are 42 chairs, and 42 / 6 = 7.",
        False,
    ),
    (
        "a stated wrong answer, verification ends on the reference",
        "25",
        "The answer is 20. Let me verify: 20 + 5 = 25.",
        False,
    ),
]

# -- completions that never answered ----------------------------------------------------------------------------
UNANSWERED = [
    ("an unclosed think block", "17", "<think>\nSo the total should be 17, but let me verify: 10 + 7 = 17", False),
    (
        "an unclosed think block with a box",
        "17",
        "<think>\nTentatively \\boxed{17}, but I need to check the carry",
        False,
    ),
    ("an answer only inside a closed think block", "17", "<think>the answer is 17</think>", False),
]


# -- a second set, written after the rules above were built: mixed behaviours in other words ---------------------
R1 = "<think>\nOkay, let's see. I need to figure this out step by step.\n</think>\n\n"
MIXED = [
    (
        "r1 summary then verification list",
        "20",
        R1 + "**Solution:**\n1. Cost per pen: $2.\n2. Pens: 10.\n\nTotal cost: $\\boxed{20}$ dollars.\n\n"
        "**Verification:** 10 pens × $2 = $20. ✅",
        True,
    ),
    (
        "hmm then recompute the other way",
        "144",
        "So the area is $\\boxed{144}$.\n\nHmm, just to be thorough: 12 × 12 = 144, and the perimeter would be 48.",
        True,
    ),
    (
        "wait sanity check ends on another quantity",
        "8",
        "\\boxed{8}\n\nWait, sanity check — 8 workers × 6 hours = 48 worker-hours, which is what the job needs.",
        True,
    ),
    (
        "let me plug it back in, ends on an equation",
        "-2",
        "Thus $x = \\boxed{-2}$. Let me plug it back in: $3(-2) + 10 = 4$ and $4 = 4$.",
        True,
    ),
    (
        "checking both conditions, numbers differ",
        "17",
        "The number is $\\boxed{17}$. Checking: 17 divided by 3 leaves 2, and 17 divided by 5 leaves 2.",
        True,
    ),
    (
        "the final answer is repeated after explanation",
        "5",
        "The answer is 5 because 2 + 3 = 5. So, once more, the final answer is 5.",
        True,
    ),
    ("answer then unit conversion remark", "150", "She ran $\\boxed{150}$ meters, which is 0.15 km.", True),
    (
        "answer then a note about the method",
        "6",
        "$\\boxed{6}$\n\nNote: I used the formula $n(n-1)/2$ with $n = 4$, giving $4 \\cdot 3 / 2 = 6$.",
        True,
    ),
    ("actually yes", "9", "\\boxed{9}. Actually, yes — 3 squared is 9, so this is right.", True),
    (
        "double-check in a sentence with 'wrong' in a question",
        "25",
        "So the speed is $\\boxed{25}$ km/h. Could that be wrong? No: 100 km in 4 hours is 25 km/h.",
        True,
    ),
    ("a reflection that confirms", "30", "\\boxed{30}\n\nOn reflection, this makes sense: 30 is half of 60.", True),
    (
        "gsm8k then explanation with many numbers",
        "56",
        "He buys 4 packs of 14 = 56 cards.\n#### 56\nExplanation: 4 packs, 14 cards each, 4 × 14 = 56; none are lost.",
        True,
    ),
    (
        "answer, then a remark that another method would also give it",
        "10",
        "\\boxed{10}. Using combinations instead would also give $\\binom{5}{2} = 10$.",
        True,
    ),
    ("percentage restated as decimal", "40\\%", "The discount is $\\boxed{40\\%}$, i.e. 0.4 of the price.", True),
    (
        "a rejected extraneous solution written later",
        "2",
        "So $x = \\boxed{2}$. (We discard $x = -3$ because the logarithm is undefined there.)",
        True,
    ),
    (
        "prose answer followed by recheck in a new paragraph",
        "12",
        "Therefore, there are 12 students in the class.\n\nLet me double-check: 12 students, 3 groups of 4. "
        "That works.",
        True,
    ),
    (
        "wait I need to account for",
        "48",
        "\\boxed{48}\n\nWait, I forgot to subtract the 6 broken ones, so it is 42.",
        False,
    ),
    (
        "wait I need to account for: new value",
        "42",
        "\\boxed{48}\n\nWait, I forgot to subtract the 6 broken ones, so it is 42.",
        False,
    ),
    (
        "hmm that seems too large",
        "1000",
        "So the total is $\\boxed{1000}$. Hmm, that seems too large; let me redo it. 10 × 10 = 100.",
        False,
    ),
    (
        "I realize the question asked",
        "6",
        "\\boxed{6}. Oh, I realize the question asked for pairs, not people, so the answer should be 15.",
        False,
    ),
    ("or, if we include", "7", "The answer is $\\boxed{7}$ — or 8, if we include the starting point.", False),
    ("depending on interpretation", "4", "The answer is 4 or 5 depending on whether the endpoints count.", False),
    (
        "alternatively the answer might be",
        "24",
        "$\\boxed{24}$\n\nAlternatively, the answer might be 12 if the rotations are considered the same.",
        False,
    ),
    ("either value", "2", "Either $x = 2$ or $x = 5$ works, so $\\boxed{2}$.", False),
    (
        "I'm not sure between",
        "3",
        "I'm not sure whether it's 3 or 4, but I'll go with \\boxed{3}. It might also be 4.",
        False,
    ),
    (
        "mistake found, corrected box after",
        "35",
        "\\boxed{30}. Wait, I made an arithmetic error: 5 × 7 = 35, so the answer is \\boxed{35}.",
        True,
    ),
    (
        "mistake found, corrected box after: first value",
        "30",
        "\\boxed{30}. Wait, I made an arithmetic error: 5 × 7 = 35, so the answer is \\boxed{35}.",
        False,
    ),
    (
        "let me reconsider with a new result",
        "9",
        "So $\\boxed{9}$. Let me reconsider: the first term is 3, not 1, so the sum is 11.",
        False,
    ),
    (
        "that can't be right, no replacement",
        "0",
        "The probability is $\\boxed{0}$. That can't be right, since the event clearly can happen.",
        False,
    ),
    (
        "unclosed think with a boxed draft after reasoning",
        "5",
        "<think>\nSo far I have \\boxed{5}. Let me double check by",
        False,
    ),
    (
        "a check that reveals another answer",
        "11",
        "So there are 10 posts. Check: a 100 m fence with a post every 10 m needs 100 / 10 + 1 = 11 posts.",
        False,
    ),
    ("two cases, the later boxed", "8", "For even n the value is 4, and for odd n it is $\\boxed{8}$.", False),
    (
        "answer under one reading, another under another",
        "15",
        "If order doesn't matter, there are 15 ways. If it does, there are 30 ways.",
        False,
    ),
    ("answer then 'actually it's'", "64", "\\boxed{64}. Actually it's 2^7 = 128, I miscounted the doublings.", False),
    (
        "llama style with hope",
        "18",
        "Janet sells 16 - 3 - 4 = 9 eggs at $2 each, so she makes 9 * 2 = 18 dollars.\nFinal Answer: "
        "The final answer is 18. I hope it is correct.",
        True,
    ),
    (
        "qwen style, then a recap",
        "\\frac{3}{5}",
        "Therefore, the probability is $\\boxed{\\frac{3}{5}}$.\n\nTo recap: 6 favourable outcomes out "
        "of 10 gives $\\frac{6}{10} = \\frac{3}{5}$.",
        True,
    ),
    (
        "r1 summary with bold answer and an approximate value",
        "\\sqrt{2}",
        "</think>\n\nThe diagonal of the unit square is $\\boxed{\\sqrt{2}}$ (approximately 1.414).",
        True,
    ),
    (
        "chinese r1 ending with a check",
        "12",
        "</think>\n\n所以，答案是 $\\boxed{12}$。\n\n检验：3 × 4 = 12，符合题意。",
        True,
    ),
    (
        "answer then 'this is the minimum' with another number",
        "7",
        "The minimum number of moves is $\\boxed{7}$. This is the minimum because $2^3 - 1 = 7$ and no "
        "shorter sequence exists for 3 disks.",
        True,
    ),
    (
        "answer then an example with other numbers",
        "3",
        "$\\boxed{3}$. For example, with 9 cookies and 3 friends, each friend gets 3 cookies, and 9 / 3 = 3.",
        True,
    ),
    ("answer, then units in another system", "5", "The rope is $\\boxed{5}$ feet long, or 60 inches.", True),
    ("answer then a 'but' that confirms", "100", "\\boxed{100}. But let's make sure: 25% of 400 is 100. Yes.", True),
    (
        "a final answer line after a self-check in the think",
        "13",
        "<think>I got 12 earlier. Wait, that's wrong, it's 13.</think>\nThe answer is 13.",
        True,
    ),
    (
        "alternative interpretation mentioned then rejected",
        "45",
        "\\boxed{45}. One might think the answer is 90 by counting ordered pairs, but handshakes are "
        "unordered, so 45 is right.",
        True,
    ),
    ("integer answer then the equation it solves", "4", "So $n = \\boxed{4}$, since $2^4 = 16$.", True),
    ("the answer restated with a percent sign", "0.25", "\\boxed{0.25}, which is 25%.", True),
    ("a different final answer without a cue", "24", "\\boxed{24}\n\nSo the final answer is 26.", False),
    ("a different final answer without a cue: the later", "26", "\\boxed{24}\n\nSo the final answer is 26.", True),
    (
        "hmm actually with a new number in prose",
        "15",
        "So the answer is 15. Hmm, actually 3 × 6 = 18, so it should be 18.",
        False,
    ),
    ("hedge with 'or possibly'", "20", "My best estimate is \\boxed{20}, or possibly 21.", False),
    ("two values in one box", "5", "\\boxed{5 \\text{ or } 6}", False),
    ("a trailing 'but it might be'", "9", "The answer is 9, but it might be 10 if we count zero.", False),
    ("a trailing 'or is it'", "9", "The answer is 9. Or is it 10? I'm not sure.", False),
    (
        "an answer the model says it can't verify, no alternative",
        "9",
        "The answer is 9, though I couldn't verify it.",
        True,
    ),
    (
        "check finds the error and fixes it (no answer marked)",
        "21",
        "So x = 20. Check: 3(20) = 60 ≠ 63. So I made an error; x = 21, since 3(21) = 63.",
        True,
    ),
    (
        "check finds the error and fixes it: not the first value",
        "20",
        "So x = 20. Check: 3(20) = 60 ≠ 63. So I made an error; x = 21, since 3(21) = 63.",
        False,
    ),
    ("wait then new box", "21", "So $x = \\boxed{20}$. Wait: 3(20) = 60, not 63. Correcting, $x = \\boxed{21}$.", True),
    ("retraction by 'that's not right' then nothing", "8", "\\boxed{8}. Hmm, that's not right.", False),
    ("model doubts without retracting", "8", "\\boxed{8}. I'm fairly confident this is right.", True),
    ("cut mid-sentence after box", "8", "\\boxed{8}. Let me also verify this by", True),
    (
        "answer then a question to the user",
        "8",
        "The answer is \\boxed{8}. Would you like me to explain any step in more detail?",
        True,
    ),
    (
        "case split with one valid case",
        "6",
        "If $x > 0$ then $x = 6$; if $x < 0$ we get $x = -6$, which is not allowed. So $\\boxed{6}$.",
        True,
    ),
    (
        "answer only as the last number but a check follows with equal sign",
        "30",
        "The train travels 30 miles. Verification: 60 mph × 0.5 h = 30 miles ✓",
        True,
    ),
    (
        "coincidence in a verification",
        "60",
        "The train travels 30 miles. Verification: 60 mph × 0.5 h = 30 miles; speed is 60 mph.",
        False,
    ),
    ("empty box then plain answer", "4", "\\boxed{}\nThe answer is 4.", True),
    (
        "an early check then the conclusion",
        "18",
        "Let me check the units first: everything is in dollars. She starts with 25 and spends 7. "
        "So she has 18 dollars left.",
        True,
    ),
    (
        "an early verification of a step then more work",
        "56",
        "First, 7 × 4 = 28. Let me verify: 28 / 4 = 7. Then doubling gives 56 cookies in total.",
        True,
    ),
    (
        "a check mid-way then a conclusion with therefore",
        "9",
        "Let me check whether 3 works: 3 + 3 = 6, no. Therefore the number is 9.",
        True,
    ),
]

ALL = MIXED + SELF_CHECKS + RESTATEMENTS + REJECTED_VALUES + CHANGES + ALTERNATIVES + CASES + COINCIDENCES + UNANSWERED
TABLES = {
    "mixed": MIXED,
    "self_checks": SELF_CHECKS,
    "restatements": RESTATEMENTS,
    "rejected_values": REJECTED_VALUES,
    "changes": CHANGES,
    "alternatives": ALTERNATIVES,
    "cases": CASES,
    "coincidences": COINCIDENCES,
    "unanswered": UNANSWERED,
}
