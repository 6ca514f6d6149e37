import pytest

from models.followup_candidates import asks_for_thing, candidates, pointer, reaches_back, substitute

# Turns and answers from the threads set's dev half (bench/datasets/threads), as typed.


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        # a short answer whole, then the question's name
        (
            [("Who designed the Halvard Bridge?", "Marta Kello")],
            ["Marta Kello", "the Halvard Bridge"],
        ),
        # a sentence answer gives its names, not itself
        (
            [("Who designed the Halvard Bridge?", "Marta Kello designed the Halvard Bridge.")],
            ["Marta Kello", "the Halvard Bridge"],
        ),
        # what the question asks for belongs to its name; a "the" name with the noun after
        # it, and a definite phrase with its "of <Name>"
        (
            [("What batteries does the Finch-8 radio take?", "AA")],
            ["AA", "the Finch-8 radio's batteries", "the Finch-8", "the Finch-8 radio"],
        ),
        (
            [("What kind of telescope does the Greystone Observatory have?", "refractor")],
            ["refractor", "the Greystone Observatory's telescope", "the Greystone Observatory"],
        ),
        (
            [("Where is the Tallis Rowing Club's boathouse?", "Brackwater")],
            ["Brackwater", "the Tallis Rowing Club's boathouse", "the Tallis Rowing Club"],
        ),
        (
            [("Where is the boathouse of the Tallis Rowing Club?", "Brackwater")],
            [
                "Brackwater",
                "the Tallis Rowing Club",
                "the boathouse of the Tallis Rowing Club",
                "the boathouse",
            ],
        ),
        # numbers name nothing; newest turn first; a quoted title; a leading preposition dropped
        (
            [
                ('Who painted "Morning over Sorrel"?', "Tomas Reyner"),
                ("Where did Tomas Reyner teach?", "At the Corvane Institute."),
            ],
            ["the Corvane Institute", "Tomas Reyner", "Morning over Sorrel"],
        ),
        ([("How deep is Lake Sorrel?", "87 metres")], ["Lake Sorrel"]),
        # a title with small words, unquoted, comes whole, not in parts
        (
            [("Who painted Girl with a Blue Kite?", "Tomas Reyner")],
            ["Tomas Reyner", "Girl with a Blue Kite"],
        ),
        # a short answer that is a noun phrase comes whole, then its names
        (
            [("What closed the Merriden Gallery?", "Coppergate fire")],
            ["Coppergate fire", "Coppergate", "the Merriden Gallery"],
        ),
    ],
)
def test_candidates_are_the_names_and_noun_phrases_said_newest_first(history, expected):
    assert candidates(history) == expected


def test_candidates_are_capped():
    history = [(f"Who built the Orla Tower {i}?", f"Jonas Brell {i}") for i in range(9)]
    assert len(candidates(history, limit=4)) == 4


@pytest.mark.parametrize(
    ("turn", "word", "kind"),
    [
        ("Where was she born?", "she", "she"),
        ("What's its best-selling book?", "its", "it"),
        ("What is that town known for?", "that town", "that"),
        ("When did that burn down?", "that", "that"),  # "that" itself is the subject
        ("When did that open to the public?", "that", "that"),
        ("How tall does that plant grow?", "that plant", "that"),  # a verb after the noun
        ("where is the press you just mentioned?", "the press you just mentioned", "that"),
        ("When can visitors go to the observatory?", "the observatory", "that"),
        ("how many people live there", "there", "there"),
        ("Back to the club: what are its colours?", "its", "it"),
        ("Is there a ferry to Vellin Island?", None, None),  # not a place "there"
        ("Who discovered the sorrel water-lily?", None, None),  # "sorrel" is not a head here
        ("And how long?", None, None),
        # a pointing phrase before the question says what its pronoun means
        (
            "the painting from my first question, who painted it?",
            "the painting from my first question",
            "it",
        ),
        ("the team you just named, which player did they buy?", "the team you just named", "they"),
        ("who painted the one I asked about first", "the one I asked about first", "that"),
    ],
)
def test_pointer_finds_what_points_back(turn, word, kind):
    found = pointer(turn, ["Lake Sorrel", "the Greystone Observatory", "Sorrel"])
    assert (found.word, found.kind) == (word, kind) if word else found is None


@pytest.mark.parametrize(
    ("turn", "referent", "expected"),
    [
        ("Where was she born?", "Marta Kello", "Where was Marta Kello born?"),
        ("What's its best-selling book?", "the Quillfield Press", None),
        (
            "Back to the club: what are its colours?",
            "the Tallis Rowing Club",
            "What are the Tallis Rowing Club's colours?",
        ),
        ("What is that town known for?", "Dunmere", "What is Dunmere known for?"),
        ("how many people live there", "Dunmere", "How many people live in Dunmere?"),
        (
            "When did that burn down?",
            "the wooden toll bridge",
            "When did the wooden toll bridge burn down?",
        ),
        (
            "Sorry, which river does the bridge we talked about cross?",
            "the Halvard Bridge",
            "Which river does the Halvard Bridge cross?",
        ),
        (
            "and who built the hall?",
            "the Brackwater Town Hall",
            "Who built the Brackwater Town Hall?",
        ),
        (
            "Back to the town you first mentioned: what was it founded as?",
            "Brackwater",
            "What was Brackwater founded as?",
        ),
        (
            "the painting from my first question, who painted it?",
            "Evening at the Mill",
            "Who painted Evening at the Mill?",
        ),
        # one kind at a time: "it" is left for a second choice
        ("What did he leave to it?", "Aurel Corvane", "What did Aurel Corvane leave to it?"),
        # nothing to replace
        ("And how long?", "Lake Sorrel", ""),
        ("Is there a ferry?", "Vellin Island", ""),
    ],
)
def test_substitute_puts_the_referent_where_the_turn_points_back(turn, referent, expected):
    found = substitute(turn, referent, [referent])
    if expected is None:  # a possessive takes "'s"
        assert found == f"What's {referent}'s best-selling book?"
    else:
        assert found == expected


@pytest.mark.parametrize(
    ("question", "kind", "expected"),
    [
        ("What closed the Brannock Mill?", "it", True),
        ("Which painting was stolen in 1967?", "it", True),
        ("and which ship did the Kell line buy?", "it", True),
        ("Which office does Priya Dall work from?", "it", True),
        ("What batteries does the Finch-8 radio take?", "it", False),  # what kind: "AA"
        ("What kind of telescope does the Greystone Observatory have?", "it", False),
        ("What is Queen of the Fen?", "it", False),  # defines a name: the name stays the topic
        ("Who carved the Lantern Keeper?", "it", False),
        ("How tall is the Lantern Keeper?", "it", False),
        ("Where was the Lantern Keeper found?", "it", False),
        ("Where was the Lantern Keeper found?", "there", True),
        ("What is the only island in Lake Sorrel?", "there", True),
        ("How long is the Kell viaduct?", "there", False),
    ],
)
def test_asks_for_thing_says_when_a_later_it_means_the_answer(question, kind, expected):
    assert asks_for_thing(question, kind) is expected


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        ("going back to the flood, when was the wall finished", True),
        ("who painted the one we talked about first?", True),
        ("the statue from my first question, who made it?", True),
        ("who made it?", False),
        ("and there?", False),
    ],
)
def test_reaches_back_finds_a_turn_that_says_it_goes_back(turn, expected):
    assert reaches_back(turn) is expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a past form after the name, at the clause end or before a small word, is its verb
        ("When was the Orrin Mill built?", ["the Orrin Mill"]),
        ("What was the Orrin Mill at Dunley built for?", ["the Orrin Mill at Dunley"]),
        ("When was the Quarry Chapel opened to visitors?", ["the Quarry Chapel"]),
        ("When was the boathouse rebuilt?", ["the boathouse"]),
        # a noun after the name still belongs to it, a past form that is a noun too
        ("Where is the Pell Street bakery?", ["the Pell Street", "the Pell Street bakery"]),
        ("Who bred the Tamsin rose?", ["the Tamsin", "the Tamsin rose"]),
    ],
)
def test_a_verb_after_a_name_is_not_part_of_it(question, expected):
    assert candidates([(question, "")]) == expected
