"""The dashboard's webhook form: a URL the webhooks may call (webhooks/targets.py,
checked against what its host resolves to now) and the events it hears."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from webhooks import conf, hooks, targets

EVENT_LABELS = {
    "comment.posted": _("A comment is posted"),
    "comment.approved": _("An editor approves a comment"),
    "comment.held": _("A comment goes to the moderation queue"),
    "comment.flagged": _("A reader flags a comment"),
    "comment.deleted": _("A comment is deleted or marked spam"),
    "comment.voted": _("A reader votes on a comment"),
}


class WebhookForm(forms.Form):
    url = forms.CharField(max_length=targets.MAX_LENGTH, label=_("URL"),
                          help_text=_("Signed POST requests go here (https:// recommended)."))
    events = forms.MultipleChoiceField(
        choices=[(event, f"{event}: {EVENT_LABELS[event]}") for event in hooks.EVENTS],
        initial=list(hooks.DEFAULT_EVENTS), widget=forms.CheckboxSelectMultiple, label=_("Events"),
    )
    active = forms.BooleanField(required=False, initial=True, label=_("On (deliveries are sent)"))

    def clean_url(self) -> str:
        url = self.cleaned_data["url"].strip()
        try:
            targets.check(url, allow_private=conf.get().allow_private)
        except targets.BadTarget as exc:
            raise forms.ValidationError(exc.translated(), code=exc.code) from None
        return url
