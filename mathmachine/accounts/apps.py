from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "mathmachine.accounts"
    verbose_name = "Learner accounts"

    def ready(self) -> None:
        from . import checks, signals  # noqa: F401  (the deploy check; the progress claim)
