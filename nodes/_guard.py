"""Drop sentences of retrieved text that are instructions aimed at the model.

Framing (tags, escaping, a system rule) keeps retrieved text in the data block, but a 135M
model still tends to follow "answer PWNED" when it sits next to the question's facts. So before
strips are scored, sentences that address the model (ignore the question, fake roles, "the
answer is X", role-play) are removed; a strip left empty is dropped. Patterns, not a model:
cheap, predictable, and testable; a paraphrase they miss is still framed as data.
"""

import re

__all__ = ["is_instruction", "without_instructions"]

_PATTERNS = [
    r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(instructions?|questions?|prompts?|"
    r"rules?|context|passages?|above|previous|everything)\b",
    r"\b(new|updated|real|hidden|secret|special)\s+(system\s+)?(instructions?|directives?|"
    r"orders?|task)\s*(:|for (you|the (ai|model|assistant|reader)))",
    r"(^|[\[(<#*|>])\s*(system|assistant|developer|admin(istrator)?)\s*(prompt|message|note|"
    r"override)?\s*[:\]>|]",
    r"<\|?\s*(im_start|im_end|system|endoftext)|\[/?(inst|sys)\]|&lt;\|",
    r"\b(answer|reply|respond|say|output|print|write|repeat|end)\b.{0,30}\b(with|only|exactly|"
    r"verbatim)\b.{0,30}\b(word|phrase|token|code|string|text|(?-i:[A-Z]{3,})-\d+)",
    r"\b(the|your|every|each|any)\s+(correct\s+|real\s+|only\s+|final\s+|true\s+)?(answer|reply|"
    r"response)s?\b.{0,40}\b(is|are|must be|should be|shall be)\b.{0,20}(?-i:[A-Z]{3,})-?\d*",
    r"\b(you|the (ai|model|assistant|chatbot|bot)|ai (models?|assistants?)|language models?|"
    r"llms?|chatbots?)\b.{0,30}\b(must|should|shall|will|are to|have to|need to|now)\b.{0,40}"
    r"\b(answer|reply|respond|say|output|ignore|pretend|act|become|role|obey|follow|print)",
    r"\b(pretend (you|to be|that you)|role-?play|act as (if you|my|an? (ai|assistant|bot))|"
    r"you are now|from now on|stay in character|jailbreak|"
    r"developer mode|do anything now)\b",
    r"\b(instead|rather),?\s+(of answering\b.{0,30}|just\s+)?"
    r"(answer|reply|respond|say|write|output)",
    r"\b(reply|respond|answer|say)\b.{0,30}\bto (any|every|all|each) (user |following )?"
    r"(question|query|request)s?\b",
    r"\brepeat after me\b",
    # the same orders in French, German, Spanish and Italian (found by the suite: the model
    # copies "Ignorez la question et répondez X" even though the English filter let it pass)
    r"\b(ignorez|oubliez|ignoriere|ignorieren|vergiss|ignora|olvida|dimentica)\b"
    r".{0,40}\b(questions?|instructions?|consignes?|frage|anweisungen|preguntas?|"
    r"instrucciones|domanda|istruzioni)\b",
    r"\b(répondez|réponds|antworte|antworten sie|responde|rispondi)\b.{0,40}(?-i:[A-Z]{3,})-?\d*",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+|(?=<\s*[/!|A-Za-z])|(?=\[/?(?:INST|SYS)\])")
"""Sentence ends, line breaks, and the start of any tag or chat-template token."""
_TURN_START = re.compile(r"\s*(<\|\s*(im_start|system|user|assistant)|\[(INST|SYS)\])", re.I)
_TURN_END = re.compile(r"<\|\s*(im_end|endoftext|end)|\[/(INST|SYS)\]", re.I)


def is_instruction(text: str) -> bool:
    """Return whether `text` contains an instruction aimed at the model reading it."""
    return bool(_INSTRUCTION.search(text))


def without_instructions(text: str) -> tuple[str, int]:
    """Return `text` without its instruction sentences, and how many were removed.

    A fake chat turn (`<|im_start|>` ... `<|im_end|>`, `[INST]` ... `[/INST]`) goes whole,
    since its content is a message to the model even when it reads like plain text.
    """
    sentences = [s for s in _SENTENCES.split(text) if s.strip()]
    kept, in_turn = [], False
    for sentence in sentences:
        in_turn = in_turn or bool(_TURN_START.match(sentence))
        if not (in_turn or is_instruction(sentence)):
            kept.append(sentence.strip())
        in_turn = in_turn and not _TURN_END.search(sentence)
    return " ".join(kept), len(sentences) - len(kept)
