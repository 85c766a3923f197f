from django.urls import include, path

from dashboard import api_tokens, media, moderation, views, webhooks

app_name = "dashboard"

urlpatterns = [
    path("", views.post_list, name="posts"),
    path("posts/new/", views.post_create, name="post_create"),
    path("posts/<str:post_id>/", views.post_edit, name="post_edit"),
    path("posts/<str:post_id>/versions/", views.version_list, name="versions"),
    path("posts/<str:post_id>/versions/<str:version_id>/", views.version_detail, name="version"),
    path(
        "posts/<str:post_id>/versions/<str:version_id>/restore/",
        views.version_restore,
        name="version_restore",
    ),
    path("profile/", views.profile, name="profile"),
    path("authors/", views.author_list, name="authors"),
    path("authors/<str:username>/", views.author_edit, name="author_edit"),
    # Opening or closing a post's comments (dashboard/moderation.py).
    path("posts/<str:post_id>/comments/", moderation.post_comments, name="post_comments"),
    # The comments app's moderation queue and blocklist, in the dashboard's namespace
    # (dashboard:moderation, :moderate, :blocklist, :blocklist_remove).
    path("moderation/", include("comments.moderation.urls")),
    # The media library (dashboard/media.py).
    path("media/", media.media_library, name="media"),
    path("media/<str:key>/", media.media_image, name="media_image"),
    path("media/<str:key>/delete/", media.media_delete, name="media_delete"),
    # API tokens (dashboard/api_tokens.py).
    path("api-tokens/", api_tokens.token_list, name="api_tokens"),
    path("api-tokens/<str:token_id>/revoke/", api_tokens.token_revoke, name="api_token_revoke"),
    # Webhooks (dashboard/webhooks.py).
    path("webhooks/", webhooks.webhook_list, name="webhooks"),
    path("webhooks/<str:hook_id>/", webhooks.webhook_detail, name="webhook"),
    path("webhooks/<str:hook_id>/test/", webhooks.webhook_test, name="webhook_test"),
    path("webhooks/<str:hook_id>/delete/", webhooks.webhook_delete, name="webhook_delete"),
]
