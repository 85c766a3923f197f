"""Slugline's URLs without the site-wide mount of the subscription pages
(`include("comments.notifications.urls")`): a host with the five lines alone, whose
mail links under each post's comments prefix (test_subscription_mounts.py)."""

from slugline import urls as slugline_urls

urlpatterns = [pattern for pattern in slugline_urls.urlpatterns
               if getattr(pattern, "app_name", None) != "subscriptions"]

handler400 = slugline_urls.handler400
handler403 = slugline_urls.handler403
handler404 = slugline_urls.handler404
