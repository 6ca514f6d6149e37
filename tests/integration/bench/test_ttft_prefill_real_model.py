"""`bench.suites.ttft.prefill_per_second` on the real helper model's llama.cpp server."""

import pytest

from bench.suites.ttft import prefill_per_second
from models.files import qwen_path
from models.llamacpp import engine_for
from stores.home import cache_dir

pytestmark = pytest.mark.integration


def test_the_prompt_is_evaluated_in_full_each_time_and_its_speed_reported():
    server = engine_for(str(qwen_path(cache_dir())), n_ctx=2048, n_threads=2)._server
    messages = [
        {"role": "system", "content": "You answer briefly."},
        {"role": "user", "content": "Name three rivers of France. " * 8},
    ]
    first = prefill_per_second(server, messages)
    again = prefill_per_second(server, messages)  # the same prompt: none of it from the cache
    assert first[0] > 40 and again[0] == first[0]
    assert first[1] > 0 and again[1] > 0
