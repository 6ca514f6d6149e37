"""Entries of real option lists: each head with its own description, never its neighbour's."""

from pathlib import Path

from nodes._doc_entries import Entry, entry_pieces, split_entries
from stores.loaders import load_source

DOCS = Path(__file__).parents[3] / "bench" / "datasets" / "docqa" / "docs"


def _section(relative: str, start: str, end: str) -> str:
    text = (DOCS / relative).read_text()
    begin = text.index(start)
    return text[begin : text.index(end, begin)]


def _by_head(entries: list[Entry]) -> dict[str, str]:
    return {e.head: e.description for e in entries}


def test_help_lines_give_one_entry_per_option() -> None:
    text = _section("grep/grep-help.txt", "Context control:", "--group-separator")
    entries = _by_head(split_entries(text))
    assert entries["-A, --after-context=NUM"] == "print NUM lines of trailing context"
    assert entries["-B, --before-context=NUM"] == "print NUM lines of leading context"
    assert "Context control:" not in entries


def test_long_only_option_and_continuation_lines() -> None:
    text = _section("coreutils/tail-help.txt", "      --pid=PID", "-z, --zero")
    entries = _by_head(split_entries(text))
    assert entries["--pid=PID"] == "with -f, terminate after process ID, PID dies"
    sleep = entries["-s, --sleep-interval=N"]
    assert sleep.startswith("with -f, sleep for approximately N seconds (default 1.0)")
    assert "--pid=P, check process P" in sleep  # its own continuation line, not a new entry


def test_definition_list_of_exit_statuses() -> None:
    text = _section("sed/info-sed-exit-status.txt", "0\n", "   Additionally")
    entries = _by_head(split_entries(text))
    assert list(entries) == ["0", "1", "2", "4"]
    assert entries["2"].startswith("One or more of the input file specified")
    assert entries["0"] == "Successful completion."


def test_info_terms_lose_their_quotes() -> None:
    text = _section("sed/info-sed-the-s-command.txt", "‘g’\n", "‘NUMBER’")
    assert split_entries(text) == [
        Entry("g", "Apply the replacement to _all_ matches to the REGEXP, not just the first.")
    ]


def test_rendered_html_entries_as_indexed() -> None:
    loaded = load_source(DOCS / "python3.11-doc" / "using" / "cmdline.html").passages[0].text
    begin = loaded.index("-S ¶")
    indexed = " ".join(loaded[begin : loaded.index("-v ¶", begin)].split())  # one-line paragraphs
    entries = _by_head(split_entries(indexed))
    assert list(entries) == ["-S", "-u"]
    assert entries["-u"].startswith("Force the stdout and stderr streams to be unbuffered.")
    assert entries["-S"].startswith("Disable the import of the module site")


def test_prose_has_no_entries() -> None:
    text = _section("sed/info-sed-exit-status.txt", "An exit status of zero", "\n\n")
    assert split_entries(text) == []


def test_entry_pieces_keep_the_prose_and_give_each_entry_whole() -> None:
    text = _section("grep/grep-help.txt", "Context control:", "--group-separator")
    pieces = entry_pieces("Some prose first.\n\n" + text)
    assert pieces[0] == ("Some prose first.", False)
    entries = [piece for piece, entry in pieces if entry]
    assert entries[0].startswith("-B, --before-context=NUM")
    assert "trailing" not in entries[0]  # the next option's description is its own piece
    assert any(piece.startswith("-A, --after-context=NUM") for piece in entries)


def test_prose_alone_gives_no_pieces() -> None:
    assert entry_pieces("A river runs through it. It is long.\nAnd wide.") == []
