import pytest

from models.followup_repair import ellipsis_from, merged_with, put_referent


@pytest.mark.parametrize(
    ("text", "turn", "referent", "mended"),
    [
        # a pronoun the rewrite left as the turn had it; the one it resolved stays resolved
        (
            "What did Aurel Corvane leave to it?",
            "What did he leave to it?",
            "the Corvane Institute",
            "What did Aurel Corvane leave to the Corvane Institute?",
        ),
        (
            "What are its colours?",
            "What are its colours?",
            "the Rowan Club",
            "What are the Rowan Club's colours?",
        ),
        ("When did she die?", "When did she die?", "Ida Moll", "When did Ida Moll die?"),
        # a pointing phrase whose noun ends the referent, with the words about the talk dropped
        (
            "Sorry, which river does the bridge we talked about cross?",
            "Sorry, which river does the bridge we talked about cross?",
            "the Orla Bridge",
            "Which river does the Orla Bridge cross?",
        ),
        (
            "Who opened that museum?",
            "Who opened that museum?",
            "the Ashby Museum",
            "Who opened the Ashby Museum?",
        ),
        (
            "How many people live there?",
            "How many people live there?",
            "Castel Dorn",
            "How many people live in Castel Dorn?",
        ),
        # nothing that points back, or two kinds left, or the referent already there: no repair
        ("Is there a ferry?", "Is there a ferry?", "Castel Dorn", ""),
        ("Who found the dorn lily?", "Who found the dorn lily?", "Castel Dorn", ""),
        ("What did he leave to it?", "What did he leave to it?", "Jonas Brell", ""),
        ("When did Ida Moll die?", "When did she die?", "Ida Moll", ""),
    ],
)
def test_put_referent_puts_the_name_where_the_text_still_points_back(text, turn, referent, mended):
    assert put_referent(text, turn, referent) == mended


def test_an_and_x_turn_listed_with_an_earlier_name_is_a_merge():
    earlier = "How many people live in Hallam? And Wexby? How many people live in Wexby?"
    merged = "How many people live in Hallam, Wexby and Orrin?"
    assert merged_with(merged, "and Orrin?", earlier) == "Wexby"
    assert merged_with("How many people live in Orrin?", "and Orrin?", earlier) == ""
    visit = "When did Ida Moll visit Hallam?"
    assert merged_with("When did Ida Moll visit Orrin?", "and Orrin?", visit) == ""
    assert merged_with(merged, "And how many students?", earlier) == ""


def test_ellipsis_from_asks_the_previous_question_about_the_new_name():
    previous = "How many people live in Wexby?"
    assert ellipsis_from(previous, "and Orrin?", "Wexby") == "How many people live in Orrin?"
    assert ellipsis_from(previous, "and Orrin?", "Hallam") == ""
    assert ellipsis_from(previous, "Where was she born?", "Wexby") == ""
