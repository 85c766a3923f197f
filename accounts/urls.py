"""A signed-in member's own pages, beside django-allauth's under /accounts/ (included
before allauth.urls, which has none of these paths)."""

from django.urls import path

from accounts import api_tokens, deletion, export, views

urlpatterns = [
    path("comments/", views.my_comments, name="account_comments"),
    path("replies/", views.replies, name="account_replies"),
    path("notifications/", views.notifications, name="account_notifications"),
    path("profile/", views.profile_settings, name="account_profile_settings"),
    path("export/", export.export, name="account_export"),
    path("api-tokens/", api_tokens.token_list, name="account_api_tokens"),
    path("api-tokens/<str:token_id>/revoke/", api_tokens.token_revoke, name="account_api_token_revoke"),
    path("delete/", deletion.delete_account, name="account_delete"),
    path("delete/<str:erasure_id>/", deletion.account_deleted, name="account_deleted"),
]
