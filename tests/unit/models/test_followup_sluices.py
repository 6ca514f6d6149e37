import pytest

from models.followup_sluices import base_form, parallel, sluice


@pytest.mark.parametrize(
    ("past", "plain"),
    [
        ("opened", "open"),
        ("painted", "paint"),
        ("planned", "plan"),
        ("carried", "carry"),
        ("called", "call"),
        ("named", "name"),
        ("replaced", "replace"),
        ("arranged", "arrange"),
        ("caused", "cause"),
        ("decided", "decide"),
        ("donated", "donate"),
        ("declared", "declare"),
        ("visited", "visit"),
        ("offered", "offer"),
        ("wrote", "write"),
        ("gave", "give"),
        ("bought", "buy"),
        ("is", ""),
        ("did", ""),
    ],
)
def test_a_past_tense_gets_its_plain_form(past, plain):
    assert base_form(past) == plain


@pytest.mark.parametrize(
    ("turn", "previous", "answer", "expected"),
    [
        # the answer is the subject the "who" or "what" asked for
        (
            "when",
            "Who restored the clock tower at Pelham?",
            "Agnes Morrow.",
            "When did Agnes Morrow restore the clock tower at Pelham?",
        ),
        (
            "and when?",
            "What sank the Mereth Star?",
            "a winter storm, the Great Gale.",
            "When did the Great Gale sink the Mereth Star?",
        ),
        (
            "when",
            "Who wrote Songs of the Ridge?",
            "the schoolmaster Owen Trave.",
            "When did Owen Trave write Songs of the Ridge?",
        ),
        # a question word and an auxiliary: the word is swapped
        (
            "when",
            "Why was the Harrow Lido closed?",
            "the pool leaked.",
            "When was the Harrow Lido closed?",
        ),
        ("where?", "How did the fire start?", "a dropped lamp.", "Where did the fire start?"),
    ],
)
def test_a_bare_question_word_asks_the_last_question_again(turn, previous, answer, expected):
    assert sluice(turn, previous, answer) == expected


@pytest.mark.parametrize(
    ("turn", "previous", "answer"),
    [
        ("when", "When did the ferry start?", "1901."),  # the same word: nothing to swap
        ("how", "How tall is the Pelham clock tower?", "40 metres."),  # "how tall" is no event
        ("when", "Who restored the clock tower?", "a local builder."),  # no name answered
        ("when was it", "Who restored the clock tower?", "Agnes Morrow."),  # not bare
    ],
)
def test_other_turns_are_no_bare_question_word(turn, previous, answer):
    assert sluice(turn, previous, answer) == ""


@pytest.mark.parametrize(
    ("turn", "previous", "expected"),
    [
        (
            "and oats",
            "What is the duty on barley at Fennick Quay?",
            "What is the duty on oats at Fennick Quay?",
        ),
        (
            "what about wool?",
            "How much was paid for flax in the Orley market?",
            "How much was paid for wool in the Orley market?",
        ),
        (
            "and for swearing at the umpire",
            "What is the penalty for a late start in the Corran Cup?",
            "What is the penalty for swearing at the umpire in the Corran Cup?",
        ),
    ],
)
def test_and_x_takes_the_place_of_what_it_parallels(turn, previous, expected):
    assert parallel(turn, previous) == expected


@pytest.mark.parametrize(
    ("turn", "previous"),
    [
        ("and her", "What is the price of a ticket?"),  # a pronoun is no parallel noun
        ("and the mill", "Who built the bridge?"),  # no lower-case word after a preposition
        ("and oats", "What is the duty on barley and on rye?"),  # two places: none chosen
        ("and during the frost", "Who was keeper when the lamp was lit?"),  # no such "during"
    ],
)
def test_and_x_with_no_single_parallel_is_left_alone(turn, previous):
    assert parallel(turn, previous) == ""


def test_a_bare_noun_parallels_a_bare_noun_not_a_thing_with_an_article():
    assert parallel("and cattle", "How many people live in the village?") == ""
