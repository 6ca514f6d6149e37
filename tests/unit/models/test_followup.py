import pytest

from models.followup import (
    Exchange,
    FollowUpRewriter,
    RulesRewriter,
    TemplateRewriter,
    is_fragment,
    stands_alone,
    template_question,
)
from models.followup_choice import ChoiceRewriter
from tests.fakes import structured_model

KELLO = [
    Exchange(
        "Who designed the Halvard Bridge?",
        "Who designed the Halvard Bridge?",
        "Marta Kello designed the Halvard Bridge.",
    )
]


@pytest.mark.parametrize(
    ("turn", "alone"),
    [
        ("Where was Odile Fanshaw born?", True),
        ("How do I descale a Lumo T2 kettle?", True),
        ("What's the population of Wexby?", True),  # a contracted question word
        ("whats the population of Wexby", True),  # typed without the apostrophe
        ("the team you just named, who coaches them?", False),
        ("What's the record?", False),
        ("Where was she born?", False),
        ("What is that town known for?", False),
        ("Which river leaves the lake there?", False),
        ("And Port Alder?", False),
        ("What about Port Alder?", False),  # the previous question, about Port Alder
        ("how about the Astin Mill", False),
        ("What is known about Port Alder?", True),
        ("Who built the hall?", False),  # no name: it may lean on the conversation
        ("Back to the club: who runs the Tallis Rowing Club?", False),
    ],
)
def test_stands_alone(turn, alone):
    assert stands_alone(turn) is alone


def test_every_kind_satisfies_the_protocol():
    kinds = [TemplateRewriter(), RulesRewriter(), ChoiceRewriter(structured_model)]
    assert all(isinstance(k, FollowUpRewriter) for k in kinds)


def test_template_question_keeps_the_turn_with_the_previous_question_as_context():
    assert template_question("Where was she born?", "Who was Ada?") == (
        "Where was she born? (context: Who was Ada?)"
    )
    assert template_question("Where?", "  ") == "Where?"
    flat = template_question("And the highest?", "When? (context: Who won? — Ada)", answer="61")
    assert flat == "What about the highest? (context: When? — 61)"  # stays short


def test_rules_read_a_pronoun_as_the_name_in_a_sentence_answer():
    found = RulesRewriter().rewrite("Where was she born?", KELLO)
    assert (found.question, found.made, found.referent) == (
        "Where was Marta Kello born?",
        "resolved",
        "she = Marta Kello",
    )
    assert RulesRewriter().rewrite("And in Poland?", KELLO).made == "template"


def test_a_question_after_a_fronted_phrase_is_a_full_question():
    assert not is_fragment("For both zones, how much is a single ticket on the trams?")
    assert is_fragment("In 1904, the fire") and is_fragment("the old walls, please")
