"""`Vary: Cookie` wherever `Vary: Accept-Language` is said.

Django's LocaleMiddleware picks a reader's language from the language cookie before
Accept-Language, yet says only `Vary: Accept-Language`. Pages that read the session
vary by Cookie anyway; feeds, robots.txt and the like do not, so a shared cache
would hand one reader's language to another. Listed just above LocaleMiddleware, this
sees every answer LocaleMiddleware has marked and adds Cookie to it.
"""

from django.utils.cache import patch_vary_headers


class LanguageCookieVaryMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.has_header("Vary") and "accept-language" in response["Vary"].lower():
            patch_vary_headers(response, ("Cookie",))
        return response
