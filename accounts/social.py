"""Signing in with an OpenID Connect provider (AUTH_OIDC_PROVIDERS, docs/accounts.md):
how django-allauth's social accounts behave on this site (settings.SOCIALACCOUNT_ADAPTER)
and the provider views, guarded so that a provider that is down, slow or answers
garbage gives a page in the site's layout instead of a 500.
"""

from __future__ import annotations

import functools
import logging
from urllib.parse import urlsplit

from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter, get_adapter
from allauth.socialaccount.helpers import render_authentication_error
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.base import ProviderException
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from allauth.socialaccount.providers.openid_connect import views as oidc_views
from django import forms
from django.http import Http404
from django.shortcuts import render
from jwt import PyJWTError
from requests import RequestException

from accounts.forms import clean_display_name
from accounts.models import DISPLAY_NAME_MAX_LENGTH, Profile

logger = logging.getLogger(__name__)

# What talking to a provider raises when it is down or slow (RequestException: refused,
# timed out, an error status, a body that is not JSON), refuses (OAuth2Error), or
# answers JSON of the wrong shape (a list for an object, a missing endpoint or claim:
# allauth indexes the answers as it reads them).
PROVIDER_FAILURES = (
    RequestException, OAuth2Error, ProviderException, PyJWTError,
    ValueError, KeyError, TypeError, AttributeError,
)
# The provider could not be reached or its answer not understood: the gateway failed.
PROVIDER_FAILED_STATUS = 502


# The configuration document's addresses allauth follows: the reader's browser is sent to
# the first, the site calls the others.
ENDPOINTS = ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri")
DISCOVERY_PATH = "/.well-known/openid-configuration"


class UnusableConfiguration(RequestException):
    """A provider's configuration document that allauth could not follow."""


def configuration_problem(document) -> str | None:
    """What makes a provider's configuration document (parsed JSON) unusable: not an
    object, or an endpoint that is not an http(s) address; None if nothing does. A
    missing endpoint is left to allauth, which fails on it when it needs it."""
    if not isinstance(document, dict):
        return "the configuration is not a JSON object"
    for name in ENDPOINTS:
        value = document.get(name)
        if value is None:
            continue
        parts = urlsplit(value) if isinstance(value, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
            return f"its {name} is not an http(s) address"
    return None


def _check_configuration(response, *args, **kwargs):
    """A requests hook: a configuration document (a 2xx answer from a path ending in
    DISCOVERY_PATH) that configuration_problem() finds unusable raises
    UnusableConfiguration (a body that is not JSON is left to allauth's reading)."""
    if not response.ok or not urlsplit(response.url).path.endswith(DISCOVERY_PATH):
        return response
    try:
        document = response.json()
    except ValueError:
        return response
    problem = configuration_problem(document)
    if problem:
        raise UnusableConfiguration(f"{response.url}: {problem}", response=response)
    return response


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def get_requests_session(self):
        """allauth's session to providers (SOCIALACCOUNT_REQUESTS_TIMEOUT on every
        call), checking every configuration document it reads."""
        session = super().get_requests_session()
        session.hooks["response"].append(_check_configuration)
        return session

    def on_authentication_error(self, request, provider, error=None, exception=None, extra_context=None):
        """A provider that failed (see PROVIDER_FAILURES) gets its own page, 502; other
        errors (a sign-in begun in another browser, a refusal) allauth's page, 401."""
        super().on_authentication_error(request, provider, error=error, exception=exception,
                                        extra_context=extra_context)
        if isinstance(exception, PROVIDER_FAILURES):
            logger.warning("Signing in with %s failed: %r", provider.app.provider_id, exception,
                           exc_info=exception)
            context = {"auth_error": {"provider": provider, "code": error, "exception": exception},
                       "provider_failed": True}
            raise ImmediateHttpResponse(render(request, "socialaccount/authentication_error.html", context,
                                               status=PROVIDER_FAILED_STATUS))

    def authenticate_by_email(self, sociallogin):
        """allauth's sign-in by a provider's address, which counts only addresses the
        provider says are verified; never into an editor's account (editors sign in
        with their password, throttled by Axes)."""
        found = super().authenticate_by_email(sociallogin)
        if found and (found[0].is_staff or found[0].is_superuser):
            return None
        return found

    def save_user(self, request, sociallogin, form=None):
        """A new account from a provider: allauth's, with the provider's name (or
        username) as its display name when that makes one."""
        user = super().save_user(request, sociallogin, form=form)
        name = provider_display_name(sociallogin)
        if name:
            Profile.objects.get_or_create(user=user, defaults={"display_name": name})
        return user


def provider_display_name(sociallogin) -> str | None:
    """The name the provider gives (its `name`, else `preferred_username`), cleaned as
    the sign-up form's display name; None if neither makes one."""
    fields = sociallogin.account.get_provider().extract_common_fields(sociallogin.account.extra_data)
    for candidate in (fields.get("name"), fields.get("username")):
        if not isinstance(candidate, str):
            continue
        try:
            return clean_display_name(candidate)[:DISPLAY_NAME_MAX_LENGTH].strip()
        except forms.ValidationError:
            continue
    return None


def provider_origin(provider) -> str:
    """The scheme, host and port of the provider's server_url."""
    parts = urlsplit(provider.app.settings["server_url"])
    return f"{parts.scheme}://{parts.netloc}"


def _guarded(view, *, leaves_for_provider: bool = False):
    """allauth's provider view, with what a failing provider raises turned into the
    sign-in-failed page (allauth catches some of it in the callback, none in the
    redirect to the provider, which first reads the provider's configuration).

    `leaves_for_provider`: the view's page is a form whose answer redirects to the
    provider; the site's CSP (form-action 'self') would stop that redirect, so the
    page's own policy also allows the provider's origin (its server_url's: where
    Keycloak, Google, Authentik and the like have their sign-in page too)."""

    @functools.wraps(view)
    def guarded(request, provider_id):
        try:
            response = view(request, provider_id)
        except PROVIDER_FAILURES as error:
            try:
                provider = get_adapter().get_provider(request, provider_id)
            except SocialApp.DoesNotExist:
                raise Http404 from error
            return render_authentication_error(request, provider, exception=error)
        if leaves_for_provider and request.method == "GET" and response.status_code == 200:
            provider = get_adapter().get_provider(request, provider_id)
            # django-csp's per-response addition (what its csp_update decorator sets).
            response._csp_update = {"form-action": [provider_origin(provider)]}
        return response

    return guarded


# slugline/urls.py routes the provider's URLs (/accounts/oidc/<id>/login/ and
# …/login/callback/, named by allauth) here, ahead of allauth's own.
login = _guarded(oidc_views.login, leaves_for_provider=True)
callback = _guarded(oidc_views.callback)
