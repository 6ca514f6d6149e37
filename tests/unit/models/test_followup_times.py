import pytest

from models.followup import Exchange
from models.followup_times import dated, named_time, time_pointer

# Made-up conversations: a mill that closed, a town that flooded.
CLOSED = [
    Exchange("When did the Orrin Mill close?", "When did the Orrin Mill close?", "1884."),
    Exchange("why", "Why did the Orrin Mill close in 1884?", "A fire in the boiler house."),
]
FLOODED = [
    Exchange(
        "What happened at Dunley on 3 May 1884?",
        "What happened at Dunley on 3 May 1884?",
        "The river broke its banks.",
    ),
    Exchange("how many sheep drowned", "How many sheep drowned in the flood?", "1500 sheep."),
]


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        ("who ran it that year", ("Who ran it in 1884?", "that year = 1884")),
        ("and who ran the mill then?", ("Who ran the mill in 1884?", "then = 1884")),
        ("what else happened at the time", ("What else happened in 1884?", "at the time = 1884")),
        ("who was mayor at that time", ("Who was mayor in 1884?", "at that time = 1884")),
        ("who bought it in the same year", ("Who bought it in 1884?", "in the same year = 1884")),
        (
            "what else closed that decade",
            ("What else closed in the 1880s?", "that decade = the 1880s"),
        ),
        ("since then, who has owned it", ("Since 1884, who has owned it?", "since then = 1884")),
    ],
)
def test_a_time_pointer_becomes_the_time_the_conversation_named(turn, expected):
    assert dated(turn, CLOSED) == expected


@pytest.mark.parametrize(
    "turn",
    [
        "who owned it at the time of the fire",  # the time is the fire's, said in the turn
        "and then?",  # what came next, not a time
        "then who bought it",  # "then" opens the clause: "next"
        "who owned it",  # nothing points at a time
        "back to the fire, who ran it then",  # goes back to a thing, not to a time
        "what happened that day",  # a day wants a date, and only a year was named
    ],
)
def test_a_turn_without_a_time_it_can_mean_is_left_to_the_other_readings(turn):
    assert dated(turn, CLOSED) is None


def test_the_unit_picks_the_time_it_wants_and_counts_are_not_years():
    # the newest answer's "1500 sheep" is a count; the first question's date is the time
    assert dated("who was mayor that day", FLOODED) == (
        "Who was mayor on 3 May 1884?",
        "that day = 3 May 1884",
    )
    assert dated("what else happened that month", FLOODED)[0] == "What else happened in May 1884?"
    assert dated("who was mayor then", FLOODED)[0] == "Who was mayor on 3 May 1884?"


def test_the_latest_time_wins_unless_the_turn_asks_for_the_first():
    history = [
        Exchange("When was the Tarn Bridge opened?", "When was the Tarn Bridge opened?", "1902."),
        Exchange("when was it rebuilt", "When was the Tarn Bridge rebuilt?", "In 1931."),
    ]
    assert dated("who paid for it then", history)[0] == "Who paid for it in 1931?"
    back = "back to the year you said first, who paid for it then"
    assert dated(back, history) == ("Who paid for it in 1902?", "then = 1902")


def test_a_year_after_the_is_a_year_and_a_number_with_a_comma_is_not():
    assert named_time(["The 1884 flood closed it."], "year") == "in 1884"
    assert named_time(["It held 1,884 tons."], "year") == ""


def test_time_pointer_keeps_a_preposition_other_than_in_on_at():
    assert time_pointer("who had owned it before then").preposition == "before"
    assert time_pointer("who owned it in that year").preposition == ""
