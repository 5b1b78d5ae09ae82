from django.apps import AppConfig


class MailConfig(AppConfig):
    name = "mathmachine.mail"
    label = "mail"
    verbose_name = "Outgoing mail"
    default_auto_field = "django.db.models.BigAutoField"
