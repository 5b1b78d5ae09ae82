"""Learner accounts: sign-up, sign-in and password reset by email (django-allauth), the
"Your learning" dashboard, and attaching anonymous progress to the account at sign-in."""
