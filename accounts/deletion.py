"""/accounts/delete/: a signed-in member closes their account. The page asks for the
password (or, for an account without one, a code it mails), then closes the account at
once and starts the erasure of its data, doing a bounded share of it in the request;
/accounts/delete/<erasure id>/ says whether the rest is done (the worker finishes it)."""

from __future__ import annotations

from allauth.account.adapter import get_adapter
from allauth.core import ratelimit
from bson.errors import InvalidId
from bson import ObjectId
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import closing
from accounts.forms import NO_CODE, WRONG_CODE, DeleteAccountForm
from comments import api as comments_api

# The share of the erasure a request does, at most (and within its MongoDB budget).
IN_REQUEST_SECONDS = 1.0
CODE_SENT = gettext_noop("We mailed a code to {email}. It works once, for {minutes} minutes.")
NO_ADDRESS = gettext_noop("This account has no verified address to mail a code to. Add one first.")
TOO_MANY_CODES = gettext_noop("Too many codes asked for. Wait a minute, then ask again.")
NO_SUCH_ERASURE = gettext_noop("No erasure has this number.")


def _send_code(request: HttpRequest) -> None:
    """Mail a new code to the account's verified address (the session keeps its digest)."""
    email = closing.verified_address(request.user)
    if email is None:
        messages.error(request, gettext(NO_ADDRESS))
        return
    if not ratelimit.consume(request, action="reauthenticate", user=request.user):
        messages.error(request, gettext(TOO_MANY_CODES))
        return
    code = closing.new_code()
    request.session[closing.SESSION_KEY] = closing.remember_code(code, user_id=request.user.pk, now=closing.now())
    get_adapter(request).send_mail("account/email/delete_code", email, {"code": code})
    messages.success(request, gettext(CODE_SENT).format(email=email, minutes=settings.ACCOUNT_CODE_MINUTES))


def _code_confirms(request: HttpRequest, form: DeleteAccountForm) -> bool:
    """Whether the form's code is the one mailed (used up either way when right)."""
    checked = closing.check_code(request.session.get(closing.SESSION_KEY), form.cleaned_data["code"],
                                 user_id=request.user.pk, now=closing.now())
    if checked.kept is None:
        request.session.pop(closing.SESSION_KEY, None)
    else:
        request.session[closing.SESSION_KEY] = checked.kept
    if not checked.ok:
        form.add_error("code", forms.ValidationError(WRONG_CODE if checked.reason == "wrong" else NO_CODE,
                                                     code=checked.reason))
    return checked.ok


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    """Ask first, then close the account and erase its data (module docstring)."""
    user = request.user
    if request.method == "POST" and request.POST.get("action") == "send_code" and not user.has_usable_password():
        _send_code(request)
        return redirect("account_delete")
    form = DeleteAccountForm(request.POST if request.method == "POST" else None, user=user)
    if request.method == "POST" and form.is_valid() and ("code" not in form.fields or _code_confirms(request, form)):
        erasure = closing.close_account(user, session=request.session)
        comments_api.run_erasure(erasure_id=erasure.id, seconds=IN_REQUEST_SECONDS)
        return redirect("account_deleted", erasure_id=str(erasure.id))
    status = 400 if form.is_bound else 200
    context = {"form": form, "code_sent": closing.SESSION_KEY in request.session}
    return render(request, "account/delete.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD"])
def account_deleted(request: HttpRequest, erasure_id: str) -> HttpResponse:
    """Where an erasure stands: done, or under way (with what is done so far)."""
    try:
        erasure = comments_api.erasure(erasure_id=ObjectId(erasure_id))
    except InvalidId:
        erasure = None
    if erasure is None:
        raise Http404(gettext(NO_SUCH_ERASURE))
    return render(request, "account/deleted.html", {"erasure": erasure})
