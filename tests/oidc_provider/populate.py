"""`python -m tests.oidc_provider.populate '<json>'`: the test provider's users and
registered clients, from {"users": [...], "clients": [...]} (tests/oidc_provider/harness.py)."""

import json
import sys

import django


def populate(data: dict) -> None:
    from allauth.account.models import EmailAddress
    from allauth.idp.oidc.models import Client
    from django.contrib.auth import get_user_model

    for spec in data.get("users", []):
        first, _, last = spec.get("name", "").partition(" ")
        user = get_user_model().objects.create_user(
            username=spec["username"], password=spec["password"], email=spec["email"],
            first_name=first, last_name=last,
        )
        if spec["email"]:
            EmailAddress.objects.create(user=user, email=spec["email"], verified=spec["verified"],
                                        primary=True)
    for spec in data.get("clients", []):
        client = Client(id=spec["id"], name=spec["name"], type=Client.Type.CONFIDENTIAL)
        client.set_secret(spec["secret"])
        client.set_scopes(["openid", "profile", "email"])
        client.set_redirect_uris(spec["redirect_uris"])
        client.set_grant_types([Client.GrantType.AUTHORIZATION_CODE])
        client.set_response_types(["code"])
        client.save()


if __name__ == "__main__":
    django.setup()
    populate(json.loads(sys.argv[1]))
