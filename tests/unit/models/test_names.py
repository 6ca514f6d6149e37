import pytest

from models.names import name_runs, title_runs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Who painted Supper at the Ferryman's House?", ["Supper at the Ferryman's House"]),
        ("How many drowned in Saltry in November 1788?", ["Saltry", "November 1788"]),
    ],
)
def test_title_runs_take_a_title_whole_but_not_a_date_after_a_name(text, expected):
    assert title_runs(text) == expected


def test_name_runs_join_small_words_but_not_a_month():
    assert name_runs("When was Coton in the Elms flooded in March 1947?") == [
        "Coton in the Elms",
        "March 1947",
    ]
