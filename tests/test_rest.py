"""The REST API of a real `hindsight serve`: cards over curl, problems for errors, tokens bound
to namespaces on REST and MCP alike, and the OpenAPI document with its offline docs page.

The token tests are an attacker's: for every route, a token bound to one namespace asks for
others (existing or not, named well or badly) and must get the same 403, byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import Memory, RemoteMemory
from engine.errors import InvalidInput, NotFound
from engine.inputs import EpisodeInput, RecallQuery
from tests.backends import unavailable
from tests.serving import free_port, served

ROOT = Path(__file__).parent.parent
ADMIN = "admin-token-0123456789"
TEAM_A = "team-a-token-0123456789"
TOKENS = json.dumps({TEAM_A: ["team-a"]})
PROBLEM = "application/problem+json"

# Every route of a namespace, as (method, path with {ns} and {id}, JSON body or None).
ROUTES = [
    ("POST", "/v1/namespaces/{ns}/episodes", {"content": "Vega ships on Friday."}),
    ("POST", "/v1/namespaces/{ns}/episodes/batch", {"items": [{"content": "Vega notes."}]}),
    ("POST", "/v1/namespaces/{ns}/tasks", {"task": "Ship Vega", "steps": [{"content": "make dist", "outcome": "success"}]}),
    ("GET", "/v1/namespaces/{ns}/episodes", None),
    ("GET", "/v1/namespaces/{ns}/episodes/{id}", None),
    ("DELETE", "/v1/namespaces/{ns}/episodes/{id}", None),
    ("POST", "/v1/namespaces/{ns}/episodes/{id}/restore", None),
    ("GET", "/v1/namespaces/{ns}/episodes/{id}/explanation", None),
    ("POST", "/v1/namespaces/{ns}/recall", {"query": "When does Vega ship?"}),
    ("GET", "/v1/namespaces/{ns}/recall?query=Vega", None),
    ("GET", "/v1/namespaces/{ns}/entities/Vega", None),
    ("POST", "/v1/namespaces/{ns}/reflect", {"force": True}),
    ("POST", "/v1/namespaces/{ns}/cypher",
     {"query": "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.content"}),
    ("POST", "/v1/namespaces/{ns}/sessions/s1/end", None),
    ("GET", "/v1/namespaces/{ns}/stats", None),
    ("GET", "/v1/namespaces/{ns}/audit", None),
]  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    data = tmp_path_factory.mktemp("rest")
    env = {**os.environ, "HINDSIGHT_API_TOKEN": ADMIN, "HINDSIGHT_API_TOKENS": TOKENS,
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    with served(["--port", str(port), "--data-dir", str(data / "d")], env,
                data / "server.log", port) as base:  # fmt: skip
        yield base


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def team_b_episode(server: str) -> str:
    """An episode of another team, stored by the admin: what team A must never learn of."""
    with Memory.connect(server, token=ADMIN, namespace="team-b") as admin:
        return admin.store("Team B's launch code name is Kestrel.", session_id="s1").id


def test_readme_curl_examples_store_and_recall(server: str, team_b_episode: str) -> None:
    """The README's curl commands, run as written against the server."""
    if shutil.which("curl") is None:
        unavailable("curl is not installed: the README's curl examples cannot run", "curl")
    block = re.search(r"```bash\n(curl .*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block, "README.md shows curl for store and recall"
    commands = [c for c in block.group(1).replace("\\\n", " ").splitlines() if c.strip()]
    env = {**os.environ, "HINDSIGHT_URL": server, "HINDSIGHT_API_TOKEN": ADMIN}
    outputs = []
    for command in commands:
        done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True,
                              timeout=60)  # fmt: skip
        assert done.returncode == 0, (command, done.stderr)
        outputs.append(json.loads(done.stdout))
    stored, cards = outputs[0], outputs[-1]
    assert stored["status"] == "stored" and stored["namespace"] == "demo"
    assert cards[0]["id"] == stored["id"]
    assert cards[0]["trace"]["channels"] and cards[0]["trace"]["final"] == cards[0]["score"]
    assert all(card["namespace"] in ("demo", "shared") for card in cards)


def test_errors_are_problems_naming_the_field_and_store_nothing(server: str) -> None:
    base = f"{server}/v1/namespaces/errors"
    before = httpx.get(f"{base}/stats", headers=_as(ADMIN)).json()
    cases = [
        ("POST", "/episodes", {"content": "ok", "importance": 2}, 400, "importance"),
        ("POST", "/episodes", {"content": "   "}, 400, "content"),
        ("POST", "/episodes", {"content": "ok", "topk": 1}, 400, "topk"),
        ("POST", "/episodes", {"content": "ok", "occurred_at": "last week"}, 400, "occurred_at"),
        ("POST", "/episodes/batch", {"items": [{"content": "fine"}, {"kind": "x"}]}, 400,
         "items[1].content"),
        ("POST", "/recall", {"query": "x", "top_k": 0}, 400, "top_k"),
        # A JSON body keeps to JSON types: a string is no number, nor a boolean.
        ("POST", "/recall", {"query": "x", "top_k": "5"}, 400, "top_k"),
        ("POST", "/episodes", {"content": "ok", "metadata": {}, "related_ids": "abc"}, 400,
         "related_ids"),
        # The document's array and object: null is neither (a Python caller may pass None).
        ("POST", "/episodes", {"content": "ok", "related_ids": None}, 400, "related_ids"),
        ("POST", "/episodes/batch", {"items": [{"content": "ok", "metadata": None}]}, 400,
         "items[0].metadata"),
        ("POST", "/reflect", {"force": "t"}, 400, "force"),
        ("GET", "/episodes?offset=1000000001", None, 400, "offset"),
        ("POST", "/cypher", {"query": "MATCH (n) RETURN n"}, 400, "query"),
        ("GET", "/episodes/no-such-id", None, 404, None),
        ("GET", "/entities/Nobody", None, 404, None),
    ]  # fmt: skip
    for method, path, body, status, field in cases:
        answer = httpx.request(method, base + path, json=body, headers=_as(ADMIN))
        assert answer.status_code == status, (path, body, answer.text)
        assert answer.headers["content-type"] == PROBLEM
        problem = answer.json()
        assert problem["status"] == status and problem["detail"]
        if field is not None:
            assert problem["field"] == field and problem["reason"], problem
    write = httpx.post(f"{base}/cypher", headers=_as(ADMIN), json={
        "query": "CREATE (n:Episode {namespace: $namespace}) RETURN n"})  # fmt: skip
    assert write.status_code == 400 and write.json()["type"] == "urn:hindsight:read-only"
    assert httpx.get(f"{base}/stats", headers=_as(ADMIN)).json() == before
    # JSON has one number type: 7.0 is an integer to JSON Schema, and so to the API.
    assert httpx.post(f"{base}/recall", json={"query": "x", "top_k": 7.0}, headers=_as(ADMIN)).status_code == 200
    assert httpx.get(f"{base}/episodes?offset=1000000000", headers=_as(ADMIN)).json() == []
    unknown = httpx.get(f"{server}/v1/nothing-here", headers=_as(ADMIN))
    assert unknown.status_code == 404 and unknown.headers["content-type"] == PROBLEM


def test_a_token_needs_to_be_right(server: str) -> None:
    for headers in ({}, _as("wrong-token-0123456789"), {"Authorization": ADMIN}):
        answer = httpx.get(f"{server}/v1/namespaces/team-a/stats", headers=headers)
        assert answer.status_code == 401 and answer.headers["content-type"] == PROBLEM
        assert answer.headers["www-authenticate"].startswith("Bearer")
    assert httpx.get(f"{server}/health").status_code == 200


def _forbidden_answer(server: str, namespace: str, episode: str) -> list[tuple[int, bytes]]:
    answers = []
    for method, path, body in ROUTES:
        url = server + path.format(ns=namespace, id=episode)
        answer = httpx.request(method, url, json=body, headers=_as(TEAM_A))
        answers.append((answer.status_code, answer.content))
    return answers


def test_a_bound_token_learns_nothing_of_other_namespaces(server: str, team_b_episode: str) -> None:
    """The same 403 whether the namespace holds the episode, is empty, or is no namespace."""
    existing = _forbidden_answer(server, "team-b", team_b_episode)
    assert {status for status, _ in existing} == {403}
    assert existing == _forbidden_answer(server, "team-nobody", team_b_episode)
    assert existing == _forbidden_answer(server, "not a namespace!", "x")
    with Memory.connect(server, token=TEAM_A, namespace="team-a") as team_a:
        assert team_a.namespaces() == []  # team-b exists, but is not this token's
        team_a.store("Team A uses Vega for builds.")
        assert team_a.namespaces() == ["team-a"]
        for read_all in (team_a.stats, team_a.audit):
            with pytest.raises(PermissionError):
                read_all(namespace=None)
        cards = team_a.recall("launch code name Kestrel", top_k=10)
        assert all(card.namespace in ("team-a", "shared") for card in cards)
    with Memory.connect(server, token=ADMIN) as admin:
        assert {"team-a", "team-b"} <= set(admin.namespaces())


NAMESPACE_LIKE = st.one_of(
    st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}\Z"),
    st.sampled_from(["team-a ", "TEAM-A", "team-a.", "team-a%2F..", "team-b", "shared", "default"]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"],
                                   blacklist_characters="/?#%"), min_size=1, max_size=20),
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(namespace=NAMESPACE_LIKE, route=st.sampled_from(ROUTES))
def test_property_a_bound_token_is_refused_every_other_namespace(
    server: str, namespace: str, route: tuple[str, str, dict[str, object] | None]
) -> None:
    method, path, body = route
    url = server + path.format(ns=namespace, id="any-id")
    request = httpx.Request(method, url, json=body, headers=_as(TEAM_A))
    with httpx.Client() as client:
        answer = client.send(request)
    asked = request.url.path.split("/")[3] if request.url.path.startswith("/v1/namespaces/") else ""
    if asked == "team-a":
        assert answer.status_code != 403
    else:
        assert answer.status_code in (403, 404), (request.url, answer.text)
        assert "team-b" not in answer.text and "Kestrel" not in answer.text


@pytest.mark.parametrize("how", ["header", "query", "default"])
def test_mcp_refuses_a_bound_token_in_another_namespace(server: str, how: str) -> None:
    """Streamable HTTP and SSE both: the namespace a client names, or the server's default."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "attacker", "version": "1"}}}  # fmt: skip
    headers = {**_as(TEAM_A), "Accept": "application/json, text/event-stream"}
    url = f"{server}/mcp"
    if how == "header":
        headers["X-Hindsight-Namespace"] = "team-b"
    elif how == "query":
        url += "?namespace=team-b"
    refused = httpx.post(url, json=initialize, headers=headers)
    assert refused.status_code == 403 and "team-b" not in refused.text
    sse = "/sse?namespace=team-b" if how != "default" else "/sse"
    assert httpx.get(server + sse, headers=_as(TEAM_A)).status_code == 403
    allowed = httpx.post(f"{server}/mcp?namespace=team-a", json=initialize, headers=_as(TEAM_A)
                         | {"Accept": "application/json, text/event-stream"})  # fmt: skip
    assert allowed.status_code == 200


def test_openapi_is_the_engines_models(server: str) -> None:
    document = httpx.get(f"{server}/openapi.json").json()  # no token: it holds no data
    schemas = document["components"]["schemas"]
    for model in (EpisodeInput, RecallQuery):
        assert schemas[model.__name__]["properties"].keys() == model.model_fields.keys()
    assert schemas["EpisodeInput"]["properties"]["importance"]["anyOf"][1] == {
        "enum": ["high", "medium", "low"]}  # fmt: skip
    operations = {op["operationId"]: (path, method)
                  for path, item in document["paths"].items() for method, op in item.items()}  # fmt: skip
    methods = {name.removesuffix("_get").removesuffix("_all") for name in operations}
    for name in methods - {"health"}:
        assert callable(getattr(Memory, name)) and callable(getattr(RemoteMemory, name)), name
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for path, item in document["paths"].items():
        for operation in item.values():
            assert "422" not in operation["responses"]
            if path.startswith("/v1/"):
                assert operation["responses"]["400"]["content"].keys() == {PROBLEM}


# The path parameters the engine checks itself, and how to ask it: what the document accepts
# must never come back as a 400 naming the same field.
CHECKED_PATHS: dict[tuple[str, str], Callable[[Memory, str], object]] = {
    ("/v1/namespaces/{namespace}/sessions/{session_id}", "get"): Memory.session,
    ("/v1/namespaces/{namespace}/sessions/{session_id}/end", "post"): Memory.end_session,
    ("/v1/namespaces/{namespace}/entities/{name}", "get"): Memory.entity,
}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=st.text(max_size=140))
@example(value=" ")
@example(value="\u3000\u0085")
def test_property_a_path_the_document_accepts_the_engine_accepts(
    server: str, memory: Memory, value: str
) -> None:
    document = httpx.get(f"{server}/openapi.json").json()
    for (path, method), ask in CHECKED_PATHS.items():
        (parameter,) = [p for p in document["paths"][path][method]["parameters"]
                        if p["in"] == "path" and p["name"] != "namespace"]
        schema = parameter["schema"]
        if len(value) > schema.get("maxLength", len(value)) or not re.search(schema["pattern"], value):
            continue
        try:
            ask(memory, value)
        except InvalidInput as refused:
            raise AssertionError(f"{path}: the document accepts {value!r}, the engine refuses it") from refused
        except NotFound:  # the value passed, and names nothing stored
            pass


def test_docs_page_works_without_a_network(server: str) -> None:
    check = ROOT / "tools" / "browser-check"
    missing = [what for what, ok in (
        ("/usr/bin/chromium", Path("/usr/bin/chromium").exists()),
        ("node", shutil.which("node") is not None),
        ("tools/browser-check/node_modules", (check / "node_modules" / "playwright-core").exists()),
    ) if not ok]  # fmt: skip
    if missing:
        unavailable(f"{', '.join(missing)} missing: the docs page check cannot run", "browser")
    done = subprocess.run(["node", str(check / "docs.mjs"), "--url", f"{server}/docs"],
                          cwd=check, capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    page = json.loads(done.stdout.strip().splitlines()[-1])
    document = httpx.get(f"{server}/openapi.json").json()
    assert page["operations"] == sum(len(item) for item in document["paths"].values())
    assert page["title"].startswith("hindsight") and page["offsite"] == []


@pytest.mark.parametrize(("value", "says"), [
    ("not json", "JSON object"),
    ("[]", "JSON object"),
    ('{"short": ["a"]}', "16 characters"),
    ('{"0123456789abcdef": []}', "list of namespaces"),
    ('{"0123456789abcdef": ["no spaces allowed"]}', "namespace"),
    ('{"0123456789abcdef": "a"}', "list of namespaces"),
])  # fmt: skip
def test_bad_token_scopes_are_refused_naming_the_setting(value: str, says: str) -> None:
    from pydantic import ValidationError

    from engine import Settings

    with pytest.raises(ValidationError) as refused:
        Settings(api_tokens=value)
    assert "api_tokens" in str(refused.value) and says in str(refused.value)
    assert "0123456789abcdef" not in str(refused.value)  # a token never shows in an error
    grants = Settings(api_tokens='{"0123456789abcdef": "*", "fedcba9876543210": ["a", "b"]}')
    scopes = grants.token_scopes()
    assert scopes.grant(b"Bearer 0123456789abcdef").allows("anything")  # type: ignore[union-attr]
    assert scopes.grant(b"Bearer fedcba9876543210").namespaces == {"a", "b"}  # type: ignore[union-attr]
    assert scopes.grant(b"Bearer 0123456789abcdeX") is None
    assert "0123456789abcdef" not in repr(grants)
