from django.apps import AppConfig


class LearningConfig(AppConfig):
    name = "mathmachine.learning"
    label = "learning"
    verbose_name = "Learning: units, checks and progress"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import offline  # noqa: F401  (Clear-Site-Data on sign-out: its signal receiver)
