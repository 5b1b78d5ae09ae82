from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.urls import include, path

from . import pwa

# The admin signs in through the site's sign-in page, with its limits on failed attempts
# (docs/accounts.md): Django's own admin form counted nothing.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]
# No navigation sidebar (the index and the breadcrumbs lead everywhere): its 300 px let the
# orders list and its filters not fit a 1280 px screen (tests/browser/test_admin_layout.py).
admin.site.enable_nav_sidebar = False

urlpatterns = [
    # The installable app: its manifest and its service worker, at the root (docs/offline.md).
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),  # sign up, sign in, sign out, password reset
    path("", include("mathmachine.accounts.urls")),  # "Your learning"
    path("billing/", include("mathmachine.billing.urls")),  # orders, receipts, refunds, webhooks
    path("", include("mathmachine.learning.urls")),
]

# A database outage is a 503 "back in a moment" page; other errors Django's 500 (web/errors.py).
handler500 = "mathmachine.web.errors.server_error"
