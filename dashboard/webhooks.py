"""The dashboard's webhooks pages (editors): the list with the form that makes one
(its secret shown once, from the session, as API tokens' are), a webhook's page
with its settings, its delivery log and "send a test event", and removing one. The
webhooks themselves are the webhooks app's; nothing here sends anything."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from dashboard.permissions import editor_required
from dashboard.rendering import render_page
from dashboard.webhook_forms import WebhookForm
from infra.http import see_other
from webhooks import deliveries, events, hooks

SAVED = gettext_noop("The webhook is saved.")
REMOVED = gettext_noop("The webhook and its delivery log are removed.")
TEST_QUEUED = gettext_noop("A test event is on its way: its attempt appears in the log below within seconds.")
# The session key that carries a new webhook's secret to the one page that shows it.
NEW_SECRET = "dashboard_webhook_secret"


def _hook_or_404(hook_id: str) -> hooks.Hook:
    hook = hooks.get_hook(hook_id)
    if hook is None:
        raise Http404(hook_id)
    return hook


@editor_required
@require_http_methods(["GET", "HEAD", "POST"])
def webhook_list(request):
    """Every webhook, and the form that makes one."""
    form = WebhookForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        hook = hooks.create_hook(url=form.cleaned_data["url"], events=form.cleaned_data["events"],
                                 created_by=request.user.get_username(), active=form.cleaned_data["active"])
        request.session[NEW_SECRET] = hook.secret
        return see_other(reverse("dashboard:webhook", args=[hook.id]))
    return render_page(request, "dashboard/webhook_list.html", {"form": form, "hooks": hooks.all_hooks()},
                       status=400 if form.is_bound else 200)


@editor_required
@require_http_methods(["GET", "HEAD", "POST"])
def webhook_detail(request, hook_id):
    """A webhook: its settings (changed by POST), its newest deliveries with every attempt."""
    hook = _hook_or_404(hook_id)
    initial = {"url": hook.url, "events": list(hook.events), "active": hook.active}
    form = WebhookForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        hooks.update_hook(hook_id=hook.id, url=form.cleaned_data["url"], events=form.cleaned_data["events"],
                          active=form.cleaned_data["active"])
        messages.success(request, gettext(SAVED))
        return see_other(reverse("dashboard:webhook", args=[hook.id]))
    context = {"hook": hook, "form": form, "secret": request.session.pop(NEW_SECRET, ""),
               "deliveries": deliveries.for_hook(hook_id=hook.id)}
    status = 400 if form.is_bound else 200
    response = render_page(request, "dashboard/webhook_detail.html", context, status=status)
    response["Cache-Control"] = "private, no-store"  # the secret stays in no cache
    return response


@editor_required
@require_POST
def webhook_test(request, hook_id):
    hook = _hook_or_404(hook_id)
    events.send_test(hook)
    messages.success(request, gettext(TEST_QUEUED))
    return see_other(reverse("dashboard:webhook", args=[hook.id]))


@editor_required
@require_POST
def webhook_delete(request, hook_id):
    hook = _hook_or_404(hook_id)
    hooks.delete_hook(hook_id=hook.id)
    deliveries.forget_hook(hook_id=hook.id)
    messages.success(request, gettext(REMOVED))
    return see_other(reverse("dashboard:webhooks"))
