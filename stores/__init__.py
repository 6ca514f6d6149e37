"""Document stores: ingestion, Chroma, BM25, hybrid retrieval and web search."""
