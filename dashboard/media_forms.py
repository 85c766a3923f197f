"""The media library's forms: upload, edit an image's texts, search. Every error has
a code; the messages tests check are the constants below."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from media import images, pending, services

ALT_MAX_LENGTH = 300
CAPTION_MAX_LENGTH = 500
SEARCH_MAX_LENGTH = 100

NO_FILE = _("Choose a picture to upload.")
ALT_REQUIRED = _(
    "Describe the picture for people who cannot see it, or mark it as decorative "
    "if it adds nothing to the text."
)
ALT_HELP = _("What the picture shows, for readers who cannot see it. Required unless it is decorative.")
DECORATIVE_HELP = _("Only ornament: screen readers pass over it (its alt text is empty).")
TOO_LONG = _("This can be at most %(limit_value)d characters; it has %(show_value)d.")
FILE_HELP = _("JPEG, PNG, WebP or GIF.")
KEPT_FILE = _("Kept from your last try: “%(name)s”. Choose another file only to replace it.")


class ImageTextsForm(forms.Form):
    """An image's alt text, decorative mark and caption: alt text is required unless
    the image is decorative, and a decorative image has none."""

    alt = forms.CharField(label=_("Alt text"), required=False, max_length=ALT_MAX_LENGTH, help_text=ALT_HELP,
                          error_messages={"max_length": TOO_LONG})
    decorative = forms.BooleanField(label=_("Decorative"), required=False, help_text=DECORATIVE_HELP)
    caption = forms.CharField(label=_("Caption"), required=False, max_length=CAPTION_MAX_LENGTH,
                              error_messages={"max_length": TOO_LONG},
                              help_text=_("Shown under the picture where a post shows it as a figure."))

    def clean(self):
        data = super().clean()
        alt = " ".join(data.get("alt", "").split())
        if data.get("decorative"):
            data["alt"] = ""
        elif not alt and "alt" not in self.errors:
            self.add_error("alt", forms.ValidationError(ALT_REQUIRED, code="alt_required"))
        else:
            data["alt"] = alt
        data["caption"] = " ".join(data.get("caption", "").split())
        return data


class UploadForm(ImageTextsForm):
    """A new picture for the library: the file, checked and processed on validation
    (so a refused file is a form error and nothing is stored)."""

    file = forms.FileField(label=_("Picture"), error_messages={"required": NO_FILE, "empty": NO_FILE},
                           help_text=FILE_HELP,
                           widget=forms.ClearableFileInput(attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}))
    field_order = ["file", "alt", "decorative", "caption"]

    def __init__(self, *args, kept: pending.Pending | None = None, **kwargs):
        """`kept`: the picture this user sent with a form refused for another field
        (media/pending.py), used when no file is sent this time."""
        super().__init__(*args, **kwargs)
        self.show_kept(kept)

    def show_kept(self, kept: pending.Pending | None) -> None:
        """Name the kept picture by the file field, and send its token back (the template)."""
        self.kept = kept
        self.fields["file"].required = kept is None
        help_text = KEPT_FILE % {"name": kept.name} if kept else FILE_HELP
        # Also on the bound field, which validation made with the help text it had then.
        self.fields["file"].help_text = self["file"].help_text = help_text

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload:  # none sent: the kept one (the field is required without)
            return None
        try:
            images.check_size(upload.size, limits=services.limits())
            images.check_header(upload.read(), limits=services.limits())
            upload.seek(0)
        except images.ImageRefused as exc:
            raise forms.ValidationError(gettext(exc.message), code=exc.code, params=exc.params) from None
        return upload

    def picture(self) -> tuple[bytes, str]:
        """The picture's bytes and file name: the file sent, else the one kept."""
        upload = self.cleaned_data["file"]
        if upload:
            return upload.read(), upload.name or ""
        assert self.kept is not None
        return self.kept.data, self.kept.name


class MediaSearchForm(forms.Form):
    q = forms.CharField(label=_("Name or alt text contains"), required=False, max_length=SEARCH_MAX_LENGTH,
                        error_messages={"max_length": TOO_LONG})
