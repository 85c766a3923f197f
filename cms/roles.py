"""The site's roles: staff users are authors; editors (members of the "Editors"
group, or superusers) edit every post, moderate and rename authors."""

from django.contrib.auth import get_user_model
from django.db.models import Q

EDITORS_GROUP = "Editors"


def is_editor(user) -> bool:
    """Editors edit every post, moderate and rename authors."""
    if not (user.is_authenticated and user.is_active and user.is_staff):
        return False
    return user.is_superuser or user.groups.filter(name=EDITORS_GROUP).exists()


def editors():
    """The active editors with an address: the Editors group's staff, and superusers."""
    users = get_user_model().objects.filter(is_active=True).exclude(email="")
    return users.filter(Q(is_superuser=True) | Q(is_staff=True, groups__name=EDITORS_GROUP)).distinct()
