import pytest

from models.followup_salience import (
    described,
    fuller,
    names_said_topic,
    outside_clause,
    places_first,
    said_back,
)


def test_a_there_takes_a_name_said_after_a_place_preposition_first():
    things = ["the Marigold", "Penhallow"]
    texts = ["What was the Marigold?", "a fishing smack built at Penhallow"]
    assert places_first(things, texts) == ["Penhallow", "the Marigold"]
    assert places_first(things, []) == things


def test_an_answers_short_name_is_the_questions_full_one():
    named = ["the Orchid House at Brendle", "Brendle"]
    assert fuller("the Orchid House", named) == "the Orchid House at Brendle"
    assert fuller("the Tea Room", named) == "the Tea Room"


@pytest.mark.parametrize(
    ("turn", "word", "expected"),
    [
        # not the crew: a pronoun does not mean a noun phrase of its own clause
        ("when did the crew leave it", "it", ["the old lighthouse at Skerry"]),
        # another clause: the crew may be "it"
        (
            "what did the crew do when it was wrecked",
            "it",
            ["the Harwick lifeboat crew", "the old lighthouse at Skerry"],
        ),
        # a possessive may mean its own clause's noun
        (
            "when did the crew get its medals",
            "its",
            ["the Harwick lifeboat crew", "the old lighthouse at Skerry"],
        ),
    ],
)
def test_a_pronoun_does_not_mean_a_noun_phrase_of_its_own_clause(turn, word, expected):
    things = ["the Harwick lifeboat crew", "the old lighthouse at Skerry"]
    assert outside_clause(turn, word, things) == expected


def test_a_name_cut_short_goes_with_the_name_it_was_cut_from():
    things = ["the Harwick lifeboat crew", "the Harwick lifeboat", "the slipway"]
    assert outside_clause("when did the crew sell it", "it", things) == ["the slipway"]


def test_all_things_are_kept_when_the_clause_names_every_one():
    assert outside_clause("did the crew love it", "it", ["the crew"]) == ["the crew"]


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        ("who was treasurer of the orley rowing club in 1931", True),
        ("what colour were the orley rowing club's blades", True),
        ("who was treasurer of the club in 1931", False),  # no name typed
        ("and the orley rowing club", False),  # an "and": it leans on the last question
        ("who gave the orley rowing club its boathouse", False),  # "its" points somewhere
    ],
)
def test_a_full_question_typed_in_lower_case_names_a_name_said_before(turn, expected):
    said = ["When did the Orley Rowing Club win the Vane Cup?", "1931"]
    assert names_said_topic(turn, said) is expected


def test_a_person_described_by_what_they_did_is_who_answered_that_question():
    exchanges = [
        ("Who bought the Tern Inn in 1903?", "the brewer Silas Penn"),
        ("When did he sell it?", "1911"),
        ("Who painted its sign?", "Mabel Orr"),
    ]
    assert described("the man who bought the inn", exchanges) == "Silas Penn"
    assert described("the woman who painted it", exchanges) == "Mabel Orr"
    assert described("the man who sold it", exchanges) == ""  # no "Who sold ...?" asked
    assert described("the inn", exchanges) == ""


def test_back_to_the_noun_names_the_one_option_with_that_noun_and_a_name():
    options = ["the Tern Inn sign", "the Harbour Inn at Polwith", "the Orley moon rose"]
    assert said_back("the rose", options) == "the Orley moon rose"
    assert said_back("the inn", options) == ""  # no option ends "inn"
    assert said_back("the inn", [*options, "the Tern Inn"]) == "the Tern Inn"
    assert said_back("the inn", [*options, "the Tern Inn", "the Harbour Inn"]) == ""  # two
    assert said_back("the press", ["The first press", "Old Growler"]) == ""  # no name
