"""Send again the emails that could not be sent when they were written (the outbox)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from mathmachine.mail.services import outbox_send_due


class Command(BaseCommand):
    help = "Send the outbox's due messages (run every minute, or with --every SECONDS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every", type=float, default=0, help="keep running, every SECONDS (e.g. 60)"
        )

    def handle(self, *args: Any, every: float = 0, **options: Any) -> None:
        while True:
            report = outbox_send_due()
            self.stdout.write(
                f"outbox: {report.sent} sent, {report.failed} to try again, "
                f"{report.given_up} given up"
            )
            if not every:
                return
            time.sleep(every)
