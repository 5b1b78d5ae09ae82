from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "mathmachine.accounts"
    verbose_name = "Learner accounts"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the progress claim to user_logged_in)
