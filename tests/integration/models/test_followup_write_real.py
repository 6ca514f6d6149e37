"""The `write` follow-up rewriter with the real reader: a person introduced in an answer."""

import pytest

from graphs.context import Context
from graphs.deps import Deps
from models.followup import Exchange, Rewrite
from models.followup_write import WriteRewriter

pytestmark = pytest.mark.integration


class Refuse:
    """A fallback that fails the test if the reader's own rewrite was not used."""

    def rewrite(self, turn: str, history: list[Exchange]) -> Rewrite:
        raise AssertionError(f"the written question was refused for {turn!r}")


def test_the_reader_writes_out_where_was_she_born() -> None:
    context = Context(follow_ups="write")
    rewriter = WriteRewriter(lambda: Deps().follow_up_model_for(context), fallback=Refuse())
    first = "Tell me about the Orrin Library."  # made up: no rule picks the person here
    history = [Exchange(first, first, "Edda Sorvik founded the Orrin Library in 1902.")]
    made = rewriter.rewrite("where was she born?", history)
    assert made.made == "model" and made.referent == "Edda Sorvik"
    assert "edda sorvik" in made.question.lower() and "born" in made.question.lower()
    assert "orrin" not in made.question.lower()
