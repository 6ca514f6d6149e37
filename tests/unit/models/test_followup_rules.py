"""The pronoun rules that make a follow-up standalone without a model."""

import pytest

from models.followup_rules import resolve_follow_up, rewrite_problem, short_answer

POLANSKI = "Who is Emmanuelle Seigner married to?"


def resolved(turn, *, previous, answer="", previous_turn=""):
    found = resolve_follow_up(turn, previous=previous, answer=answer, previous_turn=previous_turn)
    return None if found is None else (found.question, found.source)


def test_a_switch_from_she_to_he_means_the_previous_answer():
    got = resolved(
        "And what nationality is he?",
        previous=POLANSKI,
        answer="Roman Polanski",
        previous_turn="Who is she married to?",
    )
    assert got == ("What nationality is Roman Polanski?", "previous answer")


def test_the_same_pronoun_carries_the_previous_turns_referent_over():
    got = resolved(
        "When did he die?",
        previous="Whom did Earle Hyman play on The Cosby Show?",
        answer="Russell Huxtable",
        previous_turn="Whom did he play on The Cosby Show?",
    )
    assert got == ("When did Earle Hyman die?", "previous turn")


def test_a_paraphrased_previous_rewrite_still_carries_its_name_over():
    got = resolved(
        "Where was she born?",
        previous="Who is Emmanuelle Seigner's husband?",
        answer="Roman Polanski",
        previous_turn="Who is she married to?",
    )
    assert got == ("Where was Emmanuelle Seigner born?", "previous turn")


def test_it_does_not_mean_the_person_who_answered_a_who_question():
    got = resolved(
        "Which novel is it based on?",
        previous="Who directed The Ninth Gate?",
        answer="Roman Polanski",
        previous_turn="Who directed The Ninth Gate?",
    )
    assert got == ("Which novel is The Ninth Gate based on?", "previous question")


def test_a_possessive_its_becomes_the_names_possessive():
    got = resolved(
        "What was its population in 2011?", previous="In which county is Coton in the Elms?"
    )
    assert got == ("What was Coton in the Elms's population in 2011?", "previous question")


@pytest.mark.parametrize(
    ("turn", "previous", "expected"),
    [
        (
            "How many civilians died in it?",
            "When did the Battle of Manila begin?",
            "the Battle of Manila",
        ),
        ("Which character did he play?", "When was Michael C. Hall born?", "Michael C. Hall"),
        ("Who married her?", "When was Emmanuelle Seigner born?", "Emmanuelle Seigner"),
    ],
)
def test_the_previous_questions_name_keeps_its_title_words(turn, previous, expected):
    found = resolve_follow_up(turn, previous=previous)
    assert found is not None and found.referent == expected and expected in found.question


@pytest.mark.parametrize(
    ("turn", "previous", "answer"),
    [
        ("And in Six Feet Under?", "Which character did Michael C. Hall play in Dexter?", "Dexter"),
        ("What about xz -6?", "How large are the blocks of xz -9?", "192 MiB"),
        ("Did he marry her?", "When was Emmanuelle Seigner born?", ""),  # two kinds of pronoun
        ("What does it become?", "What is the ductus arteriosus also called?", "a ligament"),
    ],
)
def test_nothing_is_resolved_without_one_clear_referent(turn, previous, answer):
    assert resolve_follow_up(turn, previous=previous, answer=answer) is None


@pytest.mark.parametrize(
    ("answer", "short"),
    [
        ("Roman Polanski", "Roman Polanski"),
        ("Speedway, Indiana.", "Speedway, Indiana"),
        ("I could not find the answer in your documents.", ""),
        ("Marta Kello designed the Halvard Bridge.", ""),  # repeats the question: a sentence
        ("", ""),
    ],
)
def test_short_answer_keeps_only_phrases_that_name_something(answer, short):
    assert short_answer(answer, "Who designed the Halvard Bridge?") == short


def test_rewrite_problem_names_a_leftover_pronoun_or_a_wrong_referent():
    found = resolve_follow_up(
        "And what nationality is he?", previous=POLANSKI, answer="Roman Polanski"
    )
    assert found is not None
    assert rewrite_problem("What nationality is Roman Polanski?", found) is None
    assert rewrite_problem("What is Roman Polanski's nationality?", found) is None
    left = rewrite_problem("What nationality is he?", found)
    assert left == "the rewrite left 'he' unresolved"
    wrong = rewrite_problem("What nationality does Emmanuelle Seigner have?", found)
    assert wrong == "the rewrite does not name Roman Polanski"


@pytest.mark.parametrize(
    ("previous", "answer", "expected"),
    [
        (
            "Who cracked the Enigma code in World War 2?",
            "Alan Turing cracked the Enigma code in World War 2.",
            "Where was Alan Turing born?",
        ),
        (
            "Who designed the Sull Viaduct?",
            "The Sull Viaduct was designed by Orla Fenwick.",
            "Where was Orla Fenwick born?",
        ),
    ],
)
def test_a_sentence_answer_to_who_lends_the_name_it_adds(previous, answer, expected):
    # Not "World War 2" or "the Sull Viaduct": the question's own names are not its answer.
    assert resolved("Where was he born?", previous=previous, answer=answer) == (
        expected,
        "previous answer",
    )
