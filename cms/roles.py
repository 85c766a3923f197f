"""The site's roles: staff users are authors; editors (staff who are members of the
"Editors" group, or superusers) edit every post, moderate and rename authors. A user
who is not staff is no editor, superuser or not: the dashboard is for staff only."""

from django.contrib.auth import get_user_model
from django.db.models import Q

EDITORS_GROUP = "Editors"


def is_editor(user) -> bool:
    """Editors edit every post, moderate and rename authors."""
    if not (user.is_authenticated and user.is_active and user.is_staff):
        return False
    return user.is_superuser or user.groups.filter(name=EDITORS_GROUP).exists()


def editors():
    """The active editors with an address, by the rule of `is_editor`: staff who are
    superusers or in the Editors group."""
    users = get_user_model().objects.filter(is_active=True, is_staff=True).exclude(email="")
    return users.filter(Q(is_superuser=True) | Q(groups__name=EDITORS_GROUP)).distinct()
