"""Prompts of LangGraph's CRAG and Self-RAG tutorials, for the benchmark's tutorial baselines.

Copied verbatim (typos, spacing and all) from langchain-ai/langgraph at commit
f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f, files `examples/rag/langgraph_crag.ipynb` and
`examples/rag/langgraph_self_rag.ipynb` (last changed in fbcb8a91).

Unlike acrag's prompts, these show retrieved text bare, without `<passage>` tags or
`prompts.framing.DATA_RULE` (only `as_data` escaping, invisible on ordinary text): with the
tags and the rule, Qwen2.5-Coder-0.5B graded a passage that answers the question "no", and
"Yes" with the tutorial's own wording, so the additions would change the baseline under test.
The tutorials' answer prompt (`rlm/rag-prompt` from the LangChain hub) is not copied: the
baselines answer with acrag's own prompt (`nodes.generate.answer_messages`), so that only
the control logic differs.
"""

__all__ = [
    "ANSWER_GRADER_HUMAN",
    "ANSWER_GRADER_SYSTEM",
    "CRAG_GRADER_SYSTEM",
    "DOCUMENT_GRADER_HUMAN",
    "HALLUCINATION_GRADER_HUMAN",
    "HALLUCINATION_GRADER_SYSTEM",
    "REWRITER_HUMAN",
    "REWRITER_RETRIEVAL_SYSTEM",
    "REWRITER_WEB_SYSTEM",
    "SELF_RAG_GRADER_SYSTEM",
]

CRAG_GRADER_SYSTEM = (
    "You are a grader assessing relevance of a retrieved document to a user question. \n \n"
    "    If the document contains keyword(s) or semantic meaning related to the question, grade"
    " it as relevant. \n\n"
    "    Give a binary score 'yes' or 'no' score to indicate whether the document is relevant"
    " to the question."
)
"""The CRAG tutorial's retrieval grader."""

SELF_RAG_GRADER_SYSTEM = (
    "You are a grader assessing relevance of a retrieved document to a user question. \n \n"
    "    It does not need to be a stringent test. The goal is to filter out erroneous"
    " retrievals. \n\n"
    "    If the document contains keyword(s) or semantic meaning related to the user question,"
    " grade it as relevant. \n\n"
    "    Give a binary score 'yes' or 'no' score to indicate whether the document is relevant"
    " to the question."
)
"""The Self-RAG tutorial's retrieval grader (more lenient than CRAG's)."""

DOCUMENT_GRADER_HUMAN = "Retrieved document: \n\n {document} \n\n User question: {question}"

HALLUCINATION_GRADER_SYSTEM = (
    "You are a grader assessing whether an LLM generation is grounded in / supported by a set"
    " of retrieved facts. \n \n"
    "     Give a binary score 'yes' or 'no'. 'Yes' means that the answer is grounded in /"
    " supported by the set of facts."
)

HALLUCINATION_GRADER_HUMAN = "Set of facts: \n\n {documents} \n\n LLM generation: {generation}"

ANSWER_GRADER_SYSTEM = (
    "You are a grader assessing whether an answer addresses / resolves a question \n \n"
    "     Give a binary score 'yes' or 'no'. Yes' means that the answer resolves the question."
)

ANSWER_GRADER_HUMAN = "User question: \n\n {question} \n\n LLM generation: {generation}"

REWRITER_WEB_SYSTEM = (
    "You a question re-writer that converts an input question to a better version that is"
    " optimized \n \n"
    "     for web search. Look at the input and try to reason about the underlying semantic"
    " intent / meaning."
)
"""The CRAG tutorial's question re-writer (for the web search)."""

REWRITER_RETRIEVAL_SYSTEM = (
    "You a question re-writer that converts an input question to a better version that is"
    " optimized \n \n"
    "     for vectorstore retrieval. Look at the input and try to reason about the underlying"
    " semantic intent / meaning."
)
"""The Self-RAG tutorial's question re-writer (for the next retrieval)."""

REWRITER_HUMAN = "Here is the initial question: \n\n {question} \n Formulate an improved question."
