"""Answers in other scripts and notations, rounded decimals for exact values, and units:
``(name, reference, completion, expected)`` rows, one per behaviour, named by what they show.

Used by tests/verifiers/math_answer/test_math_notations.py and benchmarks/bench_math_endings.py.
"""

from __future__ import annotations

# -- numbers against other scripts, answer markers in other languages ---------------------------------------------
SCRIPTS = [
    ("a number against Chinese characters", "42", "所以答案是42。", True),
    ("a count in Chinese prose", "99", "总共有99颗弹珠", True),
    ("a Japanese answer marker", "15", "よって、答えは15です。", True),
    ("a Chinese answer marker with a full-width colon", "8", "答案：8", True),
    ("a Chinese final answer then other numbers", "8", "最终答案：8\n（共3步）", True),
    ("full-width digits", "24", "答案是２４。", True),
    ("a Korean answer marker", "12", "정답: 12", True),
    ("a French answer marker", "42", "Réponse : 42", True),
    ("a French answer sentence", "3,5", "La réponse est 3,5 et 4.", False),
    ("a French decimal comma answer", "3.5", "La réponse est 3,5.", True),
    ("a German answer marker", "42", "Antwort: 42", True),
    ("a German answer sentence", "7", "Die Antwort ist 7, denn 3 + 4 = 7.", True),
    ("a Russian answer marker", "42", "Ответ: 42", True),
    ("a Spanish answer marker", "9", "Respuesta: 9", True),
    ("a Spanish final answer then a check", "9", "La respuesta final es 9. Comprobación: 3 × 3 = 9.", True),
    ("a Portuguese answer marker", "11", "Resposta: 11", True),
    ("an Italian answer marker", "5", "Risposta: 5", True),
    ("a Chinese marker with a wrong value", "42", "答案是41。", False),
]

# -- Unicode math and plain-text notation outside math delimiters ---------------------------------------------------
PLAIN_MATH = [
    ("a surd with a root sign", "2\\sqrt{2}", "So the length is 2√2.", True),
    ("a multiple of pi with the letter", "3\\pi", "The area is 3π.", True),
    ("a root sign over a fraction bar", "\\frac{\\sqrt{3}}{2}", "so sin 60° = √3/2", True),
    ("sqrt in plain text", "\\frac{\\sqrt{3}}{2}", "so the value is sqrt(3)/2", True),
    ("pi over three in plain text", "\\frac{\\pi}{3}", "the angle is pi/3", True),
    ("e notation", "0.00045", "It equals 4.5e-4", True),
    ("a superscript square", "x^2", "The area is x² square units.", True),
    ("a plain-text power", "1024", "The answer is 2^10.", True),
    ("a wrong surd", "2\\sqrt{2}", "So the length is 2√3.", False),
    ("a wrong multiple of pi", "3\\pi", "The area is 4π.", False),
    ("a unicode fraction", "\\frac{1}{2}", "She ate ½ of the pie.", True),
    ("a unicode times sign", "12", "The answer is 3 × 4 = 12.", True),
    ("a root sign in a box", "2\\sqrt{3}", "\\boxed{2√3}", True),
]

# -- repeating decimals, mixed numbers, percent words, sets ---------------------------------------------------------
FORMS = [
    ("an overline repeating decimal", "\\frac{1}{3}", "\\boxed{0.\\overline{3}}", True),
    ("a repeating decimal with a lead", "\\frac{1}{6}", "\\boxed{0.1\\overline{6}}", True),
    ("a repeating block", "\\frac{1}{7}", "\\boxed{0.\\overline{142857}}", True),
    ("a dotted repeating decimal", "\\frac{2}{3}", "\\boxed{0.\\dot{6}}", True),
    ("a repeating decimal that is wrong", "\\frac{1}{3}", "\\boxed{0.\\overline{6}}", False),
    ("an ellipsis repeating a digit", "\\frac{1}{3}", "The probability is 0.333...", True),
    ("a mixed number in prose", "2.75", "She needs 2 3/4 cups of flour.", True),
    ("a mixed number in prose against a fraction", "\\frac{11}{4}", "It takes 2 3/4 hours.", True),
    ("a mixed number reference without braces", "1\\frac12", "\\boxed{1.5}", True),
    ("a mixed number reference with braces", "3\\frac{1}{4}", "The answer is 3.25.", True),
    ("a mixed number that is wrong", "2.75", "She needs 2 1/4 cups of flour.", False),
    ("a percent word in a box", "33.5\\%", "\\boxed{33.5 percent}", True),
    ("a percent word in a box against a plain number", "33.5", "\\boxed{33.5 \\text{ percent}}", True),
    ("a percent word against a fraction", "0.335", "\\boxed{33.5 percent}", True),
    ("an inequality for an interval", "(3, \\infty)", "\\boxed{x > 3}", True),
    ("an interval for an inequality", "x \\le 2", "\\boxed{(-\\infty, 2]}", True),
    ("a double inequality for an interval", "[1, 5)", "\\boxed{1 \\le x < 5}", True),
    ("an inequality with the wrong end", "(3, \\infty)", "\\boxed{x \\ge 3}", False),
    ("the empty set in words", "\\varnothing", "There is no solution.", True),
    ("the empty set symbol", "\\varnothing", "\\boxed{\\emptyset}", True),
    ("no real solutions for the empty set", "\\emptyset", "The equation has no real solutions.", True),
    ("the empty set against a value", "\\varnothing", "\\boxed{0}", False),
]

# -- rounded decimals for exact answers: not the exact answer --------------------------------------------------------
EXACTNESS = [
    ("a three-digit decimal for a third", "\\frac{1}{3}", "\\boxed{0.333}", False),
    ("two decimals for pi", "\\pi", "\\boxed{3.14}", False),
    ("two decimals for two pi", "2\\pi", "\\boxed{6.28}", False),
    ("three digits for two sevenths", "\\frac{2}{7}", "\\boxed{0.286}", False),
    ("four digits for root two", "\\sqrt{2}", "\\boxed{1.4142}", False),
    ("a rounded decimal for a terminating fraction", "\\frac{7}{16}", "\\boxed{0.438}", False),
    ("a rounded percent for a fraction", "\\frac{1}{3}", "\\boxed{33.3\\%}", False),
    ("six places for a third", "\\frac{1}{3}", "\\boxed{0.333333}", True),
    ("eight places for root two", "\\sqrt{2}", "\\boxed{1.41421356}", True),
    ("six places for pi", "\\pi", "\\boxed{3.141593}", True),
    ("the exact decimal of a terminating fraction", "\\frac{7}{16}", "\\boxed{0.4375}", True),
    ("six places rounded wrong", "\\frac{1}{7}", "\\boxed{0.142858}", False),
    ("a rounded reference and a precise answer", "16386.17", "\\boxed{16386.169}", True),
    ("a precise reference and an answer to the cent", "16386.169", "\\boxed{16386.17}", True),
    ("a rounded reference and an exact answer", "0.333", "\\boxed{\\frac{1}{3}}", True),
]

# -- units ------------------------------------------------------------------------------------------------------------
UNITS = [
    ("seconds for minutes", "120 \\text{ minutes}", "\\boxed{120 \\text{ seconds}}", False),
    ("weeks for days", "10 \\text{ days}", "\\boxed{10 \\text{ weeks}}", False),
    ("centimetres for metres", "5 \\text{ m}", "\\boxed{5 \\text{ cm}}", False),
    ("grams for kilograms", "3 kg", "The parcel weighs 3 g.", False),
    ("a unit of another dimension", "12 \\text{ cm}", "\\boxed{12 \\text{ seconds}}", False),
    ("minutes converted to seconds", "120 \\text{ seconds}", "\\boxed{2 \\text{ minutes}}", True),
    ("hours converted to minutes", "90 \\text{ minutes}", "It takes 1.5 hours.", True),
    ("metres converted to centimetres", "2 \\text{ m}", "\\boxed{200 \\text{ cm}}", True),
    ("a unit on one side only", "10 \\text{ cm}", "\\boxed{10}", True),
    ("a unit on the answer only", "10", "The side is 10 cm.", True),
    ("the same unit spelt out", "5 \\text{ cm}", "\\boxed{5 \\text{ centimeters}}", True),
    ("the same unit abbreviated", "3 \\text{ hours}", "It takes 3 hrs.", True),
    ("square units", "20 \\text{ cm}^2", "\\boxed{20 \\text{ cm}^2}", True),
    ("square units of another size", "20 \\text{ cm}^2", "\\boxed{20 \\text{ m}^2}", False),
    ("dollars and cents", "\\$0.75", "It costs 75 cents.", True),
    ("cents for dollars", "75 \\text{ dollars}", "\\boxed{75 \\text{ cents}}", False),
    ("a count noun is not a unit", "12", "She has 12 apples.", True),
    ("degrees stay degrees", "60^\\circ", "\\boxed{60}", True),
]

# -- a second set, written after the rules above were built ------------------------------------------------------
MORE = [
    ("a plus-minus answer as two roots", "\\pm 3", "So $x = 3$ or $x = -3$.", True),
    ("a fraction in words after a box", "\\frac{3}{4}", "\\boxed{\\frac34} cups of sugar", True),
    ("degrees with the word", "45", "The angle measures 45 degrees.", True),
    ("a percent with a space", "12.5\\%", "The rate is 12.5 %.", True),
    ("scientific notation with times", "3.2\\times10^{5}", "The answer is 320000.", True),
    ("unicode minus in prose", "-7", "The temperature dropped to −7.", True),
    ("cube root sign", "2", "∛8 = 2, so the side is 2.", True),
    ("chinese with fraction", "\\frac{1}{2}", "概率是1/2。", True),
    ("japanese full-width fraction", "\\frac{2}{5}", "答えは２／５です。", True),
    ("a decimal with trailing zero in a box", "2.5", "\\boxed{2.50}", True),
    ("an interval answer in words", "(0, 1)", "So x lies in the open interval (0, 1).", True),
    ("a wrong sign root sign", "-2\\sqrt{3}", "The value is 2√3.", False),
    ("pi in a fraction box", "\\frac{2\\pi}{3}", "\\boxed{2π/3}", True),
    ("a rounded pi multiple", "\\frac{2\\pi}{3}", "\\boxed{2.09}", False),
    ("a rounded root in prose", "\\sqrt{5}", "So the length is about 2.24.", False),
    ("a large number with spaces", "1000000", "The total is 1 000 000.", True),
    ("hours and minutes", "90 \\text{ minutes}", "\\boxed{1.5 \\text{ hours}}", True),
    ("meters for kilometers", "3 \\text{ km}", "\\boxed{3 \\text{ m}}", False),
    ("an ellipsis decimal that is not repeating", "\\frac{1}{7}", "It is 0.142857...", True),
    ("a negative mixed number", "-\\frac{5}{2}", "\\boxed{-2\\frac{1}{2}}", True),
]

ALL = SCRIPTS + PLAIN_MATH + FORMS + EXACTNESS + UNITS + MORE
TABLES = {
    "scripts": SCRIPTS,
    "plain_math": PLAIN_MATH,
    "forms": FORMS,
    "exactness": EXACTNESS,
    "units": UNITS,
    "more_notations": MORE,
}
