from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "mathmachine.billing"
    label = "billing"
    verbose_name = "Billing: products, orders, refunds and access"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the Razorpay configuration checks)
        from .providers.testmode import TestModeProvider
        from .webhooks import webhook_receive

        # The test-mode provider delivers its webhooks to the code that receives Razorpay's.
        TestModeProvider.receiver = staticmethod(webhook_receive)
