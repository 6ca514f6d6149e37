"""Bearer token, security headers, and the page's static files."""

from app.server.asgi import create_app


def test_token_guards_the_api_but_not_the_page(make_client):
    client = make_client(token="s3cret")
    assert client.post("/threads", json={}).status_code == 401
    assert (
        client.post("/threads", json={}, headers={"Authorization": "Bearer wrong"}).status_code
        == 401
    )
    assert client.post("/acrag/upload", files={"files": ("a.txt", b"x")}).status_code == 401
    ok = client.post("/threads", json={}, headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 200 and ok.json()["thread_id"]
    assert client.get("/ui/").status_code == 200
    assert client.get("/ok").status_code == 200
    assert client.get("/info", headers={"Authorization": "Bearer s3cret"}).json()["auth"] is True


def test_page_is_served_with_a_strict_content_security_policy(client):
    page = client.get("/ui/")
    assert page.status_code == 200 and '<textarea id="question"' in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    for asset in ("app.js", "api.js", "timeline.js", "app.css"):
        assert client.get(f"/ui/{asset}").status_code == 200
    assert client.get("/", follow_redirects=False).headers["location"] == "/ui/"


def test_page_never_writes_html_from_data():
    from app.server.asgi import STATIC_DIR

    scripts = "".join(p.read_text() for p in STATIC_DIR.glob("*.js"))
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in scripts
    html = (STATIC_DIR / "index.html").read_text()
    assert "http://" not in html and "https://" not in html  # no CDN, no web fonts


def test_mountable_app_serves_only_the_page_and_upload():
    from starlette.testclient import TestClient

    with TestClient(create_app(), base_url="http://localhost:2024") as client:
        assert client.get("/ui/").status_code == 200
        assert client.post("/threads", json={}).status_code == 404  # langgraph dev brings the API
        assert client.get("/").status_code == 404  # langgraph dev's own health check stays
