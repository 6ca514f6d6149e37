"""Defaults light enough to import anywhere (the CLI's help, `Context`)."""

__all__ = ["DEFAULT_MODEL", "HELPER_MODEL", "role_models"]

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
"""The default reader: on documentation questions asked as users ask it answers 20 points
of Acc more than Qwen2.5-Coder-0.5B (paired, docqa dev) at about 1.7x its seconds
(README, "Which reader")."""

HELPER_MODEL = "qwen2.5-coder-0.5b"
"""The default keyword rewriter and LLM judge: short, schema-constrained outputs, where the
0.5B's speed matters more than the reader's depth. Follow-ups are made standalone by the
reader (`follow_up_model`, tuned on the threads dev half; the 0.5B with the same prompt was
not measured: docs/answers.md, "Follow-ups")."""


def role_models(spec: str) -> dict[str, str]:
    """Return the model of every role for `spec`: the default reader comes with the helper.

    The reader also makes follow-ups standalone; the helper writes keywords and judges.

    Any other spec (`smollm2`, `openai:...`) serves every role, as one model chosen for a run.
    """
    helper = HELPER_MODEL if spec == DEFAULT_MODEL else spec
    return {
        "generator_model": spec,
        "follow_up_model": spec,
        "rewriter_model": helper,
        "judge_model": helper,
    }
