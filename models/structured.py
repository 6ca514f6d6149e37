"""Structured output through a JSON schema that the backend enforces while decoding."""

from operator import itemgetter
from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from pydantic import BaseModel

__all__ = ["StructuredOutputMixin", "json_schema_of"]


def json_schema_of(schema: type[BaseModel] | dict[str, Any]) -> dict[str, Any]:
    """Return the JSON schema of a pydantic model class or a schema dict."""
    if isinstance(schema, dict):
        return schema
    return schema.model_json_schema()


class StructuredOutputMixin:
    """Give a chat model that accepts OpenAI's `response_format` a `with_structured_output`.

    The schema goes to the backend as `response_format={"type": "json_schema", ...}`, so
    even a very small model can only emit JSON that fits it.
    """

    def with_structured_output(
        self,
        schema: type[BaseModel] | dict[str, Any],
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """Return a runnable whose output is `schema` (a pydantic object or a dict)."""
        json_schema = json_schema_of(schema)
        name = json_schema.get("title", "output")
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": json_schema, "strict": True},
        }
        llm = self.bind(response_format=response_format, **kwargs)  # type: ignore[attr-defined]
        parser: Runnable[Any, Any] = (
            JsonOutputParser()
            if isinstance(schema, dict)
            else PydanticOutputParser(pydantic_object=schema)
        )
        if not include_raw:
            return llm | parser
        parsed = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
        )
        unparsed = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=llm) | parsed.with_fallbacks(
            [unparsed], exception_key="parsing_error"
        )
