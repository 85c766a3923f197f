from allauth.account import views as account_views
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path, register_converter

from accounts import social
from accounts import views as account_views_own
from cms import feeds, views
from cms.sitemaps import SITEMAPS
from cms.slugs import SlugConverter
from slugline import health

# A post's slug may be in any script (a Hindi title keeps its Devanagari): cms/slugs.py.
register_converter(SlugConverter, "post_slug")

urlpatterns = [
    path("", views.home, name="home"),
    path("posts/<post_slug:slug>/", views.post_detail, name="post"),
    path("posts/<post_slug:discussion>/comments/", include("comments.urls")),
    path("notifications/", include("comments.notifications.urls")),
    path("admin/", admin.site.urls),
    path("healthz/live", health.live, name="health_live"),
    path("healthz/ready", health.ready, name="health_ready"),
    path("authors/<str:username>/", views.author, name="author"),
    # `path`, not `str`: a tag may hold any character, and no link to one may fail.
    path("tags/<path:tag>/", views.tag, name="tag"),
    path("search/", views.search, name="search"),
    path("feeds/latest/rss/", feeds.LatestPostsFeed(), name="feed_latest_rss"),
    path("feeds/latest/atom/", feeds.LatestPostsAtomFeed(), name="feed_latest_atom"),
    path("feeds/tags/<path:tag>/rss/", feeds.TagFeed(), name="feed_tag_rss"),
    path("feeds/tags/<path:tag>/atom/", feeds.TagAtomFeed(), name="feed_tag_atom"),
    path("feeds/posts/<post_slug:slug>/comments/rss/", feeds.PostCommentsFeed(), name="feed_comments_rss"),
    path("feeds/posts/<post_slug:slug>/comments/atom/", feeds.PostCommentsAtomFeed(), name="feed_comments_atom"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("robots.txt", views.robots, name="robots"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("dashboard/", include("dashboard.urls")),
    path("media/", include("media.urls")),
    path("api/", include("api.urls")),
    # One login page for readers and editors: django-allauth's, also under the names
    # "login" and "logout" the rest of the site reverses (docs/accounts.md).
    path("accounts/login/", account_views.login, name="login"),
    path("accounts/logout/", account_views.logout, name="logout"),
    # An OpenID Connect provider's two views (allauth's, reversed by allauth's names),
    # answering a provider that fails with a page instead of a 500 (accounts/social.py).
    path("accounts/oidc/<str:provider_id>/login/", social.login),
    path("accounts/oidc/<str:provider_id>/login/callback/", social.callback),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("members/<str:member>/", account_views_own.member, name="member"),
    # Django's set_language: POST /i18n/setlang/ (the switcher on every page).
    path("i18n/", include("django.conf.urls.i18n")),
]

handler400 = "slugline.errors.bad_request"
handler403 = "slugline.errors.permission_denied"
handler404 = "slugline.errors.page_not_found"
# Not Django's: django-allauth looks for it, for a request its rate limits refuse.
handler429 = "slugline.errors.too_many_requests"
