"""A fuzz of the Parse facade's inputs against the real binary (Hypothesis, from
Tests/requirements.txt): random and mutated `where`, `order`, `keys`, `include`, `limit`,
`skip`, write bodies, tunnelled methods and batch bodies, on every path of both prefixes, with
and without a session. Every answer must come within the timeout, never be a 5xx (the iOS
SDK retries those), and a 4xx must be Parse's `{code, error}` (only the application-id
refusal, 403, has no code, as parse-server's).

Run by Tests/EndToEndTests/ParseClientTests.swift. Environment: PARSE_SERVER
(http://127.0.0.1:PORT), PARSE_APP_ID, PARSE_REST_KEY, PARSE_FUZZ_EXAMPLES (default 300).
"""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SERVER = os.environ["PARSE_SERVER"]
APP_ID = os.environ["PARSE_APP_ID"]
REST_KEY = os.environ["PARSE_REST_KEY"]
EXAMPLES = int(os.environ.get("PARSE_FUZZ_EXAMPLES", "300"))
TIMEOUT = 10

FIELDS = ["objectId", "owner", "rallyId", "nDay", "nLikes", "createdAt", "updatedAt", "title", "youtubeID", "type", "fromUser",
          "toUser", "video", "content", "username", "displayName", "iniDate", "email", "deviceToken", "channels", "a.b", "", "$or"]
OPERATORS = ["$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$nin", "$exists", "$all", "$regex", "$options", "$inQuery",
             "$notInQuery", "$select", "$dontSelect", "$relatedTo", "$or", "$and", "$text", "$nearSphere", "query", "key",
             "className", "where", "__type", "__op", "objects", "amount"]
CLASSES = ["Video", "Activity", "_User", "Rallye", "_Installation", "_Session", "Other", "9bad"]
TYPES = ["Pointer", "Date", "Object", "File", "Relation", "Bytes"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**63, max_value=2**63 - 1), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20), st.sampled_from(CLASSES + TYPES + FIELDS + ["^Og", "^\\QOg\\E", "2014-01-01T00:00:00.000Z", "r:x", "-nLikes"]),
)
keys = st.one_of(st.sampled_from(FIELDS + OPERATORS), st.text(max_size=8))
json_values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)), max_leaves=20)


@st.composite
def typed(draw):
    """A value shaped like Parse's typed ones, with its parts mutated."""
    kind = draw(st.sampled_from(TYPES))
    value = {"__type": kind, "className": draw(st.sampled_from(CLASSES)), "objectId": draw(st.text(max_size=12)),
             "iso": draw(st.sampled_from(["2014-01-01T00:00:00.000Z", "nope", ""]))}
    for key in draw(st.lists(st.sampled_from(list(value)), max_size=2)):
        value[key] = draw(json_values)
    return value


@st.composite
def subquery(draw):
    inner = {"className": draw(st.sampled_from(CLASSES)), "where": draw(where_documents(depth=1))}
    if draw(st.booleans()):
        inner["limit"] = draw(scalars)
    if draw(st.booleans()):
        return {"query": inner, "key": draw(st.sampled_from(FIELDS))}
    return inner


@st.composite
def where_documents(draw, depth=0):
    document = {}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=3)):
        choice = draw(st.integers(0, 3 if depth == 0 else 2))
        if choice == 0:
            document[field] = draw(json_values)
        elif choice == 1:
            document[field] = draw(typed())
        elif choice == 2:
            document[field] = {draw(st.sampled_from(OPERATORS)): draw(st.one_of(json_values, typed(), st.lists(typed(), max_size=3)))}
        else:
            document[field] = {draw(st.sampled_from(["$inQuery", "$notInQuery", "$select", "$dontSelect"])): draw(subquery())}
    return document


names = st.one_of(st.lists(st.sampled_from(FIELDS + ["-nLikes", "-createdAt", "owner", "rallyId"]), max_size=3).map(",".join), scalars)

find_parameters = st.fixed_dictionaries({}, optional={
    "where": st.one_of(where_documents(), json_values, where_documents().map(json.dumps)),
    "order": names, "keys": names, "include": names, "limit": scalars, "skip": scalars, "count": scalars,
    "excludeKeys": scalars, "trace": scalars,
})
write_bodies = st.dictionaries(keys, st.one_of(json_values, typed()), max_size=6)
paths = st.one_of(
    st.builds(lambda p, c: "%s/classes/%s" % (p, c), st.sampled_from(["/parse", "/1"]), st.sampled_from(CLASSES)),
    st.builds(lambda p, c, i: "%s/classes/%s/%s" % (p, c, urllib.parse.quote(i, safe="")), st.sampled_from(["/parse", "/1"]),
              st.sampled_from(CLASSES), st.text(min_size=1, max_size=12)),
    st.sampled_from(["/parse/users", "/parse/users/me", "/parse/login", "/parse/logout", "/1/installations", "/parse/installations/x",
                     "/parse/batch", "/1/batch", "/parse/push", "/parse/functions/hello", "/parse/files/a.txt", "/parse/nothing"]),
)


@st.composite
def batch_bodies(draw):
    requests = draw(st.lists(st.fixed_dictionaries({"method": st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", ""]),
                                                    "path": st.one_of(paths, st.text(max_size=20)),
                                                    "body": st.one_of(write_bodies, find_parameters, json_values)}), max_size=8))
    return {"requests": draw(st.one_of(st.just(requests), json_values))}


def send(method, path, body, token, query=None):
    headers = {"X-Parse-Application-Id": APP_ID, "X-Parse-REST-API-Key": REST_KEY, "Content-Type": "application/json"}
    if token:
        headers["X-Parse-Session-Token"] = token
    url = SERVER + path
    if query:
        url += "?" + urllib.parse.urlencode({k: v if isinstance(v, str) else json.dumps(v) for k, v in query.items()})
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def check_answer(status, raw, what):
    assert status < 500, "%s -> %d %r" % (what, status, raw[:300])
    if status >= 400:
        body = json.loads(raw)
        assert isinstance(body.get("error"), str), "%s -> %d %r" % (what, status, raw[:300])
        if status != 403:
            assert isinstance(body.get("code"), int), "%s -> %d %r" % (what, status, raw[:300])


def sign_up():
    name = "fz_" + os.urandom(5).hex()
    status, raw = send("POST", "/parse/users", {"username": name, "password": "a long password", "email": name + "@example.com"}, None)
    assert status == 201, raw
    return json.loads(raw)["sessionToken"]


TOKEN = None
COUNT = [0]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(path=paths, parameters=find_parameters, tunnelled=st.booleans(), session=st.booleans())
def test_finds(path, parameters, tunnelled, session):
    COUNT[0] += 1
    token = TOKEN if session else None
    if tunnelled:
        status, raw = send("POST", path, dict(parameters, _method="GET"), token)
    else:
        status, raw = send("GET", path, None, token, query=parameters)
    check_answer(status, raw, "find %s %r" % (path, parameters))


@FUZZ
@given(method=st.sampled_from(["POST", "PUT", "DELETE"]), path=paths, body=st.one_of(write_bodies, json_values),
       session=st.booleans(), garbage=st.one_of(st.none(), st.binary(max_size=40)))
def test_writes(method, path, body, session, garbage):
    COUNT[0] += 1
    status, raw = send(method, path, garbage if garbage is not None else body, TOKEN if session else None)
    check_answer(status, raw, "%s %s %r" % (method, path, garbage if garbage is not None else body))


@FUZZ
@given(prefix=st.sampled_from(["/parse", "/1"]), body=batch_bodies(), session=st.booleans())
def test_batches(prefix, body, session):
    COUNT[0] += 1
    status, raw = send("POST", prefix + "/batch", body, TOKEN if session else None)
    check_answer(status, raw, "batch %r" % body)
    if status == 200:
        for item in json.loads(raw):
            assert set(item) in ({"success"}, {"error"}), item
            if "error" in item:
                assert isinstance(item["error"].get("code"), int) and item["error"]["code"] != 1, item


def main():
    global TOKEN
    TOKEN = sign_up()
    failures = 0
    for test in (test_finds, test_writes, test_batches):
        try:
            test()
            print("ok " + test.__name__, flush=True)
        except Exception as error:  # Hypothesis has printed the falsifying example.
            failures += 1
            print("FAILED %s: %s" % (test.__name__, error), flush=True)
    print("requests sent: %d" % COUNT[0], flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
