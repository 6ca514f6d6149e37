from bench.suites.doc_retrieval import exact_token_rank, passage_rank, token_found

OPTIONS = [
    "grep-help\n-a, --text  equivalent to --binary-files=text",
    "grep-help\n-B, --before-context=NUM  print NUM lines of leading context\n"
    "-A, --after-context=NUM   print NUM lines of trailing context",
]


def test_an_option_is_found_as_written_not_as_another_case_or_a_longer_token():
    assert exact_token_rank(["-A", "--after-context"], OPTIONS) == 1
    assert token_found(["-A"], OPTIONS[:1])  # the loose check takes "-a" for "-A"
    assert exact_token_rank(["-A"], OPTIONS[:1]) is None
    assert exact_token_rank(["-Ab"], OPTIONS) is None
    assert exact_token_rank(["-text"], OPTIONS) is None  # inside "--text"
    assert exact_token_rank(["text"], OPTIONS) == 0  # a word after "=" is one


def test_the_rank_is_the_first_chunk_holding_any_alias():
    assert exact_token_rank(["--after-context", "-a"], OPTIONS) == 0
    assert exact_token_rank([" ", ""], OPTIONS) is None


def test_a_passage_rank_needs_most_of_its_words_in_one_chunk():
    gold = ["-A, --after-context=NUM print NUM lines of trailing context"]
    assert passage_rank(gold, OPTIONS) == 1
    assert passage_rank(["print lines of leading and trailing context"], OPTIONS[:1]) is None


def test_entry_rerank_lifts_the_chunk_whose_one_entry_matches(monkeypatch):
    from langchain_core.documents import Document

    from bench.suites import doc_retrieval

    class Embeddings:
        """The question and `-c` point one way, every other text another."""

        def embed_documents(self, texts):
            return [[1.0, 0.0] if "count" in t else [0.0, 1.0] for t in texts]

    monkeypatch.setattr("models.embeddings.MiniLMEmbeddings", Embeddings)
    docs = [
        Document("prose about grep without any entry"),
        Document("-B, --before-context=NUM  print NUM lines of leading context"),
        Document("-A, --after-context=NUM  print NUM lines\n-c, --count  print a count of lines"),
    ]
    order = doc_retrieval._entry_reranked("how do I count matches", docs, 3)
    # fused: the third chunk's entry ranks first, so it passes the second, not the first
    assert order == [docs[0], docs[2], docs[1]]
    assert doc_retrieval._entry_reranked("how do I count", docs, 2) == docs[:2]
