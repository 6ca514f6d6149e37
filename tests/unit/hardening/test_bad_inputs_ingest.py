"""Bad files for ingestion: each is skipped with a reason or indexed safely; nothing is lost."""

import gzip
import io
import os
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

import stores.ingest as ingest_module
from app.cli import main
from stores.chunking import whitespace_token_counter
from stores.index import open_index
from stores.ingest import IngestReport, ingest
from stores.retrieval import HybridRetriever

EMBEDDINGS = DeterministicFakeEmbedding(size=16)
BASELINE = "# Baseline\n\nThe lighthouse keeper polished the brass lamp every evening.\n"


def run(paths: list[Path], home: Path, **options) -> IngestReport:
    return ingest(
        paths,
        home=home,
        progress=False,
        embeddings=EMBEDDINGS,
        count_tokens=whitespace_token_counter,
        **options,
    )


def titles(home: Path, query: str) -> list[str]:
    index = open_index(home=home, embeddings=EMBEDDINGS)
    return [
        d.metadata["title"] for d in HybridRetriever(index=index, k=5, mode="bm25").invoke(query)
    ]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose index already holds one document (the one that must never be lost)."""
    docs = tmp_path / "baseline"
    docs.mkdir()
    (docs / "baseline.md").write_text(BASELINE)
    home = tmp_path / "home"
    assert run([docs], home).total_chunks == 1
    return home


def assert_baseline_kept(home: Path) -> None:
    assert titles(home, "lighthouse keeper brass lamp") == ["Baseline"]


def text_pdf(text: str) -> bytes:
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream, DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
    page[NameObject("/Contents")] = writer._add_object(ContentStream(stream, writer))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted_pdf(text: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(text))))
    writer.encrypt(user_password="secret", owner_password="owner")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


BAD_FILES = {
    "pdf-zero-bytes": ("empty.pdf", b"", "empty file"),
    "pdf-garbage": ("garbage.pdf", b"%PDF-1.7\n\x00\x01 this is not a pdf at all", "corrupt"),
    "pdf-truncated": ("cut.pdf", None, "corrupt"),
    "pdf-encrypted": ("locked.pdf", None, "encrypted PDF"),
    "pdf-no-text": ("blank.pdf", None, "no extractable text"),
    "pdf-actually-html": ("fake.pdf", b"<html><body>hello</body></html>", "corrupt"),
    "text-zero-bytes": ("empty.txt", b"", "empty file"),
    "text-whitespace-only": ("blank.md", b" \n\t\n   \r\n", "empty file"),
    "text-binary-nul": ("binary.txt", b"abc\x00\x01\x02def" * 10, "binary content"),
    "text-invalid-utf8-and-cp1252": ("bad.txt", b"caf\x81\x8d\x8f\x90\x9d", "not UTF-8"),
    "jsonl-all-malformed": ("rows.jsonl", b'{"title": 1\n[1, 2]\nnot json\n', "no passages"),
    "html-no-text": ("empty.html", b"<html><head><script>x=1</script></head></html>", "no extract"),
    "unsupported-type": ("archive.zip", b"PK\x03\x04 zip", "unsupported file type"),
    "gzip-corrupt": ("notes.txt.gz", b"\x1f\x8b\x08\x00 not deflate at all", "corrupt gzip"),
    "gzip-of-nothing": ("notes.md.gz", gzip.compress(b" \n"), "empty file"),
    "man-page-not-roff": ("notes.1", b"just a note named like a man page\n", "not roff source"),
    "man-page-groff-fails": ("bad.1", b".TH BAD 1\n.so /nonexistent/page.1\n", "groff could not"),
    "info-without-nodes": ("manual.info", b"This is manual.info, no nodes.\n", "no Info nodes"),
}


def _bad_content(name: str, content: bytes | None) -> bytes:
    if content is not None:
        return content
    match name:
        case "cut.pdf":
            whole = text_pdf("Truncated document text")
            return whole[: len(whole) // 3]
        case "locked.pdf":
            return encrypted_pdf("Secret document text")
    return blank_pdf()


@pytest.mark.parametrize("case", list(BAD_FILES), ids=list(BAD_FILES))
def test_bad_file_is_skipped_with_a_reason(case: str, tmp_path: Path, home: Path) -> None:
    name, content, reason = BAD_FILES[case]
    path = tmp_path / name
    path.write_bytes(_bad_content(name, content))
    report = run([path], home)
    assert len(report.skipped) == 1 and reason in report.skipped[0][1], report.skipped
    assert report.total_chunks == 1
    assert_baseline_kept(home)


def test_readable_pdf_is_indexed_next_to_the_baseline(tmp_path: Path, home: Path) -> None:
    (tmp_path / "ok.pdf").write_bytes(text_pdf("Zebras migrate across the savanna"))
    report = run([tmp_path / "ok.pdf"], home)
    assert (report.skipped, report.total_chunks) == ([], 2)
    assert titles(home, "zebras savanna") == ["ok"]
    assert_baseline_kept(home)


def test_deeply_nested_html_is_indexed(tmp_path: Path, home: Path) -> None:
    depth = 5000
    html = "<html><body>" + "<div>" * depth + "Deep marmot burrow" + "</div>" * depth + "</body>"
    (tmp_path / "deep.html").write_text(html + "</html>")
    report = run([tmp_path / "deep.html"], home)
    assert report.skipped == [] and report.total_chunks == 2
    assert titles(home, "marmot burrow") == ["deep"]
    assert_baseline_kept(home)


def test_enormous_markup_with_little_text_is_indexed(tmp_path: Path, home: Path) -> None:
    noise = '<span class="x" data-a="1"></span>' * 100_000  # ~3.4 MB of empty tags
    html = f"<html><head><title>Huge</title></head><body>{noise}<p>Okapi forest</p></body></html>"
    (tmp_path / "huge.html").write_text(html)
    report = run([tmp_path / "huge.html"], home)
    assert report.skipped == [] and titles(home, "okapi forest") == ["Huge"]
    assert_baseline_kept(home)


def test_unclosed_and_broken_html_is_indexed(tmp_path: Path, home: Path) -> None:
    (tmp_path / "broken.html").write_text("<html><body><p>Narwhal tusk<div><b><i>spiral</p></x")
    report = run([tmp_path / "broken.html"], home)
    assert report.skipped == [] and titles(home, "narwhal tusk") == ["broken"]
    assert_baseline_kept(home)


def _sparse(path: Path, megabytes: int) -> None:
    with path.open("wb") as handle:  # sparse: nothing is written or held in memory
        handle.truncate(megabytes * 1024 * 1024)


def test_100_mb_text_file_is_refused_by_size(tmp_path: Path, home: Path) -> None:
    _sparse(tmp_path / "big.txt", 100)
    report = run([tmp_path / "big.txt"], home)
    assert report.skipped == [
        (str(tmp_path / "big.txt"), "100 MB is over the 20 MB limit per file")
    ]
    assert_baseline_kept(home)


def test_100_mb_file_through_the_cli_exits_1_with_the_reason(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(ingest_module, "_embeddings_for", lambda index: EMBEDDINGS)
    monkeypatch.setattr(ingest_module, "minilm_token_counter", whitespace_token_counter)
    _sparse(tmp_path / "big.md", 100)
    status = main(["--home", str(home), "ingest", "--no-progress", str(tmp_path / "big.md")])
    out = capsys.readouterr().out
    assert status == 1 and "100 MB is over the 20 MB limit per file" in out
    assert "1 in the index" in out
    assert_baseline_kept(home)


def test_cli_max_file_mb_lower_limit_refuses_a_small_file(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(ingest_module, "_embeddings_for", lambda index: EMBEDDINGS)
    monkeypatch.setattr(ingest_module, "minilm_token_counter", whitespace_token_counter)
    (tmp_path / "two.txt").write_text("word " * 500_000)  # ~2.4 MB
    args = ["--home", str(home), "ingest", "--no-progress", "--max-file-mb", "1"]
    assert main([*args, str(tmp_path / "two.txt")]) == 1
    assert "over the 1 MB limit" in capsys.readouterr().out
    assert_baseline_kept(home)


def test_file_symlink_loop_in_a_folder_is_skipped(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "loop"
    folder.mkdir()
    os.symlink(folder / "b.md", folder / "a.md")
    os.symlink(folder / "a.md", folder / "b.md")
    (folder / "good.md").write_text("# Good\n\nPangolins have scales.\n")
    report = run([folder], home)
    assert sorted(Path(p).name for p, _ in report.skipped) == ["a.md", "b.md"]
    assert all("cannot read" in reason for _, reason in report.skipped)
    assert titles(home, "pangolins scales") == ["Good"]
    assert_baseline_kept(home)


def test_file_symlink_loop_named_explicitly_is_skipped(tmp_path: Path, home: Path) -> None:
    os.symlink(tmp_path / "y.md", tmp_path / "x.md")
    os.symlink(tmp_path / "x.md", tmp_path / "y.md")
    report = run([tmp_path / "x.md"], home)
    assert len(report.skipped) == 1 and report.total_chunks == 1
    assert_baseline_kept(home)


def test_folder_symlink_loop_is_not_followed(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "tree"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "note.md").write_text("# Note\n\nAxolotls regrow limbs.\n")
    os.symlink(folder, folder / "sub" / "back")  # tree/sub/back -> tree
    report = run([folder], home)
    assert (report.files, report.skipped, report.total_chunks) == (1, [], 2)
    assert_baseline_kept(home)


def test_dangling_symlink_is_skipped(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "dangling"
    folder.mkdir()
    os.symlink(tmp_path / "gone.md", folder / "link.md")
    report = run([folder], home)
    assert len(report.skipped) == 1 and "cannot read" in report.skipped[0][1]
    assert_baseline_kept(home)


def test_fifo_is_skipped_instead_of_blocking(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(folder / "pipe.md")  # reading it would block forever without a writer
    report = run([folder], home)
    assert report.skipped == [(str(folder / "pipe.md"), "not a regular file")]
    assert_baseline_kept(home)


def test_symlink_to_a_device_is_skipped_instead_of_reading_forever(
    tmp_path: Path, home: Path
) -> None:
    os.symlink("/dev/zero", tmp_path / "zero.txt")  # st_size 0, endless content
    report = run([tmp_path / "zero.txt"], home)
    [(skipped, reason)] = report.skipped
    assert skipped == str(tmp_path / "zero.txt")
    assert "device file, not a document" in reason
    assert_baseline_kept(home)


def test_chmod_000_file_is_skipped_or_read_by_root(tmp_path: Path, home: Path) -> None:
    path = tmp_path / "secret.md"
    path.write_text("# Secret\n\nQuokkas smile.\n")
    path.chmod(0)
    report = run([path], home)
    if os.geteuid() == 0:  # root reads it anyway: it is indexed like any other file
        assert report.skipped == [] and titles(home, "quokkas smile") == ["Secret"]
    else:
        assert report.skipped == [(str(path), "cannot read: Permission denied")]
    assert_baseline_kept(home)


def test_unreadable_file_is_skipped(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "denied.md"
    path.write_text("# Denied\n\nText.\n")
    real = Path.read_bytes

    def denied(self: Path) -> bytes:
        if self.name == "denied.md":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    report = run([path], home)
    assert report.skipped == [(str(path), "cannot read: Permission denied")]
    assert_baseline_kept(home)


def test_file_vanishing_after_the_folder_walk_is_skipped(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "vanish"
    folder.mkdir()
    (folder / "gone.md").write_text("# Gone\n\nText.\n")
    (folder / "stays.md").write_text("# Stays\n\nIbex climb dams.\n")
    walked = list(ingest_module.expand_paths([folder]))
    (folder / "gone.md").unlink()
    monkeypatch.setattr(ingest_module, "expand_paths", lambda paths: iter(walked))
    report = run([folder], home)
    assert [Path(p).name for p, _ in report.skipped] == ["gone.md"]
    assert "No such file" in report.skipped[0][1]
    assert titles(home, "ibex climb") == ["Stays"]
    assert_baseline_kept(home)


def test_duplicate_files_in_two_places_are_both_indexed_once_each(
    tmp_path: Path, home: Path
) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "same.md").write_text("# Same\n\nWombats dig tunnels.\n")
    first = run([tmp_path / "one", tmp_path / "two"], home)
    again = run([tmp_path / "one", tmp_path / "two", tmp_path / "one"], home)
    assert (first.added, first.total_chunks) == (2, 3)
    assert (again.added, again.unchanged, again.total_chunks) == (0, 3, 3)
    assert_baseline_kept(home)


def test_same_file_named_twice_is_stored_once(tmp_path: Path, home: Path) -> None:
    (tmp_path / "twice.md").write_text("# Twice\n\nMeerkats stand guard.\n")
    report = run([tmp_path / "twice.md", tmp_path / "twice.md", tmp_path], home)
    assert (report.added, report.total_chunks) == (1, 2)
    assert_baseline_kept(home)


def test_duplicate_jsonl_passages_across_files_are_stored_once(tmp_path: Path, home: Path) -> None:
    row = '{"title": "Kiwi", "text": "Kiwi birds cannot fly."}\n'
    (tmp_path / "a.jsonl").write_text(row * 3)
    (tmp_path / "b.jsonl").write_text(row)
    report = run([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], home)
    assert (report.added, report.total_chunks) == (1, 2)
    assert_baseline_kept(home)


def test_file_changed_during_ingestion_stores_what_was_read(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "moving.md"
    path.write_text("# Moving\n\nFirst version mentions capybaras.\n")
    real = ingest_module.load_source

    def load_then_change(target: Path, **options):
        loaded = real(target, **options)
        target.write_text("# Moving\n\nSecond version mentions tapirs.\n")  # between read and store
        return loaded

    monkeypatch.setattr(ingest_module, "load_source", load_then_change)
    report = run([path], home)
    assert (report.skipped, report.total_chunks) == ([], 2)
    assert titles(home, "capybaras") == ["Moving"]
    monkeypatch.setattr(ingest_module, "load_source", real)
    again = run([path], home)  # the next run replaces the old version's chunks
    assert (again.added, again.removed, again.total_chunks) == (1, 1, 2)
    assert titles(home, "tapirs") == ["Moving"] and titles(home, "capybaras") == []
    assert_baseline_kept(home)


def test_file_deleted_during_ingestion_keeps_the_index_consistent(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "brief.md"
    path.write_text("# Brief\n\nGeckos lick their eyes.\n")
    real = ingest_module.load_source

    def load_then_delete(target: Path, **options):
        loaded = real(target, **options)
        target.unlink()
        return loaded

    monkeypatch.setattr(ingest_module, "load_source", load_then_delete)
    report = run([path], home)
    assert (report.skipped, report.total_chunks) == ([], 2)
    assert titles(home, "geckos") == ["Brief"]
    assert_baseline_kept(home)


def test_undecodable_file_name_is_skipped_not_a_crash(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "names"
    folder.mkdir()
    raw = os.path.join(os.fsencode(folder), b"caf\xe9.md")  # Latin-1 name, invalid UTF-8
    with open(raw, "wb") as handle:
        handle.write(b"# Cafe\n\nEspresso is strong coffee.\n")
    report = run([folder], home)
    assert [reason for _, reason in report.skipped] == [
        "the file name is not valid UTF-8; rename the file"
    ]
    assert report.total_chunks == 1
    assert_baseline_kept(home)


def test_one_megabyte_word_without_spaces_is_indexed(tmp_path: Path, home: Path) -> None:
    (tmp_path / "word.txt").write_text("Q" * 1_000_000)
    report = run([tmp_path / "word.txt"], home)
    assert report.skipped == [] and report.total_chunks >= 2
    assert_baseline_kept(home)


def test_missing_path_among_good_ones_is_reported(tmp_path: Path, home: Path) -> None:
    (tmp_path / "fine.md").write_text("# Fine\n\nTardigrades survive space.\n")
    report = run([tmp_path / "nope.md", tmp_path / "fine.md"], home)
    assert report.skipped == [(str(tmp_path / "nope.md"), "no such file or folder")]
    assert titles(home, "tardigrades") == ["Fine"]
    assert_baseline_kept(home)
