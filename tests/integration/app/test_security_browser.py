"""Issue 18, point 2, in headless Chromium: a page on another origin cannot drive the server.

The attacker's page is served from a second loopback origin and fires the requests a browser
lets any site send without asking (no CORS preflight): JSON posted as `text/plain`, and a
multipart upload. The server must refuse both, so nothing is created or stored.
"""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.integration.app.conftest import Server, free_port

ATTACK = """<!doctype html><html><body><script>
const target = "%(target)s";
async function attack() {
  const results = [];
  const plain = {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}};
  const steps = [
    [target + "/threads", {...plain, body: JSON.stringify({metadata: {title: "pwned"}})}],
    [target + "/threads/pwned/runs/stream", {...plain, body: JSON.stringify({
      if_not_exists: "create", input: {question: "What is the capital of France?"},
      context: {home: "/"}})}],
  ];
  const form = new FormData();
  form.append("files", new Blob(["planted by another site"]), "planted.txt");
  steps.push([target + "/acrag/upload", {method: "POST", mode: "no-cors", body: form}]);
  for (const [url, init] of steps) {
    try { await fetch(url, init); results.push("sent"); } catch (e) { results.push(String(e)); }
  }
  window.__done = results;
}
attack();
</script></body></html>"""


@pytest.fixture
def attacker_site(serve) -> Iterator[tuple[str, Server]]:
    """Serve the attack page on a second origin; yield its URL and the target server."""
    target = serve("--demo")
    page = (ATTACK % {"target": target.url}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    port = free_port()
    site = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    # `localhost` and `127.0.0.1` are different origins, as two web sites would be.
    yield f"http://localhost:{port}/attack.html", target
    site.shutdown()


def test_a_page_on_another_origin_cannot_create_threads_run_or_upload(attacker_site, page):
    attack_url, target = attacker_site
    page.goto(attack_url)
    page.wait_for_function("window.__done && window.__done.length === 3", timeout=30_000)
    assert page.evaluate("window.__done") == ["sent", "sent", "sent"]  # the browser sent them
    threads = httpx.post(f"{target.url}/threads/search", json={"limit": 100}).json()
    assert threads == []
    assert httpx.get(f"{target.url}/threads/pwned").status_code == 404
    assert not (target.home / "uploads" / "planted.txt").exists()
