"""The Parse facade driven by a real Parse client no one here wrote: qs-parse-rest (import name
parse_rest, GPLv3, installed into .build/venv from Tests/requirements.txt, never copied here).

Run by Tests/EndToEndTests/ParseClientTests.swift against a started server on the imported
Parse export (../shared/fixtures/parse-export-tiny). The environment names the server and the
fixture's facts:

    PARSE_API_ROOT   http://127.0.0.1:PORT/parse (read by parse_rest at import time)
    PARSE_APP_ID, PARSE_REST_KEY
    PARSE_USER, PARSE_PASSWORD    an imported user who follows others, and their old password
    PARSE_RALLY, PARSE_DAY        a rally and a day with several videos

Each check prints "ok <name>"; the first failure prints its traceback and exits 1.
"""

import json
import os
import random
import string
import sys
import traceback
import urllib.parse
import urllib.request

# parse_rest reads PARSE_API_ROOT when it is imported: nothing may import it before this point.
if not os.environ.get("PARSE_API_ROOT", "").startswith("http://127.0.0.1:"):
    sys.exit("PARSE_API_ROOT must point at the local test server")

from parse_rest.connection import ParseBatcher, SessionToken, register  # noqa: E402
from parse_rest.core import ResourceRequestBadRequest, ResourceRequestNotFound  # noqa: E402
from parse_rest.datatypes import Object  # noqa: E402
from parse_rest.installation import Installation  # noqa: E402
from parse_rest.user import User  # noqa: E402

API_ROOT = os.environ["PARSE_API_ROOT"]
APP_ID = os.environ["PARSE_APP_ID"]
REST_KEY = os.environ["PARSE_REST_KEY"]


class Rallye(Object):
    pass


class Video(Object):
    pass


class Activity(Object):
    pass


LIKE, COMMENT, FOLLOW = 1, 2, 4


def word(n=8):
    return "".join(random.choice(string.ascii_lowercase) for _ in range(n))


def youtube_id():
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(11))


def parse_error(error):
    """The {code, error} body parse_rest puts in the exception's message."""
    body = error.args[0]
    return json.loads(body.decode() if isinstance(body, bytes) else body)


def expect_code(code, call):
    try:
        call()
    except (ResourceRequestBadRequest, ResourceRequestNotFound) as error:
        body = parse_error(error)
        assert body.get("code") == code and isinstance(body.get("error"), str), body
        return body
    raise AssertionError("expected Parse error %d" % code)


def pointer(class_name, object_id):
    return {"__type": "Pointer", "className": class_name, "objectId": object_id}


def raw(method, path, body=None, token=None):
    """A request outside parse_rest, for what it cannot express (counts in one call)."""
    headers = {"X-Parse-Application-Id": APP_ID, "X-Parse-REST-API-Key": REST_KEY, "Content-Type": "application/json"}
    if token:
        headers["X-Parse-Session-Token"] = token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(API_ROOT + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read())


CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


STATE = {}


@check
def signup_and_me():
    name = "pc_" + word()
    user = User.signup(name, "a long password", email=name + "@example.com", displayName="Parse Client")
    assert user.sessionToken.startswith("r:"), user.sessionToken
    with SessionToken(user.sessionToken):
        me = User.current_user()
    assert me.username == name and me.objectId == user.objectId
    STATE["newcomer"] = user


@check
def login_with_an_imported_users_old_password():
    user = User.login(os.environ["PARSE_USER"], os.environ["PARSE_PASSWORD"])
    assert user.sessionToken.startswith("r:")
    STATE["imported"] = user
    expect_code(101, lambda: User.login(os.environ["PARSE_USER"], "not the password"))


@check
def rallies_by_inidate():
    # Reads need a session on a server without --public-read, as the app has once signed in.
    with SessionToken(STATE["imported"].sessionToken):
        rallies = list(Rallye.Query.all().order_by("iniDate"))
    expect_code(119, lambda: list(Rallye.Query.all().order_by("iniDate")))
    assert len(rallies) >= 10, len(rallies)
    dates = [rally.iniDate for rally in rallies]
    assert dates == sorted(dates), dates
    STATE["rally"] = next(r for r in rallies if r.objectId == os.environ["PARSE_RALLY"])


@check
def a_days_videos_by_likes_and_by_recency():
    rally, day = STATE["rally"], int(os.environ["PARSE_DAY"])
    with SessionToken(STATE["imported"].sessionToken):
        top = list(Video.Query.filter(rallyId=rally, nDay=day).order_by("nLikes", descending=True).limit(50))
        assert len(top) >= 3, len(top)
        likes = [video.nLikes for video in top]
        assert likes == sorted(likes, reverse=True), likes
        recent = list(Video.Query.filter(rallyId=rally, nDay=day).order_by("createdAt", descending=True))
        assert {v.objectId for v in recent} == {v.objectId for v in top}
        created = [v.createdAt for v in recent]
        assert created == sorted(created, reverse=True), created
        count = Video.Query.filter(rallyId=rally, nDay=day).count()
        assert count == len(top), (count, len(top))
        owners = list(Video.Query.filter(rallyId=rally, nDay=day).select_related("owner").limit(3))
        assert all(getattr(v.owner, "username", None) for v in owners)
    STATE["day_videos"] = top


@check
def a_users_videos():
    owner = STATE["day_videos"][0].owner
    with SessionToken(STATE["imported"].sessionToken):
        videos = list(Video.Query.filter(owner=User(objectId=owner.objectId)).order_by("createdAt", descending=True))
    assert videos and all(v.owner.objectId == owner.objectId for v in videos)


@check
def activities_to_me_and_likes_of_mine():
    me = STATE["imported"]
    with SessionToken(me.sessionToken):
        to_me = list(Activity.Query.filter(toUser=User(objectId=me.objectId)).order_by("createdAt", descending=True))
        assert all(a.toUser.objectId == me.objectId for a in to_me)
        mine = list(Activity.Query.filter(fromUser=User(objectId=me.objectId), type=LIKE))
        assert all(a.type == LIKE and a.fromUser.objectId == me.objectId for a in mine)
        follows = list(Activity.Query.filter(fromUser=User(objectId=me.objectId), type=FOLLOW).limit(1000))
        assert len(follows) >= 5, len(follows)
    STATE["followed"] = {a.toUser.objectId for a in follows}


@check
def activities_and_videos_of_the_people_i_follow():
    me = STATE["imported"]
    follows = {"query": {"className": "Activity", "where": {"fromUser": pointer("_User", me.objectId), "type": FOLLOW}}, "key": "toUser"}
    with SessionToken(me.sessionToken):
        likes = list(Activity.Query.filter(fromUser__select=follows, type=LIKE).order_by("createdAt", descending=True))
        assert likes and all(a.fromUser.objectId in STATE["followed"] for a in likes), len(likes)
        videos = list(Video.Query.filter(owner__select=follows).order_by("createdAt", descending=True).limit(100))
        assert all(v.owner.objectId in STATE["followed"] for v in videos)
        # Those not followed: $dontSelect as a filter of an index-served query.
        others = list(Activity.Query.filter(toUser=User(objectId=me.objectId), fromUser__dontSelect=follows))
        assert all(a.fromUser.objectId not in STATE["followed"] for a in others)


@check
def saves_likes_comments_follows_and_deletes():
    user = STATE["newcomer"]
    rally = STATE["rally"]
    with SessionToken(user.sessionToken):
        video = Video(youtubeID=youtube_id(), title="Stage " + word(), description="", nDay=1, rallyId=rally,
                      owner=User(objectId=user.objectId))
        video.save()
        assert video.objectId
        # parse_rest PUTs every field it holds, the unchanged identity fields included.
        fetched = Video.Query.get(objectId=video.objectId)
        fetched.title = "Renamed " + word()
        fetched.save()
        assert Video.Query.get(objectId=video.objectId).title == fetched.title

        target = STATE["day_videos"][0]
        like = Activity(type=LIKE, fromUser=User(objectId=user.objectId), video=Video(objectId=target.objectId))
        like.save()
        again = Activity(type=LIKE, fromUser=User(objectId=user.objectId), video=Video(objectId=target.objectId))
        again.save()
        assert again.objectId == like.objectId, "a like created twice is the same object"
        assert Video.Query.get(objectId=target.objectId).nLikes == target.nLikes + 1

        comment = Activity(type=COMMENT, fromUser=User(objectId=user.objectId), video=Video(objectId=video.objectId), content="Flat out!")
        comment.save()
        follow = Activity(type=FOLLOW, fromUser=User(objectId=user.objectId), toUser=User(objectId=target.owner.objectId))
        follow.save()
        assert Activity.Query.filter(fromUser=User(objectId=user.objectId), type=FOLLOW).count() == 1

        comment.delete()
        like.delete()
        follow.delete()
        assert Video.Query.get(objectId=target.objectId).nLikes == target.nLikes
        assert Activity.Query.filter(fromUser=User(objectId=user.objectId), type=FOLLOW).count() == 0
        video.delete()
        expect_code(101, lambda: Video.GET(Video.ENDPOINT_ROOT + "/" + video.objectId))
    STATE["target"] = target


@check
def counts():
    rally, day = STATE["rally"], int(os.environ["PARSE_DAY"])
    with SessionToken(STATE["imported"].sessionToken):
        answer = raw("GET", "/classes/Video?" + urllib.parse.urlencode({
            "where": json.dumps({"rallyId": pointer("Rallye", rally.objectId), "nDay": day}), "count": 1, "limit": 0}),
            token=STATE["imported"].sessionToken)
    assert answer["results"] == [] and answer["count"] == len(STATE["day_videos"]), answer


@check
def batch():
    user = STATE["newcomer"]
    videos = STATE["day_videos"][:3]
    with SessionToken(user.sessionToken):
        likes = [Activity(type=LIKE, fromUser=User(objectId=user.objectId), video=Video(objectId=v.objectId)) for v in videos]
        ParseBatcher().batch([like.save for like in likes])
        assert all(like.objectId for like in likes)
        assert Activity.Query.filter(fromUser=User(objectId=user.objectId), type=LIKE).count() == len(videos)
        ParseBatcher().batch([like.delete for like in likes])
        assert Activity.Query.filter(fromUser=User(objectId=user.objectId), type=LIKE).count() == 0


@check
def installations():
    user = STATE["newcomer"]
    token = "".join(random.choice("0123456789abcdef") for _ in range(64))
    with SessionToken(user.sessionToken):
        installation = Installation(deviceType="ios", deviceToken=token, installationId=word(32), channels=["NewVideos"],
                                    appVersion="2.0", badge=0)
        installation.save()
        assert installation.objectId
        Installation.update_channels(installation.objectId, channels_to_add={"IN_" + user.objectId})
        channels = set(Installation.GET(Installation.ENDPOINT_ROOT + "/" + installation.objectId)["channels"])
        assert channels == {"NewVideos", "IN_" + user.objectId}, channels
        expect_code(119, lambda: Installation.GET(Installation.ENDPOINT_ROOT))
        expect_code(142, lambda: Installation(deviceType="ios", deviceToken="zz-not-hex-zz-not-hex").save())


@check
def profile_edits():
    user = STATE["newcomer"]
    with SessionToken(user.sessionToken):
        me = User.current_user()
        me.sessionToken = user.sessionToken
        me.displayName = "Renamed " + word()
        me.save()
        assert User.current_user().displayName == me.displayName


@check
def refusals_are_parse_errors():
    with SessionToken(STATE["imported"].sessionToken):
        expect_code(102, lambda: list(Video.Query.filter(title__all=["x"])))
        expect_code(102, lambda: list(Video.Query.filter(title__regex="Og.*er")))
        expect_code(102, lambda: list(Video.Query.all().order_by("title")))
        expect_code(105, lambda: list(Video.Query.filter(secret=1, objectId="x")))
        expect_code(119, lambda: list(Object.factory("Secret").Query.all()))


@check
def logout():
    user = STATE["newcomer"]
    user.logout()
    with SessionToken(user.sessionToken):
        expect_code(209, User.current_user)


def main():
    random.seed()
    for function in CHECKS:
        try:
            function()
        except Exception:
            print("FAILED " + function.__name__, flush=True)
            traceback.print_exc()
            sys.exit(1)
        print("ok " + function.__name__, flush=True)


if __name__ == "__main__":
    register(APP_ID, REST_KEY)
    main()
